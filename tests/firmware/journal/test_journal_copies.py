"""Issue 20 item 10: copies of a journal. A journal's latest rows sit in its -wal file until
a checkpoint: `mjtable journal backup` copies them too (SQLite's online backup) and checks
the copy; a main file copied alone is refused, not taken for a new session; and each hand's
end checkpoints, so the main file holds every finished hand."""

import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from engine import events as ev
from firmware.cli import main
from firmware.journal.store import Journal
from firmware.resources import load_ruleset
from firmware.sim.simulate import Game


def rows(path) -> list[tuple]:
    with closing(sqlite3.connect(path)) as conn:
        return conn.execute(
            "SELECT seq, kind, json, prev_hash, hash FROM journal ORDER BY seq"
        ).fetchall()


def main_file_rows(path) -> int:
    """The rows the main file alone holds, as a copy without the -wal would (immutable: SQLite
    neither reads nor makes a -wal)."""
    uri = f"{path.resolve().as_uri()}?mode=ro&immutable=1"
    with closing(sqlite3.connect(uri, uri=True)) as conn:
        return conn.execute("SELECT count(*) FROM journal").fetchone()[0]


def live_journal(path, records: int = 30) -> Journal:
    """A journal a table is still writing: its rows committed, all still in its -wal."""
    journal = Journal(path)
    for n in range(records):
        journal.record(ev.HandVoided(float(n), None, 1, "a record to copy"))
    assert Path(f"{path}-wal").stat().st_size > 0 and main_file_rows(path) == 0
    return journal


def test_backup_of_a_live_journal_has_every_row(tmp_path, capsys):
    """Issue 20 item 10: `mjtable journal backup SRC DEST` of a journal still written (not
    checkpointed, its rows in the -wal) copies every row, with its chain; the copy is whole
    (no -wal of its own), opens for writing and replays."""
    src, dest = tmp_path / "live.sqlite", tmp_path / "copy.sqlite"
    with live_journal(src):
        assert main(["journal", "backup", str(src), str(dest)]) == 0
        assert not Path(f"{dest}-wal").exists() and main_file_rows(dest) == 30
        assert rows(dest) == rows(src) and len(rows(dest)) == 30
    assert f"{dest}: 30 rows of {src}, hash chain intact" in capsys.readouterr().out
    with Journal(dest) as copy:
        assert copy.verify() is None and copy.seq == 30
    assert main(["replay", str(dest)]) == 0


def test_a_main_file_copied_without_its_wal_is_refused(tmp_path, capsys):
    """Issue 20 item 10: the main file of a journal whose rows are still in its -wal, copied
    alone (shutil, as cp would) while the table writes it, holds 0 rows: `run`, `replay` and
    `journal backup` on it exit 2 saying it looks copied without its -wal and how to copy a
    journal safely; nothing is made beside the copy."""
    src, copy = tmp_path / "live.sqlite", tmp_path / "copied.sqlite"
    with live_journal(src):
        shutil.copyfile(src, copy)
    for argv in (
        ["run", "--port", "0", "--hands", "1", "--speed", "10000", "--journal", str(copy)],
        ["replay", str(copy)],
        ["journal", "backup", str(copy), str(tmp_path / "b.sqlite")],
    ):
        assert main(argv) == 2
        out, err = capsys.readouterr()
        assert out == "" and "Traceback" not in err and len(err.splitlines()) == 1
        assert "looks copied without its -wal file" in err and "mjtable journal backup" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["copied.sqlite", "live.sqlite"]


def test_a_journal_copied_with_its_wal_or_closed_opens(tmp_path):
    """Issue 20 item 10, the other side: a main file copied with its -wal (as after a crash)
    opens with every row; a journal closed, even by the garbage collector alone, opens."""
    src, copy = tmp_path / "live.sqlite", tmp_path / "copied.sqlite"
    with live_journal(src):
        shutil.copyfile(src, copy)
        shutil.copyfile(f"{src}-wal", f"{copy}-wal")
    with Journal(copy) as journal:
        assert journal.seq == 30 and journal.verify() is None
    live_journal(tmp_path / "dropped.sqlite")  # never closed: collected at once
    with Journal(tmp_path / "dropped.sqlite") as journal:
        assert journal.seq == 30


@pytest.mark.parametrize("dest", ["exists", "directory"])
def test_backup_refuses_a_dest_that_exists(tmp_path, capsys, dest):
    """Issue 20 item 10: `journal backup` never overwrites: a DEST that exists, or is a
    directory, is refused with exit 2 and a message naming it, and is left as it was."""
    src = tmp_path / "j.sqlite"
    Journal(src).close()
    target = tmp_path / "there"
    if dest == "exists":
        target.write_text("keep me\n")
    else:
        target.mkdir()
    assert main(["journal", "backup", str(src), str(target)]) == 2
    err = capsys.readouterr().err
    assert str(target) in err and ("exists" if dest == "exists" else "is a directory") in err
    assert target.read_text() == "keep me\n" if dest == "exists" else list(target.iterdir()) == []


def test_checkpoint_at_each_hand_end_puts_the_hand_in_the_main_file(tmp_path):
    """Issue 20 item 10: at each hand's end (simulate's play_hand, as firmware/table/hands.py's
    settlement) the journal is checkpointed: the main file alone, while the journal is still
    open, holds every row of the finished hands, and nothing is left in the -wal to copy."""
    path = tmp_path / "hands.sqlite"
    with Journal(path) as journal:
        game = Game(load_ruleset("wsom2006"), 3, 0.0, journal=journal)
        game.play_hand()
        game.play_hand()
        assert main_file_rows(path) == journal.seq > 100
        with closing(sqlite3.connect(path)) as other:
            busy, in_wal, checkpointed = other.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        assert busy == 0 and in_wal == checkpointed  # every frame already in the main file
