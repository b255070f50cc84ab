"""The wall head touched while the calls on a discard are still open (seed 000 摸打規條 2, 5;
RULES.md 3.6).

The next player who touches the wall head has given up his calls on that discard (摸打規條 2),
his win too (鳴牌 4 counts 銃和 among the calls), unless another player calls that discard: then
he may still win on it by 鳴牌優先規條. CCM's rule differs (seed 004 第一條三十五): the first in
order who reached for the wall may win while nobody later has, but once a later player has won
on that discard his own win call is void. If another player pungs or kongs the discard before
the next player's tile is merged into his rack, he puts it back, and the player who draws next
(the caller's next) chooses: take it as usual, or leave it to him as his next draw and take the
one after it (摸打規條 5). The referee enters a touch he saw (a touch is no movement the
readers see); the sensed table enters it when the next player's draw reached his rack after a
call laid out before it (engine/moves.py). The tile itself is never named: it stays concealed.
"""

from engine import events as ev
from engine.hand import KONG, PUNG
from engine.hand_state import HandState, Refusal, seated
from engine.referee import Referee
from engine.rulebook import WIN_UNLESS_CALLED, WIN_UNTIL_A_LATER_WINS, TableRules
from engine.seats import letter
from engine.wall import Position


class Touches:
    """Who touched the wall head on the open window, and what it leaves for the draws after."""

    def __init__(self, hand: HandState, referee: Referee, rules: TableRules):
        self.hand, self.referee = hand, referee
        self.rule, self.claim_rule = rules.refs.get("wall", ""), rules.refs.get("claim", "")
        self.win_rule = rules.touch_and_win
        self.touched: int | None = None  # the next player, having touched the head
        self.put_back: tuple[int, int, int] | None = None  # (toucher, tile, who chooses)
        self.kept: tuple[int, int] | None = None  # (toucher, tile): left to him, his next draw

    def check(self, event: ev.WallTouched, open_window: bool) -> Refusal | None:
        seat = seated(event)
        if not open_window or seat != self.hand.after_discarder:
            return Refusal(
                "claim",
                f"{letter(seat)} touching the wall head matters only while the calls on a "
                "discard are open and the next draw is his (摸打規條 2)",
            )
        return None

    def touch(self, event: ev.WallTouched) -> list[ev.Event]:
        self.touched = seated(event)
        return []

    def forfeits(self, seat: int, claim: str) -> Refusal | None:
        """His calls on this discard are gone once he touched the wall; his win as the rule
        book says (`TableRules.touch_and_win`)."""
        if seat != self.touched:
            return None
        if claim == "win":
            return self._win_forfeited(seat)
        return Refusal(
            "claim",
            f"{letter(seat)} touched the wall head: his calls on this discard are given up "
            "(摸打規條 2)",
            offence="late_call",
        )

    def _win_forfeited(self, seat: int) -> Refusal | None:
        others = {s: c.claim for s, c in self.hand.calls.items() if s != seat}
        if self.win_rule == WIN_UNLESS_CALLED and not others:
            return Refusal(
                "claim",
                f"{letter(seat)} touched the wall head: his win on this discard is given up "
                "with his calls, as no other player has called it (摸打規條 2, 鳴牌 4)",
                offence="late_call",
            )
        later = [s for s, claim in others.items() if claim == "win"]
        if self.win_rule == WIN_UNTIL_A_LATER_WINS and later:
            return Refusal("claim", self._void(seat, later[0]), offence="late_call")
        return None

    def _void(self, seat: int, later: int) -> str:
        return (
            f"{letter(seat)} reached for the wall and {letter(later)}, later in order, has "
            f"won on the discard: {letter(seat)}'s win call is void (seed 004 第一條三十五 "
            "「此時第一家反悔和牌無效」)"
        )

    def later_win(self, t: float, seat: int, claim: str) -> list[ev.Event]:
        """Seed 004 第一條三十五: a later player's win voids the win the first in order called
        after reaching for the wall, whichever call came first."""
        toucher = self.touched
        call = None if toucher is None else self.hand.calls.get(toucher)
        if self.win_rule != WIN_UNTIL_A_LATER_WINS or claim != "win" or seat == toucher:
            return []
        if toucher is None or call is None or call.claim != "win":
            return []
        del self.hand.calls[toucher]
        return [self.referee.alert(t, toucher, self.claim_rule, self._void(toucher, seat))]

    def granted(self, t: float, caller: int, claim: str) -> list[ev.Event]:
        """A pung or kong takes the discard from under the toucher's draw: he puts the tile
        back, and the caller's next player chooses (摸打規條 5)."""
        toucher, self.touched = self.touched, None
        if toucher is None or claim not in (PUNG, KONG):
            return []
        wall = self.hand.broken_wall
        tile = wall.tile_at(wall.next_draw_position)
        if tile is None:
            return []
        chooser = (caller + 1) % 4
        self.put_back = (toucher, tile, chooser)
        return [
            self.referee.alert(
                t,
                toucher,
                self.rule,
                f"{letter(toucher)} had taken up the wall head before {letter(caller)}'s "
                f"{claim}: he puts it back. {letter(chooser)}, next to draw, may take it as "
                f"usual, or leave it to {letter(toucher)} as his next draw and take the one "
                "after it (摸打規條 5)",
            )
        ]

    def discarded(self) -> None:
        """A new discard: a touch while the calls on the one before were open is spent."""
        self.touched = None

    def allowed(self, seat: int) -> tuple[Position | None, ...]:
        """Where the seat's next live draw may come from without a warning: the head; for
        the chooser of 摸打規條 5 the head or the one after it; for the toucher the tile left
        to him, for the others the one after it while it stands at the head."""
        wall = self.hand.broken_wall
        head, after = wall.live_position(0), wall.live_position(1)
        if self.put_back is not None and seat == self.put_back[2]:
            return (head, after)
        kept = None if self.kept is None else wall.position_of(self.kept[1])
        if kept is None or self.kept is None:
            return (head,)
        if seat == self.kept[0]:
            return (kept,)
        return (after,) if kept == head else (head,)

    def due(self, seat: int, tile: int | None) -> Position | None:
        """Where the seat's live draw of `tile` was due from (a warning if it came from
        elsewhere); the choice of 摸打規條 5 made, or the tile left to the toucher drawn."""
        allowed = self.allowed(seat)
        taken = None if tile is None else self.hand.broken_wall.position_of(tile)
        if self.put_back is not None and seat == self.put_back[2]:
            toucher, left, _ = self.put_back
            self.put_back = None
            if taken == allowed[1]:
                self.kept = (toucher, left)
        elif self.kept is not None and seat == self.kept[0]:
            self.kept = None
        return taken if taken in allowed else allowed[0]
