"""Declared wins at the table: checking them and settling them.

A declared win stands if the rule book scores it, the winner may still win and no penalty
tile bars it; otherwise it is a false win for the referee. The rule book sees the hand only
as a frozen `HandOutcome`, the win it is asked about included. How a win would score now,
and whether the rule book allows it, is engine/win_scoring.py's.
"""

from engine import chipless, tiles
from engine import events as ev
from engine.hand import counts, waits
from engine.hand_state import HandState, Refusal, WinResult, seated
from engine.referee import Referee
from engine.rescoring import Rescoring, drawn_tile_apart, drawn_tile_seen
from engine.rulebook import Ruleset
from engine.scoring import MIXED, Score
from engine.seats import letter
from engine.win_scoring import WinScoring


def nearest_first(seats: list[int], discarder: int) -> list[int]:
    """Seats in turn order after the discarder: right neighbour, opposite, left."""
    return sorted(seats, key=lambda s: (s - discarder) % 4)


class WinRules(WinScoring):
    """Win calls, self-drawn wins and their settlement, on the hand's state it is given."""

    def __init__(self, hand: HandState, ruleset: Ruleset, referee: Referee):
        super().__init__(hand, ruleset)
        self.referee = referee

    def call(
        self, seat: int, from_seat: int, tile: int, robbing: bool, shown: bool = False
    ) -> Refusal | None:
        """A call to win on a discard, or on a tile added to a kong (robbing it); `shown`,
        the caller had laid his hand out (a wrong win then is 錯和, else 空和)."""
        if seat == from_seat:
            return Refusal("claim", "a player cannot call his own tile")
        barred = self.referee.bars_discard_win(seat, self.hand.hands[seat], tile)
        score = self.score_for(seat, from_seat, tile, robbing)
        refusal = self._check(seat, score, tile, barred, from_seat, robbing, shown)
        if refusal is not None:
            return refusal
        chips, doubling = self.chips_now(), self.hand.doubling
        return chipless.fine_for(
            chips, doubling, self.rules, self.referee, seat, from_seat, score, robbing
        )

    def self_draw(self, event: ev.WinDeclared) -> Refusal | None:
        seat, hand = seated(event), self.hand
        if not hand.holds_turn(seat) or hand.last_draw == "claim":
            return Refusal(
                "turn",
                f"{letter(seat)} may declare a self-drawn win only on his own turn, after drawing",
            )
        tile = hand.hands[seat][-1]
        return self._check(seat, self.score_for(seat, None, tile, False), tile, shown=event.shown)

    def _check(
        self,
        seat: int,
        score: Score,
        tile: int,
        barred: str = "",
        from_seat: int | None = None,
        robbing: bool = False,
        shown: bool = False,
    ) -> Refusal | None:
        """A declared win stands if it scores, the winner may still win, no penalty tile
        bars it; otherwise it is a false win (錯和 / 詐和) or, the hand not shown, 空和."""
        if self.referee.no_win[seat]:
            return Refusal("win", f"{letter(seat)} has lost the right to win this hand")
        if barred:
            return Refusal(
                "penalty_tile",
                f"{letter(seat)} may not win on this tile: {barred}",
                True,
                "wrong_call",
            )
        if score.legal:
            hung = self.hand.hung.get(seat)
            banned = self._banned(WinResult(seat, from_seat, score.to_json(), tile, robbing, hung))
            return Refusal("game_end", f"{letter(seat)} may not win: {banned}") if banned else None
        kind = self._false_win_kind(seat, tile, shown)
        if kind == "false_win" and self.rules.refuse_false_win_quietly:
            # A-W12 assisted: a complete hand the rule book refuses (no pattern) is turned
            # down before it is laid down, without penalty tiles.
            return Refusal(
                "win", f"{letter(seat)}'s hand is complete but may not win: {score.reason}"
            )
        if kind == "empty_win":
            message = f"empty win (空和) by {letter(seat)}, called before his hand was shown"
            return Refusal("win", f"{message}: {score.reason}", True, kind)
        return Refusal("win", f"false win by {letter(seat)}: {score.reason}", True, kind)

    def _false_win_kind(self, seat: int, tile: int, shown: bool = False) -> str:
        """錯和: the tiles make a winning shape that breaks a condition (no pattern, no fan);
        詐和: one tile short or the wrong tile; two or more short: intentional (A-C19). Where
        the rule book has 空和 (WSOM, seed 000 錯鳴 7), a win called before the hand was shown
        is that: 3 penalty tiles, for 錯鳴 6's whole hand is the tiles exposed; a complete hand
        without a pattern too (issue 30 item 1) where the rule book says so (A-W12 "strict";
        "whole_hand" keeps it 錯和, "assisted" refuses it quietly)."""
        held = list(self.hand.hands[seat])
        if tile in held:
            held.remove(tile)
        hand_waits = waits(
            counts(tiles.kind_of(t) for t in held if not tiles.is_flower(tiles.kind_of(t))),
            len(self.hand.melds[seat]),
        )
        complete = tiles.kind_of(tile) in hand_waits
        offences = self.rules.penalties.offences if self.rules.penalties else {}
        if (
            not shown
            and "empty_win" in offences
            and (not complete or self.rules.unshown_false_win_is_empty)
        ):
            return "empty_win"
        if complete:
            return "false_win"
        if hand_waits or "intentional_false_win" not in offences:
            return "incomplete_win"
        return "intentional_false_win"

    def settle(self, event: ev.Event) -> list[ev.Event]:
        """The win declared, or the wins called on the closed window, as Won outputs."""
        hand, now = self.hand, event.t
        winners: list[tuple[int, int | None, int, bool]]  # (winner, from, tile, robbing)
        if isinstance(event, ev.WinDeclared):
            seat = seated(event)
            winners = [(seat, None, hand.hands[seat][-1], False)]
        elif hand.added_kong:
            konger, tile = hand.added_kong
            winners = [(s, konger, tile, True) for s in self._winning_seats(konger)]
        else:
            discarder, tile = hand.discards[-1]
            winners = [(s, discarder, tile, False) for s in self._winning_seats(discarder)]
        out: list[ev.Event] = []
        for winner, from_seat, tile, robbing in winners:
            responsible, proposed = self._responsible(winner, from_seat, tile, robbing)
            if proposed != responsible:
                out.append(
                    self.referee.propose_rescoring(
                        now,
                        "follow-tile exemption (跟張免責): "
                        f"{letter(proposed)} rather than {letter(responsible)} would pay "
                        f"for {letter(winner)}'s win if the discarder claims it",
                        Rescoring(
                            len(hand.results), proposed, self.rules.refs.get("exemption", "")
                        ),
                    )
                )
            score = self.score_for(winner, from_seat, tile, robbing)
            asked: list[ev.Alert] = []
            if from_seat is None and self.rules.drawn_tile_rule:
                seen = isinstance(event, ev.WinDeclared) and event.mixed_in
                score, asked = self._drawn_tile(now, winner, tile, score, seen)
            hung = hand.hung.get(winner)
            hand.results.append(WinResult(winner, from_seat, score.to_json(), tile, robbing, hung))
            flags = tuple(sorted(self.flags(winner, from_seat, robbing, tile)))
            out += [ev.Won(now, winner, from_seat, tile, flags, score.to_json()), *asked]
        return out

    def _drawn_tile(
        self, t: float, winner: int, tile: int, score: Score, seen_in_hand: bool
    ) -> tuple[Score, list[ev.Alert]]:
        """A self-drawn win whose drawn tile had to stay apart until it was shown (seed 000
        九蓮寶燈自摸規條; seed 004 單放): seen joining the hand, where the rule book reads the
        rack so, it is scored without what that loses; else the referee is asked (the
        score as it is, and the alert)."""
        mixed = Rescoring(len(self.hand.results), None, "", frozenset({MIXED}))
        again = self.score_for(winner, None, tile, ruled=mixed)
        rule = self.rules.drawn_tile_rule
        if seen_in_hand and self.rules.drawn_tile_in_rack_mixed:
            return again, drawn_tile_seen(self.referee, t, winner, score, again, rule)
        return score, drawn_tile_apart(self.referee, t, winner, score, again, mixed, rule)

    def rescore(self, ruling: ev.Ruling) -> list[ev.Event]:
        """The referee's Ruling on an alert proposing to score a win again: applied, it is
        scored as proposed (the discarder claimed the follow-tile exemption, seed 000 和牌的計分
        8; the drawn tile was mixed in, 九蓮寶燈自摸規條); waived, it stands as scored."""
        rescoring = self.referee.rescorings[ruling.alert]
        result = self.hand.results[rescoring.result]
        if ruling.tiles:
            message = f"ruling on alert {ruling.alert} refused: a win scored again names no tiles"
            return [self.referee.alert(ruling.t, result.from_seat, rescoring.rule, message)]
        del self.referee.rescorings[ruling.alert]
        if not ruling.apply:  # the alert's proposal waived: the win stands as scored
            return [ev.PenaltyWaived(ruling.t, result.from_seat, ruling.alert)]
        winner = result.winner
        score = self.score_for(winner, result.from_seat, result.tile, result.robbed, rescoring)
        self.hand.results[rescoring.result] = result._replace(score=score.to_json())
        return [ev.WinRescored(ruling.t, winner, rescoring.payer, score.to_json(), ruling.alert)]

    def _winning_seats(self, from_seat: int) -> list[int]:
        """RULES.md 3.7: one winner, the nearest after the discarder (截和); CCM (4.11): all,
        in counter-clockwise order from the discarder."""
        calls = self.hand.calls.items()
        seats = nearest_first([s for s, c in calls if c.claim == "win"], from_seat)
        return seats if self.rules.multiple_winners else seats[:1]
