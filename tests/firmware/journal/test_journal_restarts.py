"""Issue 32 items 1 and 2: a journal that always restarts. Its open/closed mark is judged by
what the file holds (firmware/journal/schema.py), so neither SQLite's own checkpoint on the
last close (after a write error, or a technician's `sqlite3` after a crash) nor a read-only
look (which leaves an empty -wal) fools it; a corrupt page stops `mjtable run` with status 2
and one line, on the table's screen too."""

import shutil
import signal
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from engine import events as ev
from firmware.cli import main
from firmware.journal import schema
from firmware.journal.failures import JournalError
from firmware.journal.store import Journal
from firmware.resources import load_ruleset
from firmware.sim.simulate import Game
from firmware.table.not_running import FILE_NAME
from firmware.table.storage import EXIT_STATUS

REPO = Path(__file__).resolve().parents[3]
AFTER_CHECKPOINT = 12  # rows a table commits after the last hand's checkpoint, in its -wal


def main_file_rows(path) -> int:
    """The rows the main file alone holds (immutable: SQLite neither reads nor makes a -wal)."""
    uri = f"{Path(path).resolve().as_uri()}?mode=ro&immutable=1"
    with closing(sqlite3.connect(uri, uri=True)) as conn:
        return conn.execute("SELECT count(*) FROM journal").fetchone()[0]


def all_rows(path) -> list[tuple]:
    with closing(sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True)) as conn:
        return conn.execute("SELECT seq, hash FROM journal ORDER BY seq").fetchall()


def write_session(journal: Journal) -> None:
    """Two hands played (each checkpointed at its end), then records still in the -wal."""
    game = Game(load_ruleset("wsom2006"), 3, 0.0, journal=journal)
    game.play_hand()
    game.play_hand()
    for n in range(AFTER_CHECKPOINT):
        journal.record(ev.HandVoided(1000.0 + n, None, 3, "a record after the checkpoint"))


KILLED_WRITER = """
import os, signal, sys
from firmware.journal.store import Journal
from tests.firmware.journal.test_journal_restarts import write_session
journal = Journal(sys.argv[1])
write_session(journal)
os.kill(os.getpid(), signal.SIGKILL)  # a power cut: nothing closed, nothing flushed
"""


def killed_writer(path: Path) -> int:
    """A table writing `path` killed mid-session; its row count, all still there."""
    done = subprocess.run([sys.executable, "-c", KILLED_WRITER, str(path)], cwd=REPO)
    assert done.returncode == -signal.SIGKILL
    assert Path(f"{path}-wal").stat().st_size > 0
    assert main_file_rows(path) < len(all_rows(path))  # its latest rows are in the -wal
    return len(all_rows(path))


def technicians_look(path: Path, how: str, readonly: bool = False) -> None:
    """`sqlite3 table.sqlite "select count(*) from journal"`, by the stdlib module or the CLI."""
    if how == "cli":
        if shutil.which("sqlite3") is None:
            pytest.skip("no sqlite3 command on this machine (the module's look is tested)")
        flags = ["-readonly"] if readonly else []
        subprocess.run(["sqlite3", *flags, str(path), "select count(*) from journal"], check=True)
    else:
        target = f"{path.resolve().as_uri()}?mode=ro" if readonly else str(path)
        with closing(sqlite3.connect(target, uri=readonly)) as conn:
            conn.execute("select count(*) from journal").fetchone()


@pytest.mark.parametrize("how", ["module", "cli"])
def test_issue_32_item_1_a_sqlite3_read_after_a_kill_then_a_start(tmp_path, how):
    """Issue 32 item 1: a technician's `sqlite3` read of a journal cut by a kill checkpoints
    its -wal into the main file and removes it (SQLite's last close); every command then
    takes the journal up with every row, and `run` goes on with the session."""
    path = tmp_path / "table.sqlite"
    committed = killed_writer(path)
    technicians_look(path, how)
    assert not Path(f"{path}-wal").exists() and main_file_rows(path) == committed
    assert main(["replay", str(path)]) == 0
    assert main(["verify", str(path)]) in (0, 1)  # read, not refused (a cut hand's seals)
    assert main(["journal", "export", str(path), str(tmp_path / "export.jsonl")]) == 0
    assert main(["journal", "backup", str(path), str(tmp_path / "copy.sqlite")]) == 0
    with Journal(path) as journal:
        assert journal.seq == committed and journal.verify() is None


