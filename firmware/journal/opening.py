"""Opening a journal file (firmware/journal/store.py): the checks that refuse, each in one line
naming the problem, a path that is missing or a folder, a main file copied without its -wal, a
file of an unknown schema version or with a corrupt page; and the settings a writing
connection needs, SQLite in WAL mode with synchronous=FULL (SOFTWARE.md 7.1, pitfall 26).
"""

import os
import sqlite3

from firmware.journal import schema
from firmware.journal.failures import JournalError
from firmware.journal.schema import OLDEST_VERSION, SCHEMA_VERSION, version_of


def check_path(path: str, create: bool, readonly: bool) -> None:
    """A path a journal may be opened at: there (unless it is to be created), a file in an
    existing folder, and, if there, not a main file whose latest rows were lost (schema.py)."""
    exists = os.path.exists(path)
    if not exists and (readonly or not create):
        raise JournalError(f"{path}: no such file")
    if exists and os.path.isdir(path):
        raise JournalError(f"{path}: is a directory")
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder):
        what = "is a file, not a folder" if os.path.exists(folder) else "does not exist"
        raise JournalError(f"{path}: {folder} {what}")
    lost = schema.rows_lost(path) if exists else None
    if lost:
        raise JournalError(f"{path}: {lost}")


def checked_version(conn: sqlite3.Connection, path: str) -> int:
    """The file's schema version, one this mjtable reads."""
    version = version_of(conn)
    if not OLDEST_VERSION <= version <= SCHEMA_VERSION:
        raise JournalError(
            f"{path}: journal schema version {version}; this mjtable reads versions "
            f"{OLDEST_VERSION} to {SCHEMA_VERSION}"
        )
    return version


def write_safely(conn: sqlite3.Connection, path: str) -> None:
    """A writing connection's settings: a commit is on the medium before the engine sees the
    input."""
    # WAL persists in the file; synchronous is per connection, so set it every time.
    mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
    if mode.lower() != "wal":
        raise JournalError(f"{path}: cannot use WAL (journal_mode is {mode})")
    conn.execute("PRAGMA synchronous = FULL")
    # only checkpoint() checkpoints, between its marks (firmware/journal/schema.py)
    conn.execute("PRAGMA wal_autocheckpoint = 0")


def check_pages(conn: sqlite3.Connection, path: str) -> None:
    """Every page of the file readable (PRAGMA quick_check), before a table writes on:
    a corrupt page is found at the start, said in one line, not mid-hand."""
    found = [r[0] for r in conn.execute("PRAGMA quick_check(3)")]
    if found != ["ok"]:
        raise JournalError(f"{path}: corrupt: {'; '.join(found)}")
