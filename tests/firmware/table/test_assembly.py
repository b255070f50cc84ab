"""The table's devices built from its profile (firmware/table/assembly.py, issue 11).

Each device section of a profile names its kind; the assembly's registry builds it. A kind the
registry cannot build, or a key that kind does not read, is refused when the profile loads,
naming the file, the section and the key; a profile that loads can be built.
"""

import shutil
import threading

import pytest
import serial

from drivers.buttons import ButtonPress, Buttons
from drivers.dice import ElectronicDice, PhysicalDice
from drivers.shuffler import ShufflerStep
from drivers.sim.pins import SimulatedGPIO
from firmware.resources import load_ruleset
from firmware.table.assembly import BUILDERS, READERS, build_devices, kinds
from firmware.table.profile import TABLES_DIR, ProfileError, load_profile

SECTIONS = ("gpio", "shuffler", "buttons", *READERS, "dice")
PTYS = ("/tmp/zones-pty", "/tmp/stacker-pty")


def build(profile_name, **overrides):
    """The devices of a profile on simulated pins; the records they report, by source."""
    profile = load_profile(profile_name)
    records: dict[str, list] = {"devices": []}

    def reader_report(path):
        records[path] = []
        return records[path].append

    options = {"gpio": SimulatedGPIO(), "reader_paths": PTYS} | overrides
    devices = build_devices(
        profile,
        load_ruleset(profile.ruleset),
        lambda: 1.0,
        records["devices"].append,
        reader_report,
        **options,
    )
    return devices, records


def test_the_simulated_profile_builds_its_devices_on_the_simulations_pins_and_links():
    """Issue 11: sim.toml: the shuffler and the buttons on the pins handed in, both reporting
    to `report`; the readers on the simulation's ptys, not started; physical dice."""
    gpio = SimulatedGPIO()
    devices, records = build("sim", gpio=gpio)
    assert devices.gpio is gpio and devices.shuffler.gpio is gpio
    assert isinstance(devices.buttons, Buttons) and isinstance(devices.dice, PhysicalDice)
    assert [reader.path for reader in devices.readers] == list(PTYS)
    assert not any(reader.opened.is_set() for reader in devices.readers)
    assert set(records) == {"devices", *PTYS}
    devices.shuffler.start(0.0)
    gpio.drive(8, 0, 1.0)  # East's claim button (sim.toml), pressed to ground
    assert records["devices"][0] == ShufflerStep(0.0, "dropping", "A")
    assert records["devices"][1] == ButtonPress(0, "claim", 1.0)


def test_the_reference_table_builds_without_button_pins_and_with_electronic_dice():
    """Issue 11: reference-pi.toml: its buttons come from the zone reader's board (no Buttons),
    its dice are electronic, its readers are opened by the names the udev rules give them
    (issue 19, deploy/pi/99-mjtable.rules)."""
    devices, _ = build("reference-pi", reader_paths=None)
    assert devices.buttons is None and isinstance(devices.dice, ElectronicDice)
    assert {r.path for r in devices.readers} == {"/dev/mjtable-zones", "/dev/mjtable-stacker"}


def test_a_simulated_reader_needs_the_link_the_simulation_made():
    with pytest.raises(ValueError, match=r'\[readers.zones\] kind = "sim"'):
        build("sim", reader_paths=None)


def test_the_profiles_baud_reaches_pyserial(monkeypatch, tmp_path):
    """Issue 11: [readers.*] baud was read and never used; the reader now opens its port at
    the profile's rate."""
    shutil.copy(TABLES_DIR / "sim-tags.csv", tmp_path)
    path = tmp_path / "slow.toml"
    path.write_text((TABLES_DIR / "sim.toml").read_text().replace("baud = 115200", "baud = 9600"))
    opened = threading.Event()
    settings: dict = {}

    def serial_for_url(url, **given):
        settings.update(given, url=url)
        opened.set()
        raise serial.SerialException("no such port here")

    monkeypatch.setattr(serial, "serial_for_url", serial_for_url)
    devices, _ = build(str(path))
    with devices.readers[0]:
        assert opened.wait(5)
    assert settings["url"] == PTYS[0] and settings["baudrate"] == 9600


def test_every_device_section_has_a_builder_for_each_kind_it_may_name():
    assert set(BUILDERS) == {(section, kind) for section in SECTIONS for kind in kinds(section)}
    assert {section for section, _ in BUILDERS} == set(SECTIONS)
    for name in ("sim", "reference-pi"):
        assert set(load_profile(name).kinds) == set(SECTIONS)


@pytest.mark.parametrize("section", SECTIONS)
def test_an_unknown_kind_is_refused_with_the_file_and_the_section(tmp_path, section):
    """Issue 11: a kind the assembly cannot build is refused at start-up: file, section, key,
    and the kinds that section may name."""
    shutil.copy(TABLES_DIR / "sim-tags.csv", tmp_path)
    text = (TABLES_DIR / "sim.toml").read_text()
    at = text.index("kind = ", text.index(f"\n[{section}]"))
    end = text.index("\n", at)
    path = tmp_path / "unknown.toml"
    path.write_text(text[:at] + 'kind = "warp"' + text[end:])
    with pytest.raises(ProfileError) as refused:
        load_profile(path)
    known = ", ".join(repr(kind) for kind in kinds(section))
    assert str(refused.value) == (f"{path}: [{section}] kind: expected one of {known}, got 'warp'")
