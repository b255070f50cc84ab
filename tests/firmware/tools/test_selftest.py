"""Issue 19: `mjtable selftest` checks each device of the table in turn (HARDWARE.md §1, §5-6
for the devices; SOFTWARE.md §8 for the serial links, the pins and SQLite), passing on the
simulated table and naming each injected fault with what to do; `mjtable logs export`
bundles the logs, journals, selftest and masked profile for a support ticket."""

import json
import os
import stat
import tarfile
from pathlib import Path

import pytest

from engine import events as ev
from firmware.cli import main
from firmware.journal.store import Journal
from firmware.ports import free_port
from firmware.table.profile import TABLES_DIR, load_profile
from firmware.tools import selftest, support
from firmware.tools.selftest_checks import NAMES
from tests.support.runkit import refused

CHECKS = [*NAMES, "display port", "journal disk"]
PIN, TOKEN = "9137284650", "a-long-broadcast-token-Zq81x"


@pytest.fixture
def sim_profile(tmp_path) -> Path:
    """The simulated table's profile, with secrets of its own and a port nobody holds."""
    text = (TABLES_DIR / "sim.toml").read_text(encoding="utf-8")
    text = text.replace('referee_pin = "246810"', f'referee_pin = "{PIN}"')
    text = text.replace('"change-this-broadcast-token"', f'"{TOKEN}"')
    text = text.replace("port = 8080", f"port = {free_port()}")
    text = text.replace('"sim-tags.csv"', f'"{TABLES_DIR / "sim-tags.csv"}"')
    path = tmp_path / "table.toml"
    path.write_text(text, encoding="utf-8")
    return path


def selftest_json(capsys, profile: Path, tmp_path, *extra: str) -> tuple[int, dict]:
    status = main(
        ["selftest", "--json", "--profile", str(profile), "--journal-dir", str(tmp_path), *extra]
    )
    listed = json.loads(capsys.readouterr().out)
    assert [check["name"] for check in listed] == CHECKS
    return status, {check["name"]: check for check in listed}


def test_the_simulated_table_passes_every_check(capsys, sim_profile, tmp_path):
    """Issue 19 "Done when": selftest passing on the simulated table: every device of
    HARDWARE.md in turn (the pins, both readers, a shuffler cycle, the stacker's tiles, the
    dice, the 16 seat buttons pressed by the simulation), the display's port, the journal's
    disk; exit 0 and one JSON list of name, ok, detail, advice."""
    status, checks = selftest_json(capsys, sim_profile, tmp_path)
    assert status == 0, checks
    assert all(check["ok"] and check["advice"] == "" for check in checks.values())
    assert "34/34/34/34" in checks["shuffler"]["detail"]
    assert "16 antennas" in checks["zone reader"]["detail"]
    assert checks["stacker reads tiles"]["detail"].startswith("136 tiles read")
    assert checks["seat buttons"]["detail"] == "16 buttons pressed when told"


@pytest.mark.parametrize(
    ("fault", "failing", "words", "advice"),
    [
        (
            "jam=W",
            ["shuffler", "stacker reads tiles"],
            "West stacking head",
            "clear the tile stuck at the West",
        ),
        (
            "lost=N",
            ["shuffler", "stacker reads tiles"],
            "North lane stacked 33",
            "look for the missing tile",
        ),
        ("unplug", ["zone reader"], "cannot open", "check the zone reader's USB cable"),
        (
            "unplug=stacker",
            ["stacker reader", "stacker reads tiles"],
            "cannot open",
            "check the stacker reader's USB cable",
        ),
    ],
)
def test_an_injected_fault_is_named_with_its_advice(
    capsys, sim_profile, tmp_path, fault, failing, words, advice
):
    """Issue 19 "Done when": naming each injected device fault: a dead lane (its head jams at
    the first tile) and a lost tile (HARDWARE.md §1.4), an unplugged reader (SOFTWARE.md §8
    item 11): exit 1, that device's line fails saying what was seen and what to do, and the
    other devices still pass."""
    status, checks = selftest_json(capsys, sim_profile, tmp_path, "--fault", fault, "--no-buttons")
    assert status == 1
    assert [name for name, check in checks.items() if not check["ok"]] == failing
    assert words in checks[failing[0]]["detail"]
    assert advice in checks[failing[0]]["advice"]


