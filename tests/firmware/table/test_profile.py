"""Table profiles and the tile registry (firmware/table/profile.py, firmware/table/tags.py,
config/tables/).

Issue 4: a profile describes one table's hardware; every mistake in it is refused at start-up
with a message naming the file, the section and the key (or the registry's line), never found
later at the table.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from engine.seats import ZONES
from engine.tiles import NAMES, kind_of
from firmware.bus.settings import UplinkSettings
from firmware.bus.signing import public_hex
from firmware.table.profile import (
    TABLES_DIR,
    ProfileError,
    load_profile,
)
from firmware.table.tags import RegistryError, load_registry, sim_registry_text
from firmware.web.auth import SHIPPED_BROADCAST_TOKEN, SHIPPED_REFEREE_PIN
from tests.support.profilekit import make_certificate, write_profile
from tests.support.venuekeys import VENUE_PUBLIC, private_pem, public_pem

SIM_TEXT = (TABLES_DIR / "sim.toml").read_text()


def test_the_simulated_profile_loads_with_every_device():
    """Issue 4: sim.toml runs the simulated table: simulated pins and readers, 16 antennas
    under the 16 zones, four sides of four buttons, the shuffler's pins and timings; issue
    11: each device section names its kind, the readers' links are the simulation's own."""
    p = load_profile("sim")
    assert p.simulated and p.ruleset == "wsom2006"
    assert p.kinds == {
        "gpio": "sim",
        "shuffler": "gpio",
        "buttons": "gpio",
        "readers.zones": "sim",
        "readers.stacker": "sim",
        "dice": "physical",
    }
    assert p.zones_reader.path is None and p.stacker_reader.path is None
    assert p.zones_reader.baud == p.stacker_reader.baud == 115200
    assert p.zones_reader.sweep_seconds == 0.25 and p.stacker_reader.sweep_seconds is None
    assert sorted(p.zones.values()) == sorted(ZONES) and p.zones[0] == "wall_E"
    assert sorted(p.buttons.values()) == sorted(
        (s, b) for s in range(4) for b in ("dice", "claim", "win", "referee")
    )
    assert p.shuffler_pins.lanes == (12, 13, 16, 19) and p.shuffler_timing.cycle_limit == 80.0
    assert p.debounce_seconds == 0.03 and p.claim_window_seconds == 2.0
    assert len(p.tags) == 288


def test_the_reference_pi_profile_describes_real_hardware():
    """Issue 4: reference-pi.toml is a real Pi 5 table: rpi-lgpio pins clear of UART0 (BCM
    14/15), readers by their udev names (issue 19), display on the venue network."""
    p = load_profile("reference-pi")
    assert not p.simulated and p.host == "0.0.0.0"
    assert p.kinds["gpio"] == "rpi" and p.kinds["dice"] == "electronic"
    pins = set(p.buttons) | {
        p.shuffler_pins.drop,
        p.shuffler_pins.plate,
        p.shuffler_pins.lift,
        p.shuffler_pins.centre_closed,
        p.shuffler_pins.lift_top,
        *p.shuffler_pins.lanes,
        *p.shuffler_pins.counters,
        *p.shuffler_pins.heads,
    }
    # 17 shuffler lines on the header (0..27), the UART's 14/15 left free; the seat buttons
    # come from the zone reader's board (drivers/README.md SeatButton), not from pins.
    assert len(pins) == 17 and pins <= set(range(28)) - {14, 15}
    assert p.kinds["buttons"] == "zone_reader" and p.buttons == {}
    # issue 19: the names deploy/pi/99-mjtable.rules gives the two boards
    assert {p.zones_reader.path, p.stacker_reader.path} == {
        "/dev/mjtable-zones",
        "/dev/mjtable-stacker",
    }


def test_issue_18_the_profiles_ship_a_broadcast_a_minute_late_with_a_token_to_change():
    """Issue 18: the broadcast's delay defaults to 60 s; the shipped token (not the PIN) opens
    it only from the table itself until it is changed (firmware/web/auth.py)."""
    for name in ("sim", "reference-pi"):
        p = load_profile(name)
        assert p.broadcast_delay_seconds == 60.0
        assert p.broadcast_token == SHIPPED_BROADCAST_TOKEN != p.referee_pin


def test_the_registry_has_both_sets_of_144_tiles_with_288_distinct_tags():
    """Issue 4: sim-tags.csv tags every tile 0..143 of sets A and B, ISO 15693 style (8 bytes
    from E0), named as engine/tiles.py names them; it is what sim_registry_text() makes."""
    tags = load_registry(TABLES_DIR / "sim-tags.csv")
    assert len(tags) == 288
    assert sorted(tags.values()) == [(s, t) for s in "AB" for t in range(144)]
    assert all(len(tag) == 8 and tag[0] == 0xE0 for tag in tags)
    assert (TABLES_DIR / "sim-tags.csv").read_text() == sim_registry_text()
    lines = sim_registry_text().splitlines()
    assert lines[1 + 4 * 4 + 2].endswith(",A,18,5m") and NAMES[kind_of(18)] == "5m"


def test_an_unknown_profile_name_lists_the_known_ones():
    with pytest.raises(ProfileError, match=r"unknown table profile 'nope' \(known: .*sim"):
        load_profile("nope")


BROKEN_PROFILES = [
    # (what is wrong, text replaced in sim.toml, its replacement, the message must contain)
    ("missing key", "plate = 6 ", "", "[shuffler] plate: missing key"),
    (
        "unknown key",
        'name = "sim-1"',
        'name = "sim-1"\ncolour = "red"',
        "[table] colour: unknown key",
    ),
    ("wrong type", "port = 8080", 'port = "8080"', "[display] port: expected an integer"),
    (
        "bool for a number",
        "baud = 115200\nsweep",
        "baud = true\nsweep",
        "[readers.zones] baud: expected an integer from 300 to 4000000, got True",
    ),
    (
        "zero duration",
        "settle = 2.0",
        "settle = 0",
        "[shuffler] settle: expected a number from 1 to 60, got 0",
    ),
    (
        "endless claim window",
        "claim_window_seconds = 2.0",
        "claim_window_seconds = inf",
        "[table] claim_window_seconds: expected a number from 0.5 to 30, got inf",
    ),
    ("nan timing", "shuffle = 6.0", "shuffle = nan", "[shuffler] shuffle: expected a number"),
    (
        "negative debounce",
        "debounce_ms = 30",
        "debounce_ms = -30",
        "[buttons] debounce_ms: expected a number from 1 to 50, got -30",
    ),
    ("negative pin", "plate = 6", "plate = -6", "[shuffler] plate: expected an integer from 0"),
    (
        "a sweep too fast to read",
        "sweep_seconds = 0.25",
        "sweep_seconds = 1e-9",
        "[readers.zones] sweep_seconds: expected a number from 0.05 to 2, got 1e-09",
    ),
    (
        "three lanes",
        "lanes = [12, 13, 16, 19]",
        "lanes = [12, 13, 16]",
        "[shuffler] lanes: expected a list of 4 pins",
    ),
    (
        "pin used twice",
        "lift = 20",
        "lift = 5",
        "[shuffler] lift: pin 5 is already used by [shuffler] drop",
    ),
    (
        "button on a shuffler pin",
        "E = { dice = 7,",
        "E = { dice = 18,",
        "[buttons.E] dice: pin 18 is already used by [shuffler] lift_top",
    ),
    ("missing button", ", referee = 10 }", " }", "[buttons.E] referee: missing key"),
    (
        "unknown seat",
        "debounce_ms = 30",
        "X = { dice = 1 }\ndebounce_ms = 30",
        "[buttons] X: unknown key",
    ),
    (
        "antenna used twice",
        '15 = "melds_N"',
        '15 = "melds_N"\n00 = "wall_E"',
        "[readers.zones.antennas] 00: antenna 0 is used twice",
    ),
    (
        "antenna out of range",
        '15 = "melds_N"',
        '15 = "melds_N"\n256 = "wall_E"',
        "[readers.zones.antennas] 256: an antenna is a number 0..255",
    ),
    (
        "unknown zone",
        '11 = "river_N"',
        '11 = "river_X"',
        "[readers.zones.antennas] 11: unknown zone 'river_X'",
    ),
    (
        "uncovered zone",
        '15 = "melds_N"',
        "",
        "[readers.zones.antennas]: no antenna lies under melds_N",
    ),
    (
        "unknown ruleset",
        'ruleset = "wsom2006"',
        'ruleset = "mcr"',
        "[table] ruleset: unknown ruleset 'mcr'",
    ),
    (
        "unknown pin backend",
        '[gpio]\nkind = "sim"',
        '[gpio]\nkind = "pigpio"',
        "[gpio] kind: expected one of 'rpi', 'sim', got 'pigpio'",
    ),
    (
        "simulated reader on real hardware",
        "simulated = true",
        "simulated = false",
        '[readers.zones] kind: "sim" needs a simulated table',
    ),
    (
        "a key the kind does not read",
        'kind = "sim"\nbaud = 115200\n\n[dice]',
        'kind = "sim"\nbaud = 115200\npath = "/dev/ttyUSB0"\n\n[dice]',
        "[readers.stacker] path: unknown key",
    ),
    (
        "buttons on the reader with pins left over",
        '[buttons]                     # the players\' buttons\nkind = "gpio"',
        '[buttons]\nkind = "zone_reader"',
        "[buttons] E: unknown key",
    ),
    (
        "unknown dice",
        'kind = "physical"',
        'kind = "loaded"',
        "[dice] kind: expected one of 'electronic', 'physical', got 'loaded'",
    ),
    ("missing kind", 'kind = "physical"', "", "[dice] kind: missing key"),
    ("unknown section", "[tags]", "[lights]\n[tags]", "[lights]: unknown section"),
    ("missing section", '[gpio]\nkind = "sim"', "", "[gpio]: missing section"),
    (
        "missing registry",
        'registry = "sim-tags.csv"',
        'registry = "nope.csv"',
        "[tags] registry: no such file",
    ),
    ("not TOML", "port = 8080", "port = = 8080", "not valid TOML"),
    (
        "issue 18: broadcast delay under 10 s",
        "broadcast_delay_seconds = 60",
        "broadcast_delay_seconds = 9.5",
        "[display] broadcast_delay_seconds: 9.5 s is under the minimum of 10 s",
    ),
    (
        "issue 18: broadcast token is the PIN",
        'broadcast_token = "change-this-broadcast-token"',
        'broadcast_token = "246810"',
        "[display] broadcast_token: must be at least 16 characters and not the referee's PIN",
    ),
    (
        "issue 18: no broadcast token",
        'broadcast_token = "change-this-broadcast-token"',
        "",
        "[display] broadcast_token: missing key",
    ),
    (
        "unknown button kind",
        '[buttons]                     # the players\' buttons\nkind = "gpio"',
        '[buttons]\nkind = "bluetooth"',
        "[buttons] kind: expected one of 'gpio', 'zone_reader', got 'bluetooth'",
    ),
    (
        "issue 29: the retry button on no side",
        'shuffler_retry = { side = "E", button = "referee" }',
        'shuffler_retry = { side = "X", button = "referee" }',
        "[buttons.shuffler_retry] side: expected one of 'E', 'S', 'W', 'N', got 'X'",
    ),
    (
        "issue 29: the retry button no button",
        'shuffler_retry = { side = "E", button = "referee" }',
        'shuffler_retry = { side = "E", button = "reset" }',
        "[buttons.shuffler_retry] button: expected one of 'dice', 'claim', 'win', 'referee'",
    ),
    (
        "issue 29: the retry button with a key it does not read",
        'shuffler_retry = { side = "E", button = "referee" }',
        'shuffler_retry = { side = "E", button = "referee", held = 2 }',
        "[buttons.shuffler_retry] held: unknown key",
    ),
    (
        "issue 29: the retry button not a table",
        'shuffler_retry = { side = "E", button = "referee" }',
        'shuffler_retry = "E referee"',
        "[buttons] shuffler_retry: expected a table",
    ),
]


@pytest.mark.parametrize(
    "old, new, expected",
    [case[1:] for case in BROKEN_PROFILES],
    ids=[case[0] for case in BROKEN_PROFILES],
)
def test_a_broken_profile_is_refused_naming_the_file_section_and_key(tmp_path, old, new, expected):
    """Issue 4: a missing or unknown key, a wrong type, a pin or antenna used twice, an unknown
    zone... are refused at start-up, and the message says where."""
    assert old in SIM_TEXT
    shutil.copy(TABLES_DIR / "sim-tags.csv", tmp_path)
    path = tmp_path / "broken.toml"
    path.write_text(SIM_TEXT.replace(old, new, 1))
    with pytest.raises(ProfileError) as refused:
        load_profile(path)
    assert str(refused.value).startswith(str(path))
    assert expected in str(refused.value)


def test_a_pin_beyond_the_pis_header_is_refused_on_the_pi_only(tmp_path):
    """Issue 20 item 8: "rpi" pins are the BCM GPIOs 0..27 of the 40-pin header; a simulated
    table may number its pins as it likes (sim.toml's W and N buttons are 100..107)."""
    shutil.copy(TABLES_DIR / "sim-tags.csv", tmp_path)
    path = tmp_path / "pi.toml"
    text = (TABLES_DIR / "reference-pi.toml").read_text()
    path.write_text(text.replace("lift_top = 18", "lift_top = 40", 1))
    with pytest.raises(
        ProfileError, match=r"\[shuffler\] lift_top: expected an integer from 0 to 27, got 40$"
    ):
        load_profile(path)
    assert 107 in load_profile("sim").buttons


@pytest.mark.parametrize(
    "broken, expected",
    [
        (b'[table]\nname = "sim\xff-1"\n', "not UTF-8 text (byte 19), so not TOML"),
        (b"deep = " + b"[" * 1000 + b"]" * 1000 + b"\n", "values nested too deep for a config"),
        (b"deep = " + b"{ a = " * 1000 + b"1" + b" }" * 1000, "values nested too deep"),
        (b"[table]\nname = ", "not valid TOML: Invalid value (at end of document)"),
    ],
    ids=["not UTF-8", "nested lists", "nested tables", "cut short"],
)
def test_a_file_that_is_no_config_is_refused_naming_it(tmp_path, broken, expected):
    """Issue 20 item 8: bytes that are not UTF-8, values nested deeper than Python's parser
    recurses, a file cut short: each one line naming the file, never a traceback."""
    path = tmp_path / "broken.toml"
    path.write_bytes(broken)
    with pytest.raises(ProfileError) as refused:
        load_profile(path)
    message = str(refused.value)
    assert message.startswith(f"{path}: {expected}") and "\n" not in message


GOOD_ROWS = ["tag,set,tile,name", "e004000000000001,A,0,1m", "e004000000000002,B,143,8f"]
BROKEN_REGISTRIES = [
    ("bad hex", "e00400000000zz03,A,1,1m", "tag 'e00400000000zz03' is not hex"),
    ("tag of 5 bytes", "e004000003,A,1,1m", "tag e004000003 has 5 bytes"),
    ("duplicate tag", "e004000000000001,A,1,1m", "tag e004000000000001 is already on line 2"),
    ("unknown set", "e004000000000003,C,1,1m", "unknown set 'C'"),
    ("tile out of range", "e004000000000003,A,144,1f", "tile '144' is not a tile id 0..143"),
    ("tile not a number", "e004000000000003,A,-1,1m", "tile '-1' is not a tile id"),
    (
        "set and tile twice",
        "e004000000000003,B,143,8f",
        "set B tile 143 already has a tag on line 3",
    ),
    ("name disagrees", "e004000000000003,A,1,5m", "tile 1 is 1m, not '5m'"),
    ("missing field", "e004000000000003,A,1", "expected 4 fields"),
]


@pytest.mark.parametrize(
    "row, expected",
    [case[1:] for case in BROKEN_REGISTRIES],
    ids=[case[0] for case in BROKEN_REGISTRIES],
)
def test_a_broken_registry_is_refused_with_its_line_number(tmp_path, row, expected):
    """Issue 4: a bad hex, a duplicate tag, an unknown set, a tile id out of range, a (set,
    tile) given twice are refused with the registry's line number."""
    path = tmp_path / "tags.csv"
    path.write_text("\n".join(GOOD_ROWS + [row]) + "\n")
    with pytest.raises(RegistryError, match=re.escape(f"{path}:4: {expected}")):
        load_registry(path)


def test_a_registry_without_its_header_is_refused_at_line_one(tmp_path):
    path = tmp_path / "tags.csv"
    path.write_text("\n".join(GOOD_ROWS[1:]) + "\n")
    with pytest.raises(RegistryError, match=re.escape(f"{path}:1: the header must be")):
        load_registry(path)


@pytest.mark.parametrize(
    "pin, problem",
    [
        ("24681", "a PIN of 5 digits is too easily guessed: use 6 digits or more"),
        ("2468", "a PIN of 4 digits is too easily guessed"),
        ("mahjong!", "a passphrase of 8 characters is too easily guessed: use 10 characters"),
        ("  pung    ", "a passphrase of 4 characters"),
    ],
)
def test_issue_20_item_1_a_short_referee_secret_is_refused_naming_the_key(tmp_path, pin, problem):
    """Issue 20 item 1: a referee secret is 6 digits or more, or a passphrase of 10
    characters or more; anything shorter is refused at start-up, naming the key."""
    path = write_profile(tmp_path, referee_pin=pin)
    with pytest.raises(ProfileError, match=re.escape(f"[display] referee_pin: {problem}")):
        load_profile(path)


@pytest.mark.parametrize("pin", ["802613", "0123456789", "east wind round"])
def test_issue_20_item_1_six_digits_or_a_passphrase_will_do(tmp_path, pin):
    assert load_profile(write_profile(tmp_path, referee_pin=pin)).referee_pin == pin


def test_issue_20_item_1_the_profiles_ship_a_six_digit_pin_and_no_tls():
    """Issue 20 item 1: both profiles ship PIN 246810 (the shipped one, refused beyond this
    machine by check_listener) and plain HTTP (tls_cert = tls_key = "")."""
    for name in ("sim", "reference-pi"):
        p = load_profile(name)
        assert p.referee_pin == SHIPPED_REFEREE_PIN == "246810" and p.tls is None


def test_issue_20_item_1_tls_files_are_checked_at_start_up(tmp_path):
    """Issue 20 item 1: tls_cert and tls_key go together, must exist (relative to the
    profile's folder), and must be a certificate and its key: each refused naming its key."""
    cert, key = make_certificate(tmp_path)
    (tmp_path / "other").mkdir()
    other_cert, _ = make_certificate(tmp_path / "other")
    cases = [
        ({"tls_cert": cert.name}, "[display] tls_key: tls_cert and tls_key go together"),
        ({"tls_cert": "nope.crt", "tls_key": key.name}, "[display] tls_cert: no such file"),
        ({"tls_cert": cert.name, "tls_key": "nope.key"}, "[display] tls_key: no such file"),
        (
            {"tls_cert": str(other_cert), "tls_key": key.name},
            f"[display] tls_key: {key} and {other_cert} are not a certificate and its key",
        ),
        ({"tls_cert": 1, "tls_key": key.name}, '[display] tls_cert: expected a file path, or ""'),
    ]
    for keys, message in cases:
        with pytest.raises(ProfileError, match=re.escape(message)):
            load_profile(write_profile(tmp_path, **keys))
    good = load_profile(write_profile(tmp_path, tls_cert=cert.name, tls_key=key.name))
    assert good.tls == (cert, key)


UPLINK_KEYS = {
    "host": '"broker.hall"',
    "port": "8883",
    "tls": "true",
    "ca_file": '"venue-ca.crt"',
    "user": '"sim-1"',
    "password_file": '"broker.password"',
    "venue": '"hall-2"',
    "key_file": '"venue.pub"',
    "keepalive_seconds": "10",
}


def uplink_profile(folder, **keys) -> str:
    """sim.toml with an [uplink] section, `keys` replacing UPLINK_KEYS (None: left out), its
    files (a CA, a password, the venue's public key) written beside it."""
    make_certificate(folder)  # display.crt: a CA certificate as good as any
    shutil.copy(folder / "display.crt", folder / "venue-ca.crt")
    (folder / "broker.password").write_text("s3cret pass\n")
    (folder / "venue.pub").write_bytes(b"  " + public_pem())
    shutil.copy(TABLES_DIR / "sim-tags.csv", folder)
    lines = [f"{k} = {v}" for k, v in (UPLINK_KEYS | keys).items() if v is not None]
    path = folder / "venue.toml"
    path.write_text(SIM_TEXT + "\n[uplink]\n" + "\n".join(lines) + "\n")
    return str(path)


def test_issue_15_the_uplink_section_names_the_venue_broker_and_its_secrets(tmp_path):
    """Issue 15: [uplink] is read whole: the broker, TLS with the profile's CA file, the
    user, the password and the venue's public key read from their files (without the
    whitespace around them); no section (the shipped profiles), no uplink."""
    assert load_profile(uplink_profile(tmp_path)).uplink == UplinkSettings(
        host="broker.hall",
        port=8883,
        venue="hall-2",
        tls=True,
        ca_file=tmp_path / "venue-ca.crt",
        user="sim-1",
        password="s3cret pass",
        key=VENUE_PUBLIC,
        keepalive=10,
    )
    assert "s3cret" not in repr(load_profile(uplink_profile(tmp_path)).uplink)
    bare = {"tls": "false", "ca_file": '""', "user": '""', "password_file": '""', "key_file": '""'}
    plain = load_profile(uplink_profile(tmp_path, **bare)).uplink
    assert plain.ca_file is plain.user is plain.password is plain.key is None
    assert load_profile("sim").uplink is None and load_profile("reference-pi").uplink is None


@pytest.mark.parametrize(
    ("keys", "expected"),
    [
        ({"keepalive_seconds": None}, "[uplink] keepalive_seconds: missing key"),
        ({"port": "0"}, "[uplink] port: expected an integer from 1 to 65535, got 0"),
        (
            {"keepalive_seconds": "0.5"},
            "[uplink] keepalive_seconds: expected an integer from 1 to 600",
        ),
        ({"tls": '"yes"'}, "[uplink] tls: expected true or false"),
        ({"venue": '"hall/2"'}, "[uplink] venue: 'hall/2': a venue's id is 1 to 64 letters"),
        ({"venue": '"#"'}, "[uplink] venue: '#': a venue's id is"),
        ({"colour": '"red"'}, "[uplink] colour: unknown key"),
        (
            {"tls": "false"},
            '[uplink] ca_file: a CA file is for TLS: set tls = true, or ca_file = ""',
        ),
        ({"ca_file": '"broker.password"'}, "[uplink] ca_file: "),
        ({"user": '""'}, "[uplink] password_file: a password needs its user"),
        (
            {"password_file": '"nope.password"'},
            "[uplink] password_file: cannot read {}/nope.password",
        ),
        ({"key_file": '"nope.pub"'}, "[uplink] key_file: cannot read {}/nope.pub"),
        ({"user": '"table-7"'}, "[uplink] user: 'table-7' is not the table's name 'sim-1'"),
    ],
)
def test_issue_15_a_broken_uplink_section_is_refused_naming_the_key(tmp_path, keys, expected):
    """Issue 15: every key of [uplink] is required and checked, each refusal naming it; a
    password or key file that cannot be read is named with its path."""
    with pytest.raises(ProfileError, match=re.escape(expected.format(tmp_path))):
        load_profile(uplink_profile(tmp_path, **keys))


def test_issue_35_a_key_not_the_venues_public_key_and_a_table_name_outside_the_topics(tmp_path):
    """Issue 15, 35: an empty key file is no key; an HMAC secret of before issue 35, or the
    venue's private key copied by mistake, is not the venue's public key and is refused (a
    table must never hold the key that signs); its 64 hex digits do. With an [uplink], the
    table's name is a word of the bus's topics, so a "/" in it is refused."""
    path = uplink_profile(tmp_path)
    (tmp_path / "venue.pub").write_text("\n")
    with pytest.raises(
        ProfileError, match=re.escape("[uplink] key_file: ") + ".*venue.pub is empty"
    ):
        load_profile(path)
    for wrong in (b"0123456789abcdef", private_pem()):
        (tmp_path / "venue.pub").write_bytes(wrong)
        with pytest.raises(
            ProfileError, match=re.escape("key_file: venue.pub: not the venue's Ed25519")
        ):
            load_profile(path)
    (tmp_path / "venue.pub").write_text(public_hex(VENUE_PUBLIC) + "\n")
    assert load_profile(path).uplink.key == VENUE_PUBLIC
    Path(path).write_text(Path(path).read_text().replace('name = "sim-1"', 'name = "sim/1"'))
    with pytest.raises(ProfileError, match=re.escape("[table] name: 'sim/1': with an [uplink]")):
        load_profile(path)


def test_issue_29_the_shipped_tables_name_east_s_referee_button_to_retry_the_shuffler(tmp_path):
    """Issue 29: a real table's "press retry" had no input. Both shipped profiles name the
    button that starts the shuffler again after its fault; a profile naming none has only the
    desk's retry."""
    for name in ("sim", "reference-pi"):
        assert load_profile(name).shuffler_retry == (0, "referee")
    shutil.copy(TABLES_DIR / "sim-tags.csv", tmp_path)
    path = tmp_path / "no-retry.toml"
    path.write_text(re.sub(r"^shuffler_retry = .*$", "", SIM_TEXT, count=1, flags=re.MULTILINE))
    assert load_profile(path).shuffler_retry is None
