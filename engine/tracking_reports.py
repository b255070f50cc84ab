"""What the tracking (engine/tracking.py) reports: a tile's `Move`, and a `TrackingAlert` with
the words of each kind told to the referee. Alert messages go to the public display, so they
never name a tile in a concealed zone (a wall or a hand rack); the `tile` field keeps it for
the journal.
"""

from dataclasses import dataclass

from engine.seats import CONCEALED_AREAS, zone_words
from engine.tiles import NAMES, kind_of
from engine.tracking_rules import TILE_IDS


@dataclass(frozen=True)
class Move:
    t: float
    tile: int
    source: str
    target: str
    flagged: bool = False  # not a legal step: the tile is where it is seen, the path unknown


@dataclass(frozen=True)
class TrackingAlert:
    t: float
    kind: str  # missing (then found), two_places, foreign, jump, unexpected_tile
    zone: str
    tile: int | None
    tag: bytes | None
    message: str


def named(tile: int, *zones: str) -> str | None:
    """The tile's name, only if no zone it is mentioned with hides it from the players."""
    if tile in TILE_IDS and not any(zone.partition("_")[0] in CONCEALED_AREAS for zone in zones):
        return NAMES[kind_of(tile)]
    return None


def unexpected_tile(tile: int, zone: str) -> str:
    name = named(tile, zone)
    return (
        f"a tile not in play this hand{f' ({name})' if name else ''}"
        f" is on {zone_words(zone)}: take it off the table"
    )


def foreign(zone: str) -> str:
    return f"a tile not of this table's sets is on {zone_words(zone)}: remove it"


def two_places(tile: int, first: str, second: str) -> str:
    what = named(tile, first, second) or "a tile"
    return (
        f"{what} is read both on {zone_words(first)} and on {zone_words(second)}: a "
        "duplicated tag or a reader fault; check both"
    )


def missing(tile: int, home: str) -> str:
    what = named(tile, home) or "a tile"
    return (
        f"{what} has gone from {zone_words(home)} and is not seen anywhere: find it and put it back"
    )


def jump(tile: int, source: str, target: str) -> str:
    what = named(tile, source, target) or "a tile"
    return (
        f"{what} went from {zone_words(source)} to {zone_words(target)}"
        " without a legal step between: check the hand"
    )


def found(tile: int, zone: str) -> str:
    what = named(tile, zone) or "the missing tile"
    return f"{what} is back, on {zone_words(zone)}"
