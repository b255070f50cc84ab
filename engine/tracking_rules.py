"""What the tracker accepts (engine/tracking.py): the physical tile ids, the legal steps of a
tile from zone to zone, and the checks of its settings, placements and sweeps. Bad input is a
`TrackingError` whose message names the problem, never a crash further in.
"""

from collections.abc import Iterable

from engine.seats import AREAS, ZONES
from engine.tiles import physical_set

TILE_IDS = range(len(physical_set(with_flowers=True)))

# (source kind, target kind, any seat): without `any seat` the tile stays with one player.
DEFAULT_LEGAL = frozenset(
    {
        ("wall", "hand", True),  # the deal, a draw, a replacement
        ("hand", "river", False),  # a discard
        ("hand", "melds", False),  # an exposed meld, a flower, a kong
        ("river", "melds", True),  # a claimed discard
        ("melds", "hand", False),  # an exposure taken back
    }
)


class TrackingError(ValueError):
    """Input the tracker cannot use; the message names the problem."""


def checked_legal(confirm, missing_after, legal: Iterable) -> frozenset:
    """The legal steps as a frozenset, once the tracker's settings are found sound."""
    for name, value in (("confirm", confirm), ("missing_after", missing_after)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise TrackingError(f"{name} must be a whole number of sweeps >= 1, got {value!r}")
    legal = frozenset(legal)
    for step in legal:
        if not (
            isinstance(step, tuple)
            and len(step) == 3
            and step[0] in AREAS
            and step[1] in AREAS
            and isinstance(step[2], bool)
        ):
            raise TrackingError(
                f"legal step {step!r} is not (source kind, target kind, any "
                f"seat) with kinds among {', '.join(AREAS)}"
            )
    return legal


def is_legal(legal: frozenset, source: str, target: str) -> bool:
    """May a tile go from zone `source` to zone `target` in one step?"""
    (source_kind, source_seat), (target_kind, target_seat) = (
        source.split("_"),
        target.split("_"),
    )
    return (source_kind, target_kind, True) in legal or (
        source_seat == target_seat and (source_kind, target_kind, False) in legal
    )


def no_move_expected(tile: int, source: str, target: str) -> bool:
    """A sweep's `expected` when the hand waits for no move: every move needs more evidence."""
    return False


def check_zone(zone) -> None:
    if zone not in ZONES:
        raise TrackingError(f"unknown zone {zone!r}: expected one of {', '.join(ZONES)}")


def check_placements(placements) -> None:
    """The truth at hand start must map physical tile ids to zones."""
    if not isinstance(placements, dict):
        raise TrackingError(f"placements must map tile ids to zones, got {placements!r}")
    for tile, zone in placements.items():
        if not isinstance(tile, int) or isinstance(tile, bool) or tile not in TILE_IDS:
            raise TrackingError(f"{tile!r} is not a physical tile id (0..{len(TILE_IDS) - 1})")
        check_zone(zone)


def checked_sweep(t, zone, tiles, unknown) -> tuple[set[int], set[bytes]]:
    """One sweep's tiles and unknown tags as sets, once its time, zone and contents are sound."""
    check_zone(zone)
    if not isinstance(t, (int, float)) or isinstance(t, bool):
        raise TrackingError(f"sweep of {zone}: time must be a number of seconds, got {t!r}")
    try:
        tiles, unknown = set(tiles), set(unknown)
    except TypeError:
        raise TrackingError(f"sweep of {zone}: tiles and unknown tags must be sets") from None
    for tile in tiles:
        if not isinstance(tile, int) or isinstance(tile, bool):
            raise TrackingError(f"sweep of {zone}: tile ids are ints, got {tile!r}")
    for tag in unknown:
        if not isinstance(tag, bytes):
            raise TrackingError(f"sweep of {zone}: unknown tags are bytes, got {tag!r}")
    return tiles, unknown