def test_issue_32_item_1_a_crash_between_a_checkpoint_and_its_writing_mark(tmp_path):
    """Issue 32 item 1: a cut right after a checkpoint, before the table's `writing` mark,
    leaves the main file saying what a copy of it would, but with its -wal beside it, frames
    in it: taken up, every row there."""
    path = tmp_path / "table.sqlite"
    code = (
        "import os, signal, sys\n"
        "from firmware.journal import schema\n"
        "from firmware.journal.store import Journal\n"
        "journal = Journal(sys.argv[1])\n"
        "journal.record(__import__('engine.events').events.HandVoided(0.0, None, 1, 'x'))\n"
        "marked = schema.mark\n"
        "def cut(conn, writer):\n"
        "    if writer == schema.WRITING:\n"
        "        os.kill(os.getpid(), signal.SIGKILL)\n"
        "    marked(conn, writer)\n"
        "schema.mark = cut\n"
        "journal.checkpoint()\n"
    )
    done = subprocess.run([sys.executable, "-c", code, str(path)], cwd=REPO)
    assert done.returncode == -signal.SIGKILL
    assert main_file_rows(path) == 1 and Path(f"{path}-wal").stat().st_size > 0
    with Journal(path) as journal:
        assert journal.seq == 1


LIMITED_RUN = """
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails, as on a full disk
resource.setrlimit(resource.RLIMIT_FSIZE, (300_000, 300_000))
from firmware.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.slow
def test_issue_32_item_1_a_write_error_stop_then_a_start_with_space_freed(tmp_path):
    """Issue 32 item 1: `mjtable run` whose journal cannot grow past 300 kB (a write error
    mid-hand, as on a full disk) stops with status 3 and cannot mark its journal closed;
    started again with room, it takes the cut hand up and plays on, every row kept."""
    path = tmp_path / "table.sqlite"
    argv = ["run", "--port", "0", "--speed", "10000", "--journal", str(path)]
    done = subprocess.run(
        [sys.executable, "-c", LIMITED_RUN, *argv, "--hands", "3"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == EXIT_STATUS, done.stderr
    assert "NOT REFEREEING" in done.stderr and "Traceback" not in done.stderr
    assert schema.left_open(str(path))  # its close could not mark it closed
    before = all_rows(path)
    assert main([*argv, "--hands", "1"]) == 0
    assert all_rows(path)[: len(before)] == before and len(all_rows(path)) > len(before)
    assert not schema.left_open(str(path))


@pytest.mark.parametrize("look", ["module", "cli", "module read-write", "journal"])
def test_issue_32_item_1_a_stale_copy_with_an_empty_wal_is_refused(tmp_path, capsys, look):
    """Issue 32 item 1: the main file of a journal a table still writes, copied alone (as
    `cp` would) after its last checkpoint, lacks the rows committed since. A look at it
    (read-only: it leaves an empty -wal beside it; read-write: it leaves none) does not make
    it pass: `run`, `replay`, `verify`, `journal backup` and `export` refuse it in one line
    naming the rows it holds and how to copy a journal safely."""
    src, copy = tmp_path / "live.sqlite", tmp_path / "copied.sqlite"
    with Journal(src) as journal:
        write_session(journal)
        shutil.copyfile(src, copy)
        held = main_file_rows(copy)
        assert held == journal.seq - AFTER_CHECKPOINT  # the copy lacks the -wal's rows
    if look == "journal":
        with pytest.raises(JournalError):
            Journal(copy, readonly=True)
        Path(f"{copy}-wal").touch()  # as a read-only open by an older mjtable left it
    else:
        technicians_look(copy, look.split()[0], readonly=look != "module read-write")
    assert Path(f"{copy}-wal").exists() == (look != "module read-write")
    for argv in (
        ["run", "--port", "0", "--hands", "3", "--speed", "10000", "--journal", str(copy)],
        ["replay", str(copy)],
        ["verify", str(copy)],
        ["journal", "backup", str(copy), str(tmp_path / "b.sqlite")],
        ["journal", "export", str(copy), str(tmp_path / "e.jsonl")],
    ):
        assert main(argv) == 2, argv
        out, err = capsys.readouterr()
        assert out == "" and "Traceback" not in err and len(err.splitlines()) == 1, err
        assert "looks copied without its -wal file" in err and f"rows 1 to {held}" in err
        assert "mjtable journal backup" in err
    assert main_file_rows(copy) == held and not (tmp_path / "b.sqlite").exists()


def test_issue_32_item_1_a_reader_holding_the_checkpoint_back(tmp_path):
    """Issue 32 item 1: a reader's snapshot (a backup, a history page) keeps the hand's-end
    checkpoint from copying every row; the journal checkpoints again after its next row, once
    the reader is gone, so the main file alone holds every row again."""
    path = tmp_path / "table.sqlite"
    with Journal(path) as journal:
        journal.record(ev.HandVoided(0.0, None, 1, "before the reader"))
        with Journal(path, readonly=True) as reader, reader.snapshot():
            assert len(list(reader.rows())) == 1  # its snapshot taken
            journal.record(ev.HandVoided(1.0, None, 1, "after the reader's snapshot"))
            journal.checkpoint()
            assert journal.behind and main_file_rows(path) < journal.seq
        journal.record(ev.HandVoided(2.0, None, 1, "the next row"))
        assert not journal.behind and main_file_rows(path) == journal.seq == 3


def corrupt(path: Path, page: int) -> None:
    """Page `page` (from 1) overwritten from its start with garbage, as a failing card does."""
    with open(path, "r+b") as f:
        f.seek((page - 1) * 4096 + (100 if page == 1 else 0))  # page 1: past the file header
        f.write(b"\xde\xad" * 1000)


@pytest.fixture(scope="module")
def two_hands(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("corrupt") / "two-hands.sqlite"
    with Journal(path) as journal:
        write_session(journal)
    return path


@pytest.mark.parametrize("where", ["first", "second", "middle", "last"])
def test_issue_32_item_2_a_corrupt_page_is_status_2_and_one_line_on_the_screen(
    tmp_path, capsys, monkeypatch, two_hands, where
):
    """Issue 32 item 2: a journal with a corrupted page (the file's first, its second, one in
    the middle, its last) makes `mjtable run` exit 2 (systemd does not restart it) with one
    line naming the journal, never a traceback, written where the kiosk shows it."""
    path = tmp_path / "table.sqlite"
    shutil.copyfile(two_hands, path)
    pages = path.stat().st_size // 4096
    corrupt(path, {"first": 1, "second": 2, "middle": pages // 2, "last": pages}[where])
    monkeypatch.setenv("STATE_DIRECTORY", str(tmp_path))
    argv = ["run", "--port", "0", "--hands", "3", "--speed", "10000", "--journal", str(path)]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err and len(err.splitlines()) == 1, err
    assert err.startswith("mjtable run: --journal") and str(path) in err
    assert (tmp_path / FILE_NAME).read_text() == err


def test_issue_32_item_2_every_command_on_a_corrupt_page_says_so_in_one_line(
    tmp_path, capsys, two_hands
):
    """Issue 32 item 2: the commands that read a journal, on one with a page in the middle
    corrupted: status 2 and one line naming the journal, no traceback, no file made."""
    path = tmp_path / "table.sqlite"
    shutil.copyfile(two_hands, path)
    corrupt(path, path.stat().st_size // 4096 // 2)
    for argv in (
        ["replay", str(path)],
        ["verify", str(path)],
        ["journal", "backup", str(path), str(tmp_path / "b.sqlite")],
        ["journal", "export", str(path), str(tmp_path / "e.jsonl")],
        ["export", "sheet", str(path), "--format", "csv"],
        ["export", "hands", str(path), "--format", "jsonl"],
    ):
        assert main(argv) == 2, argv
        out, err = capsys.readouterr()
        assert out == "" and "Traceback" not in err and len(err.splitlines()) == 1, err
        assert f"{path}: corrupt" in err
    assert not (tmp_path / "b.sqlite").exists() and not (tmp_path / "e.jsonl").exists()