def test_issue_31_a_jammed_lane_fails_stacker_reads_tiles(capsys, sim_profile, tmp_path):
    """Issue 31 "a jam still passes 'stacker reads tiles'": with a lane jammed at its first
    tile the cycle never stacks its 136 tiles, so the stacker's check cannot pass on the
    tiles of the other lanes; it fails saying the cycle did not end and what to do first."""
    status, checks = selftest_json(capsys, sim_profile, tmp_path, "--fault", "jam", "--no-buttons")
    stacker = checks["stacker reads tiles"]
    assert status == 1 and not stacker["ok"]
    assert stacker["detail"].endswith(
        "of the 136 tiles of a cycle: the cycle did not end (the shuffler's line says why)"
    )
    assert stacker["advice"] == "clear the shuffler's fault, then run the selftest again"


def test_the_text_lines_say_pass_fail_and_what_to_do(capsys, sim_profile, tmp_path):
    """Issue 19: one line per device, PASS or FAIL, the failing one followed by its advice,
    and the count of failures last."""
    argv = ["selftest", "--profile", str(sim_profile), "--journal-dir", str(tmp_path)]
    assert main([*argv, "--no-buttons", "--fault", "jam"]) == 1
    lines = capsys.readouterr().out.splitlines()
    verdicts = [line for line in lines if line.startswith(("PASS", "FAIL"))]
    assert [line.split(":")[0].split(None, 1)[1] for line in verdicts] == CHECKS
    failed = lines.index(next(line for line in lines if line.startswith("FAIL")))
    assert lines[failed].startswith("FAIL  shuffler: a tile is stuck at the East stacking head")
    assert lines[failed + 1].strip().startswith("-> clear the tile stuck")
    assert lines[-1] == "2 failed: shuffler, stacker reads tiles"


def test_a_button_not_pressed_is_named_and_never_hangs(sim_profile, tmp_path, monkeypatch):
    """Issue 19 "press each when told": a button nobody presses fails within its time
    limit, naming the seat and the button, and the checks after it still run."""
    monkeypatch.setattr("firmware.tools.selftest_rig.Bench.press", lambda bench, side, button: None)
    told: list[str] = []
    checks = selftest.run_checks(
        load_profile(sim_profile), tmp_path, button_seconds=0.05, told=told.append
    )
    buttons = next(check for check in checks if check.name == "seat buttons")
    assert not buttons.ok and buttons.detail == "the E seat's dice button: no press in 0.05 s"
    assert told == ["press the E seat's dice button"]
    assert [check.name for check in checks] == CHECKS


def test_a_slow_fsync_fails_the_journal_disk(tmp_path):
    """Issue 19, SOFTWARE.md §7.1 (SD-card fsync is slow and variable): one slower than FSYNC_LIMIT,
    timed on a fake clock, fails the journal's disk with what to do."""
    ticks = iter([0.0, selftest.FSYNC_LIMIT + 1.5])
    check = selftest.journal_disk(tmp_path, 10, clock=lambda: next(ticks))
    took = f"took {selftest.FSYNC_LIMIT + 1.5:.2f} s (at most {selftest.FSYNC_LIMIT:g} s)"
    assert not check.ok and check.detail.endswith(took)
    assert "replace it" in check.advice


def test_issue_31_the_journal_disk_line_shows_the_free_space(tmp_path):
    """Issue 31 "small things a technician meets": the passing journal line says how much
    room the card has (as the service measures it, statvfs's f_bavail), not only the
    threshold, so a card filling up is seen before it stops the table."""
    free = os.statvfs_result((4096, 4096, 0, 0, 1_536_000, 0, 0, 0, 0, 255))  # 6000 MB free
    check = selftest.journal_disk(tmp_path, 200, statvfs=lambda folder: free)
    assert check.ok
    assert check.detail.startswith(f"{tmp_path}: 6000 MB free (the table stops under 200 MB), ")


def test_a_disk_under_min_free_mb_fails_the_journal_disk(tmp_path):
    """Issue 19 with issue 20 item 7: less free space than [journal] min_free_mb is the
    service's DiskFull, so the selftest fails the journal's disk (firmware/table/storage.py)."""
    check = selftest.journal_disk(tmp_path / "not-made-yet", 10**9)
    assert not check.ok and check.detail.startswith("disk full: ")
    assert str(tmp_path) in check.advice


