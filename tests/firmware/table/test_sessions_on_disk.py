"""Sessions on disk (issue 19, SOFTWARE.md §4 and §8): one journal per session under the data
directory, `<table>-<date>-<n>.sqlite`; `mjtable session new` begins the next one and makes it
current, the old ones kept; `mjtable session list` lists them read-only; `mjtable run` without
`--journal` goes on with the current session."""

import os
from dataclasses import replace
from datetime import date
from pathlib import Path

import pytest

from firmware.cli import main
from firmware.desk.desk import Desk
from firmware.display import ActionRefused
from firmware.journal.schema import left_open
from firmware.journal.store import Journal
from firmware.resources import load_ruleset
from firmware.table import maintenance
from firmware.table.actor import Actor
from firmware.table.profile import TABLES_DIR, load_profile
from firmware.table.service import Service
from firmware.table.sessions import (
    PI_DATA_DIR,
    SIM_DATA_DIR,
    current_session,
    data_dir,
    new_session,
)
from tests.support.powercut import ServiceWriting, cut
from tests.support.servicekit import Clock, StillShuffler, act, dealt_service

TODAY = f"{date.today():%Y-%m-%d}"


def cli(capsys, *argv) -> tuple[int | str | None, str, str]:
    try:
        status = main([*map(str, argv)])
    except SystemExit as stop:  # argparse's refusal of an argument
        status = stop.code
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return status, out, err


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every journal's rows on disk: its main file and its -wal (an empty -wal is no rows:
    SQLite makes one, and the -shm index, for any reader of a WAL journal)."""
    files = {p.name: p.read_bytes() for p in folder.glob("*.sqlite*") if p.suffix != ".sqlite-shm"}
    return {name: data for name, data in files.items() if data or not name.endswith("-wal")}


def test_issue_19_session_new_twice_a_day_makes_the_1_and_2_files_the_second_current(
    tmp_path, capsys
):
    """Each `session new` begins the next session of the day, n counting up; the old one is
    kept, the `current` link names the newest."""
    for n in (1, 2):
        status, said, _ = cli(capsys, "session", "new", "--data-dir", tmp_path)
        assert status == 0
        assert said.startswith(f"{tmp_path}/sim-1-{TODAY}-{n}.sqlite: the current session")
    assert sorted(p.name for p in tmp_path.glob("*.sqlite")) == [
        f"sim-1-{TODAY}-1.sqlite",
        f"sim-1-{TODAY}-2.sqlite",
    ]
    assert current_session(tmp_path) == tmp_path / f"sim-1-{TODAY}-2.sqlite"


def test_issue_19_session_list_shows_each_session_with_its_hands_and_never_writes(tmp_path, capsys):
    """`session list`: each session's name, hands, table time, rule book, open or closed and
    the current one; each read-only: no journal's rows on disk change, not even those of the
    one a table is writing at that moment (marked open)."""
    cli(capsys, "session", "new", "--data-dir", tmp_path)
    first = tmp_path / f"sim-1-{TODAY}-1.sqlite"
    with Journal(first) as journal:
        for hand in (1, 2):
            journal.hand("wsom2006", hand, [[0]] * 4, t=60.0 * hand)
    new_session(tmp_path, "sim-1", date.today())  # as the desk begins it (hand 2 left open)
    second = Journal(tmp_path / f"sim-1-{TODAY}-2.sqlite")  # the table writing it
    second.hand("ccm2012", 1, [[0]] * 4, t=5.0)
    before = snapshot(tmp_path)
    status, said, _ = cli(capsys, "session", "list", "--data-dir", tmp_path)
    assert snapshot(tmp_path) == before
    second.close()
    assert status == 0
    one, two = said.splitlines()
    assert one.startswith(f"  sim-1-{TODAY}-1.sqlite  2 hands  table time 0:01:00-0:02:00")
    assert one.endswith("  wsom2006  closed")
    assert two.startswith(f"* sim-1-{TODAY}-2.sqlite  1 hand  table time 0:00:05-0:00:05")
    assert two.endswith("  ccm2012  open  current")


def test_issue_19_no_new_session_while_the_table_writes_the_current_one(tmp_path, capsys):
    """`session new` while the service has the current journal open is refused (status 2):
    the service would go on writing the old file and leave the hand in play behind."""
    cli(capsys, "session", "new", "--data-dir", tmp_path)
    with ServiceWriting(current_session(tmp_path)):
        status, said, err = cli(capsys, "session", "new", "--data-dir", tmp_path)
    assert status == 2 and said == "" and len(err.splitlines()) == 1
    assert f"the service is running, writing sim-1-{TODAY}-1.sqlite: stop it first" in err
    assert [p.name for p in tmp_path.glob("*.sqlite")] == [f"sim-1-{TODAY}-1.sqlite"]
    assert cli(capsys, "session", "new", "--data-dir", tmp_path)[0] == 0  # closed: it may


def test_issue_31_after_a_cut_session_new_names_the_open_hand_and_how_to_end_it(
    tmp_path, capsys, monkeypatch
):
    """Issue 31 "maintenance after a cut": the service stopped by a power cut mid-hand is
    not running, so "stop the service" would send the technician nowhere; the refusal names
    the hand left open and the way out (start, finish or void it, stop), and the table's
    screen says it too (the kiosk's not-running page, firmware/table/not_running.py)."""
    monkeypatch.setattr(maintenance, "STATE_DIR", tmp_path)
    data = tmp_path / "journal"
    cli(capsys, "session", "new", "--data-dir", data)
    current = current_session(data)
    cut(current, deal=3)
    status, said, err = cli(capsys, "session", "new", "--data-dir", data)
    assert status == 2 and said == "" and len(err.splitlines()) == 1
    assert f"hand 3 of {current.name} is open" in err and "stop it first" not in err
    assert "systemctl start mjtable" in err and "void it" in err
    page = (tmp_path / "not-running.txt").read_text()
    assert page == f"mjtable session new refused: {err.split(': ', 1)[1]}"
    assert current_session(data) == current


def test_issue_31_a_cut_between_hands_leaves_session_new_free(tmp_path, capsys):
    """Issue 31: a journal left unclosed by a cut with no hand open blocks nothing (the
    session's hands all ended): the next session begins."""
    cli(capsys, "session", "new", "--data-dir", tmp_path)
    current = current_session(tmp_path)
    assert main(["simulate", "--hands", "1", "--seed", "3", "--journal", str(current)]) == 0
    cut(current)  # the service started again, then the power went before the next deal
    assert left_open(str(current))  # what refused it before issue 31
    assert cli(capsys, "session", "new", "--data-dir", tmp_path)[0] == 0
    assert current_session(tmp_path) != current


def test_issue_19_a_file_that_is_no_journal_is_listed_as_unreadable(tmp_path, capsys):
    """A stray file in the data directory is named with why, the others still listed."""
    cli(capsys, "session", "new", "--data-dir", tmp_path)
    (tmp_path / "copied.sqlite").write_text("not a journal")
    status, said, _ = cli(capsys, "session", "list", "--data-dir", tmp_path)
    assert status == 0
    assert "  copied.sqlite  unreadable: " in said and f"sim-1-{TODAY}-1.sqlite  0 hands" in said


def test_issue_19_the_data_directory_is_the_profiles_or_its_default(tmp_path):
    """[journal] data_dir (relative to the profile's folder), else /var/lib/mjtable/journal
    on a table's own profile (the service's state directory) and ./journal for the sim."""
    assert data_dir(load_profile("sim")) == SIM_DATA_DIR == Path("journal")
    assert data_dir(load_profile("reference-pi")) == PI_DATA_DIR
    assert data_dir(load_profile("sim"), "elsewhere") == Path("elsewhere")
    (tmp_path / "sim-tags.csv").write_text((TABLES_DIR / "sim-tags.csv").read_text())
    text = (TABLES_DIR / "sim.toml").read_text()
    text = text.replace("[journal]", '[journal]\ndata_dir = "sessions"', 1)
    (tmp_path / "sim.toml").write_text(text)
    assert data_dir(load_profile(tmp_path / "sim.toml")) == tmp_path / "sessions"


@pytest.mark.slow
def test_issue_19_run_without_journal_goes_on_with_the_current_session(
    tmp_path, capsys, monkeypatch
):
    """`mjtable run` with no --journal: a first run begins a session; a `session new` makes
    the next run play into the new file, the earlier one kept with its hand."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("STATE_DIRECTORY", raising=False)
    run = ["run", "--port", "0", "--hands", "1", "--speed", "10000"]
    assert cli(capsys, *run)[0] == 0
    assert current_session(Path("journal")) == Path("journal") / f"sim-1-{TODAY}-1.sqlite"
    cli(capsys, "session", "new")
    assert cli(capsys, *run)[0] == 0
    _, said, _ = cli(capsys, "session", "list")
    one, two = said.splitlines()
    assert one.startswith(f"  sim-1-{TODAY}-1.sqlite  1 hand  ") and "wsom2006  closed" in one
    assert two.startswith(f"* sim-1-{TODAY}-2.sqlite  1 hand  ") and two.endswith("current")


def test_issue_19_run_says_in_one_line_when_its_data_directory_cannot_be_made(
    tmp_path, capsys, monkeypatch
):
    """A data directory that is a file: `run` exits 2 (not restarted) naming it."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("STATE_DIRECTORY", raising=False)
    Path("journal").write_text("")
    status, _, err = cli(capsys, "run", "--port", "0", "--hands", "1")
    assert status == 2 and len(err.splitlines()) == 1
    assert "cannot begin a session in journal" in err and "[journal] data_dir" in err


@pytest.mark.parametrize(
    "argv, names",
    [
        (["session"], "VERB"),
        (["session", "old"], "'old'"),
        (["session", "new", "--profile", "no-such-table"], "--profile"),
        (["session", "list", "--data-dir", ""], "--data-dir"),
        (["session", "new", "--data-dir", "a-file"], "a-file is a file, not a folder"),
    ],
)
def test_issue_19_a_bad_session_command_exits_2_with_one_line(
    tmp_path, capsys, monkeypatch, argv, names
):
    """A wrong command is told in one line naming the problem, status 2; nothing made."""
    monkeypatch.chdir(tmp_path)
    Path("a-file").write_text("")
    status, said, err = cli(capsys, *argv)
    lines = [line for line in err.splitlines() if not line.startswith(("usage:", " "))]
    assert status == 2 and said == "" and len(lines) == 1 and names in lines[0]
    assert os.listdir(".") == ["a-file"]


def test_issue_19_the_desk_begins_the_next_session_between_hands(tmp_path):
    """Issue 19: a new session started from the desk: refused with a hand in play; between
    hands the next session is made current and the table stops (NEXT_SESSION, which systemd
    restarts) to go on with it; refused when the table runs on a journal of its own choosing."""
    with (
        Journal(tmp_path / "dealt.sqlite") as journal,
        pytest.raises(ActionRefused, match="a hand is in play"),
    ):
        act(Desk(dealt_service(journal, Clock()), "test table"), "new_session")
    profile = replace(load_profile("sim"), data_dir=tmp_path / "sessions")
    first = new_session(profile.data_dir, profile.name, date.today())
    wsom = load_ruleset("wsom2006")
    with Journal(first) as journal:
        service = Service(profile, wsom, journal, Actor(Clock()), StillShuffler())
        answer = act(Desk(service, "test table"), "new_session")
        assert answer["session"].endswith("-2.sqlite") and service.actor.done.is_set()
        made = profile.data_dir / answer["session"]
        assert current_session(profile.data_dir) == made
        assert service.status().next_session == str(made)
    with Journal(tmp_path / "own.sqlite") as journal:
        service = Service(profile, wsom, journal, Actor(Clock()), StillShuffler())
        with pytest.raises(ActionRefused, match="not on the current session"):
            act(Desk(service, "test table"), "new_session")
