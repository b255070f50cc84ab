"""Tampering seen (issue 17): a tile drawn from the head, or dealt, that is not the tile the
walls had there when the stacker read them.

A tile swapped in the wall and a draw from the wrong place (seed 000 摸牌時的犯規 1) look alike
from one observation, so each is told to the referee at once, with the position and both
tiles' kinds; the draw itself goes to the engine, where a wrong draw stands. The interpreter
(engine/moves.py) asks on every tile it sees go from a wall into a rack.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine import tiles
from engine.seats import WORDS
from engine.wall import Position

if TYPE_CHECKING:
    from engine.table import Table


@dataclass(frozen=True)
class Tampering:
    """The note for the referee: `message` names both kinds and the position, and is his
    only, as `tile` is (a fault's hidden field); `side` is the drawer's side."""

    t: float
    side: int
    message: str
    tile: int


def seen(
    t: float,
    table: "Table",
    to_deal: set[int],
    seat: int,
    tile: int,
    side_of: Callable[[int], int],
) -> list[Tampering]:
    """The note, if `tile` (into the seat's rack) is not what the walls had where he takes
        from: `to_deal` the tiles the walls still had for his deal, else his draw's place (the
        head, or the tail for a replacement); nothing when it is not his draw (the engine says
        so). `side_of` turns a seat into the side of the table it sits on: the message names sides
    only, as the walls are named, and no seat letter that would read as a wind tile's name."""
    wall = table.wall
    if wall is None:
        return []
    robbed = table.state == "rob_window" and table.next_to_draw() == seat
    replacing = table.owes_replacement(seat) or robbed
    drawing = replacing or seat in (table.live_drawer(), table.next_to_draw())
    allowed = (
        (wall.next_replacement_position,) if replacing else table.touches.allowed(seat)
    )  # his draw's places: the head but for 摸打規條 5 (engine/wall_touch.py)
    due = allowed[0] if drawing else None
    there = wall.tile_at(due)
    if drawing and tile in map(wall.tile_at, allowed):
        return []  # his draw, as the walls had it
    if to_deal:
        expected = " ".join(sorted(tiles.NAMES[tiles.kind_of(x)] for x in to_deal))
        what = f"the walls had {expected} still to come for his deal"
    elif due is None or there is None:
        return []  # not his draw: the engine says so
    else:
        what = f"the walls had {tiles.NAMES[tiles.kind_of(there)]} at {_where(due, side_of)}"
    laid = wall.laid_at(tile)
    came = f" (the stacker read it at {_where(laid, side_of)})" if laid else ""
    message = (
        f"the player on the {WORDS[side_of(seat)]} side took {tiles.NAMES[tiles.kind_of(tile)]}"
        f"{came}, but {what}: a tile "
        "swapped in the wall since it was read, or a draw from the wrong place"
    )
    return [Tampering(t, side_of(seat), message, tile)]


def _where(position: Position, side_of: Callable[[int], int]) -> str:
    """A wall position as the display names it: the wall of a side of the table, the stack
    counted from its right end."""
    seat, place = position
    level = "top" if place % 2 == 0 else "bottom"
    return f"the {WORDS[side_of(seat)]} wall, stack {place // 2 + 1} ({level})"
