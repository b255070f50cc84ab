"""The table's devices on the selftest's bench (`mjtable selftest`, firmware/tools/selftest.py).

The devices are built as the service builds them (firmware/table/assembly.py's `build_devices`),
their records collected here instead of queued for the service. On the simulated table the
bench also stands for the world: simulated pins driven by the simulated mechanism
(drivers/sim/mechanism.py, loaded with set A of the profile's registry), the two readers
simulated on ptys (drivers/sim/reader.py) sweeping empty antennas, and the seat buttons
pressed by the simulation. Its clock is then table time, advanced by `step`, so a cycle of
the shuffler takes a fraction of a second; on a real table it is the monotonic clock.
A fault asked for (`faults`, the simulated table's only) is injected before the checks.
"""

from __future__ import annotations

import contextlib
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from drivers.buttons import ButtonPress
from drivers.reader_frames import SeatButton
from drivers.readers import Reader, Record
from drivers.shuffler_records import SIDES
from firmware.table.assembly import build_devices

if TYPE_CHECKING:
    from drivers.sim.clock import SimClock
    from drivers.sim.mechanism import SimMechanism
    from drivers.sim.reader import SimReader

STEP = 0.05  # seconds of table time a simulated step advances
REAL_STEP = 0.01  # seconds a wait on a real table (or on a pty) sleeps between two looks
HEARTBEAT_SECONDS = 0.5  # the simulated stacker's heartbeat when idle, as firmware/sim/world.py
# The simulated table's faults a selftest can show: a lane that stacks nothing (its head jams
# at the first tile), a tile lost under the table, a reader's USB cable pulled.
FAULTS = {"jam": SIDES, "lost": SIDES, "unplug": ("zones", "stacker")}


def parse_fault(text: str) -> tuple[str, str]:
    """`jam`, `jam=W`, `lost=N`, `unplug`, `unplug=stacker` -> (name, where); ValueError
    names the choices."""
    name, _, where = text.partition("=")
    places = FAULTS.get(name)
    if places is None:
        raise ValueError(f"unknown fault {name!r} (jam[=SIDE], lost[=SIDE], unplug[=READER])")
    letters = {place[0]: place for place in places} if places is SIDES else {}
    where = letters.get(where, where) or places[0]
    if where not in places:
        raise ValueError(f"{name}={text.partition('=')[2]}: one of {', '.join(places)}")
    return name, where


