"""Table profiles (config/tables/*.toml) and the tile registry they name.

A profile describes one table's hardware, as a Klipper printer.cfg does a printer: which pins
drive the shuffler and carry the buttons, which reader antenna lies under which zone, where the
display listens. The service builds its devices from it, so every mistake in it (a missing or
unknown key, a wrong type, a pin or an antenna used twice, an unknown zone) is refused here, at
start-up, with the file, the section and the key, never found later at the table.

The registry (a CSV beside the profile) says which tag id is glued to which physical tile of
which of the table's two sets. `sim_registry_text()` makes the simulated table's registry.
"""

from __future__ import annotations

import csv
import hashlib
import tomllib
from dataclasses import dataclass
from pathlib import Path

from drivers.buttons import BUTTONS
from drivers.readers import UID_SIZES
from drivers.shuffler import ShufflerPins, ShufflerTiming
from engine.rulesets import ConfigError
from engine.tiles import FLOWER_KINDS, KINDS, NAMES, kind_of
from firmware.config import CONFIG_DIR, ruleset_path

TABLES_DIR = CONFIG_DIR / "tables"
SEATS = "ESWN"
AREAS = ("wall", "hand", "river", "melds")
ZONES = tuple(f"{area}_{seat}" for seat in SEATS for area in AREAS)
TILE_SETS = ("A", "B")
TILES_PER_SET = 4 * KINDS + FLOWER_KINDS  # physical tile ids 0..143 (engine/tiles.py)
SIMULATED_PATH = "sim"  # a reader the service simulates (drivers/sim/reader.py) in its own folder
REGISTRY_HEADER = ["tag", "set", "tile", "name"]
SECTIONS = ("table", "display", "gpio", "shuffler", "buttons", "readers", "tags")


class ProfileError(ValueError):
    """A profile or registry the table cannot run with; the message names file, section, key."""


@dataclass(frozen=True)
class ReaderPort:
    """A tile reader's serial link; `path` is SIMULATED_PATH for a simulated reader."""

    path: str
    baud: int
    sweep_seconds: float | None = None


@dataclass(frozen=True)
class Profile:
    """One table, as the service needs it to build its devices (plain values, no drivers)."""

    path: Path
    name: str
    ruleset: str
    simulated: bool
    claim_window_seconds: float
    host: str
    port: int
    referee_pin: str
    gpio_backend: str
    shuffler_pins: ShufflerPins
    shuffler_timing: ShufflerTiming
    buttons: dict[int, tuple[int, str]]  # pin -> (seat 0..3, button), as drivers.buttons takes
    debounce_seconds: float
    button_wiring: str  # "gpio" (pins above) or "zone reader" (its frames)
    zones_reader: ReaderPort
    stacker_reader: ReaderPort
    zones: dict[int, str]  # antenna -> zone name
    registry: Path
    tags: dict[bytes, tuple[str, int]]  # tag id -> (tile set, physical tile id)


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


_KINDS = {  # kind: (test, what the message says was expected)
    "int": (_is_int, "an integer"),
    "positive": (lambda v: (_is_int(v) or isinstance(v, float)) and v > 0, "a positive number"),
    "bool": (lambda v: isinstance(v, bool), "true or false"),
    "text": (lambda v: isinstance(v, str) and v.strip() != "", "a non-empty string"),
    "table": (lambda v: isinstance(v, dict), "a table"),
    "lanes": (
        lambda v: isinstance(v, list) and len(v) == 4 and all(map(_is_int, v)),
        "a list of 4 pins (lanes E S W N)",
    ),
}


class _Section:
    """One [section] of a profile: typed reads that remember which keys were used."""

    def __init__(self, file: Path, name: str, data) -> None:
        self.file, self.name = file, name
        if not isinstance(data, dict):
            raise ProfileError(f"{file}: [{name}] must be a section (a table of keys)")
        self.data, self.used = data, set()

    def error(self, key: str, problem: str) -> ProfileError:
        return ProfileError(f"{self.file}: [{self.name}]{' ' + key if key else ''}: {problem}")

    def get(self, key: str, kind: str):
        """The value of `key`, checked to be of `kind` (a key of _KINDS)."""
        if key not in self.data:
            raise self.error(key, "missing key")
        self.used.add(key)
        value = self.data[key]
        test, expected = _KINDS[kind]
        if not test(value):
            raise self.error(key, f"expected {expected}, got {value!r}")
        return float(value) if kind == "positive" else value

    def section(self, key: str) -> _Section:
        return _Section(self.file, f"{self.name}.{key}", self.get(key, "table"))

    def done(self) -> None:
        unknown = sorted(set(self.data) - self.used)
        if unknown:
            raise self.error(unknown[0], f"unknown key (known: {', '.join(sorted(self.used))})")


