"""Moves seen before the move that comes before them at the table (issue 4; issue 20 item 5).

The readers confirm a movement a few sweeps after it was made, and when reads are dropped one
may be confirmed after the next: a discard after the next player's draw, a discard before its
own draw, a flower before an earlier seat's replacement. Such a move waits, up to WAIT
seconds, until the hand would take it, so that the engine sees the hand in the order it was
played; one that never comes in order goes to the engine after its wait, and the engine says
what is wrong with it.
"""

from dataclasses import replace

from engine import events as ev
from engine.hand_state import seated
from engine.table import Table

Step = ev.TileDrawn | ev.TileDiscarded | ev.FlowerExposed  # a move that may wait its turn
HOLD = 3.0  # seconds a press waits for what comes before it
WAIT = 2 * HOLD  # a move seen early, or a meld laid out for its tiles: reads may take that long


class Waiting:
    """The moves seen early in one hand on `table`, each with when it was seen."""

    def __init__(self, table: Table):
        self.table = table
        self.moves: list[tuple[float, Step]] = []

    def in_order(self, event: Step) -> bool:
        """A draw in its turn; a discard or a flower the hand would take now (one it would
        refuse may be waiting for its own draw, a replacement, an earlier opening flower). A
        replacement's tile taken before its flower or kong is read waits for it (issue 32
        item 8: under heavy noise the flower's reads can come later)."""
        table, seat = self.table, seated(event)
        if isinstance(event, ev.TileDrawn):
            if table.owes_replacement(seat):
                return True
            return seat == table.next_to_draw() and not self.replacement_early(event)
        if table.state != "discard":
            return False
        if isinstance(event, ev.FlowerExposed):
            return table.calling.flower(event) is None
        return table.turns.discard(event) is None

    def replacement_early(self, draw: ev.TileDrawn) -> bool:
        """The tail's tile taken by a seat that owes no replacement (yet): its flower or kong
        is not read."""
        table, wall = self.table, self.table.wall
        if wall is None or table.owes_replacement(seated(draw)):
            return False
        tail = wall.tile_at(wall.next_replacement_position)
        return draw.tile == tail != wall.tile_at(wall.next_draw_position)

    def hold(self, t: float, event: Step) -> None:
        self.moves.append((t, event))

    def take(self, t: float) -> Step | None:
        """A move now in order, else one that has waited long enough, stamped now; one at a
        time, since each changes the hand's state."""
        ready = [m for m in self.moves if self.in_order(m[1])] or [
            m for m in self.moves if t - m[0] >= WAIT
        ]
        if not ready:
            return None
        self.moves.remove(ready[0])
        return replace(ready[0][1], t=t)

    def following(self, tile: int) -> list[Step]:
        """What waits to follow the draw of `tile` (its discard or exposure), taken out to go
        right after that draw."""
        then = [m for m in self.moves if m[1].tile == tile and not isinstance(m[1], ev.TileDrawn)]
        for move in then:
            self.moves.remove(move)
        return [move[1] for move in then]

    def holds_discard(self, seat: int) -> bool:
        return any(isinstance(m[1], ev.TileDiscarded) and m[1].seat == seat for m in self.moves)

    def discard_of(self, seat: int) -> ev.TileDiscarded | None:
        """The seat's discard seen early, taken out (a chower's, made before his chow was
        shown: engine/moves.py), or None."""
        for move in self.moves:
            if isinstance(move[1], ev.TileDiscarded) and move[1].seat == seat:
                self.moves.remove(move)
                return move[1]
        return None

    def drop_draw(self, tile: int) -> bool:
        """A draw read where there was none (a ghost read of a wall tile on a rack), put
        right by the tracking since: the draw waiting for it is dropped."""
        drawn = [m for m in self.moves if isinstance(m[1], ev.TileDrawn) and m[1].tile == tile]
        for move in drawn:
            self.moves.remove(move)
        return bool(drawn)

    def clear(self) -> None:
        self.moves.clear()
