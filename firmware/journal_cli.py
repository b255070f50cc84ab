"""`mjtable journal backup SRC DEST`: a safe copy of a journal, while its table plays or not.

A journal's latest rows live in its -wal file until a checkpoint (each hand's end) moves them
into the main file: a copy of the main file alone (cp, a file manager) loses them, and
`mjtable run` refuses such a copy (firmware/journal.py). SQLite's online backup API copies
every committed row wherever it is, as one snapshot, while the table goes on writing. The
copy is checked before the command says it is done: its hash chain holds and it has the
source's rows, row for row, as of that snapshot. A copy that fails the check is removed.

Exit status: 0 copied and checked, 1 the copy does not check, 2 a bad source or DEST.
"""

import os
import sqlite3
import sys
from contextlib import closing
from itertools import zip_longest

from firmware import cli_args
from firmware.journal import Journal, JournalError

ROWS = "SELECT seq, kind, json, prev_hash, hash FROM journal ORDER BY seq"


class CopyMismatch(Exception):
    """The copy's chain is broken or its rows are not the source's."""


def add_parser(commands) -> None:
    p = commands.add_parser("journal", help="journal files: a safe copy")
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


def backup(source, dest) -> int:
    """Copy the journal `source` to the new file `dest` and check the copy; its row count."""
    dest = os.fspath(dest)
    if os.path.isdir(dest):
        raise JournalError(f"{dest}: is a directory: give the path of the new file")
    if os.path.lexists(dest):
        raise JournalError(f"{dest}: exists: a backup never overwrites a file, name a new one")
    folder = os.path.dirname(dest) or "."
    if not os.path.isdir(folder):
        raise JournalError(f"{dest}: {folder} is not a folder")
    with Journal(source, readonly=True) as src:
        src.conn.execute("BEGIN")  # one snapshot for the copy and for the check
        src.conn.execute("SELECT count(*) FROM journal").fetchone()
        try:
            with closing(sqlite3.connect(dest)) as copy:
                src.conn.backup(copy)
                if src.version > 2:  # the copy is whole: no table has it open
                    copy.execute("UPDATE meta SET value = 'closed' WHERE key = 'writer'")
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
