"""What is physically impossible in a hand: a tile in two places or none, a wrong hand size;
and what counts as the hand moving on.

The simulator checks these after every input (Table.check_invariants); a real table reports
them to the referee as contradictions of tracking.
"""

from typing import TYPE_CHECKING

from engine import tiles
from engine.seats import letter

if TYPE_CHECKING:
    from engine.table import Table


def problems(table: "Table") -> list[str]:
    """Each impossibility of the hand now, in words; none once the wall is not yet broken."""
    if table.wall is None:
        return []
    found = []
    places = [t for side in table.wall.remaining() for t in side if t is not None]
    for seat in range(4):
        places += table.hands[seat] + table.flowers[seat] + table.rivers[seat]
        places += [t for m in table.melds[seat] for t in m.tiles]
    expected = 4 * tiles.KINDS + (tiles.FLOWER_KINDS if table.rules.flowers else 0)
    if len(places) != expected or len(set(places)) != expected:
        found.append(f"{len(places)} tiles in {len(set(places))} places, not {expected}")
    if not table.ended:
        for seat in range(4):
            active = seat == table.turn and table.state in ("discard", "rob_window")
            size = len(table.hands[seat]) + 3 * len(table.melds[seat])
            if size != 13 + active - table.owes[seat]:
                found.append(f"{letter(seat)} holds {size} tiles counting kongs as 3")
    return found


def position(table: "Table") -> tuple:
    """Where the hand stands: its state and turn, where every tile is, what is owed and
    called. An input moves the hand on when it changes this (an ending changes the state);
    one that changes only the referee's books (a ruling, a paused clock) does not, so a hand
    that has not moved on for the rule book's longest time limit is stuck (issue 12)."""
    wall = table.wall
    return (
        table.state,
        table.turn,
        tuple(map(tuple, table.hands)),
        tuple(tuple(m.tiles for m in melds) for melds in table.melds),
        tuple(map(tuple, table.flowers)),
        tuple(map(tuple, table.rivers)),
        tuple(table.owes),
        tuple(sorted(table.calls)),
        None if wall is None else wall.live_count,  # a tile leaving the wall changes a hand too
    )
