"""A journal or its export, read back for `mjtable verify` (issue 17): the export (`mjtable
journal export`) as the journal it was, its rows, its chain walked by the journal's own
`verify`, its header's session id and row count (issue 35)."""

import json

from firmware.journal.chain import Row
from firmware.journal.cli import EXPORT_FORMAT
from firmware.journal.failures import JournalError
from firmware.journal.store import Journal

SQLITE_MAGIC = b"SQLite format 3\x00"


class Export:
    """An export read back as the journal it was: its rows, its chain walked by the journal's
    own `verify`, replayed by firmware/journal/replay.py like any journal."""

    verify = Journal.verify

    def __init__(self, path: str):
        self.path = path
        try:
            with open(path, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except (OSError, UnicodeDecodeError) as err:
            raise JournalError(f"{path}: cannot read: {err}") from None
        try:
            header = json.loads(lines[0]) if lines else None
        except ValueError:
            header = None
        if not isinstance(header, dict) or header.get("export") != EXPORT_FORMAT:
            raise JournalError(f"{path}: neither a mjtable journal nor its export")
        self.session_id = header.get("session_id")
        self.declared_rows = header.get("rows")  # checked against the rows (issue 35)
        self._rows = [_row(path, number, line) for number, line in enumerate(lines[1:], 2)]

    def rows(self):
        return iter(self._rows)

    def close(self) -> None:
        pass


def _row(path: str, number: int, line: str) -> Row:
    try:
        data = json.loads(line)
        row = Row(
            data["seq"], data["kind"], data["json"], data["prev_hash"], data["hash"],
            data["version"],
        )  # fmt: skip
    except (ValueError, TypeError, KeyError):
        raise JournalError(f"{path}:{number}: not a row of an export") from None
    texts = (row.kind, row.json, row.prev_hash, row.hash)
    if not (isinstance(row.seq, int) and all(isinstance(v, str) for v in texts)):
        raise JournalError(f"{path}:{number}: not a row of an export")
    return row


def open_file(path: str):
    """The journal or export at `path` (JournalError, with the reason, if it is neither)."""
    try:
        with open(path, "rb") as f:
            magic = f.read(len(SQLITE_MAGIC))
    except OSError as err:
        raise JournalError(f"{path}: cannot read: {err.strerror}") from None
    return Journal(path, readonly=True) if magic == SQLITE_MAGIC else Export(path)
