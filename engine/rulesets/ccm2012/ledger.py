"""現場匯: a CCM hand's payments in the order they happened, and what the game's end holds.

Kongs are paid the moment they are made (seed 004 §36 槓牌當時立即付分), 追牌 at its fourth
discard (§37), a penalty is deducted on the spot (第三章 第一條 二(二) 當場扣除), the fine for
winning off a chip-less player at once (§38 一 5): each later check in the hand sees the chips
after them, and the wins are paid out of what is left (RULES.md 4.10, 4.11).

A kong's or a penalty's payment that would end the game "non-victoriously" (two players left
without chips, its maker not first after it) is not paid: seed §32 holds it outside the table
and adds it after the game (「槓牌和處罰的得失分只能掛於盤外，局結後累積得分」). Seed §15 says
instead that such a kong scores nothing (「本次槓牌不得分」): `options.game_ending_kong` chooses,
"hold" (§32, the default) or "void" (§15); a penalty is held either way (§15 speaks of kongs).
A 追牌 is the first discarder's payment for a deed of his, held like a penalty (an inference:
§32 names kongs and penalties only). A penalty of an offence committed while another's win is
being confirmed (its `after_win`) is not paid on the spot: the win is scored first, and where
the hand ends the game it is added after the game's end (第三章 第二條 七(二) 先計分不罰分，
局結後罰分; `after_win`).
"""

from typing import NamedTuple

from engine import tiles
from engine.hand_state import Spot
from engine.rulesets.ccm2012 import reasons
from engine.rulesets.ccm2012.game_end import ends_game_unwon
from engine.rulesets.ccm2012.settlement import (
    Payments,
    Rates,
    chase_payer,
    chase_payments,
    doubled,
    kong_payments,
    pay,
)
from engine.transfers import PAYMENT, PENALTY


class Due(NamedTuple):
    """One payment due: its sheet column, who made it, what it would move, and why (a reason
    of engine/rulesets/ccm2012/reasons.py)."""

    column: str  # PAYMENT (kongs, 追牌, wins) or PENALTY (penalties, fines): the sheet's
    actor: int  # the konger, the first of the 追牌, the offender, the fined winner
    payments: Payments  # per seat, doubled while a winning dealer continues (A-C13)
    kong: bool = False
    reason: str = ""


class Ledger(NamedTuple):
    """The chips after the payments made, what each due moved (None: not paid now), and the
    dues held outside the table, in order."""

    chips: tuple[int, ...]
    moved: tuple[Payments | None, ...]
    held: tuple[Due, ...]


def penalty_due(rates: Rates, cap: int, penalty) -> Due:
    """What a penalty moves (RULES.md 4.15, seed 004 §38 一 6): its points to each of the other
    three; all of them (three times the points, at most `cap`, A-C18) to the player it
    disadvantaged (`to`); or, as dead points, out of the table."""
    seat, points = penalty.seat, penalty.points
    if penalty.to is not None:
        amount = min(3 * points, cap)
        paid = tuple(amount if s == penalty.to else -amount if s == seat else 0 for s in range(4))
        return Due(PENALTY, seat, paid, reason=reasons.PENALTY_TO)
    if not penalty.paid_to_others:
        paid = tuple(-3 * points if s == seat else 0 for s in range(4))
        return Due(PENALTY, seat, paid, reason=reasons.DEAD_POINTS)
    paid = tuple(-3 * points if s == seat else points for s in range(4))
    return Due(PENALTY, seat, paid, reason=reasons.PENALTY_EACH)


def dues(rates: Rates, cap: int, spot: tuple[Spot, ...], discards, doubling: bool) -> list[Due]:
    """The payments due on the spot, in the order they fell due: each noted kong, penalty and
    fine in its place, and each 追牌 at its fourth discard, before what followed that discard."""
    kinds = [(seat, tiles.kind_of(t)) for seat, t in discards]
    chases = [
        (end, chase_payer(kinds[end - 4 : end]))
        for end in range(4, len(kinds) + 1)
        if kinds[end - 4][1] == kinds[end - 1][1]  # a chase's first and last tile alike
    ]
    timed: list[tuple[int, int, Due]] = [
        (end, 0, Due(PAYMENT, payer, chase_payments(rates, payer), reason=reasons.CHASE))
        for end, payer in chases
        if payer is not None
    ]
    for n, item in enumerate(spot, 1):
        if item.kind in reasons.KONGS:
            paid = kong_payments(rates, item.seat, item.kind, item.feeder)
            due = Due(PAYMENT, item.seat, paid, True, reasons.KONGS[item.kind])
        elif item.penalty is not None:
            if not item.penalty.points or item.penalty.after_win:
                continue
            due = penalty_due(rates, cap, item.penalty)
        else:
            due = Due(PENALTY, item.seat, item.payments, reason=reasons.CHIPLESS_FINE)
        timed.append((item.at, n, due))
    return [
        due._replace(payments=doubled(rates, due.payments, doubling))
        for _, _, due in sorted(timed, key=lambda x: x[:2])
    ]


def after_win(rates: Rates, cap: int, spot: tuple[Spot, ...], doubling: bool) -> list[Due]:
    """The penalties settled after the hand's wins (seed 004 第三章 第二條 七(二)), in the
    order applied."""
    late = [
        penalty_due(rates, cap, item.penalty)
        for item in spot
        if item.penalty is not None and item.penalty.after_win and item.penalty.points
    ]
    return [due._replace(payments=doubled(rates, due.payments, doubling)) for due in late]


def run(rates: Rates, chips, due_list: list[Due], void_kongs: bool) -> Ledger:
    """Pay each due in order out of the chips as they are then (A-C14: never more than a
    payer holds), holding those §32 holds; a kong held is dropped instead under §15."""
    chips = tuple(chips)
    moved: list[Payments | None] = []
    held: list[Due] = []
    for due in due_list:
        after, (actual,) = pay(rates, chips, [due.payments])
        if ends_game_unwon(after, due.actor):
            moved.append(None)
            if not (due.kong and void_kongs):
                held.append(due)
            continue
        chips = after
        moved.append(actual)
    return Ledger(chips, tuple(moved), tuple(held))
