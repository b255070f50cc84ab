"""What is physically impossible in a hand: a tile in two places or none, a wrong hand size.

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
