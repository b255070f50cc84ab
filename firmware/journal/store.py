"""The event journal: every engine input, written before it is applied, then its outputs.

SQLite in WAL mode with synchronous=FULL (SOFTWARE.md 7.1, pitfall 26): a commit is on the
medium before the engine sees the input. One hash-chained row per hand, input, output and
record event (docs/events.md gives the format): editing, deleting or reordering any row but
the last breaks the chain, and `verify()` names the first broken row.

Each input is its own transaction; the outputs of one input are one transaction after it. So
after a crash the journal ends either with an input's complete outputs or with an input that
has none: that input was (perhaps) never applied and must be re-applied (`pending()`;
firmware/journal/replay.py does it). Opening an existing journal continues its chain, and migrates
an older schema version (`PRAGMA user_version`) without touching a row.

Committed rows sit in the -wal file until a checkpoint moves them into the main file: one at
each hand's end (`checkpoint()`), none by SQLite's own count of pages. The writer's marks
around each checkpoint (firmware/journal/schema.py) let a main file copied without its -wal
(its latest rows lost) be refused, not taken for a new session, whatever SQLite or a
technician did to the file since; firmware/journal/cli.py copies a journal safely.

The chain and its rows are firmware/journal/chain.py; the checks made on opening a file,
opening.py; what can go wrong, failures.py.
"""

import contextlib
import json
import os
import sqlite3
import weakref
from pathlib import Path

from engine import events as ev
from firmware.journal import schema
from firmware.journal.chain import GENESIS, ChainBreak, Row, chained, first_break
from firmware.journal.failures import JournalError, StorageFailure
from firmware.journal.opening import check_pages, check_path, checked_version, write_safely
from firmware.journal.schema import APPLICATION_ID, SCHEMA_VERSION, version_of


def last_written(path) -> float | None:
    """When the journal at `path` was last written (its -wal takes each commit, its main
    file each checkpoint), as the wall clock's seconds; None if there is no file. Read before
    the file is opened for writing, which writes to it: a resumed hand says when it was cut."""
    times = [os.stat(p).st_mtime for p in (path, f"{path}-wal") if os.path.isfile(p)]
    return max(times) if times else None


