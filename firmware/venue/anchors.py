"""The venue's anchors (issue 35): every WallSealed digest and HeadSigned head a table sends on
the bus, kept on the venue's disk with the time it came.

A table's owner holds its journal and its device key: he can cut a hand out and sign the rest
again, or cut the journal's tail, and the journal alone still verifies. What he cannot reach
is what the venue received while the session was played. `mjtable venue anchors export`
writes these anchors to a file; `mjtable verify --anchors FILE` (firmware/audit/
verify_anchors.py) then fails on a journal that lacks an anchored head, holds another one at
its row, or ends before the last anchor, so the hall's file makes truncation and rewrites
after the fact visible to anyone who has it.

The store is SQLite (the standard library's), in WAL with FULL syncs (notes/SOFTWARE.md 7.1:
an anchor lost in a power cut is one a forger is glad of; at a hall's rate of a few rows a
hand per table the syncs cost nothing). The key pins (firmware/venue/pins.py) live in the same
file. A row sent twice (a reconnect, a `resend`) is kept once.
"""

import json
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from firmware.audit.verify_anchors import ANCHORS_FORMAT
from firmware.journal.device_key import fingerprint

KINDS = {"WallSealed": ("seal", "digest"), "HeadSigned": ("head", "head")}

SCHEMA = """
CREATE TABLE IF NOT EXISTS anchors (
    table_name TEXT NOT NULL,
    session TEXT NOT NULL,
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,          -- "seal" (a WallSealed's digest) or "head" (a HeadSigned's)
    hand INTEGER,                -- a head's hand
    value TEXT NOT NULL,         -- the digest or the head, hex
    key_fingerprint TEXT,        -- a head's signing key (device_key.fingerprint)
    received REAL NOT NULL,      -- the venue's wall clock (Unix seconds)
    PRIMARY KEY (table_name, session, seq)
);
CREATE TABLE IF NOT EXISTS pins (
    table_name TEXT PRIMARY KEY,
    key_fingerprint TEXT NOT NULL,
    source TEXT NOT NULL,        -- "first sight" or "enrolment"
    pinned REAL NOT NULL
);
"""


class RecordsError(Exception):
    """The venue's records file cannot be opened or read: the message names it."""


def open_records(path: str | Path) -> sqlite3.Connection:
    """The venue's records at `path` (made if new); ":memory:" keeps them in memory (a
    simulated hall, a test)."""
    try:
        conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        conn.executescript(SCHEMA)
    except sqlite3.Error as err:
        raise RecordsError(f"{path}: not the venue's records ({err})") from None
    return conn


def _text(value, longest: int = 200) -> str | None:
    return value if isinstance(value, str) and 0 < len(value) <= longest else None


class Anchors:
    """The anchors kept in `conn` (open_records); `clock` the venue's wall clock."""

    def __init__(self, conn: sqlite3.Connection, clock: Callable[[], float] = time.time):
        self.conn, self.clock = conn, clock

    def row(self, table: str, session: str, row: dict) -> bool:
        """One journal row from the bus: kept when it is a seal or a signed head (True)."""
        event = row["event"]
        kind = KINDS.get(event.get("type"))
        value = _text(event.get(kind[1])) if kind else None
        if kind is None or value is None:
            return False
        hand = event.get("hand") if kind[0] == "head" else None
        try:
            key = fingerprint(event["public_key"]) if kind[0] == "head" else None
        except (KeyError, TypeError, ValueError):
            key = None  # a head without a key the verify names as such
        added = self.conn.execute(
            "INSERT OR IGNORE INTO anchors VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                table,
                session,
                row["seq"],
                kind[0],
                hand if isinstance(hand, int) else None,
                value,
                key,
                self.clock(),
            ),
        )
        return added.rowcount == 1

    def counts(self) -> dict[str, int]:
        """The anchors kept, by table."""
        found = self.conn.execute("SELECT table_name, COUNT(*) FROM anchors GROUP BY table_name")
        return dict(found.fetchall())

    def export(self, venue: str) -> dict:
        """Every anchor kept, by table, session and row: the file `verify --anchors` reads."""
        rows = self.conn.execute(
            "SELECT table_name, session, seq, kind, hand, value, key_fingerprint, received "
            "FROM anchors ORDER BY table_name, session, seq"
        )
        names = ("table", "session", "seq", "kind", "hand", "value", "key_fingerprint", "received")
        return {
            "anchors": ANCHORS_FORMAT,
            "venue": venue,
            "exported": self.clock(),
            "rows": [dict(zip(names, found, strict=True)) for found in rows],
        }


def export_file(records: str, venue: str, output: str) -> int:
    """`mjtable venue anchors export`: the anchors of the records file `records` written to
    the new file `output` (never over one); their count (RecordsError, OSError)."""
    if not Path(records).is_file():
        raise RecordsError(f"{records}: no such records file (mjtable venue --records)")
    conn = open_records(records)
    try:
        document = Anchors(conn).export(venue)
    except sqlite3.Error as err:
        raise RecordsError(f"{records}: cannot read the anchors ({err})") from None
    finally:
        conn.close()
    with open(output, "x", encoding="utf-8") as out:
        json.dump(document, out, ensure_ascii=False, indent=1)
        out.write("\n")
    return len(document["rows"])
