"""The journal file's schema and its versions (docs/events.md): what a new file is made of,
how a version 2 file becomes version 3, how a version 2 row reads in today's form, the meta
table's 'writer' mark, which finds out a main file copied without its -wal, and its
'uplink_seq', the last row the venue's broker acknowledged (firmware/uplink/client.py).

Apart from firmware/journal/store.py so that the reading and writing of rows stays one short
module; both work on the same sqlite3 connection, inside the caller's transaction.
"""

import json
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


def mark(conn, writer: str) -> None:
    """'open' while a table writes the journal (checkpointed into the main file at once),
    'closed' once it closed it: a main file left 'open' with no -wal beside it was copied
    without the rows its -wal held."""
    conn.execute("INSERT OR REPLACE INTO meta VALUES ('writer', ?)", (writer,))


def uplink_seq(conn) -> int:
    """The last row the venue's broker acknowledged: the uplink publishes the rows after it.
    In meta, outside the chain, so that a cursor moving never touches a row."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'uplink_seq'").fetchone()
    return int(row[0]) if row else 0


def set_uplink_seq(conn, seq: int) -> None:
    conn.execute("INSERT OR REPLACE INTO meta VALUES ('uplink_seq', ?)", (str(seq),))


def left_open(path: str) -> bool:
    """Whether the main file says a table was writing it (meta 'writer' = 'open'), read as
    the file alone says (immutable: SQLite makes no -wal of its own to read it)."""
    uri = Path(path).resolve().as_uri() + "?mode=ro&immutable=1"
    try:
        with closing(sqlite3.connect(uri, uri=True)) as conn:
            row = conn.execute("SELECT value FROM meta WHERE key = 'writer'").fetchone()
    except sqlite3.DatabaseError:  # not a journal, or of version 2: opening it says which
        return False
    return row == ("open",)


def close(conn, writing: bool) -> None:
    """Mark the journal closed, then close it (SQLite's last close checkpoints the -wal into
    the main file and removes it)."""
    try:
        if writing:  # a writer's file is of today's version: it has the meta table
            mark(conn, "closed")
    finally:
        conn.close()
