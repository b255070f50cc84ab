"""`mjtable journal backup SRC DEST`: a safe copy of a journal, while its table plays or not;
`mjtable journal export JOURNAL DEST`: its rows as JSON lines, for `mjtable verify` anywhere.

A journal's latest rows live in its -wal file until a checkpoint (each hand's end) moves them
into the main file: a copy of the main file alone (cp, a file manager) loses them, and
`mjtable run` refuses such a copy (firmware/journal/store.py). SQLite's online backup API copies
every committed row wherever it is, as one snapshot, while the table goes on writing. The
copy is checked before the command says it is done: its hash chain holds and it has the
source's rows, row for row, as of that snapshot. A copy that fails the check is removed.

An export is one JSON line per row (seq, kind, the row's JSON text as it was hashed, its
prev_hash and hash, the schema version it was written in) after a header line naming the
journal and the device keys its HeadSigned rows carry: the signatures are rows like any other.

Exit status: 0 copied and checked (exported), 1 the copy does not check, 2 a bad source or
DEST.
"""

import os
import sqlite3
import sys
from contextlib import closing
from itertools import zip_longest

from firmware import cli_args
from firmware.journal import schema
from firmware.journal.failures import JournalError
from firmware.journal.schema import canonical
from firmware.journal.store import Journal

ROWS = "SELECT seq, kind, json, prev_hash, hash FROM journal ORDER BY seq"
EXPORT_FORMAT = "mjtable journal export 1"  # the header line's "export"


class CopyMismatch(Exception):
    """The copy's chain is broken or its rows are not the source's."""


def add_parser(commands) -> None:
    p = commands.add_parser("journal")
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    b = actions.add_parser(
        "backup",
        help="copy a journal with the rows still in its -wal file, and check the copy",
    )
    b.add_argument(
        "source", type=cli_args.path, metavar="SRC", help="the journal (its table may be playing)"
    )
    b.add_argument("dest", type=cli_args.path, metavar="DEST", help="the copy: a new file")
    b.set_defaults(run=run)
    e = actions.add_parser(
        "export", help="write a journal's rows, signatures included, as JSON lines"
    )
    e.add_argument("source", type=cli_args.path, metavar="JOURNAL", help="the journal")
    e.add_argument("dest", type=cli_args.path, metavar="DEST", help="the export: a new file")
    e.set_defaults(run=run_export)


def run(args) -> int:
    try:
        rows = backup(args.source, args.dest)
    except JournalError as err:
        print(f"mjtable journal backup: {err}", file=sys.stderr)
        return 2
    except CopyMismatch as err:
        print(f"mjtable journal backup: {err}; the copy is removed", file=sys.stderr)
        return 1
    print(f"{args.dest}: {rows} rows of {args.source}, hash chain intact")
    return 0


def run_export(args) -> int:
    try:
        rows = export(args.source, args.dest)
    except JournalError as err:
        print(f"mjtable journal export: {err}", file=sys.stderr)
        return 2
    print(f"{args.dest}: {rows} rows of {args.source}")
    return 0


def export(source, dest) -> int:
    """Write the journal `source`'s rows to the new file `dest` (EXPORT_FORMAT); the count."""
    dest = _new_file(dest, "an export")
    with Journal(source, readonly=True) as journal:
        journal.conn.execute("BEGIN")  # one snapshot, while the table may go on writing
        rows = list(journal.rows())
        keys = sorted({key for key in map(_signing_key, rows) if key})
        header = {
            "export": EXPORT_FORMAT,
            "journal": os.path.abspath(journal.path),
            "session_id": journal.session_id,
            "rows": len(rows),
            "public_keys": keys,
        }
    try:
        with open(dest, "x", encoding="utf-8") as out:
            out.write(canonical(header) + "\n")
            for r in rows:
                line = {"seq": r.seq, "kind": r.kind, "json": r.json, "version": r.version}
                out.write(canonical(line | {"prev_hash": r.prev_hash, "hash": r.hash}) + "\n")
    except OSError as err:
        raise JournalError(f"{dest}: cannot write the export: {err.strerror}") from None
    return len(rows)


def _signing_key(row) -> str | None:
    """The public key a HeadSigned row carries; None for any other row, or one unreadable
    (an export copies a damaged journal as it is, for `mjtable verify` to name the row)."""
    try:
        data = row.data()
    except ValueError:
        return None
    if row.kind == "device" and isinstance(data, dict) and data.get("type") == "HeadSigned":
        return str(data.get("public_key"))
    return None


def _new_file(dest, what: str) -> str:
    """`dest` if it may be made: a new file in a folder that exists (JournalError if not)."""
    dest = os.fspath(dest)
    if os.path.isdir(dest):
        raise JournalError(f"{dest}: is a directory: give the path of the new file")
    if os.path.lexists(dest):
        raise JournalError(f"{dest}: exists: {what} never overwrites a file, name a new one")
    folder = os.path.dirname(dest) or "."
    if not os.path.isdir(folder):
        raise JournalError(f"{dest}: {folder} is not a folder")
    return dest


def backup(source, dest) -> int:
    """Copy the journal `source` to the new file `dest` and check the copy; its row count."""
    dest = _new_file(dest, "a backup")
    with Journal(source, readonly=True) as src:
        src.conn.execute("BEGIN")  # one snapshot for the copy and for the check
        try:
            src.conn.execute("SELECT count(*) FROM journal").fetchone()
        except sqlite3.DatabaseError as err:
            raise JournalError(f"{source}: corrupt ({err})") from None
        try:
            with closing(sqlite3.connect(dest)) as copy:
                src.conn.backup(copy)
                if src.version > 2:  # the copy is whole: no table has it open
                    schema.mark(copy, schema.CLOSED)
                    copy.commit()
                # Checked while `copy` is open: its close, the last, removes the -wal.
                return _check(src, dest)
        except sqlite3.Error as err:
            _remove(dest)
            raise JournalError(f"{dest}: cannot write the copy: {err}") from None
        except (CopyMismatch, JournalError) as err:
            _remove(dest)
            raise CopyMismatch(str(err)) from None


def _check(src: Journal, dest: str) -> int:
    with Journal(dest, readonly=True) as copy:
        broken = copy.verify()
        if broken:
            raise CopyMismatch(f"{dest}: hash chain broken at {broken}")
        count = 0
        for theirs, ours in zip_longest(src.conn.execute(ROWS), copy.conn.execute(ROWS)):
            if theirs != ours:
                seq = (theirs or ours)[0]
                raise CopyMismatch(f"{dest}: row {seq} is not the source's")
            count += 1
    return count


def _remove(dest: str) -> None:
    for path in (dest, dest + "-wal", dest + "-shm"):
        if os.path.exists(path):
            os.remove(path)
