"""The journal file's schema and its versions (docs/events.md): what a new file is made of,
how a version 2 file becomes version 3, how a version 2 row reads in today's form, the meta
table's 'writer' mark, which finds out a main file copied without its -wal, and its
'uplink_seq', the last row the venue's broker acknowledged (firmware/uplink/client.py).

The 'writer' mark (issue 32 item 1) is judged by what the file holds, never by which files lie
beside it. A table writing the journal commits `checkpoint N` (N its last row) just before each
checkpoint and `writing` just after it, so `writing` sits in the -wal until the next one:

- read with its -wal, or after anything checkpointed the -wal in (SQLite does on the last
  close: the table's own after a write error, a technician's `sqlite3` after a crash), the
  file says `writing`: whole;
- the main file alone says `checkpoint N`: the rows after row N were in a -wal that is lost,
  however many empty -wal files a read-only look leaves beside it. A crash between the
  checkpoint and the `writing` that follows leaves the -wal (it holds frames) and is taken up;
- `closed` once the table closed it: the main file alone is whole.

Apart from firmware/journal/store.py so that the reading and writing of rows stays one short
module; both work on the same sqlite3 connection, inside the caller's transaction.
"""

import contextlib
import json
import os
import secrets
import sqlite3
from contextlib import closing
from pathlib import Path

APPLICATION_ID = 0x4D4A544A  # "MJTJ" in the database header: this file is a journal
SCHEMA_VERSION = 3
OLDEST_VERSION = 2  # the oldest this code reads (and migrates)
KINDS = ("hand", "input", "output", "device")

_SCHEMA = """
CREATE TABLE journal (
    seq       INTEGER PRIMARY KEY,
    kind      TEXT NOT NULL CHECK (kind IN ('hand', 'input', 'output', 'device')),
    json      TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash      TEXT NOT NULL
)
"""
_META = "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)"

# Version 2 wrote the referee's records as free dicts: no seat, and an Acknowledged named
# only its fault or its alert. What each record lacked, filled in as version 3 writes it.
_V2_DEFAULTS = {
    "Acknowledged": {"seat": None, "fault": None, "alert": None},
    "TrackingCorrected": {"seat": None},
    "HandVoided": {"seat": None},
    "ScoreConfirmed": {"seat": None},
    "SheetSigned": {"seat": None},
}


def upgrade(obj, version: int):
    """An event's JSON as written under schema `version`, in today's form (anything that is
    not an event's JSON is left for events.from_json to refuse)."""
    if version == 2 and isinstance(obj, dict) and isinstance(obj.get("type"), str):
        return {**_V2_DEFAULTS.get(obj["type"], {}), **obj}
    return obj


def canonical(obj) -> str:
    """A row's JSON text: sorted keys, no spaces, no NaN; what the hash chain hashes."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False)


def version_of(conn) -> int:
    return conn.execute("PRAGMA user_version").fetchone()[0]


def create(conn) -> None:
    """A new, empty journal of today's version."""
    conn.execute(_SCHEMA)
    _add_meta(conn, [{"version": SCHEMA_VERSION, "first_seq": 1}])
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")


def migrate(conn) -> None:
    """2 -> 3: add the meta table; the rows stay as they are, so the chain holds."""
    if version_of(conn) != 2:  # another process migrated it before our write lock
        return
    last = conn.execute("SELECT coalesce(max(seq), 0) FROM journal").fetchone()[0]
    _add_meta(conn, [{"version": 2, "first_seq": 1}, {"version": 3, "first_seq": last + 1}])


def _add_meta(conn, history: list) -> None:
    conn.execute(_META)
    conn.executemany(
        "INSERT INTO meta VALUES (?, ?)",
        [("session_id", secrets.token_hex(16)), ("schema_history", canonical(history))],
    )
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


CLOSED, WRITING, CHECKPOINT = "closed", "writing", "checkpoint"
LEGACY_OPEN = "open"  # the mark of mjtable before issue 32: a checkpoint of unknown row
WAL_HEADER = 32  # bytes: a -wal no longer than this holds no frame (a read-only look's)


def mark(conn, writer: str) -> None:
    """The 'writer' mark: CLOSED, WRITING, or `checkpoint N` (mark_checkpoint)."""
    conn.execute("INSERT OR REPLACE INTO meta VALUES ('writer', ?)", (writer,))


def mark_checkpoint(conn, seq: int) -> None:
    """Just before a checkpoint: what the main file alone will say, row `seq` its last."""
    mark(conn, f"{CHECKPOINT} {seq}")


def uplink_seq(conn) -> int:
    """The last row the venue's broker acknowledged: the uplink publishes the rows after it.
    In meta, outside the chain, so that a cursor moving never touches a row."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'uplink_seq'").fetchone()
    return int(row[0]) if row else 0


def set_uplink_seq(conn, seq: int) -> None:
    conn.execute("INSERT OR REPLACE INTO meta VALUES ('uplink_seq', ?)", (str(seq),))


def _main_file_mark(path: str) -> str | None:
    """The 'writer' mark as the main file alone says it (immutable: SQLite neither reads nor
    makes a -wal); None for a file without one (not a journal, or of version 2)."""
    uri = Path(path).resolve().as_uri() + "?mode=ro&immutable=1"
    try:
        with closing(sqlite3.connect(uri, uri=True)) as conn:
            row = conn.execute("SELECT value FROM meta WHERE key = 'writer'").fetchone()
    except sqlite3.DatabaseError:  # not a journal, or of version 2: opening it says which
        return None
    return row[0] if row else None


def left_open(path: str) -> bool:
    """Whether a table was writing the journal and did not close it (it runs, or it stopped
    without closing: a crash, a write error)."""
    return _main_file_mark(path) not in (None, CLOSED)


def rows_lost(path: str) -> str | None:
    """Why the journal at `path` lacks its latest rows, or None: its main file alone says a
    table went on writing after its last checkpoint and no -wal holding frames is beside it
    (module docstring)."""
    mark = _main_file_mark(path) or ""
    if not (mark == LEGACY_OPEN or mark.startswith(CHECKPOINT)):
        return None
    wal = f"{path}-wal"
    if os.path.isfile(wal) and os.path.getsize(wal) > WAL_HEADER:
        return None
    kept = mark.removeprefix(CHECKPOINT).strip()
    held = f"rows 1 to {kept}" if kept else "the rows"
    return (
        f"looks copied without its -wal file: its main file holds {held} of its last "
        "checkpoint and says the table writing it went on, in a -wal file that is not beside "
        "it (or is empty), so the rows after them are missing; copy the journal again with "
        "its -wal file, or safely with `mjtable journal backup SRC DEST` from the original"
    )


def close(conn, writing: bool, path: str) -> None:
    """Mark the journal closed, then close it (SQLite's last close checkpoints the -wal into
    the main file and removes it). If the mark cannot be written (a write error), the -wal is
    kept: a read-only connection closes last, and one never checkpoints."""
    if not writing:
        conn.close()
        return
    try:
        mark(conn, CLOSED)
    except sqlite3.Error:
        keeper = sqlite3.connect(Path(path).resolve().as_uri() + "?mode=ro", uri=True)
        with contextlib.suppress(sqlite3.Error):
            keeper.execute("SELECT count(*) FROM meta").fetchone()  # it holds the -wal now
        conn.close()
        keeper.close()
        raise
    conn.close()
