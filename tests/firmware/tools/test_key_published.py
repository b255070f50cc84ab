"""Issue 35 "the key published and pinned": the table's device key by one fingerprint
(firmware/journal/device_key.py `fingerprint`) wherever someone may read it before trusting a
journal: `mjtable key show`, the selftest's header, the referee view, the public view and the
stream. (The score sheet: tests/firmware/audit/test_verify_anchors.py; the bus's status:
tests/firmware/uplink/test_identity.py.)"""

from firmware.cli import main
from firmware.desk.desk import Desk
from firmware.display.broadcast import broadcast_state
from firmware.journal.device_key import fingerprint, load
from firmware.journal.store import Journal
from firmware.table.profile import load_profile
from firmware.tools.key import selftest_line
from tests.support.servicekit import Clock, service_of


def test_issue_35_key_show_prints_the_fingerprint_and_never_makes_a_key(tmp_path, capsys):
    """`mjtable key show --journal J` prints the fingerprint, the public key and the file of
    the key beside J; with none there yet it says so (exit 1) and makes none."""
    journal = tmp_path / "j.sqlite"
    assert main(["key", "show", "--journal", str(journal)]) == 1
    assert "no device key at" in capsys.readouterr().err
    assert not (tmp_path / "device.key").exists()
    key = load(tmp_path / "device.key")
    assert main(["key", "show", "--journal", str(journal)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [
        f"fingerprint {fingerprint(key.public_hex)}",
        f"public_key {key.public_hex}",
        f"file {tmp_path / 'device.key'}",
    ]
    (tmp_path / "device.key").chmod(0o644)
    assert main(["key", "show", "--journal", str(journal)]) == 2
    assert "readable by others" in capsys.readouterr().err


def test_issue_35_the_selftest_names_the_key(tmp_path):
    profile = load_profile("sim")
    assert "none yet" in selftest_line(profile, str(tmp_path))
    key = load(tmp_path / "device.key")
    assert selftest_line(profile, str(tmp_path)).startswith(f"device key: {key.fingerprint} (")


def test_issue_35_both_views_and_the_stream_show_the_tables_key(tmp_path):
    """The referee view, the public view and the broadcast carry the fingerprint of the key
    that signs this table's journal (the pages show it under the seals, tiles.js)."""
    journal = Journal(tmp_path / "j.sqlite")
    service = service_of(journal, Clock())
    desk = Desk(service, "T07")
    shown = load(tmp_path / "device.key").fingerprint
    assert shown == fingerprint(service.hands.device_key.public_hex)
    for referee in (True, False):
        assert desk.snapshot(referee)["key_fingerprint"] == shown
    assert broadcast_state(desk.snapshot(True))["key_fingerprint"] == shown
    journal.close()