class _Pins:
    """Every pin the profile uses, so that no pin is given two jobs."""

    def __init__(self) -> None:
        self.owner: dict[int, str] = {}

    def take(self, section: _Section, key: str, per_lane: bool = False):
        """One pin, or a tuple of four (one per lane E S W N)."""
        value = section.get(key, "lanes" if per_lane else "int")
        for pin in value if per_lane else [value]:
            if pin < 0:
                raise section.error(key, f"{pin} is not a BCM pin number")
            if pin in self.owner:
                raise section.error(key, f"pin {pin} is already used by {self.owner[pin]}")
            self.owner[pin] = f"[{section.name}] {key}"
        return tuple(value) if per_lane else value


def profile_path(name: str) -> Path:
    """A profile by name (config/tables/<name>.toml) or by the path of its file."""
    if name.endswith(".toml") or "/" in name:
        return Path(name)
    path = TABLES_DIR / f"{name}.toml"
    if not path.exists():
        known = sorted(p.stem for p in TABLES_DIR.glob("*.toml"))
        raise ProfileError(f"unknown table profile {name!r} (known: {', '.join(known)})")
    return path


def load_profile(name_or_path: str | Path) -> Profile:
    """The profile of a table, checked whole: the first mistake is refused with its place."""
    path = profile_path(str(name_or_path))
    try:
        with open(path, "rb") as f:
            top = tomllib.load(f)
    except FileNotFoundError:
        raise ProfileError(f"{path}: no such file") from None
    except tomllib.TOMLDecodeError as err:
        raise ProfileError(f"{path}: not valid TOML: {err}") from None
    for key in top:
        if key not in SECTIONS:
            raise ProfileError(
                f"{path}: [{key}]: unknown section (sections: {', '.join(SECTIONS)})"
            )

    def section(name: str) -> _Section:
        if name not in top:
            raise ProfileError(f"{path}: [{name}]: missing section")
        return _Section(path, name, top[name])

    table = section("table")
    name, ruleset = table.get("name", "text"), table.get("ruleset", "text")
    simulated = table.get("simulated", "bool")
    claim_window = table.get("claim_window_seconds", "positive")
    try:
        rules_file = ruleset_path(ruleset)
    except ConfigError as err:
        raise table.error("ruleset", str(err)) from None
    if not rules_file.exists():
        raise table.error("ruleset", f"no rule book file {rules_file}")
    table.done()

    display = section("display")
    host, port = display.get("host", "text"), display.get("port", "int")
    if not 1 <= port <= 65535:
        raise display.error("port", f"{port} is not a TCP port (1..65535)")
    referee_pin = display.get("referee_pin", "text")
    display.done()

    gpio = section("gpio")
    backend = gpio.get("backend", "text")
    if backend not in ("rpi", "sim"):
        raise gpio.error("backend", f"{backend!r} is not a pin backend (rpi or sim)")
    gpio.done()

    pins = _Pins()
    shuffler = section("shuffler")
    shuffler_pins = ShufflerPins(
        drop=pins.take(shuffler, "drop"),
        plate=pins.take(shuffler, "plate"),
        lanes=pins.take(shuffler, "lanes", True),
        lift=pins.take(shuffler, "lift"),
        centre_closed=pins.take(shuffler, "centre_closed"),
        counters=pins.take(shuffler, "counters", True),
        heads=pins.take(shuffler, "heads", True),
        lift_top=pins.take(shuffler, "lift_top"),
    )
    timing = ShufflerTiming(
        **{key: shuffler.get(key, "positive") for key in ShufflerTiming.__dataclass_fields__}
    )
    shuffler.done()

    buttons = section("buttons")
    layout, debounce = {}, 0.0
    wiring = buttons.get("wiring", "text")
    if wiring == "gpio":
        for seat_index, seat in enumerate(SEATS):
            panel = buttons.section(seat)
            for button in BUTTONS:
                layout[pins.take(panel, button)] = (seat_index, button)
            panel.done()
        debounce = buttons.get("debounce_ms", "positive") / 1000
    elif wiring != "zone reader":
        raise buttons.error(
            "wiring",
            f'{wiring!r}: the buttons are wired to "gpio" (pins '
            'per seat below) or to the "zone reader" (its board sends them)',
        )
    buttons.done()

    readers = section("readers")
    zones_section, stacker_section = readers.section("zones"), readers.section("stacker")
    readers.done()
    zones_reader = _reader_port(zones_section, simulated, sweep=True)
    zones = _antennas(zones_section.section("antennas"))
    zones_section.done()
    stacker_reader = _reader_port(stacker_section, simulated, sweep=False)
    stacker_section.done()

    tags = section("tags")
    registry = path.parent / tags.get("registry", "text")
    if not registry.is_file():
        raise tags.error("registry", f"no such file {registry}")
    tags.done()
    return Profile(
        path,
        name,
        ruleset,
        simulated,
        claim_window,
        host,
        port,
        referee_pin,
        backend,
        shuffler_pins,
        timing,
        layout,
        debounce,
        wiring,
        zones_reader,
        stacker_reader,
        zones,
        registry,
        load_registry(registry),
    )


