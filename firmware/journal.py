"""The event journal: every engine input, written before it is applied, then its outputs.

SQLite in WAL mode with synchronous=FULL (SOFTWARE.md 7.1, pitfall 26): a commit is on the
medium before the engine sees the input. One hash-chained row per hand, input, output and
record event (docs/events.md gives the format): editing, deleting or reordering any row but
the last breaks the chain, and `verify()` names the first broken row.

Each input is its own transaction; the outputs of one input are one transaction after it. So
after a crash the journal ends either with an input's complete outputs or with an input that
has none: that input was (perhaps) never applied and must be re-applied (`pending()`;
firmware/replay.py does it). Opening an existing journal continues its chain, and migrates
an older schema version (`PRAGMA user_version`) without touching a row.
"""

import hashlib
import json
import os
import secrets
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from engine import events as ev

APPLICATION_ID = 0x4D4A544A  # "MJTJ" in the database header: this file is a journal
SCHEMA_VERSION = 3
OLDEST_VERSION = 2  # the oldest this code reads (and migrates)
GENESIS = "0" * 64
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
    if version == 2 and isinstance(obj, dict):
        return {**_V2_DEFAULTS.get(obj.get("type"), {}), **obj}
    return obj


class JournalError(Exception):
    """A journal that cannot be opened or read: missing, not a journal, or corrupt."""


@dataclass(frozen=True)
class Row:
    seq: int
    kind: str
    json: str
    prev_hash: str
    hash: str
    version: int  # the schema version the row was written in

    def data(self):
        return json.loads(self.json)

    def event(self) -> ev.Event:
        """The event of an input, output or device row (EventError if it is none)."""
        return ev.from_json(upgrade(self.data(), self.version))


@dataclass(frozen=True)
class ChainBreak:
    """The first row whose link in the hash chain does not hold."""

    seq: int
    reason: str

    def __str__(self) -> str:
        return f"row {self.seq}: {self.reason}"


def canonical(obj) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False)


def link(prev_hash: str, text: str) -> str:
    return hashlib.sha256((prev_hash + text).encode()).hexdigest()


