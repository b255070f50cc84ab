"""How a win would score now, and whether the rule book allows it (engine/winning.py checks
and settles the wins declared on it): the scorer's flags of the moment, who pays for it (the
follow-tile exemption proposed), the hand as the rule book sees it (a frozen `HandOutcome`),
and the chips as they stand. A simulated player asks it too, before he declares.
"""

from engine import chipless, tiles
from engine.hand_state import HandState, Spot, WinResult
from engine.rescoring import Rescoring
from engine.rulebook import HandOutcome, Ruleset
from engine.scoring import Score, Win, WinError, check


class WinScoring:
    """The wins the hand's state would score now, under its rule book."""

    def __init__(self, hand: HandState, ruleset: Ruleset):
        self.hand, self.ruleset, self.rules = hand, ruleset, ruleset.table_rules

    def flags(
        self, winner: int, from_seat: int | None, robbing: bool, tile: int | None = None
    ) -> set[str]:
        """The scorer's flags a win would have now: replacement, last tile, heaven, earth,
        and with the winning `tile` the last copy..."""
        hand, rules = self.hand, self.rules
        situations = set() if tile is None else hand.last_copy(tile)
        if from_seat is None:
            if hand.last_draw in ("kong", "flower"):
                situations.add(f"{hand.last_draw}_replacement")
            if hand.last_tile_drawn and (
                hand.last_draw != "kong" or rules.final_draw_with_win_on_kong
            ):
                situations.add("last_tile_draw")  # A-W10
            if (
                winner == hand.east
                and not hand.discards
                and not (hand.calls_made and rules.heaven_cancelled_by_kong)
            ):
                situations.add("heaven")
        else:
            if robbing:
                situations.add("robbing_kong")
            elif hand.broken_wall.live_count < rules.last_tiles and hand.last_draw != "claim":
                situations.add("last_tile_discard")  # his discard after drawing a last tile
            if (
                len(hand.discards) == 1
                and from_seat == hand.east
                and not robbing
                and not (hand.calls_made and rules.earth_cancelled_by_call)
            ):
                situations.add("earth")
        return {rules.win_flags[s] for s in situations if s in rules.win_flags}

    def score_for(
        self,
        winner: int,
        from_seat: int | None,
        tile: int,
        robbing: bool = False,
        ruled: Rescoring | None = None,
    ) -> Score:
        """The score a win would get now: the check behind every win call (and a dry run
        for simulated players); `ruled`, as a referee's ruling on it would score it again."""
        hand = self.hand
        held = list(hand.hands[winner])
        if from_seat is None:
            held.remove(tile)
        if any(tiles.is_flower(tiles.kind_of(t)) for t in held + [tile]):
            return Score(
                False,
                reason="a flower in hand: flowers are exposed and replaced "
                "before a win (RULES.md 4.5)",
            )
        responsible = (
            self._responsible(winner, from_seat, tile, robbing)[0] if ruled is None else ruled.payer
        )
        win = Win(
            tuple(tiles.kind_of(t) for t in held),
            tuple(m.as_meld() for m in hand.melds[winner]),
            tiles.kind_of(tile),
            from_seat is None,
            winner,
            from_seat,
            responsible,
            frozenset(self.flags(winner, from_seat, robbing, tile))
            | (ruled.flags if ruled else set()),
            tuple(tiles.kind_of(t) for t in hand.flowers[winner]),
            tiles.wind((winner - hand.east) % 4),  # 做錯莊: the winds from the East kept
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
        if chipless.forbids(self.chips_now(), self.rules, from_seat):
            return False  # seed 004 盤面無分者點炮，禁止和牌
        score = self.score_for(winner, from_seat, tile, robbing)
        return score.legal and not self._banned(
            WinResult(winner, from_seat, score.to_json(), tile, robbing, self.hand.hung.get(winner))
        )

    def _responsible(
        self, winner: int, from_seat: int | None, tile: int, robbing: bool
    ) -> tuple[int | None, int | None]:
        """(who pays for a discard win, who would under the follow-tile exemption).

        A-W3: the table proposes the exemption; it applies only if the option says so."""
        if from_seat is None or self.rules.auto_exemption is None:
            return from_seat, from_seat
        discards = self.hand.discards
        history = discards if not robbing else discards + [(from_seat, tile)]
        proposed = self.ruleset.follow_exemption(history, winner, robbing)
        return (proposed if self.rules.auto_exemption else from_seat), proposed

    def outcome(self, proposed: WinResult | None = None) -> HandOutcome:
        """The hand as the rule book settles it, frozen; with `proposed`, as it would be
        after that win too."""
        hand = self.hand
        return HandOutcome(
            results=tuple(hand.results),
            spot=tuple(hand.spot),
            claims=tuple(hand.claims_log),
            discards=tuple(hand.discards),
            hands=tuple(map(tuple, hand.hands)),
            melds=tuple(map(tuple, hand.melds)),
            chips=None if hand.chips is None else tuple(hand.chips),
            doubling=hand.doubling,
            last_deal=hand.last_deal,
            time_up=hand.time_up,
            game_over=bool(hand.game_over),
            proposed=proposed,
            east=hand.east,
        )

    def held_now(self, spot: Spot) -> bool:
        """Paying `spot` now would be held outside the table (CCM 4.13, seed 004 §32)."""
        return self.hand.chips is not None and self.ruleset.spot_held(self.outcome(), spot)

    def chips_now(self) -> tuple[int, ...] | None:
        """The chips as they stand: the hand's start, after what it paid on the spot."""
        return None if self.hand.chips is None else self.ruleset.chips_now(self.outcome())

    def _banned(self, result: WinResult) -> str:
        """Why the rule book forbids this scoring win now (CCM 4.13), or ""."""
        if self.hand.chips is None:
            return ""
        return self.ruleset.win_banned(self.outcome(result))
