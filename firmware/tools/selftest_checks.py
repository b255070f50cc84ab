"""The selftest's checks of the table's devices, each in turn on the bench
(firmware/tools/selftest_rig.py): every one has a time limit and ends with a `Check` saying what
was found and, on a fail, what the technician does about it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from drivers.buttons import BUTTONS
from drivers.dice import ElectronicDice
from drivers.reader_frames import Heartbeat, Inventory, Stacked
from drivers.readers import ReaderLost
from drivers.shuffler_records import SIDES, ShufflerFault, WallsRaised, WallsReady
from engine.seats import LETTERS
from firmware.tools.selftest_rig import Bench

READER_SECONDS = 5.0  # to open a reader, hear its heartbeat and every antenna's inventory
PULSE_SECONDS = 0.05  # an output pin held high in the GPIO check (a motor's twitch)
ROLLS = 60  # electronic rolls looked at: a stuck source shows one value all along
SUPPORT = "run `mjtable logs export` and send the bundle to support"


@dataclass(frozen=True)
class Check:
    """One device's verdict: `advice` says what to do when it fails ("" when it passes)."""

    name: str
    ok: bool
    detail: str
    advice: str = ""

    def line(self) -> str:
        """The technician's line: PASS or FAIL, the device, what was seen, what to do."""
        text = f"{'PASS' if self.ok else 'FAIL'}  {self.name}: {self.detail}"
        return text if self.ok else f"{text}\n      -> {self.advice}"


NAMES = (
    "gpio",
    "zone reader",
    "stacker reader",
    "shuffler",
    "stacker reads tiles",
    "dice",
    "seat buttons",
)  # the device checks, in the order they run


def device_checks(
    bench: Bench, told: Callable[[str], object], button_seconds: float | None
) -> Iterator[Check]:
    """Each device in turn; `button_seconds` None leaves the seat buttons untried."""
    yield guarded("gpio", lambda: gpio(bench))
    bench.start_world()
    zones, stacker = bench.devices.readers
    for reader in (zones, stacker):
        reader.start()
    yield guarded("zone reader", lambda: reader_check(bench, "zone reader", zones, True))
    yield guarded("stacker reader", lambda: reader_check(bench, "stacker reader", stacker, False))
    yield guarded("shuffler", lambda: shuffler_cycle(bench))
    yield guarded("stacker reads tiles", lambda: stacker_tiles(bench, stacker))
    yield guarded("dice", lambda: dice(bench.devices.dice))
    yield guarded("seat buttons", lambda: buttons(bench, told, button_seconds))


def guarded(name: str, check: Callable[[], Check]) -> Check:
    """A check that breaks (a driver's error) is a failed check, never a crash."""
    try:
        return check()
    except Exception as err:  # any driver's error is this device's fail
        return Check(name, False, f"the check broke: {type(err).__name__}: {err}", SUPPORT)


def gpio(bench: Bench) -> Check:
    """Every output pulsed and read back, every input read; a stacking head reading blocked
    at rest has a tile stuck in it (the shuffler's retry refuses then too)."""
    pins, lib = bench.profile.shuffler_pins, bench.devices.gpio
    outputs = (pins.drop, pins.plate, *pins.lanes, pins.lift)
    for pin in outputs:
        lib.output(pin, lib.HIGH)
        high = lib.input(pin)
        if bench.simulated:
            bench.advance(PULSE_SECONDS)
        else:
            bench.wait(lambda: False, PULSE_SECONDS)
        lib.output(pin, lib.LOW)
        if (high, lib.input(pin)) != (lib.HIGH, lib.LOW):
            return Check(
                "gpio",
                False,
                f"output pin {pin} does not follow what it is set to",
                f"check pin {pin}'s wiring and that nothing else drives it "
                f"({bench.profile.path} [shuffler])",
            )
    inputs = (
        pins.centre_closed,
        *pins.counters,
        *pins.heads,
        pins.lift_top,
        *bench.profile.buttons,
    )
    levels = {pin: lib.input(pin) for pin in inputs}
    blocked = [SIDES[lane] for lane, pin in enumerate(pins.heads) if levels[pin]]
    if blocked:
        return Check(
            "gpio",
            False,
            f"the {' and '.join(blocked)} stacking head reads blocked at rest",
            "clear the tile stuck at that stacking head, or check its sensor's wiring",
        )
    board = getattr(lib, "RPI_INFO", {}).get("TYPE")  # rpi-lgpio's idea of the board
    on = f" on {board}" if board else ""
    return Check("gpio", True, f"{len(outputs)} outputs pulsed, {len(inputs)} inputs read{on}")


