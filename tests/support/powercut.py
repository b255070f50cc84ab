"""A power cut, for tests (issue 14): `mjtable run` started as a process on a journal, killed
with SIGKILL (nothing flushed, nothing closed) at a point of its progress, and started again."""

import re
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

from firmware.journal.failures import JournalError
from firmware.journal.store import Journal
from tests.conftest import REPO

HANDS = "2"  # hands a session plays


def command(journal: Path, seed: int, ruleset: str, speed: str = "40", *extra: str) -> list:
    """`mjtable run` of a HANDS-hand session of `seed` on `journal`, its display off."""
    return [
        sys.executable,
        "-m",
        "firmware.cli",
        "run",
        "--port",
        "0",
        "--hands",
        HANDS,
        "--seed",
        str(seed),
        "--ruleset",
        ruleset,
        "--speed",
        speed,
        "--journal",
        str(journal),
        *extra,
    ]


def committed(journal: Path) -> int:
    """The rows the journal holds committed, read as an audit reads it (readonly: nothing
    written, the table writing on meanwhile); 0 before its schema is committed."""
    try:
        with Journal(journal, readonly=True) as reading:
            return reading.seq
    except (JournalError, sqlite3.Error):  # not made yet, or its first transaction not in
        return 0


def run_until(
    cmd: list, line: str | None = None, nth: int = 1, rows: int | None = None
) -> tuple[bool, str]:
    """Start the table (`command`) and SIGKILL it as soon as it has printed the nth console
    line matching `line`, or as soon as its journal holds `rows` rows committed and one more
    than when it started: a point of its progress, never a time, so a busy machine only makes
    it later. Returns (whether it was killed, not ended by itself first; its output)."""
    assert (line is None) != (rows is None), "a line or a row count, one of them"
    journal = Path(cmd[cmd.index("--journal") + 1])
    if rows is not None:
        rows = max(rows, committed(journal) + 1)
    proc = subprocess.Popen(
        cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    printed: list[str] = []
    seen = threading.Event()
    wanted = re.compile(line) if line is not None else None

    def read():
        count = 0
        for text in proc.stdout:
            printed.append(text)
            if wanted and wanted.search(text.rstrip("\n")):
                count += 1
                if count == nth:
                    seen.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()

    def reached() -> bool:
        return seen.is_set() if rows is None else committed(journal) >= rows

    while proc.poll() is None and not reached():
        seen.wait(0.01)  # between two looks at its progress; the table plays on meanwhile
    if proc.poll() is None:
        proc.send_signal(signal.SIGKILL)
    killed = proc.wait() == -signal.SIGKILL
    reader.join()  # its output ends with it
    return killed, "".join(printed)


def finish(cmd: list) -> str:
    """The session played to its end on the journal (`--hands`), as the last start after the
    cuts; its output."""
    done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)  # it ends by itself
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    return done.stdout + done.stderr


_WRITER = """
import os, signal, sys
from engine.wall import build_walls
from firmware.journal.store import Journal
journal = Journal(sys.argv[1])
if sys.argv[2] == "cut":  # a hand dealt (unless 0), then the power goes: nothing closed
    if int(sys.argv[3]):
        journal.hand("wsom2006", int(sys.argv[3]), build_walls(list(range(136)), 17), 900.0)
    os.kill(os.getpid(), signal.SIGKILL)
print("open", flush=True)
sys.stdin.read()  # the service writing on, until the test is done with it
"""


def cut(journal: Path, deal: int = 0) -> None:
    """A table process opens `journal`, deals hand `deal` into it (0: none, a cut between
    hands) and is cut off (SIGKILL): the journal left unclosed, no process holding it."""
    done = subprocess.run([sys.executable, "-c", _WRITER, str(journal), "cut", str(deal)], cwd=REPO)
    assert done.returncode == -signal.SIGKILL


class ServiceWriting:
    """Another process with `journal` open, as the running service has it (`with`)."""

    def __init__(self, journal: Path):
        self.journal = journal

    def __enter__(self):
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(self.journal), "run"],
            cwd=REPO,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout.readline() == "open\n"  # opened before the test goes on
        return self

    def __exit__(self, *exc):
        self.proc.communicate("")  # stdin closed: it closes the journal and ends
        assert self.proc.returncode == 0
