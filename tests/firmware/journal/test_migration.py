"""Issue 11: one event schema. The referee's and the devices' records are events of
engine/events.py (RECORDS), journaled as 'device' rows; the journal's schema version 3 adds
the meta table (session id, schema history). Journals written by version 2 (tests/data, kept
from the main of before) still replay read-only, unchanged, and migrate when opened for
writing without a row being rewritten (docs/events.md)."""

import hashlib
import json
import shutil
import sqlite3
import subprocess
import sys

import pytest

from engine import events as ev
from firmware.journal.chain import link
from firmware.journal.failures import JournalError
from firmware.journal.replay import replay
from firmware.journal.schema import SCHEMA_VERSION, canonical, upgrade
from firmware.journal.store import Journal
from tests.conftest import DATA, REPO

V2_JOURNALS = sorted(DATA.glob("v2-*.sqlite"))


@pytest.fixture(params=V2_JOURNALS, ids=lambda p: p.stem)
def v2_journal(request, tmp_path):
    """A copy of a version 2 journal: tests/data itself is never opened."""
    return shutil.copyfile(request.param, tmp_path / request.param.name)


def sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def table_rows(path, table="journal") -> list[tuple]:
    with sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True) as conn:
        return conn.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall()


def cli_replay(path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "firmware.cli", "replay", "--json", str(path)],
        cwd=REPO,
        capture_output=True,
        text=True,
    )


def test_v2_journals_are_kept():
    """tests/data holds the version 2 journals the migration is tested on, the referee's
    records among them."""
    assert {p.name for p in V2_JOURNALS} >= {
        "v2-wsom-seed7.sqlite",
        "v2-ccm-seed3.sqlite",
        "v2-wsom-desk.sqlite",
    }


@pytest.mark.slow  # a second or more: out of the one-minute fast run, in CI's full run
def test_replay_reads_v2_read_only(v2_journal):
    """`mjtable replay` audits a version 2 journal as it is: 0 mismatches, every device row
    read as a record event, and the file's bytes unchanged (no migration)."""
    before = sha256(v2_journal)
    out = cli_replay(v2_journal)
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    devices = [r for r in table_rows(v2_journal) if r[1] == "device"]
    assert summary["mismatches"] == 0 and summary["device_records"] == len(devices) > 0
    assert sha256(v2_journal) == before
    with Journal(v2_journal, readonly=True) as journal:
        assert (journal.version, journal.session_id) == (2, None)
    assert sha256(v2_journal) == before


def test_opening_for_writing_migrates_without_rewriting_rows(v2_journal):
    """Opening a version 2 journal for writing (as `mjtable run` does) makes it version 3:
    the rows are byte for byte as they were, the chain verifies, and the meta table holds a
    session id and where the migration happened; opening it again changes nothing."""
    rows = table_rows(v2_journal)
    with Journal(v2_journal, create=False) as journal:
        assert journal.version == SCHEMA_VERSION == 3
        assert journal.verify() is None
        session = journal.session_id
    assert table_rows(v2_journal) == rows
    meta = dict(table_rows(v2_journal, "meta"))
    assert meta["session_id"] == session and len(session) == 32
    history = [{"version": 2, "first_seq": 1}, {"version": 3, "first_seq": len(rows) + 1}]
    assert json.loads(meta["schema_history"]) == history
    with sqlite3.connect(v2_journal) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 3
    with Journal(v2_journal, create=False) as journal:
        assert (journal.session_id, journal.history) == (session, history)


@pytest.mark.slow  # a second or more: out of the one-minute fast run, in CI's full run
def test_a_failed_migration_leaves_version_2(v2_journal):
    """The migration is one transaction: when it fails half-way (here a stray meta table makes
    it fail) the file stays a version 2 journal that replays as before."""
    with sqlite3.connect(v2_journal) as conn:
        conn.execute("CREATE TABLE meta (x)")
    with pytest.raises(JournalError, match="meta already exists"):
        Journal(v2_journal, create=False)
    with sqlite3.connect(v2_journal) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 2
        assert conn.execute("SELECT count(*) FROM meta").fetchone()[0] == 0
    assert json.loads(cli_replay(v2_journal).stdout)["mismatches"] == 0