class Journal:
    """An append-only, hash-chained journal in one SQLite file.

    `Journal(path)` creates the file if need be; `Journal(path, create=False)` only opens an
    existing journal; `Journal(path, readonly=True)` reads one without writing to it (an
    audit), in whichever version it has. Each raises JournalError with a one-line message
    for a file that is missing, not SQLite, not a journal or of an unknown version.
    """

    def __init__(self, path, create: bool = True, readonly: bool = False):
        self.path = os.fspath(path)
        check_path(self.path, create, readonly)
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
            if not readonly:
                check_pages(self.conn, self.path)
        except sqlite3.DatabaseError as err:
            self.conn.close()
            raise JournalError(f"{self.path}: not a journal ({err})") from None
        except JournalError:
            self.conn.close()
            raise
        self.seq: int = last[0] if last else 0  # the last row written
        self.head: str = last[1] if last else GENESIS  # its hash, the next row's prev_hash
        self.behind = False  # the last checkpoint left rows in the -wal (a reader held them)
        self.signer = None  # a writing table's firmware/journal/signing.py Signer
        if not readonly:
            try:
                self.checkpoint()  # marked as written: a copy of the main file alone is found out
            except StorageFailure:
                self.conn.close()
                raise
        # Closed however this object goes (close(), the garbage collector, the interpreter's
        # exit): marked closed first, so only a journal cut off by a crash or a write error is
        # left unclosed.
        where = os.path.abspath(self.path)  # a close after a chdir keeps the same file's -wal
        self._closer = weakref.finalize(self, schema.close, self.conn, not readonly, where)

    def _prepare(self, create: bool, readonly: bool) -> None:
        conn = self.conn
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if app_id != APPLICATION_ID:
            if tables or not create:
                raise JournalError(f"{self.path}: not a mjtable journal")
            self._transaction(lambda: schema.create(conn))
        elif "journal" not in tables:
            raise JournalError(f"{self.path}: journal table missing")
        version = checked_version(conn, self.path)
        if not readonly:
            write_safely(conn, self.path)
            if version < SCHEMA_VERSION:
                self._transaction(lambda: schema.migrate(conn))
        self.version = version_of(conn)
        meta = dict(conn.execute("SELECT key, value FROM meta")) if self.version > 2 else {}
        self.session_id: str | None = meta.get("session_id")  # None: a version 2 file
        self.history = json.loads(meta.get("schema_history", '[{"version":2,"first_seq":1}]'))

    def _transaction(self, work) -> None:
        """`work` committed whole or not at all; an SQLite error is a StorageFailure naming the
        first: the ROLLBACK after a failed COMMIT may fail too ("cannot rollback", I/O)."""
        with self._writing():
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                work()
                self.conn.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    self.conn.execute("ROLLBACK")
                raise

    @contextlib.contextmanager
    def _writing(self):
        try:
            yield
        except sqlite3.Error as err:
            raise StorageFailure(f"the journal {self.path} could not be written: {err}") from err

    # -- writing -------------------------------------------------------------------------

    def _append(self, items) -> None:
        """Append (kind, obj) rows in one transaction, extending the chain."""
        rows = chained(self.seq, self.head, items)
        if not rows:
            return
        seq, head = rows[-1][0], rows[-1][4]
        self._transaction(
            lambda: self.conn.executemany("INSERT INTO journal VALUES (?, ?, ?, ?, ?)", rows)
        )
        self.seq, self.head = seq, head
        if self.behind:
            self.checkpoint()

    def hand(
        self,
        ruleset: str,
        hand_number: int,
        walls,
        t: float,
        chips=None,
        doubling: bool = False,
        last_deal: bool = False,
        tile_set: str | None = None,
        table: str | None = None,
        wall_time: str | None = None,
    ) -> None:
        """A new table: enough to rebuild it (Table(ruleset, walls, chips, doubling, last_deal)),
        its number and time, and the tile set it is played with, which a hand taken up again
        after a power cut is read in (firmware/table/resume.py); the table's name and the time
        of day it began (UTC), which the score sheet gives (firmware/audit/sheet.py)."""
        row = {
            "ruleset": ruleset,
            "hand_number": hand_number,
            "walls": [list(w) for w in walls],
            "chips": list(chips) if chips is not None else None,
            "t": t,
            "doubling": doubling,
            "last_deal": last_deal,
        }
        if tile_set is not None:
            row["tile_set"] = tile_set
        if table is not None:
            row["table"] = table
        if wall_time is not None:
            row["wall_time"] = wall_time
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
        if self.signer is not None:  # the sign-off signed at once (firmware/journal/signing.py)
            self.signer.after_record(event)

    # -- reading -------------------------------------------------------------------------

    def version_of(self, seq: int) -> int:
        """The schema version row `seq` was written in (schema_history is in order)."""
        return next(h["version"] for h in reversed(self.history) if h["first_seq"] <= seq)

    @contextlib.contextmanager
    def snapshot(self):
        """Reads that see the journal as of one moment while the table goes on writing (WAL):
        an export reads it twice (its replay, then its rows) and must see the same rows."""
        self.conn.execute("BEGIN")
        try:
            yield self
        except BaseException:
            with contextlib.suppress(sqlite3.Error):  # a corrupt file: the reader's error says
                self.conn.execute("COMMIT")
            raise
        self.conn.execute("COMMIT")

    def rows(self):
        try:
            for r in self.conn.execute(
                "SELECT seq, kind, json, prev_hash, hash FROM journal ORDER BY seq"
            ):
                yield self._row(r)
        except sqlite3.DatabaseError as err:
            raise JournalError(f"{self.path}: corrupt ({err})") from None

    def rows_after(self, seq: int, limit: int) -> list[Row]:
        """Up to `limit` rows after row `seq`, in order, read whole: the uplink's next."""
        found = self.conn.execute(
            "SELECT seq, kind, json, prev_hash, hash FROM journal WHERE seq > ? ORDER BY seq "
            "LIMIT ?",
            (seq, limit),
        ).fetchall()
        return [self._row(r) for r in found]

    def _row(self, found: tuple[int, str, str, str, str]) -> Row:
        """A row as SELECT seq, kind, json, prev_hash, hash reads it."""
        seq, kind, text, prev_hash, hash_ = found
        return Row(seq, kind, text, prev_hash, hash_, self.version_of(seq))

    def uplink_seq(self) -> int:
        """The last row the venue's broker acknowledged (0: none)."""
        return schema.uplink_seq(self.conn)

    def set_uplink_seq(self, seq: int) -> None:
        with self._writing():
            schema.set_uplink_seq(self.conn, seq)

    def verify(self) -> ChainBreak | None:
        """Walk the chain; None if every row links, else the first broken row."""
        return first_break(self.rows())

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

    def checkpoint(self) -> None:
        """Copy the -wal's committed rows into the main file, at each hand's end: a copy of
        the main file alone then holds every finished hand, and the -wal stays small.
        Between the marks that let a copy of the main file alone be found out (schema.py).
        PASSIVE: it never waits for a reader (a replay, a backup), so it never holds up the
        table; if a reader held rows back, it is done again after each row until whole."""
        with self._writing():
            schema.mark_checkpoint(self.conn, self.seq)
            _, frames, copied = self.conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            schema.mark(self.conn, schema.WRITING)
        self.behind = copied < frames

    def close(self) -> None:
        with self._writing():  # it marks the file closed: a write like any other
            self._closer()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
