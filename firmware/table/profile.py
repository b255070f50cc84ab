"""Table profiles (config/tables/*.toml).

A profile describes one table's hardware, as a Klipper printer.cfg does a printer: which pins
drive the shuffler and carry the buttons, which reader antenna lies under which zone, where the
display listens. Each device section names its `kind`, one that firmware/table/assembly.py can
build,
and the keys that kind reads. Every mistake (a missing or unknown key, a wrong type, a number
out of its range, an unknown kind, a pin or an antenna used twice, an unknown zone) is refused
here, at start-up, with the file, the section and the key, by engine/schema.py's `Section` as
for the rule books. The tile registry the profile names ([tags] registry) is
firmware/table/tags.py's.
What depends on the display being served (a PIN everyone knows, plain HTTP, beyond this
machine) is refused when it is about to be, by `check_listener` (issue 20). The optional
[uplink] section (the venue's broker, issue 15) is firmware/bus/settings.py's.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from drivers.buttons import BUTTONS
from drivers.shuffler import ShufflerPins, ShufflerTiming
from engine.schema import ConfigError, Range, Section, list_of, number, one_of, whole
from engine.seats import LETTERS, ZONES
from firmware.bus.contract import DISCOVERY_WORD, MAX_MINUTES
from firmware.bus.settings import TOPIC_WORD, TOPIC_WORD_WORDS, UplinkSettings, uplink_settings
from firmware.resources import config_dir, load_toml, ruleset_path
from firmware.table.assembly import kinds
from firmware.table.file_names import refuse_long_file_names
from firmware.table.tags import RegistryError, load_registry
from firmware.web.settings import display_settings, listener_problem

TABLES_DIR = config_dir() / "tables"
# The free space the journal's disk keeps (firmware/table/storage.py): room for a session's rows
# and a checkpoint at least; above a terabyte it is a typing mistake.
MIN_FREE_MB = number(10, 1_000_000)


class ProfileError(ConfigError):
    """A profile the table cannot run with; the message names the file, the section, the key
    (or the registry's file and line)."""


@dataclass(frozen=True)
class ReaderPort:
    """A tile reader's serial link; `path` is None for a simulated reader ([readers.*] kind =
    "sim"), whose link (a pty) the simulated table makes."""

    path: str | None
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
    broadcast_token: str  # the broadcast view's credential (firmware/display/broadcast.py)
    broadcast_delay_seconds: float  # how long the broadcast holds every update back
    tls: tuple[Path, Path] | None  # the display's certificate and key files; None: plain HTTP
    journal_min_free_mb: float  # under this much free space the table stops refereeing
    device_key: (
        str  # the device key's file (firmware/journal/device_key.py); "": beside the journal
    )
    kinds: dict[str, str]  # device section -> the kind it names ("gpio" -> "sim", ...)
    shuffler_pins: ShufflerPins
    shuffler_timing: ShufflerTiming
    buttons: dict[int, tuple[int, str]]  # pin -> (side 0..3, button); [buttons] kind "gpio"
    # The side's button that starts the shuffler again after its fault (issue 29); None: the
    # desk's retry only.
    shuffler_retry: tuple[int, str] | None
    debounce_seconds: float
    zones_reader: ReaderPort
    stacker_reader: ReaderPort
    zones: dict[int, str]  # antenna -> zone name
    registry: Path
    tags: dict[bytes, tuple[str, int]]  # tag id -> (tile set, physical tile id)
    uplink: UplinkSettings | None  # the venue's broker; None: no [uplink], no uplink
    # A game's (CCM 局's) minutes at this table, over the rule book's [game] minutes (seed 004
    # 第五條); the venue's start_session minutes win over both. None: the rule book's.
    game_minutes: int | None = None
    # The folder of the table's session journals (firmware/table/sessions.py); None: its default.
    data_dir: Path | None = None


DEVICE_KEY = (lambda v: isinstance(v, str), 'a file\'s path, or "" for one beside the journal')
CLAIM_WINDOW = number(0.5, 30)  # seconds: a window that never closes ends no hand
GAME_MINUTES = whole(1, MAX_MINUTES)  # as the venue's (RULES.md 4.3 has 1 h and 2 h)
PINS = {"rpi": whole(0, 27), "sim": whole(0, 255)}  # "rpi": the BCM GPIOs of the 40-pin header
# Seconds. A timeout shorter than the machine's step faults every cycle: the lower ends leave
# a 4-port table's steps their time (18-35 s a cycle, over 80 s a fault, HARDWARE.md).
SHUFFLER_SECONDS = {
    "drop_timeout": number(3, 60),
    "shuffle": number(1, 120),
    "lane_stall": number(1, 60),
    "head_blocked": number(1, 60),
    "settle": number(1, 60),
    "stack_timeout": number(20, 600),
    "raise_timeout": number(3, 60),
    "cycle_limit": number(20, 600),
}
DEBOUNCE_MS = number(1, 50)  # contact bounce, well under a press (0.1 s or more)
BAUD = whole(300, 4_000_000)
SWEEP_SECONDS = number(0.05, 2)  # 10-30 ms an antenna, 0.15-0.4 s a sweep (HARDWARE.md)


class _Pins:
    """Every pin the profile uses, each one of the pin library's, none given two jobs."""

    def __init__(self, pins: Range) -> None:
        self.owner: dict[int, str] = {}
        self.pin, self.lanes = pins, list_of(pins, 4, 4, "pins (lanes E S W N)")

    def take(self, section: Section, key: str, per_lane: bool = False):
        """One pin, or a tuple of four (one per lane E S W N)."""
        value = section.get(key, self.lanes if per_lane else self.pin)
        for pin in value if per_lane else [value]:
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
        data = load_toml(path)
    except ConfigError as err:  # no such file, not TOML: the message names the file
        raise ProfileError(str(err)) from None
    top = Section(data, "", origin=str(path), error=ProfileError)
    refuse_long_file_names(top, ProfileError)
    device_kinds: dict[str, str] = {}

    def device(section: Section) -> str:
        """The kind a device section names, among those the assembly can build."""
        kind = section.get("kind", one_of(*kinds(section.name)))
        device_kinds[section.name] = kind
        return kind

    table = top.section("table")
    name, ruleset = table.get("name", "text"), table.get("ruleset", "text")
    simulated = table.get("simulated", "bool")
    claim_window = table.get("claim_window_seconds", CLAIM_WINDOW)
    game_minutes = table.get("game_minutes", GAME_MINUTES) if "game_minutes" in table.data else None
    try:
        rules_file = ruleset_path(ruleset)
    except ConfigError as err:
        raise table.error("ruleset", str(err)) from None
    if not rules_file.exists():
        raise table.error("ruleset", f"no rule book file {rules_file}")
    table.done()

    display = top.section("display")
    settings = display_settings(display, path.parent)
    display.done()

    journal = top.section("journal")
    min_free_mb = journal.get("min_free_mb", MIN_FREE_MB)
    device_key = journal.get("device_key", DEVICE_KEY)
    data_dir = path.parent / journal.get("data_dir", "text") if "data_dir" in journal.data else None
    journal.done()

    gpio = top.section("gpio")
    pins = _Pins(PINS[device(gpio)])
    gpio.done()

    shuffler = top.section("shuffler")
    device(shuffler)
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
        **{
            key: shuffler.get(key, SHUFFLER_SECONDS[key])
            for key in ShufflerTiming.__dataclass_fields__
        }
    )
    shuffler.done()

    buttons = top.section("buttons")
    layout: dict[int, tuple[int, str]] = {}
    debounce = 0.0
    if device(buttons) == "gpio":  # "zone_reader": its board sends them, no pins here
        for side, letter in enumerate(LETTERS):
            panel = buttons.section(letter)
            for button in BUTTONS:
                layout[pins.take(panel, button)] = (side, button)
            panel.done()
        debounce = buttons.get("debounce_ms", DEBOUNCE_MS) / 1000
    shuffler_retry = _retry_button(buttons) if "shuffler_retry" in buttons.data else None
    buttons.done()

    readers = top.section("readers")
    zones_section, stacker_section = readers.section("zones"), readers.section("stacker")
    readers.done()
    zones_reader = _reader_port(zones_section, device(zones_section), simulated, sweep=True)
    zones = _antennas(zones_section.section("antennas"))
    zones_section.done()
    stacker_reader = _reader_port(stacker_section, device(stacker_section), simulated, False)
    stacker_section.done()

    dice = top.section("dice")
    device(dice)
    dice.done()

    tags = top.section("tags")
    registry = path.parent / tags.get("registry", "text")
    if not registry.is_file():
        raise tags.error("registry", f"no such file {registry}")
    tags.done()

    uplink = None
    if "uplink" in top.data:
        section = top.section("uplink")
        uplink = uplink_settings(section, path.parent)
        section.done()
        if not TOPIC_WORD.fullmatch(name):
            raise table.error("name", f"{name!r}: with an [uplink], a name is {TOPIC_WORD_WORDS}")
        if uplink.discovery_prefix is not None and not DISCOVERY_WORD.fullmatch(name):
            raise table.error(
                "name", f"{name!r}: Home Assistant's discovery takes no '.' in a table's name"
            )
        if uplink.user not in (None, name):  # the venue's ACL (deploy/mosquitto/acl) is by name
            raise section.error(
                "user",
                f"{uplink.user!r} is not the table's name {name!r}: the broker would drop "
                "every message of a user publishing as another table",
            )
    top.done()
    try:
        tag_ids = load_registry(registry)
    except RegistryError as err:
        raise ProfileError(str(err)) from None
    return Profile(
        path=path,
        name=name,
        ruleset=ruleset,
        simulated=simulated,
        claim_window_seconds=claim_window,
        journal_min_free_mb=min_free_mb,
        device_key=device_key,
        **settings,
        kinds=device_kinds,
        shuffler_pins=shuffler_pins,
        shuffler_timing=timing,
        buttons=layout,
        shuffler_retry=shuffler_retry,
        debounce_seconds=debounce,
        zones_reader=zones_reader,
        stacker_reader=stacker_reader,
        zones=zones,
        registry=registry,
        tags=tag_ids,
        uplink=uplink,
        game_minutes=game_minutes,
        data_dir=data_dir,
    )