class Journal:
    """An append-only, hash-chained journal in one SQLite file.

    `Journal(path)` creates the file if need be; `Journal(path, create=False)` only opens an
    existing journal; `Journal(path, readonly=True)` reads one without writing to it (an
    audit), in whichever version it has. Each raises JournalError with a one-line message
    for a file that is missing, not SQLite, not a journal or of an unknown version.
    """

    def __init__(self, path, create: bool = True, readonly: bool = False):
        self.path = os.fspath(path)
        exists = os.path.exists(self.path)
        if not exists and (readonly or not create):
            raise JournalError(f"{self.path}: no such file")
        if exists and os.path.isdir(self.path):
            raise JournalError(f"{self.path}: is a directory")
        try:
            target = Path(self.path).resolve().as_uri() + "?mode=ro" if readonly else self.path
            self.conn = sqlite3.connect(target, isolation_level=None, uri=readonly)
        except sqlite3.Error as err:
            raise JournalError(f"{self.path}: cannot open: {err}") from None
        try:
            self._prepare(create and not readonly, readonly)
            last = self.conn.execute(
                "SELECT seq, hash FROM journal ORDER BY seq DESC LIMIT 1"
            ).fetchone()
        except sqlite3.DatabaseError as err:
            self.conn.close()
            raise JournalError(f"{self.path}: not a journal ({err})") from None
        except JournalError:
            self.conn.close()
            raise
        self.seq, self.head = last if last else (0, GENESIS)

    def _prepare(self, create: bool, readonly: bool) -> None:
        conn = self.conn
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if app_id != APPLICATION_ID:
            if tables or not create:
                raise JournalError(f"{self.path}: not a mjtable journal")
            self._transaction(self._create)
        elif "journal" not in tables:
            raise JournalError(f"{self.path}: journal table missing")
        version = self._version()
        if not OLDEST_VERSION <= version <= SCHEMA_VERSION:
            raise JournalError(
                f"{self.path}: journal schema version {version}; this mjtable reads versions "
                f"{OLDEST_VERSION} to {SCHEMA_VERSION}"
            )
        if not readonly:
            # WAL persists in the file; synchronous is per connection, so set it every time.
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if mode.lower() != "wal":
                raise JournalError(f"{self.path}: cannot use WAL (journal_mode is {mode})")
            conn.execute("PRAGMA synchronous = FULL")
            if version < SCHEMA_VERSION:
                self._transaction(self._migrate)
        self.version = self._version()
        meta = dict(conn.execute("SELECT key, value FROM meta")) if self.version > 2 else {}
        self.session_id: str | None = meta.get("session_id")  # None: a version 2 file
        self.history = json.loads(meta.get("schema_history", '[{"version":2,"first_seq":1}]'))

    def _version(self) -> int:
        return self.conn.execute("PRAGMA user_version").fetchone()[0]

    def _transaction(self, work) -> None:
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            work()
            self.conn.execute("COMMIT")
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise

    def _create(self) -> None:
        self.conn.execute(_SCHEMA)
        self._add_meta([{"version": SCHEMA_VERSION, "first_seq": 1}])
        self.conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")

    def _migrate(self) -> None:
        """2 -> 3: add the meta table; the rows stay as they are, so the chain holds."""
        if self._version() != 2:  # another process migrated it before our write lock
            return
        last = self.conn.execute("SELECT coalesce(max(seq), 0) FROM journal").fetchone()[0]
        self._add_meta([{"version": 2, "first_seq": 1}, {"version": 3, "first_seq": last + 1}])

    def _add_meta(self, history: list) -> None:
        self.conn.execute(_META)
        self.conn.executemany(
            "INSERT INTO meta VALUES (?, ?)",
            [("session_id", secrets.token_hex(16)), ("schema_history", canonical(history))],
        )
        self.conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    # -- writing -------------------------------------------------------------------------

    def _append(self, items) -> None:
        """Append (kind, obj) rows in one transaction, extending the chain."""
        seq, head, rows = self.seq, self.head, []
        for kind, obj in items:
            text = canonical(obj)
            seq, prev = seq + 1, head
            head = link(prev, text)
            rows.append((seq, kind, text, prev, head))
        if not rows:
            return
        self._transaction(
            lambda: self.conn.executemany("INSERT INTO journal VALUES (?, ?, ?, ?, ?)", rows)
        )
        self.seq, self.head = seq, head

    def hand(
        self,
        ruleset: str,
        hand_number: int,
        walls,
        t: float,
        chips=None,
        doubling: bool = False,
        last_deal: bool = False,
    ) -> None:
        """A new table: enough to rebuild it (Table(ruleset, walls, hand_number, t, chips,
        doubling, last_deal))."""
        row = {
            "ruleset": ruleset,
            "hand_number": hand_number,
            "walls": [list(w) for w in walls],
            "chips": list(chips) if chips is not None else None,
            "t": t,
            "doubling": doubling,
            "last_deal": last_deal,
        }
        self._append([("hand", row)])

    def input(self, event) -> None:
        """An engine input, committed (fsync) before the engine applies it."""
        self._append([("input", event.to_json())])

    def outputs(self, events) -> None:
        """The outputs of the latest input, all in one transaction."""
        self._append([("output", e.to_json()) for e in events])

    def record(self, event: ev.Event) -> None:
        """A record event (events.RECORDS: a fault, a referee's action), for the audit."""
        if not isinstance(event, ev.RECORDS):
            raise TypeError(f"{type(event).__name__} is not a record event")
        self._append([("device", event.to_json())])

    # -- reading -------------------------------------------------------------------------

    def version_of(self, seq: int) -> int:
        """The schema version row `seq` was written in (schema_history is in order)."""
        return next(h["version"] for h in reversed(self.history) if h["first_seq"] <= seq)

    def rows(self):
        try:
            for r in self.conn.execute(
                "SELECT seq, kind, json, prev_hash, hash FROM journal ORDER BY seq"
            ):
                yield Row(*r, self.version_of(r[0]))
        except sqlite3.DatabaseError as err:
            raise JournalError(f"{self.path}: corrupt ({err})") from None

    def verify(self) -> ChainBreak | None:
        """Walk the chain; None if every row links, else the first broken row."""
        expected_seq, head = 1, GENESIS
        for row in self.rows():
            if row.seq != expected_seq:
                return ChainBreak(
                    row.seq, f"sequence jumps from {expected_seq - 1} to {row.seq} (rows deleted)"
                )
            if row.prev_hash != head:
                return ChainBreak(
                    row.seq,
                    "prev_hash does not match the row before "
                    "(a row before it was edited, deleted or moved)",
                )
            if row.kind not in KINDS:
                return ChainBreak(row.seq, f"unknown kind {row.kind!r}")
            if link(row.prev_hash, row.json) != row.hash:
                return ChainBreak(row.seq, "hash does not match its content (row edited)")
            try:
                json.loads(row.json)
            except (TypeError, ValueError):
                return ChainBreak(row.seq, "content is not JSON")
            expected_seq, head = expected_seq + 1, row.hash
        return None

    def pending(self) -> dict | None:
        """The last input, if nothing was journaled after it: it may never have been applied
        (a crash between journaling it and its outputs) and must be re-applied. An input
        whose outputs are genuinely none looks the same; replay re-applies it either way."""
        last = self.conn.execute(
            "SELECT kind, json FROM journal ORDER BY seq DESC LIMIT 1"
        ).fetchone()
        return json.loads(last[1]) if last and last[0] == "input" else None

    def pragmas(self) -> dict:
        return {
            "journal_mode": self.conn.execute("PRAGMA journal_mode").fetchone()[0],
            "synchronous": self.conn.execute("PRAGMA synchronous").fetchone()[0],
        }

    def close(self) -> None:
        self.conn.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
