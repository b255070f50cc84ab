"""What keeps a technician's `mjtable session new` or `mjtable update` from going ahead, and how
to end it (issue 31, "maintenance after a cut").

Two things block them, each named as it is: the service writing the current session (stop it),
or a hand left open in that session by a stop in play (a power cut, a crash, a `systemctl stop`
mid-hand): the service takes that hand up again when it starts, so a new session or a new
version would leave it behind. The way out is the desk's: start the service, finish the hand or
void it at the referee's screen, stop the service. A journal merely left unclosed by a cut
between hands blocks nothing.

Whether the service is writing is read from SQLite's own lock: every connection to a journal
(WAL mode) holds a shared lock on byte 128 of its -shm file for as long as it is open, and the
kernel drops it with the process however it ended (SQLite's os_unix.c, UNIX_SHM_DMS). F_GETLK
only looks: it never takes the lock, and sees other processes' locks only.

The refusal is also written where the kiosk reads why the table is not running
(firmware/table/not_running.py), so the table's screen says it while the service is stopped;
`mjtable run` clears it at its next start.
"""

from __future__ import annotations

import fcntl
import shutil
import struct
import sys
import tempfile
from pathlib import Path

from firmware.journal.failures import JournalError
from firmware.journal.replay import ReplayError, replay
from firmware.journal.store import Journal
from firmware.table import not_running

STATE_DIR = Path("/var/lib/mjtable")  # the unit's StateDirectory: the kiosk reads its page there
DMS_BYTE = 128  # SQLite's "dead man switch" lock in a WAL database's -shm file
_FLOCK = "hhqqi4x"  # struct flock on Linux (64-bit): type, whence, start, len, pid


class MaintenanceError(Exception):
    """The current session cannot be read to tell whether a hand is open."""


def writer_running(journal: Path) -> bool:
    """Whether another process has `journal` open (the service, or any table writing it)."""
    try:
        with open(f"{journal}-shm", "rb") as shm:
            asked = struct.pack(_FLOCK, fcntl.F_WRLCK, 0, DMS_BYTE, 1, 0)
            answer = fcntl.fcntl(shm, fcntl.F_GETLK, asked)
    except OSError:  # no -shm: nobody opened it since it was closed
        return False
    return struct.unpack(_FLOCK, answer)[0] != fcntl.F_UNLCK


def open_hand(journal: Path) -> int | None:
    """The number of the hand begun in `journal` and neither ended nor voided, or None. Read
    from a copy (with its -wal: after a cut, the latest rows are there), since SQLite leaves
    -wal and -shm files beside a journal read in place, which a command run as root would keep
    the service from."""
    with tempfile.TemporaryDirectory(prefix="mjtable-maintenance-") as scratch:
        copy = Path(scratch) / journal.name
        shutil.copyfile(journal, copy)
        wal = Path(f"{journal}-wal")
        if wal.exists():
            shutil.copyfile(wal, f"{copy}-wal")
        try:
            with Journal(copy, readonly=True) as reading:
                played = replay(reading).played
        except (JournalError, ReplayError) as err:
            raise MaintenanceError(f"cannot read the current session {journal}: {err}") from None
    last = played[-1] if played else None
    return None if last is None or last.voided or last.ended is not None else last.number


def blocker(journal: Path | None) -> str | None:
    """What keeps the table from a new session or an update, and how to end it; None if
    nothing does. `journal` is the current session's (None: no session yet)."""
    if journal is None or not journal.exists():
        return None
    if writer_running(journal):
        return (
            f"the service is running, writing {journal.name}: stop it first "
            "(systemctl stop mjtable) between hands"
        )
    number = open_hand(journal)
    if number is None:
        return None
    return (
        f"hand {number} of {journal.name} is open: the table stopped during it (a power cut, "
        "a crash, a stop mid-hand) and takes it up again when it starts. Start the service "
        "(systemctl start mjtable), finish the hand or void it at the referee's screen "
        "(Void hand), then stop the service (systemctl stop mjtable) and try again"
    )


def refuse(command: str, why: str, data_dir: Path) -> int:
    """`why` on the console and, on a table laid out as the unit has it (the data directory
    in its state directory), on the table's screen; the status 2 of a refusal."""
    print(f"mjtable {command}: {why}", file=sys.stderr)
    if data_dir.absolute().parent == STATE_DIR:
        not_running.say(f"mjtable {command} refused: {why}", {"STATE_DIRECTORY": str(STATE_DIR)})
    return 2
