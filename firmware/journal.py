"""The event journal: every engine input, written before it is applied, then its outputs.

SQLite in WAL mode with synchronous=FULL (SOFTWARE.md 7.1, pitfall 26): a commit is on the
medium before the engine sees the input. One row per hand, input and output:

    journal(seq INTEGER PRIMARY KEY, kind TEXT, json TEXT, prev_hash TEXT, hash TEXT)

- kind 'hand':   what rebuilds the Table: {"ruleset", "hand_number", "walls", "chips", "t",
                 "doubling", "last_deal"}
- kind 'input':  an engine input, `Event.to_json()`
- kind 'output': one engine output, `Event.to_json()`, in the order the engine produced them
- kind 'device': a device record (`Fault`, a referee's acknowledgement): kept for the audit,
  not re-created by a replay

`json` is canonical (sorted keys, no spaces) and `hash = sha256(prev_hash + json)`, hex, with
`prev_hash` of the first row 64 zeros: editing, deleting or reordering any row but the last
breaks the chain, and `verify()` names the first broken row.

Each input is its own transaction; the outputs of one input are one transaction after it. So
after a crash the journal ends either with an input's complete outputs or with an input that
has none: that input was (perhaps) never applied and must be re-applied (`pending()`;
firmware/replay.py does it). Opening an existing journal continues its chain.
"""

import hashlib
import json
import os
import sqlite3
from dataclasses import dataclass

APPLICATION_ID = 0x4D4A544A  # "MJTJ" in the database header: this file is a journal
SCHEMA_VERSION = 2
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


class JournalError(Exception):
    """A journal that cannot be opened or read: missing, not a journal, or corrupt."""


@dataclass(frozen=True)
class Row:
    seq: int
    kind: str
    json: str
    prev_hash: str
    hash: str

    def data(self):
        return json.loads(self.json)


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
    existing journal. Either raises JournalError with a one-line message for a file that is
    missing, not SQLite, or not a journal.
    """

    def __init__(self, path, create: bool = True):
        self.path = os.fspath(path)
        exists = os.path.exists(self.path)
        if not exists and not create:
            raise JournalError(f"{self.path}: no such file")
        if exists and os.path.isdir(self.path):
            raise JournalError(f"{self.path}: is a directory")
        try:
            self.conn = sqlite3.connect(self.path, isolation_level=None)
        except sqlite3.Error as err:
            raise JournalError(f"{self.path}: cannot open: {err}") from None
        try:
            self._prepare(create)
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

    def _prepare(self, create: bool) -> None:
        conn = self.conn
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if app_id != APPLICATION_ID:
            if tables or not create:
                raise JournalError(f"{self.path}: not a mjtable journal")
            conn.execute("BEGIN IMMEDIATE")
            conn.execute(_SCHEMA)
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            conn.execute("COMMIT")
        elif "journal" not in tables:
            raise JournalError(f"{self.path}: journal table missing")
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version != SCHEMA_VERSION:
            raise JournalError(f"{self.path}: journal schema {version}, expected {SCHEMA_VERSION}")
        # WAL persists in the file; synchronous is per connection, so set it every time.
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if mode.lower() != "wal":
            raise JournalError(f"{self.path}: cannot use WAL (journal_mode is {mode})")
        conn.execute("PRAGMA synchronous = FULL")

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
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            self.conn.executemany("INSERT INTO journal VALUES (?, ?, ?, ?, ?)", rows)
            self.conn.execute("COMMIT")
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
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
        self._append(
            [
                (
                    "hand",
                    {
                        "ruleset": ruleset,
                        "hand_number": hand_number,
                        "walls": [list(w) for w in walls],
                        "chips": list(chips) if chips is not None else None,
                        "t": t,
                        "doubling": doubling,
                        "last_deal": last_deal,
                    },
                )
            ]
        )

    def input(self, event) -> None:
        """An engine input, committed (fsync) before the engine applies it."""
        self._append([("input", event.to_json())])

    def outputs(self, events) -> None:
        """The outputs of the latest input, all in one transaction."""
        self._append([("output", e.to_json()) for e in events])

    def device(self, record: dict) -> None:
        """A device record (a fault, its clearing, a referee's acknowledgement)."""
        self._append([("device", record)])

    # -- reading -------------------------------------------------------------------------

    def rows(self):
        try:
            for r in self.conn.execute(
                "SELECT seq, kind, json, prev_hash, hash FROM journal ORDER BY seq"
            ):
                yield Row(*r)
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
        (a crash between journaling it and its outputs) and must be re-applied.

        An input whose outputs are genuinely none looks the same; re-applying it is what
        replay does in either case."""
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