def test_every_device_row_parses_into_its_record_event(v2_journal):
    """A version 2 device row, written as a free dict, reads as the record event of its
    "type", with the defaults of version 2 filled in (no seat; one of fault/alert)."""
    with Journal(v2_journal, create=False) as journal:
        devices = [row for row in journal.rows() if row.kind == "device"]
        events = [row.event() for row in devices]
    for row, event in zip(devices, events, strict=True):
        assert isinstance(event, ev.RECORDS) and type(event).__name__ == row.data()["type"]
        assert row.version == 2
    if v2_journal.name == "v2-wsom-desk.sqlite":
        since_v2 = {
            ev.VenueCommand,
            ev.HallResumed,
            ev.WallSealed,
            ev.WallRevealed,
            ev.HeadSigned,
            ev.RegistriesRecorded,
            ev.SeatsDrawn,
            ev.SeatsChanged,
            ev.ScoresAsked,
            ev.RefereeActed,
            ev.ShufflerRetried,  # issue 29
            ev.PlayersEntered,
            ev.PlayerSigned,
            ev.SignatureWithdrawn,  # issue 36
            ev.SessionOpened,  # issue 35
            ev.SessionClosed,
        }
        assert {type(e) for e in events} == set(ev.RECORDS) - since_v2
        ack = next(e for e in events if isinstance(e, ev.Acknowledged))
        assert (ack.seat, ack.fault, ack.alert) == (None, 1, None)


@pytest.mark.slow  # a second or more: out of the one-minute fast run, in CI's full run
def test_appending_after_migration_keeps_chain_and_replay(v2_journal):
    """After the migration an input with its outputs and a record event are appended in
    version 3: the chain verifies, the new rows read as version 3, and both a replay and
    `mjtable replay` still find 0 mismatches."""
    with Journal(v2_journal, create=False) as journal:
        table = replay(journal).table
        first_new = journal.seq + 1
        pause = ev.ClocksPaused(max(row.data()["t"] for row in journal.rows()) + 1, None)
        journal.input(pause)
        journal.outputs(table.apply(pause))
        journal.record(ev.Acknowledged(pause.t, None, alert=1))
        assert journal.verify() is None
        new = [row for row in journal.rows() if row.seq >= first_new]
        assert {row.version for row in new} == {3}
        assert new[-1].event() == ev.Acknowledged(pause.t, None, alert=1)
        result = replay(journal)
    assert result.mismatches == 0 and result.recovered is None
    out = cli_replay(v2_journal)
    assert out.returncode == 0 and json.loads(out.stdout)["mismatches"] == 0, out.stdout


def test_a_new_journal_is_version_3_with_its_own_session(tmp_path):
    """A new journal is made in version 3 with a random session id of its own."""
    ids = set()
    for name in ("a.sqlite", "b.sqlite"):
        with Journal(tmp_path / name) as journal:
            assert journal.version == 3 and journal.history == [{"version": 3, "first_seq": 1}]
            ids.add(journal.session_id)
    assert len(ids) == 2 and None not in ids


