"""The table's devices, built from its profile in Klipper's manner.

Klipper builds a printer by handing each section of printer.cfg to the module the section
names. Here each device section of a table profile names its `kind` ([buttons] kind =
"zone_reader"), and `BUILDERS` maps (section, kind) to the function that builds that device.
firmware/table/profile.py asks this registry which kinds a section may name, so a kind nobody can
build, or a key its kind does not read, is refused when the profile loads, with the file,
the section and the key. The service and the simulated table build their devices here, the
same way; only the pins and the readers' links of a simulation are handed in from outside.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from drivers.buttons import Buttons
from drivers.dice import ElectronicDice, PhysicalDice
from drivers.gpio import open_pins
from drivers.readers import Reader, Record
from drivers.shuffler import Shuffler
from engine import tiles

if TYPE_CHECKING:
    from engine.rulebook import Ruleset
    from firmware.table.profile import Profile

READERS = ("readers.zones", "readers.stacker")  # the profile's reader sections, in that order
RECONNECT_MAX = 0.2  # seconds at most between two tries to reopen a lost reader: back quickly


@dataclass
class Devices:
    """One table's devices, built but not started: the readers' threads are not running."""

    gpio: Any  # the pin module the shuffler and buttons use (RPi.GPIO-like)
    shuffler: Shuffler
    buttons: Buttons | None  # None when the zone reader's board sends the seat buttons
    readers: list[Reader]  # [zones, stacker], built but NOT started
    dice: ElectronicDice | PhysicalDice


@dataclass(frozen=True)
class _Parts:
    """What the builders draw on: the profile, the rule book, the clock and the callbacks."""

    profile: Profile
    ruleset: Ruleset
    clock: Callable[[], float]
    report: Callable[[Any], object]
    reader_report: Callable[[str], Callable[[Record], object]]
    reader_paths: Sequence[str] | None
    gpio: Any


def build_devices(
    profile: Profile,
    ruleset: Ruleset,
    clock: Callable[[], float],
    report: Callable[[Any], object],
    reader_report: Callable[[str], Callable[[Record], object]],
    gpio: Any = None,
    reader_paths: Sequence[str] | None = None,
) -> Devices:
    """The devices `profile` names, each built by its kind's builder.

    `report(record)` takes every record of the shuffler and the buttons (the buttons call it
    on the GPIO library's thread); `reader_report(path)` is the callback of the reader at
    `path`. `gpio` replaces the profile's pins and `reader_paths` (zones, stacker) its
    readers' paths: a simulation passes its SimulatedGPIO and its ptys.
    """
    parts = _Parts(profile, ruleset, clock, report, reader_report, reader_paths, gpio)
    if gpio is None:
        parts = replace(parts, gpio=_build(parts, "gpio"))
    # The shuffler first: it puts the pins in BCM mode, which the buttons' pins need.
    shuffler = _build(parts, "shuffler")
    buttons = _build(parts, "buttons")
    readers = [_build(parts, section) for section in READERS]
    return Devices(parts.gpio, shuffler, buttons, readers, _build(parts, "dice"))


def kinds(section: str) -> tuple[str, ...]:
    """The device kinds a profile's `section` may name: those the registry can build."""
    return tuple(kind for named, kind in BUILDERS if named == section)


def _build(parts: _Parts, section: str) -> Any:
    return BUILDERS[section, parts.profile.kinds[section]](parts, section)


def _shuffler(parts: _Parts, section: str) -> Shuffler:
    per_lane = len(tiles.physical_set(parts.ruleset.table_rules.flowers)) // 4
    profile = parts.profile
    return Shuffler(
        parts.gpio,
        profile.shuffler_pins,
        profile.shuffler_timing,
        per_lane,
        parts.report,
        parts.clock,
    )


def _gpio_buttons(parts: _Parts, section: str) -> Buttons:
    profile = parts.profile
    return Buttons(parts.gpio, profile.buttons, parts.report, parts.clock, profile.debounce_seconds)


def _reader(parts: _Parts, section: str) -> Reader:
    """A reader on its serial link; a simulated one ("sim") on the link the simulation made."""
    profile, index = parts.profile, READERS.index(section)
    port = (profile.zones_reader, profile.stacker_reader)[index]
    path = parts.reader_paths[index] if parts.reader_paths else port.path
    if path is None:
        raise ValueError(
            f'{profile.path}: [{section}] kind = "sim": the simulated table makes this '
            "reader's link and must say where it is (reader_paths)"
        )
    return Reader(path, parts.reader_report(path), baudrate=port.baud, backoff_max=RECONNECT_MAX)


Builder = Callable[[_Parts, str], Any]
BUILDERS: dict[tuple[str, str], Builder] = {
    ("gpio", "rpi"): lambda parts, section: open_pins("rpi"),  # rpi-lgpio on a Pi 4 or 5
    ("gpio", "sim"): lambda parts, section: open_pins("sim"),  # drivers/sim/pins.py
    ("shuffler", "gpio"): _shuffler,
    ("buttons", "gpio"): _gpio_buttons,
    ("buttons", "zone_reader"): lambda parts, section: None,  # SeatButton frames instead
    ("readers.zones", "serial"): _reader,
    ("readers.zones", "sim"): _reader,
    ("readers.stacker", "serial"): _reader,
    ("readers.stacker", "sim"): _reader,
    ("dice", "electronic"): lambda parts, section: ElectronicDice(),
    ("dice", "physical"): lambda parts, section: PhysicalDice(),
}