class Bench:
    """The devices of `profile`, built but not started; `close()` undoes everything."""

    def __init__(self, profile, ruleset, faults=()) -> None:
        self.profile, self.ruleset, self.faults = profile, ruleset, dict(faults)
        self.button_records: list[ButtonPress] = []
        self.shuffler_records: list = []
        self.reader_records: dict[str, list[Record]] = {}
        # The simulated table's stand-ins (none on a real table): its links' folder, its two
        # readers, its machine (once start_world has run) and its table time.
        self._folder: tempfile.TemporaryDirectory[str] | None = None
        self.sims: list[SimReader] = []
        self.mechanism: SimMechanism | None = None
        self._table_time: SimClock | None = None
        self.clock: Callable[[], float] = time.monotonic
        self.simulated = profile.simulated
        gpio, paths = None, None
        if self.simulated:
            from drivers.sim.clock import SimClock
            from drivers.sim.pins import SimulatedGPIO
            from drivers.sim.reader import SimReader

            self._folder = tempfile.TemporaryDirectory(prefix="mjtable-selftest-")
            links = [Path(self._folder.name) / name for name in ("zones", "stacker")]
            self.sims = [SimReader(link) for link in links]
            self.clock = self._table_time = SimClock()
            gpio, paths = SimulatedGPIO(), [str(link) for link in links]
        try:
            self.devices = build_devices(
                profile, ruleset, self.clock, self._report, self._reader_report, gpio, paths
            )
        except BaseException:
            self.close()
            raise
        self._next_sweep = self._next_heartbeat = 0.0
        self._rng = random.Random("selftest")

    # -- what the checks use -----------------------------------------------------------------

    def start_world(self) -> None:
        """The simulated machine behind the pins (after the GPIO check's pulses, which it must
        not take for the shuffler's) and the faults asked for; nothing on a real table."""
        if not self.simulated:
            return
        from drivers.sim.mechanism import SimMechanism
        from engine import tiles

        shuffler, stacker = self.devices.shuffler, self.sims[1]
        mechanism = SimMechanism(
            self.devices.gpio, shuffler.pins, shuffler.expected, stacker.stacked
        )
        owners = {owner: tag for tag, owner in self.profile.tags.items()}
        ids = tiles.physical_set(self.ruleset.table_rules.flowers)
        mechanism.load("A", [owners[("A", tile)] for tile in ids])
        for name, where in self.faults.items():
            if name == "jam":
                mechanism.jam(SIDES.index(where), 0)
            elif name == "lost":
                mechanism.lose_tile(SIDES.index(where))
            else:
                self.sims[("zones", "stacker").index(where)].unplug()
        self.mechanism = mechanism

    def advance(self, seconds: float) -> None:
        """Table time moves on `seconds` on the simulated table; a real one's is the wall's."""
        if self._table_time is not None:
            self._table_time.t += seconds

    def step(self) -> None:
        """Let time pass: a step of table time on the simulated table (the machine moves,
        the readers sweep and beat), a short sleep on a real one."""
        if not self.simulated:
            time.sleep(REAL_STEP)
            return
        self.advance(STEP)
        t = self.clock()
        if self.mechanism is not None:
            self.mechanism.step(t)
        zones, stacker = self.sims
        if t >= self._next_heartbeat:
            self._next_heartbeat = t + HEARTBEAT_SECONDS
            stacker.heartbeat()
        if t >= self._next_sweep:
            self._next_sweep = t + (self.profile.zones_reader.sweep_seconds or STEP)
            zones.sweep({antenna: [] for antenna in self.profile.zones}, self._rng)
            zones.heartbeat()

    def wait(self, done, seconds: float, paced: bool = True) -> bool:
        """Step until `done()` or `seconds` of real time have passed: never a hang. On the
        simulated table a `paced` wait leaves the readers' threads time to read the ptys."""
        deadline = time.monotonic() + seconds
        while not done():
            if time.monotonic() >= deadline:
                return False
            self.step()
            if self.simulated and paced:
                time.sleep(REAL_STEP / 10)
        return True

    def press(self, side: int, button: str) -> None:
        """The simulation presses a seat button and lets it go (a real table's player does)."""
        if not self.simulated or self.devices.buttons is None:
            return
        pin = next(p for p, held in self.profile.buttons.items() if held == (side, button))
        gpio = self.devices.gpio
        gpio.drive(pin, gpio.LOW, self.clock())
        self.advance(0.1)
        gpio.drive(pin, gpio.HIGH, self.clock())

    def pressed(self, side: int, button: str) -> bool:
        """The press of (side, button) has come: from its pin or from the zone reader."""
        if any((r.side, r.button) == (side, button) for r in self.button_records):
            return True
        zones = self.reader_records.get(self.devices.readers[0].path, [])
        return any(
            isinstance(r, SeatButton) and (r.side, r.button) == (side, button) for r in zones
        )

    def records(self, reader: Reader) -> list[Record]:
        return self.reader_records.setdefault(reader.path, [])

    def close(self) -> None:
        """Motors off, edges unwatched, readers stopped, the simulated links gone."""
        devices = getattr(self, "devices", None)
        if devices is not None:
            for reader in devices.readers:
                reader.close()
            parts = [devices.shuffler.close, devices.gpio.cleanup]  # the motors off first
            if devices.buttons is not None:
                parts.insert(1, devices.buttons.close)
            for close in parts:
                with contextlib.suppress(Exception):  # a pin already let go, a vanished chip
                    close()
        for sim in self.sims:
            sim.close()
        if self._folder is not None:
            self._folder.cleanup()

    # -- the devices' callbacks ------------------------------------------------------------

    def _report(self, record) -> None:
        """The shuffler's records and the buttons' presses (on the GPIO library's thread:
        list.append is thread-safe)."""
        if isinstance(record, ButtonPress):
            self.button_records.append(record)
        else:
            self.shuffler_records.append(record)

    def _reader_report(self, path: str):
        kept = self.reader_records.setdefault(path, [])
        return kept.append