def _reader_port(section: _Section, simulated: bool, sweep: bool) -> ReaderPort:
    path = section.get("path", "text")
    if path == SIMULATED_PATH and not simulated:
        raise section.error(
            "path",
            f'"{SIMULATED_PATH}" needs a simulated table '
            "([table] simulated = true); give the reader's /dev/serial/by-id path",
        )
    baud = section.get("baud", "int")
    if baud <= 0:
        raise section.error("baud", f"{baud} is not a baud rate")
    return ReaderPort(path, baud, section.get("sweep_seconds", "positive") if sweep else None)


def _antennas(section: _Section) -> dict[int, str]:
    zones: dict[int, str] = {}
    for key in section.data:
        zone = section.get(key, "text")
        antenna = int(key) if key.isascii() and key.isdigit() else -1
        if not 0 <= antenna <= 255:
            raise section.error(key, "an antenna is a number 0..255")
        if antenna in zones:
            raise section.error(key, f"antenna {antenna} is used twice")
        if zone not in ZONES:
            raise section.error(key, f"unknown zone {zone!r} (zones: {', '.join(ZONES)})")
        zones[antenna] = zone
    uncovered = [zone for zone in ZONES if zone not in zones.values()]
    if uncovered:
        raise section.error("", f"no antenna lies under {', '.join(uncovered)}")
    return zones


def load_registry(path: str | Path) -> dict[bytes, tuple[str, int]]:
    """Tag id -> (tile set, physical tile id) from a registry CSV (header tag,set,tile,name)."""
    path = Path(path)
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
    except FileNotFoundError:
        raise ProfileError(f"{path}: no such file (the tile registry)") from None
    except (UnicodeDecodeError, csv.Error) as err:
        raise ProfileError(f"{path}: not a CSV file: {err}") from None
    if not rows or [c.strip() for c in rows[0]] != REGISTRY_HEADER:
        raise ProfileError(f"{path}:1: the header must be {','.join(REGISTRY_HEADER)}")
    tags: dict[bytes, tuple[str, int]] = {}
    lines: dict[tuple[str, int], int] = {}
    for line, row in enumerate(rows[1:], start=2):
        if not row:
            continue
        if len(row) != 4:
            raise ProfileError(
                f"{path}:{line}: expected 4 fields (tag,set,tile,name), got {len(row)}"
            )
        tag_hex, tile_set, tile_text, name = (c.strip() for c in row)
        try:
            tag = bytes.fromhex(tag_hex)
        except ValueError:
            raise ProfileError(f"{path}:{line}: tag {tag_hex!r} is not hex") from None
        if len(tag) not in UID_SIZES:
            raise ProfileError(
                f"{path}:{line}: tag {tag_hex} has {len(tag)} bytes "
                f"(a tag id has {', '.join(map(str, UID_SIZES))})"
            )
        if tile_set not in TILE_SETS:
            raise ProfileError(f"{path}:{line}: unknown set {tile_set!r} (sets: A, B)")
        tile = int(tile_text) if tile_text.isascii() and tile_text.isdigit() else -1
        if not 0 <= tile < TILES_PER_SET:
            raise ProfileError(
                f"{path}:{line}: tile {tile_text!r} is not a tile id 0..{TILES_PER_SET - 1}"
            )
        if name != NAMES[kind_of(tile)]:
            raise ProfileError(
                f"{path}:{line}: tile {tile} is {NAMES[kind_of(tile)]}, not {name!r}"
            )
        if tag in tags:
            raise ProfileError(
                f"{path}:{line}: tag {tag_hex} is already on line {lines[tags[tag]]}"
            )
        if (tile_set, tile) in lines:
            raise ProfileError(
                f"{path}:{line}: set {tile_set} tile {tile} already has a tag "
                f"on line {lines[tile_set, tile]}"
            )
        tags[tag] = (tile_set, tile)
        lines[tile_set, tile] = line
    return tags


def sim_tag(tile_set: str, tile: int) -> bytes:
    """The simulated table's tag id of a tile: ISO 15693 style (E0, maker 04, 6 serial bytes)."""
    return b"\xe0\x04" + hashlib.sha256(f"mjtable-sim/{tile_set}/{tile}".encode()).digest()[:6]


def sim_registry_text() -> str:
    """config/tables/sim-tags.csv: every tile of both sets with its simulated tag.

    Regenerate with: .venv/bin/python -c "from firmware.profile import sim_registry_text as t;
    open('config/tables/sim-tags.csv', 'w').write(t())"
    """
    lines = [",".join(REGISTRY_HEADER)]
    for tile_set in TILE_SETS:
        for tile in range(TILES_PER_SET):
            lines.append(
                f"{sim_tag(tile_set, tile).hex()},{tile_set},{tile},{NAMES[kind_of(tile)]}"
            )
    return "\n".join(lines) + "\n"
