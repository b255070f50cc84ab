"""Declared wins at the table: checking them, their flags, who pays, settling them.

A part of the Table (engine/table.py). A declared win stands if the rule book scores it, the
winner may still win and no penalty tile bars it; otherwise it is a false win for the referee.
"""

from typing import NamedTuple

from engine import events as ev
from engine import tiles
from engine.calls import nearest_first, seat_name
from engine.hand import counts, waits
from engine.scoring import Score, Win, WinError, check


class WinResult(NamedTuple):
    winner: int
    from_seat: int | None
    score: dict  # the ruleset's Score.to_json()
    tile: int
    robbed: bool = False  # the tile was robbed from an added kong


class Winning:
    """The Table's wins (transitions callbacks by name)."""

    def _win_call_ok(self, event, from_seat: int, tile: int, robbing: bool) -> bool:
        if event.seat == from_seat:
            return self._refuse(event, "claim", "a player cannot call his own tile")
        if (
            self.chips is not None
            and self.rules.block_win_from_chipless
            and self.chips[from_seat] <= 0
        ):
            return self._refuse(
                event,
                "chips",
                f"no win on the tile of {seat_name(from_seat)}, who has no chips left",
            )
        barred = self.referee.bars_discard_win(event.seat, self.hands[event.seat], tile)
        return self._win_ok(
            event,
            self.score_for(event.seat, from_seat, tile, robbing),
            tile,
            barred,
            from_seat,
            robbing,
        )

    def _win_ok(
        self, event, score, tile: int, barred: str = "", from_seat=None, robbing=False
    ) -> bool:
        """A declared win stands if it scores, the winner may still win, no penalty tile
        bars it; otherwise it is a false win (錯和 / 詐和)."""
        seat = event.seat
        if self.referee.no_win[seat]:
            return self._refuse(
                event, "win", f"{seat_name(seat)} has lost the right to win this hand"
            )
        if barred:
            return self._refuse(
                event,
                "penalty_tile",
                f"{seat_name(seat)} may not win on this tile: {barred}",
                True,
                "wrong_call",
            )
        if score.legal:
            banned = self.chips is not None and self.ruleset.win_banned(
                self, WinResult(seat, from_seat, score.to_json(), tile, robbing)
            )
            return not banned or self._refuse(
                event, "game_end", f"{seat_name(seat)} may not win: {banned}"
            )
        kind = self._false_win_kind(seat, tile)
        if kind == "false_win" and self.rules.refuse_false_win_quietly:
            # A-W12 assisted: a complete hand the rule book refuses (no pattern) is turned
            # down before it is laid down, without penalty tiles.
            return self._refuse(
                event,
                "win",
                f"{seat_name(seat)}'s hand is complete but may not win: {score.reason}",
            )
        return self._refuse(
            event, "win", f"false win by {seat_name(seat)}: {score.reason}", True, kind
        )

    def _false_win_kind(self, seat: int, tile: int) -> str:
        """錯和: the tiles make a winning shape that breaks a condition (no pattern, no fan);
        詐和: one tile short or the wrong tile; two or more short: intentional (A-C19)."""
        held = list(self.hands[seat])
        if tile in held:
            held.remove(tile)
        hand_waits = waits(
            counts(tiles.kind_of(t) for t in held if not tiles.is_flower(tiles.kind_of(t))),
            len(self.melds[seat]),
        )
        if tiles.kind_of(tile) in hand_waits:
            return "false_win"
        if (
            hand_waits
            or not self.rules.penalties
            or "intentional_false_win" not in self.rules.penalties.offences
        ):
            return "incomplete_win"
        return "intentional_false_win"

    def self_draw_win_ok(self, e) -> bool:
        event = e.kwargs["event"]
        if event.seat != self.turn or self.owes[event.seat] or self.last_draw == "claim":
            return self._refuse(
                event,
                "turn",
                f"{seat_name(event.seat)} may declare a self-drawn "
                "win only on his own turn, after drawing",
            )
        tile = self.hands[event.seat][-1]
        return self._win_ok(event, self.score_for(event.seat, None, tile, False), tile=tile)

    def settle_wins(self, e) -> None:
        if e.event.name == "win":
            seat = e.kwargs["event"].seat
            winners = [(seat, None, self.hands[seat][-1], False)]
        elif self.added_kong:
            konger, tile = self.added_kong
            winners = [(s, konger, tile, True) for s in self._winning_seats(konger)]
        else:
            seat, tile = self.discards[-1]
            winners = [(s, seat, tile, False) for s in self._winning_seats(seat)]
        for winner, from_seat, tile, robbing in winners:
            responsible, proposed = self._responsible(winner, from_seat, tile, robbing)
            if proposed != responsible:
                self._emit(
                    self._alert(
                        None,
                        "exemption",
                        "follow-tile exemption (跟張免責): "
                        f"{seat_name(proposed)} rather than {seat_name(responsible)} would pay "
                        f"for {seat_name(winner)}'s win if the discarder claims it",
                        True,
                    )
                )
            score = self.score_for(winner, from_seat, tile, robbing)
            self.results.append(WinResult(winner, from_seat, score.to_json(), tile, robbing))
            self._emit(
                ev.Won(
                    self._now,
                    winner,
                    from_seat,
                    tile,
                    tuple(sorted(self._flags(winner, from_seat, robbing))),
                    score.to_json(),
                )
            )

    def _winning_seats(self, from_seat: int) -> list[int]:
        """RULES.md 3.7: one winner, the nearest after the discarder (截和); CCM (4.11): all,
        in counter-clockwise order from the discarder."""
        seats = nearest_first([s for s, c in self.calls.items() if c.claim == "win"], from_seat)
        return seats if self.rules.multiple_winners else seats[:1]

    def _flags(self, winner: int, from_seat: int | None, robbing: bool) -> set[str]:
        situations = set()
        if from_seat is None:
            if self.last_draw in ("kong", "flower"):
                situations.add(f"{self.last_draw}_replacement")
            if self.seabed_drawn and (
                self.last_draw != "kong" or self.rules.final_draw_with_win_on_kong
            ):
                situations.add("last_tile_draw")  # A-W10
            if (
                winner == 0
                and not self.discards
                and not (self.calls_made and self.rules.heaven_cancelled_by_kong)
            ):
                situations.add("heaven")
        else:
            if robbing:
                situations.add("robbing_kong")
            elif self.wall.live_count == 0:
                situations.add("last_tile_discard")
            if (
                len(self.discards) == 1
                and from_seat == 0
                and not robbing
                and not (self.calls_made and self.rules.earth_cancelled_by_call)
            ):
                situations.add("earth")
        return {self.rules.win_flags[s] for s in situations if s in self.rules.win_flags}

    def score_for(self, winner: int, from_seat: int | None, tile: int, robbing: bool = False):
        """The score a win would get now: the check behind every win call (and a dry run
        for simulated players)."""
        held = list(self.hands[winner])
        if from_seat is None:
            held.remove(tile)
        if any(tiles.is_flower(tiles.kind_of(t)) for t in held + [tile]):
            return Score(
                False,
                reason="a flower in hand: flowers are exposed and replaced "
                "before a win (RULES.md 4.5)",
            )
        responsible = self._responsible(winner, from_seat, tile, robbing)[0]
        win = Win(
            tuple(tiles.kind_of(t) for t in held),
            tuple(m.as_meld() for m in self.melds[winner]),
            tiles.kind_of(tile),
            from_seat is None,
            winner,
            from_seat,
            responsible,
            frozenset(self._flags(winner, from_seat, robbing)),
            tuple(tiles.kind_of(t) for t in self.flowers[winner]),
        )
        try:
            check(win)
        except WinError as err:  # the hand cannot be a win: wrong count, 5 alike
            return Score(False, reason=str(err))
        return self.ruleset.score(win)

    def would_win(
        self, winner: int, from_seat: int | None, tile: int, robbing: bool = False
    ) -> bool:
        """The win scores and the rule book allows it now (a player's own check before he
        declares; the simulated players ask it)."""
        score = self.score_for(winner, from_seat, tile, robbing)
        return score.legal and not (
            self.chips is not None
            and self.ruleset.win_banned(
                self, WinResult(winner, from_seat, score.to_json(), tile, robbing)
            )
        )

    def _responsible(
        self, winner: int, from_seat: int | None, tile: int, robbing: bool
    ) -> tuple[int | None, int | None]:
        """(who pays for a discard win, who would under the follow-tile exemption).

        A-W3: the table proposes the exemption; it applies only if the option says so."""
        if from_seat is None or self.rules.auto_exemption is None:
            return from_seat, from_seat
        history = self.discards if not robbing else self.discards + [(from_seat, tile)]
        proposed = self.ruleset.follow_exemption(history, winner, robbing)
        return (proposed if self.rules.auto_exemption else from_seat), proposed