def test_faults_are_refused_on_a_real_tables_profile(capsys):
    """Issue 19: --fault exists for the simulated table only; a real profile refuses it with
    one line, before any device is touched."""
    line = refused(capsys, "selftest", "--profile", "reference-pi", "--fault", "jam")
    assert line.startswith("mjtable selftest: --fault: ") and "real table" in line


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["--fault", "fire"], "unknown fault 'fire'"),
        (["--fault", "jam=X"], "jam=X: one of East, South, West, North"),
        (["--fault", "unplug=dice"], "one of zones, stacker"),
        (["--port", "0"], "a port from 1 to 65535"),
        (["--button-seconds", "0"], "--button-seconds"),
        (["--profile", "nosuch"], "unknown table profile 'nosuch'"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(capsys, argv, named):
    """Issue 19 with firmware/cli.py's rule: a wrong argument exits 2 with one line naming it."""
    assert named in refused(capsys, "selftest", *argv)


def test_logs_export_bundles_logs_journals_selftest_profile(
    capsys, sim_profile, tmp_path, monkeypatch
):
    """Issue 19 "Logs": `mjtable logs export` writes one .tar.gz: the service's log (a line
    saying journalctl is missing here), a checked copy of each journal with every row, the
    selftest's JSON, the profile, the version; no secret of the profile is in any of it."""
    monkeypatch.setattr("firmware.tools.support.shutil.which", lambda name: None)
    journals = tmp_path / "journals"
    journals.mkdir()
    with Journal(journals / "sim-1-1.sqlite") as journal:  # still open: rows in its -wal
        for n in range(5):
            journal.record(ev.HandVoided(float(n), None, 1, "a row to copy"))
        out = tmp_path / "bundle.tar.gz"
        argv = ["logs", "export", "-o", str(out), "--journal-dir", str(journals)]
        assert main([*argv, "--profile", str(sim_profile)]) == 0
    assert capsys.readouterr().out.startswith(f"{out}: 6 files")
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    with tarfile.open(out) as tar:
        members = {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}
        tar.extract("bundle/journals/sim-1-1.sqlite", tmp_path / "x", filter="data")
    names = ["service.log", "selftest.json", "profile.toml", "version.txt"]
    journal_files = ["journals/journals.txt", "journals/sim-1-1.sqlite"]
    assert sorted(members) == sorted(f"bundle/{name}" for name in [*names, *journal_files])
    assert (
        members["bundle/service.log"]
        == b"journalctl is not available on this machine: no service log\n"
    )
    assert b"5 rows, hash chain intact" in members["bundle/journals/journals.txt"]
    with Journal(tmp_path / "x/bundle/journals/sim-1-1.sqlite", readonly=True) as copy:
        assert copy.verify() is None and copy.seq == 5
    listed = json.loads(members["bundle/selftest.json"])
    assert [check["name"] for check in listed] == CHECKS and all(c["ok"] for c in listed)
    assert b'referee_pin = "********"' in members["bundle/profile.toml"]
    assert members["bundle/version.txt"].startswith(b"mjtable ")
    for data in members.values():
        assert PIN.encode() not in data and TOKEN.encode() not in data


def test_issue_31_logs_export_is_the_users_alone_and_says_where_it_is(
    capsys, sim_profile, tmp_path, monkeypatch
):
    """Issue 31 "small things a technician meets": the bundle (journals, every concealed
    hand) is made 0600 whatever the umask, and the line names it by its whole path, since by
    default it lands in whatever folder the command ran in."""
    monkeypatch.chdir(tmp_path)
    old = os.umask(0o000)  # the loosest: only the file's own mode keeps others out
    try:
        assert main(["logs", "export", "--profile", str(sim_profile), "--data-dir", "j"]) == 0
    finally:
        os.umask(old)
    (bundle,) = tmp_path.glob("mjtable-logs-*.tar.gz")
    assert stat.S_IMODE(bundle.stat().st_mode) == 0o600
    assert capsys.readouterr().out.startswith(f"{bundle}: ")


def test_logs_export_never_overwrites_a_file(capsys, sim_profile, tmp_path):
    """Issue 19: the bundle is a new file: an existing one is refused with one line."""
    out = tmp_path / "bundle.tar.gz"
    out.write_bytes(b"a ticket's earlier bundle")
    line = refused(capsys, "logs", "export", "-o", str(out), "--profile", str(sim_profile))
    assert (
        line
        == f"mjtable logs export: {out}: exists: the bundle never overwrites a file, name a new one"
    )
    assert out.read_bytes() == b"a ticket's earlier bundle"


def test_the_service_log_comes_from_journalctl_when_there_is_one(monkeypatch, tmp_path):
    """Issue 19: where journalctl exists the bundle's service.log is `journalctl -u mjtable`'s
    output, with the command and its exit status (a fake journalctl here)."""
    fake = tmp_path / "journalctl"
    fake.write_text('#!/bin/sh\necho "args: $*"\n')
    fake.chmod(0o755)
    monkeypatch.setattr("firmware.tools.support.shutil.which", lambda name: str(fake))
    log = support.service_log()
    assert "(exit status 0)" in log.splitlines()[0]
    assert "args: -u mjtable --no-pager -o short-iso" in log
