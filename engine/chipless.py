"""Winning off a player who has no chips left (seed 004 §35, §38 一 5 付分; RULES.md 4.11, A-C14).

「盤面無分者點炮，禁止和牌」: the win is not allowed. 「出現對無分者和牌，應向無分者罰分和牌得分，
並向三家各賠付10分」: a player who wins off him anyway pays him the win's score (a discard win's
is double, 第九條二: 2T, by the rule book's option) and 10 to each of the three. The table
does not refuse in silence: the referee is asked, the fine proposed; applied, it is paid at
once out of the chips as they are (capped at the winner's chips, A-C14) and every later check
in the hand sees the chips after it, as after the kongs and 追牌 paid on the spot
(engine/rulesets/ccm2012/ledger.py); waived, nothing is paid. Either way the hand goes on (the
call stays refused).
"""

from typing import TYPE_CHECKING, NamedTuple

from engine import events as ev
from engine.hand_state import Refusal
from engine.seats import letter

if TYPE_CHECKING:
    from engine.referee import Referee

RULE = "RULES.md 4.11 (A-C14)"
OFFENCE = "chipless_win"  # the name on its PenaltyApplied


class ChiplessFine(NamedTuple):
    """A fine for winning off a chip-less player, what it moves per seat (sum zero)."""

    winner: int
    chipless: int
    hand_score: int
    each: int  # to each of the three, besides the hand score to the chip-less player
    payments: tuple[int, ...]


def fine_payments(winner: int, chipless: int, hand_score: int, each: int) -> tuple[int, ...]:
    """The winner pays the chip-less player the hand score, and `each` to each of the three."""
    return tuple(
        -(hand_score + 3 * each) if s == winner else each + (hand_score if s == chipless else 0)
        for s in range(4)
    )


def propose(chips, winner: int, chipless: int, hand_score: int, each: int, factor: int):
    """The fine as it would be paid now: doubled by `factor` (倍打, A-C13), the receivers paid
    in turn order after the winner until his chips run out (A-C14)."""
    due = fine_payments(winner, chipless, factor * hand_score, factor * each)
    left, moved = max(chips[winner], 0), [0, 0, 0, 0]
    for offset in (1, 2, 3):
        receiver = (winner + offset) % 4
        amount = min(due[receiver], left)
        left -= amount
        moved[receiver], moved[winner] = amount, moved[winner] - amount
    return ChiplessFine(winner, chipless, factor * hand_score, factor * each, tuple(moved))


def fine_for(
    chips, doubling: bool, rules, referee, winner: int, from_seat: int, score, robbing: bool
):
    """The refusal of a win that would stand but for the discarder (or `robbing`, the konger)
    having no chips left now (`chips`: after what the hand paid on the spot), its fine held on
    the referee for the alert (Referee.offence); or None. The fine's hand score is the win's:
    T times the rule book's multiple for a discard win or a robbed kong."""
    if not forbids(chips, rules, from_seat):
        return None
    factor = rules.doubling_factor if doubling else 1
    each, (discard, robbed) = rules.chipless_win_fine_each, rules.chipless_win_fine_times
    won = (score.total or 0) * (robbed if robbing else discard)
    referee.fine_called = propose(chips, winner, from_seat, won, each, factor)
    return Refusal("chips", "a win off a player with no chips left", True, OFFENCE)


def forbids(chips, rules, from_seat: int | None) -> bool:
    """Nobody may win on the tile of `from_seat`: he has no chips left now and the option
    says so."""
    if chips is None or from_seat is None or not rules.block_win_from_chipless:
        return False
    return chips[from_seat] <= 0


def message(fine: ChiplessFine) -> str:
    """The alert's text: public, it names seats and amounts, never a tile."""
    w, c = letter(fine.winner), letter(fine.chipless)
    return (
        f"{w} may not win on the tile of {c}, who has no chips left (seed 004 盤面無分者點炮，"
        f"禁止和牌): proposed fine, {w} pays {c} the win's score {fine.hand_score} and "
        f"{fine.each} to each of the three (對無分者和牌 ... 罰分): 'apply' to fine him, 'waive' "
        "to let the hand go on without it"
    )


def ask(referee: "Referee", t, fine: ChiplessFine) -> ev.Alert:
    """The alert proposing the fine (Referee.offence); it awaits the referee's Ruling."""
    penalty = {"offence": OFFENCE, "points": fine.each, "payments": list(fine.payments)}
    alert = referee.alert(t, fine.winner, RULE, message(fine), True, penalty)
    referee.fines_asked[alert.id] = fine
    return alert


def rule(referee: "Referee", ruling: ev.Ruling) -> list[ev.Event]:
    """The referee's Ruling on the fine: applied, it is paid now (noted for the rule book to
    pay on the spot, HandState.paid_now); waived, not."""
    fine = referee.fines_asked[ruling.alert]
    if ruling.tiles:
        refused = f"ruling on alert {ruling.alert} refused: a fine names no tiles"
        return [referee.alert(ruling.t, fine.winner, RULE, refused)]
    del referee.fines_asked[ruling.alert]
    if not ruling.apply:
        return [ev.PenaltyWaived(ruling.t, fine.winner, ruling.alert)]
    referee.hand.paid_now("fine", fine.winner, payments=fine.payments)
    return [
        ev.PenaltyApplied(ruling.t, fine.winner, OFFENCE, RULE, fine.each, True, alert=ruling.alert)
    ]
