"""How the display's documents name a tile and a meld (firmware/display/state.py, result.py):
a tile is {"id", "tile", "zh"}, its physical id, the notation of engine/tiles.py and its
Chinese name; a tile seen from the back is {"back": true} (engine/events.py BACK)."""

from engine import tiles
from engine.events import BACK
from engine.seats import LETTERS as SEATS


def tile_json(tile_id: int) -> dict:
    kind = tiles.kind_of(tile_id)
    return {"id": tile_id, "tile": tiles.NAMES[kind], "zh": tiles.CHINESE[kind]}


def meld_json(meld, shown: bool) -> dict:
    """A meld; a concealed kong's faces only where `shown` (the referee's, a hand won)."""
    hidden = meld.concealed and not shown
    return {
        "kind": meld.kind,
        "concealed": meld.concealed,
        "tiles": [BACK] * len(meld.tiles) if hidden else [tile_json(t) for t in meld.tiles],
        "claimed": None if meld.claimed is None else tile_json(meld.claimed),
        "from": None if meld.from_seat is None else SEATS[meld.from_seat],
    }