def reader_check(bench: Bench, name: str, reader, every_antenna: bool) -> Check:
    """The reader opens, beats, and (the zone reader) reports every antenna of the profile."""
    records = bench.records(reader)
    antennas = set(bench.profile.zones) if every_antenna else set()

    def heard() -> set[int]:
        return {r.antenna for r in list(records) if isinstance(r, Inventory)}

    def lost() -> list[ReaderLost]:
        return [r for r in list(records) if isinstance(r, ReaderLost)]

    def ready() -> bool:
        beats = any(isinstance(r, Heartbeat) for r in list(records))
        return beats and antennas <= heard()

    def absent() -> bool:  # no device at its path: it will not open by waiting
        return bool(lost()) and not reader.opened.is_set() and not os.path.exists(reader.path)

    if bench.wait(lambda: ready() or absent(), READER_SECONDS) and ready():
        told = f", {len(antennas)} antennas inventoried" if antennas else ""
        return Check(name, True, f"{reader.path} open, heartbeat heard{told}")
    if not reader.opened.is_set() and lost():
        return Check(
            name,
            False,
            f"{reader.path}: {lost()[-1].reason}",
            f"check the {name}'s USB cable and that {reader.path} exists (the udev rules of "
            "deploy/pi/README.md name it); stop the service first (systemctl stop mjtable)",
        )
    if not any(isinstance(r, Heartbeat) for r in list(records)):
        return Check(
            name,
            False,
            f"{reader.path} opens but sent no heartbeat in {READER_SECONDS:g} s",
            f"check the {name}'s power and its baud rate in {bench.profile.path}; replug it",
        )
    missing = sorted(antennas - heard())
    zones = ", ".join(f"{a} ({bench.profile.zones[a]})" for a in missing)
    return Check(
        name,
        False,
        f"no inventory from antenna {zones} in {READER_SECONDS:g} s",
        "check those antennas' cables to the zone reader's board",
    )


def shuffler_cycle(bench: Bench) -> Check:
    """One cycle of the machine, drop to raised walls, no hand played: every motor is
    guarded by the shuffler's own step times (a fault switches them off), by the cycle's
    time limit, and switched off at the end whatever happens (Bench.close)."""
    shuffler, timing = bench.devices.shuffler, bench.profile.shuffler_timing
    records = bench.shuffler_records
    limit = timing.cycle_limit + timing.raise_timeout  # of table time
    began = bench.clock()

    def over(kinds) -> bool:
        shuffler.poll(bench.clock())
        told = any(isinstance(r, kinds) for r in records)
        return told or shuffler.state == "fault" or bench.clock() - began > limit

    shuffler.start(bench.clock())
    real = limit * (1 if not bench.simulated else 0.05) + READER_SECONDS
    bench.wait(lambda: over(WallsReady), real, paced=False)
    if shuffler.state == "ready":
        shuffler.raise_walls(bench.clock())
        bench.wait(lambda: over(WallsRaised), real, paced=False)
    shuffler.close()  # motors off before the verdict: the next cycle is not ours
    faults = [r for r in records if isinstance(r, ShufflerFault)]
    raised = [r for r in records if isinstance(r, WallsRaised)]
    if faults:
        return Check("shuffler", False, faults[0].message, faults[0].advice)
    if not raised:
        return Check(
            "shuffler",
            False,
            f"the cycle did not end within {limit:g} s (stopped in {shuffler.state})",
            "watch the machine through `mjtable selftest` again; check its motors and sensors",
        )
    ready = next(r for r in records if isinstance(r, WallsReady))
    counts = "/".join(map(str, ready.counts))
    return Check("shuffler", True, f"one cycle in {ready.seconds:g} s, walls of {counts} raised")


