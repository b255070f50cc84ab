"""Tiles laid out in a meld area for a call on the latest discard: which call they make, and
whether the caller is still laying it out (RULES.md 3.7, 4.6). A caller lays his tiles out one
by one and the readers confirm each a few sweeps later, so the calls stay open a while longer
for a meld not yet whole (engine/moves.py)."""

from engine import tiles
from engine.hand import CHOW, KONG, PUNG
from engine.table import Table


def call_kind(laid: list[int], discard: int) -> str:
    """The call the laid tiles make with the discard."""
    kind = tiles.kind_of(discard)
    if all(tiles.kind_of(x) == kind for x in laid):
        return KONG if len(laid) == 3 else PUNG
    return CHOW


def still_laying(table: Table, exposing: list[list[int]]) -> bool:
    """A caller has laid out part of a meld, his other tiles still being read: a meld not
    yet whole, or a pung whose caller holds the fourth (perhaps a kong)."""
    if table.state != "claim_window":
        return False
    discarder, discard = table.discards[-1]
    kind = tiles.kind_of(discard)
    for seat, laid in enumerate(exposing):
        if not laid or seat == discarder:
            continue
        kinds = sorted([tiles.kind_of(x) for x in laid] + [kind])
        run = len(kinds) == 3 and kinds[0] + 1 == kinds[1] == kinds[2] - 1
        if (len(set(kinds)) > 1 and not run) or len(kinds) < 3:
            return True
        held = [x for x in table.hands[seat] if x not in laid]
        if len(kinds) == 3 and not run and kind in map(tiles.kind_of, held):
            return True
    return False
