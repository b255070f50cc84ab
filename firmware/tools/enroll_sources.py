"""Where `mjtable enroll` (firmware/tools/enroll.py) reads a new set's tags: the stacker reader,
one antenna of the zone reader, or on the simulated table a simulated stacker reading the
simulated set, through the same serial code (drivers/readers.py) as a real reader.
"""

from __future__ import annotations

import queue
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from drivers.reader_frames import Inventory, Stacked
from drivers.readers import Reader, ReaderLost
from drivers.sim.reader import SimReader


class ReadingFailed(Exception):
    """The tags could not be read (a reader missing or lost, the stacker begun again): the
    message says what and what to do."""


def stacker_tags(profile, size: int, wait: float) -> dict[int, bytes]:
    """The tags the stacker reads, by position, until `size` positions are read or no new
    tile comes for `wait` seconds (the positions never read are then missing tiles)."""
    return _positions(profile.stacker_reader.path, profile.stacker_reader.baud, size, wait)


def simulated_stacker(profile, tile_set: str, size: int, faults, wait: float) -> dict[int, bytes]:
    """The simulated stacker reading the simulated set (the profile's registry: the sim's own
    tags) sorted, with the faults asked for: `duplicate` (tile 1 reads as tile 0's tag),
    `foreign` (tile 2 is the other set's), `missing` (the last tile never comes)."""
    tag_of = {place: tag for tag, place in profile.tags.items()}
    other = "B" if tile_set == "A" else "A"
    order = [tag_of[(tile_set, tile)] for tile in range(size)]
    if "duplicate" in faults:
        order[1] = order[0]
    if "foreign" in faults:
        order[2] = tag_of[(other, 2)]
    if "missing" in faults:
        order.pop()
    with tempfile.TemporaryDirectory(prefix="mjtable-enroll-") as folder:
        stacker = SimReader(Path(folder) / "stacker")
        try:
            fed = threading.Event()

            def feed() -> None:
                fed.wait()
                for position, tag in enumerate(order):
                    stacker.stacked(position, tag)

            threading.Thread(target=feed, daemon=True, name="sim stacker").start()
            return _positions(str(stacker.link), profile.stacker_reader.baud, size, wait, fed)
        finally:
            stacker.close()


def _positions(path, baud, size, wait, opened: threading.Event | None = None) -> dict[int, bytes]:
    records: queue.SimpleQueue = queue.SimpleQueue()
    positions: dict[int, bytes] = {}
    with Reader(path, records.put, baudrate=baud, silence_timeout=None) as reader:
        if opened is not None:
            reader.opened.wait(5)
            opened.set()
        last = time.monotonic()
        while len(positions) < size and time.monotonic() - last < wait:
            try:
                record = records.get(timeout=0.05)
            except queue.Empty:
                continue
            if isinstance(record, ReaderLost):
                raise ReadingFailed(f"the stacker reader {path}: {record.reason}")
            if isinstance(record, Stacked):
                if record.position in positions:
                    raise ReadingFailed(
                        f"position {record.position} read twice: the stacker began again; "
                        "run the sorted set through once"
                    )
                positions[record.position] = record.tag
                last = time.monotonic()
    return positions


def antenna_tags(profile, antenna: int) -> Iterator[bytes]:
    """The tag of each tile put alone on `antenna`, one per `next()`: the next sweep that
    sees one tag, not the last tile's (taken off first); otherwise the technician is told."""
    path = profile.zones_reader.path
    if path is None:
        raise ReadingFailed(
            "the simulated table has no tiles to put on an antenna: give --reads FILE"
        )
    if antenna not in profile.zones:
        raise ReadingFailed(
            f"--antenna {antenna}: the profile's antennas are {sorted(profile.zones)}"
        )
    return _alone_on(path, profile.zones_reader.baud, antenna)


def _alone_on(path: str, baud: int, antenna: int) -> Iterator[bytes]:
    records: queue.SimpleQueue = queue.SimpleQueue()
    previous = None
    with Reader(path, records.put, baudrate=baud):
        while True:
            while not records.empty():  # only sweeps after the kind was typed
                records.get()
            said = ""
            while True:
                record = records.get()
                if isinstance(record, ReaderLost):
                    raise ReadingFailed(f"the zone reader {path}: {record.reason}")
                if not isinstance(record, Inventory) or record.antenna != antenna:
                    continue
                tags = record.tags
                news = (
                    "no tile on the antenna"
                    if not tags
                    else f"{len(tags)} tiles on the antenna: one alone"
                    if len(tags) > 1
                    else "still the last tile: take it off"
                    if tags[0] == previous
                    else ""
                )
                if not news:
                    break
                if news != said:
                    print(f"  {news}", file=sys.stderr)
                    said = news
            previous = tags[0]
            yield previous