def check_listener(profile: Profile, enrolled: bool = False) -> None:
    """Refuse to serve the display as the profile says when it may not be (issue 20): beyond
    this machine with the shipped PIN (unless referees are `enrolled`, issue 19) or without
    TLS (firmware/web/settings.py)."""
    problem = listener_problem(profile.host, profile.referee_pin, profile.tls, enrolled)
    if problem:
        raise ProfileError(f"{profile.path}: [display] {problem[0]}: {problem[1]}")


def _reader_port(section: Section, kind: str, simulated: bool, sweep: bool) -> ReaderPort:
    if kind == "sim" and not simulated:
        raise section.error(
            "kind",
            '"sim" needs a simulated table ([table] simulated = true); a real reader is '
            '"serial", with its /dev/serial/by-id path',
        )
    path = section.get("path", "text") if kind == "serial" else None
    baud = section.get("baud", BAUD)
    return ReaderPort(path, baud, section.get("sweep_seconds", SWEEP_SECONDS) if sweep else None)


def _retry_button(buttons: Section) -> tuple[int, str]:
    """[buttons] shuffler_retry = { side = "E", button = "referee" }: (side 0..3, button)."""
    retry = buttons.section("shuffler_retry")
    side = retry.get("side", one_of(*LETTERS))
    button = retry.get("button", one_of(*BUTTONS))
    retry.done()
    return LETTERS.index(side), button


def _antennas(section: Section) -> dict[int, str]:
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
