"""Issue 32 item 8: how much the tracking must see before it moves a tile (engine/tracking.py).

The fault campaign (CCM seed 8, `--faults drop=0.2,ghost=0.05,unplug=1`) read a tile of West's
rack on West's river in two sweeps in a row, its rack missing it once between, while West was
to discard: the hand waits for that move, so two sightings were enough, and West was given a
discard he never made (then a jump back, and the hand refused his real discard). A move now
needs as much evidence of the tile's absence as of its presence: sightings at the new place
and misses at the old one, in a row, at least `confirm` + 2.
"""

from engine.seats import ZONES
from engine.tracking import Tracker
from engine.tracking_reports import Move

PLACED = {0: "wall_E", 20: "hand_E", 21: "hand_E", 44: "hand_S", 60: "river_W"}


def cycle(tracker, truth, n, drop=(), ghosts=None, expected=None):
    """Sweep `n` (0.25 s): every antenna once, in order; `drop`: tiles their own zone
    misses; `ghosts`: zone -> tiles also read there; `expected` as Tracker.sweep's."""
    out = []
    for i, zone in enumerate(ZONES):
        seen = {tile for tile, home in truth.items() if home == zone and tile not in drop}
        seen |= (ghosts or {}).get(zone, set())
        out += tracker.sweep(n * 0.25 + i / 64, zone, seen, expected=expected)
    return out


def run(tracker, truth, first, last, **faults):
    return [out for n in range(first, last) for out in cycle(tracker, truth, n, **faults)]


def moves(out):
    return [o for o in out if isinstance(o, Move)]


def east_discards(tile, source, target):
    """East is to discard: any tile of his rack into his river is a move the hand waits for."""
    return (source, target) == ("hand_E", "river_E")


def placed():
    tracker = Tracker()
    tracker.place(PLACED)
    truth = dict(PLACED)
    assert run(tracker, truth, 0, 3) == []
    return tracker, truth


def test_issue_32_item_8_two_ghost_reads_and_one_drop_never_make_a_discard_that_is_due():
    """Tile 20 on East's rack, read on East's river in two sweeps in a row (crosstalk) while
    his rack misses it once between, East being to discard: no move (before: a discard);
    his rack reads it again and it stays there, nothing told."""
    tracker, truth = placed()
    out = cycle(tracker, truth, 3, ghosts={"river_E": {20}}, expected=east_discards)
    out += cycle(tracker, truth, 4, drop={20}, ghosts={"river_E": {20}}, expected=east_discards)
    out += run(tracker, truth, 5, 20, expected=east_discards)
    assert out == [] and tracker.where(20) == "hand_E"


def test_issue_32_item_8_a_due_discard_read_cleanly_lands_as_soon_as_before():
    """The same discard truly made: it lands in the second sweep after it, as it did with
    two sightings and one miss, since the rack misses it in both."""
    tracker, truth = placed()
    truth[20] = "river_E"
    assert cycle(tracker, truth, 3, expected=east_discards) == []
    (discard,) = moves(cycle(tracker, truth, 4, expected=east_discards))
    assert (discard.source, discard.target, discard.flagged) == ("hand_E", "river_E", False)


def test_issue_32_item_8_a_due_discard_with_a_read_dropped_at_its_new_place_lands():
    """A true discard whose first read in the river is dropped: two sightings and the rack's
    misses since make it, a sweep later."""
    tracker, truth = placed()
    truth[20] = "river_E"
    out = cycle(tracker, truth, 3, drop={20}, expected=east_discards)
    out += run(tracker, truth, 4, 6, expected=east_discards)
    (discard,) = moves(out)
    assert (discard.source, discard.target, discard.flagged) == ("hand_E", "river_E", False)
    assert tracker.where(20) == "river_E"
