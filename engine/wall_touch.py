"""The wall head touched while the calls on a discard are still open (seed 000 摸打規條 2, 5;
RULES.md 3.6).

The next player who touches the wall head has given up his calls on that discard, though not
his win (摸打規條 2). If another player pungs or kongs the discard before the next player's tile
is merged into his rack, he puts it back, and the player who draws next (the caller's next)
chooses: take it as usual, or leave it to him as his next draw and take the one after it
(摸打規條 5). The referee enters a touch he saw (a touch is no movement the readers see); the
sensed table enters it when the next player's draw reached his rack after a call laid out
before it (engine/moves.py). The tile itself is never named: it stays concealed.
"""

from engine import events as ev
from engine.hand import KONG, PUNG
from engine.hand_state import HandState, Refusal, seated
from engine.referee import Referee
from engine.seats import letter
from engine.wall import Position


class Touches:
    """Who touched the wall head on the open window, and what it leaves for the draws after."""

    def __init__(self, hand: HandState, referee: Referee, rule: str):
        self.hand, self.referee, self.rule = hand, referee, rule
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
        """His calls on this discard are gone once he touched the wall; his win is not."""
        if seat != self.touched or claim == "win":
            return None
        return Refusal(
            "claim",
            f"{letter(seat)} touched the wall head: his calls on this discard are given up, "
            "though not his win (摸打規條 2)",
            offence="late_call",
        )

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
