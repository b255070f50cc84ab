"""Which movement the hand waits for now (engine/moves.py's `Interpreter.expects`): the
tracking asks one sighting more of any other (engine/tracking.py, issue 32 item 8), since a
misread is almost never a move anyone is due to make. Pure over the hand's table, read and
never changed.
"""

from collections.abc import Callable

from engine.seats import zone, zone_side
from engine.table import WINDOWS, Table


def expects(
    table: Table,
    to_deal: list[set[int]],
    exposing: list[list[int]],
    seat_at: Callable[[int], int],
    tile: int,
    source: str,
    target: str,
) -> bool:
    """Does the hand wait for this movement now: a tile of the deal (`to_deal`) or the wall's
    next one (or the replacement owed: one seen before its flower or kong waits for it) into
    the rack of the seat to take it, or on from there (a flower drawn and laid out at once), a
    discard, flower, kong or call by the seat in turn or on an open window, the latest discard
    claimed, a call taken back (`exposing`)? `seat_at` gives the seat at a side."""
    wall = table.wall
    if table.ended or table.out_of_step or wall is None:
        return False
    src, src_side = zone_side(source)
    dst, dst_side = zone_side(target)
    seat = seat_at(dst_side)
    if src == "wall" and dst in ("river", "melds"):  # the rack's reads dropped between
        rack = zone("hand", dst_side)
        return expects(table, to_deal, exposing, seat_at, tile, source, rack)
    if src == "wall" and dst == "hand":
        head, tail = wall.next_draw_position, wall.next_replacement_position
        robbing = table.state == "rob_window" and table.next_to_draw() == seat
        return (
            tile in to_deal[seat]
            or (tile == wall.tile_at(head) and seat in (table.live_drawer(), table.turn))
            or (tile == wall.tile_at(tail) and (table.owes_replacement(seat) or robbing))
        )
    if src == "river" and dst == "melds":
        return bool(table.discards) and table.discards[-1][1] == tile
    if src_side != dst_side:
        return False
    if src == "hand" and dst in ("river", "melds"):
        return seat in (table.turn, table.live_drawer()) or table.state in WINDOWS
    return src == "melds" and dst == "hand" and tile in exposing[seat]


def his_to_draw(table: Table, seat: int, tile: int) -> bool:
    """The tile is the seat's draw: his next, his replacement from the tail if he owes one
    (or will, his kong not robbed), else the next from the head (his turn may not be read
    yet); or any tile still in the wall when the draw is his, which stands as a draw from
    the wrong place (seed 000 摸牌時的犯規 1)."""
    wall = table.wall
    if wall is None:
        return False
    robbing = table.state == "rob_window" and table.next_to_draw() == seat
    replacing = table.owes_replacement(seat) or robbing
    end = wall.next_replacement_position if replacing else wall.next_draw_position
    drawing = replacing or seat in (table.live_drawer(), table.next_to_draw())
    return tile == wall.tile_at(end) or (drawing and wall.position_of(tile) is not None)
