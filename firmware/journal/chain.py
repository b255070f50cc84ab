"""The journal's hash chain (docs/events.md): each row links to the one before it by
SHA-256, from `GENESIS`; editing, deleting or reordering any row but the last breaks the chain,
and `first_break` names the first row where it does. The rows are stored by
firmware/journal/store.py.
"""

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass

from engine import events as ev
from firmware.journal.schema import KINDS, canonical, upgrade

GENESIS = "0" * 64


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


def link(prev_hash: str, text: str) -> str:
    return hashlib.sha256((prev_hash + text).encode()).hexdigest()


def chained(seq: int, head: str, items) -> list[tuple[int, str, str, str, str]]:
    """Rows (seq, kind, json, prev_hash, hash) for (kind, obj) `items`, extending the chain
    after row `seq` whose hash is `head`."""
    rows = []
    for kind, obj in items:
        text = canonical(obj)
        seq, prev = seq + 1, head
        head = link(prev, text)
        rows.append((seq, kind, text, prev, head))
    return rows


def first_break(rows: Iterable[Row]) -> ChainBreak | None:
    """Walk the chain of `rows` (in order); None if every row links, else the first broken row."""
    expected_seq, head = 1, GENESIS
    for row in rows:
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