@pytest.mark.slow  # a second or more: out of the one-minute fast run, in CI's full run
@pytest.mark.parametrize("readonly", [False, True])
def test_unknown_future_version_is_refused(tmp_path, readonly):
    """A journal of a schema this mjtable does not know (99) is refused, read-only or not,
    with a message naming the version; `mjtable replay` exits 2 without a traceback."""
    path = tmp_path / "future.sqlite"
    Journal(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA user_version = 99")
    before = sha256(path)
    with pytest.raises(JournalError, match="version 99"):
        Journal(path, create=False, readonly=readonly)
    assert sha256(path) == before
    out = cli_replay(path)
    assert out.returncode == 2 and "version 99" in out.stderr and "Traceback" not in out.stderr


def test_record_events_round_trip_and_hide_concealed_tiles():
    """Each record event has one JSON form: from_json(to_json()) is the event; a corrected
    tile may be concealed, so the public form leaves it out."""
    row = {"number": 1, "changes": [-5, -5, 15, -5], "winners": [2]}
    records = [
        ev.Fault(1.0, None, "reader", "unplugged", "lost", "plug it in", 3, False, 17),
        ev.Acknowledged(2.0, None, fault=3),
        ev.TrackingCorrected(3.0, None, 17, "wall_E"),
        ev.HandVoided(4.0, None, 2, "voided by the referee"),
        ev.ScoreConfirmed(5.0, None, 1, row),
        ev.SheetSigned(6.0, None, 1, "Li Wei", (row,), "ab" * 32),
        ev.PlayersEntered(6.1, None, ({"name": "Li Wei", "federation_id": "HK-7"},) * 4),
        ev.PlayerSigned(6.2, None, 2, 1, "button", "ab" * 32, "2026-12-02T03:30:00.000+00:00"),
        ev.SignatureWithdrawn(6.3, None, 2, 1, "tapped for the wrong person"),
        ev.VenueCommand(7.0, None, "c-1", "message", {"text": "Round 2"}, None),
        ev.HallResumed(8.0, None),
        ev.WallSealed(9.0, None, "cd" * 32, "ef" * 32, "A", ((("1m", "0a0b", 0),),)),
        ev.WallRevealed(10.0, None, "cd" * 32, "ef" * 32, "A", ((("1m", "0a0b", 0),),)),
        ev.HeadSigned(11.0, None, 1, "ab" * 32, "12" * 64, "34" * 32, "hand end", "9a" * 16),
        ev.SessionOpened(11.1, None, "T1", "hall", "9a" * 16, "2026-12-06", "0.1.0", "56" * 32),
        ev.SessionClosed(11.2, None, "hands done", "78" * 32),
        ev.RegistriesRecorded(12.0, None, {"A": "56" * 32, "B": "78" * 32}),
        ev.SeatsDrawn(13.0, None, (2, 0, 3, 1), "tiles"),
        ev.SeatsChanged(14.0, None, 2, (3, 0, 1, 2), "table"),
        ev.ScoresAsked(15.0, 1, 2, 4, (100, 100, 100, 100), (100, 500, 500, 500)),
        ev.RefereeActed(16.0, None, "ack", "Li Wei", "2026-12-02T03:30:00.000+00:00"),
        ev.ShufflerRetried(17.0, None, "jam", "East referee"),
    ]
    assert [type(r) for r in records] == list(ev.RECORDS)
    for record in records:
        assert ev.from_json(json.loads(canonical(record.to_json()))) == record
    assert "tile" not in ev.TrackingCorrected(3.0, None, 17, "wall_E").public_json()
    assert {"nonce", "walls"}.isdisjoint(records[10].public_json())  # issue 17: until revealed


def test_upgrade_is_for_version_2_only():
    """The defaults of version 2 fill a version 2 row only: a version 3 row lacking a field
    is not an event."""
    old = {"type": "HandVoided", "t": 1.0, "hand_number": 2, "reason": "restart"}
    assert ev.from_json(upgrade(old, 2)) == ev.HandVoided(1.0, None, 2, "restart")
    with pytest.raises(ev.EventError, match="seat"):
        ev.from_json(upgrade(old, 3))


def test_upgrade_leaves_a_type_that_is_no_name_to_from_json():
    """issue 29 (found by mypy): a version 2 row whose type is no name (a list) is left as
    it is for events.from_json to refuse, not looked up among the defaults, where it crashed
    the upgrade itself as unhashable."""
    for odd in ({"type": ["HandVoided"], "t": 1.0}, {"type": None, "t": 1.0}):
        assert upgrade(odd, 2) == odd


def test_record_refuses_engine_events(tmp_path):
    """Journal.record takes record events only: an engine input goes through input()."""
    with Journal(tmp_path / "j.sqlite") as journal, pytest.raises(TypeError):
        journal.record(ev.ClocksPaused(1.0, None))


@pytest.mark.slow  # a second or more: out of the one-minute fast run, in CI's full run
def test_device_row_that_is_no_record_is_a_bad_file(v2_journal):
    """A device row that does not parse into a record event (here chained like any other
    row, so only reading it finds it) makes `mjtable replay` exit 2 naming the row."""
    with Journal(v2_journal, create=False) as journal:
        seq, head = journal.seq + 1, journal.head
    text = canonical({"type": "Acknowledged", "t": 1.0, "fault": 1})  # v3 lacks seat, alert
    with sqlite3.connect(v2_journal) as conn:
        conn.execute(
            "INSERT INTO journal VALUES (?, 'device', ?, ?, ?)", (seq, text, head, link(head, text))
        )
    out = cli_replay(v2_journal)
    assert out.returncode == 2 and f"row {seq}" in out.stderr and "Traceback" not in out.stderr