def stacker_tiles(bench: Bench, stacker) -> Check:
    """The stacker reader read every tile the shuffler's cycle stacked, each of the registry.
    A cycle that did not end (a jammed lane, a lost tile) fails it too: the tiles it should
    have stacked were not all read, so nothing says the reader would have (issue 31)."""
    records = bench.records(stacker)
    ready = [r for r in bench.shuffler_records if isinstance(r, WallsReady)]
    shuffler = bench.devices.shuffler
    stacked = sum(ready[0].counts) if ready else 4 * shuffler.expected
    # a cycle that stopped stacked only what its lanes' counters counted: wait for those, not
    # READER_SECONDS for tiles that will never come (the verdict is a fail either way)
    awaited = stacked if ready else sum(shuffler.counts)

    def tags() -> list[bytes]:
        return [r.tag for r in list(records) if isinstance(r, Stacked)]

    if stacker.opened.is_set():  # else it cannot have read any
        bench.wait(lambda: len(tags()) >= awaited, READER_SECONDS)
    read = tags()
    if len(read) < stacked and not ready:
        return Check(
            "stacker reads tiles",
            False,
            f"the stacker reader read {len(read)} of the {stacked} tiles of a cycle: the "
            "cycle did not end (the shuffler's line says why)",
            "clear the shuffler's fault, then run the selftest again",
        )
    if len(read) < stacked:
        return Check(
            "stacker reads tiles",
            False,
            f"the stacker reader read {len(read)} of the {stacked} tiles stacked",
            "check the stacker reader's antenna at the stacking heads and its cable",
        )
    foreign = sorted({tag.hex() for tag in read if tag not in bench.profile.tags})
    if foreign:
        return Check(
            "stacker reads tiles",
            False,
            f"{len(foreign)} tags of no set in {bench.profile.registry.name}: {foreign[0]} ...",
            "remove the foreign tiles, or enrol this tile set (`mjtable enroll`)",
        )
    return Check("stacker reads tiles", True, f"{len(read)} tiles read, all of the registry")


def dice(device) -> Check:
    """Electronic dice roll from the OS's source; physical ones are told by the referee."""
    if not isinstance(device, ElectronicDice):
        return Check("dice", True, "physical dice: the referee or the sensor tells each roll")
    values = [value for _ in range(ROLLS) for value in device.roll().values]
    if not all(1 <= v <= 6 for v in values) or len(set(values)) == 1:
        return Check(
            "dice",
            False,
            f"{ROLLS} rolls gave {sorted(set(values))}",
            "the OS's random source is failing: " + SUPPORT,
        )
    return Check("dice", True, f"{ROLLS} electronic rolls, faces {sorted(set(values))}")


def buttons(bench: Bench, told: Callable[[str], object], seconds: float | None) -> Check:
    """Each seat's buttons pressed when told (the simulation presses them); a button not
    pressed within `seconds` is named."""
    if seconds is None:
        return Check("seat buttons", True, "not tried (--no-buttons)")
    for side, letter in enumerate(LETTERS):
        for button in BUTTONS:
            told(f"press the {letter} seat's {button} button")
            bench.press(side, button)
            if not bench.wait(
                lambda side=side, button=button: bench.pressed(side, button), seconds
            ):
                return Check(
                    "seat buttons",
                    False,
                    f"the {letter} seat's {button} button: no press in {seconds:g} s",
                    f"check that button and its wiring to "
                    f"{'the zone reader' if bench.devices.buttons is None else 'its pin'}",
                )
    return Check("seat buttons", True, f"{4 * len(BUTTONS)} buttons pressed when told")
