"""`mjtable verify`'s checks of the journal's own integrity (issue 35, docs/fairness.md): the
signed session header, every signature in its context, signed to the last row, no seal left
unrevealed, the export's row count.

A journal is *closed* when it ends with a SessionClosed and its signature: the table stopped
with no hand in play and signed its last row. One that does not is *open*: its table still
plays, stopped without closing (a crash, a power cut), or the journal was cut short; the
rows after its last signature are covered by nothing, and the journal alone cannot tell
which (the venue's anchors can). A journal written before issue 35 has no header; its
sign-off always followed the last signature.
"""

from dataclasses import dataclass, field

from engine import events as ev
from firmware.journal.chain import Row
from firmware.journal.seals import dealt_seals, reveal_matches
from firmware.journal.signing import CLOSED, SIGNED_AT_ONCE, WHATS

NO_HEADER = "written before session headers: no header"
ENDS = ("Won", "ExhaustiveDraw", "GameEnded")  # the outputs that end a hand


@dataclass
class Trail:
    """What the checks found beside the failures: the header (None: none), whether the
    journal is closed, and the rows after its last signature."""

    header: ev.SessionOpened | None = None
    closed: bool = False
    unsigned: list[int] = field(default_factory=list)  # seqs after the last signature

    def state(self) -> str | None:
        """Why the journal is not whole though nothing failed, or None: it is."""
        if self.header is None:
            return NO_HEADER
        if self.unsigned:
            return (
                f"open, {len(self.unsigned)} rows after the last signature "
                f"(rows {self.unsigned[0]} to {self.unsigned[-1]}): not closed by its table"
            )
        if not self.closed:
            return "open: signed to its last row, but the session was not closed there"
        return None


def check_trail(rows: list[Row], records: dict[int, ev.Event], session_id, fail) -> Trail:
    """The checks of the module's docstring over a journal's `rows`; `records` are its device
    rows' events by index; `session_id` the journal's own (its meta, or the export's header;
    None: a journal of before ids)."""
    trail = Trail()
    first = records.get(0)
    if isinstance(first, ev.SessionOpened):
        trail.header = first
        if session_id is not None and first.session != session_id:
            fail(
                f"row {rows[0].seq}: the header's session {first.session} is not the "
                f"journal's, {session_id} (the session id was changed)"
            )
    _records(rows, records, trail.header, fail)
    signed = [i for i, record in records.items() if isinstance(record, ev.HeadSigned)]
    last = signed[-1] if signed else -1
    trail.unsigned = [row.seq for row in rows[last + 1 :]]
    if trail.header is None:
        return trail
    closing = records.get(last - 1) if last > 0 else None
    trail.closed = not trail.unsigned and isinstance(closing, ev.SessionClosed)
    _after_close(rows, records, fail)
    _seals(rows, records, trail, fail)
    return trail


def _between_hands(rows: list[Row], records: dict[int, ev.Event]) -> set[int]:
    """The indexes of the rows written with no hand in play: before the first hand row, and
    from each hand's end (an output of ENDS, or its HandVoided) to the next hand row."""
    between, playing = set(), False
    for i, row in enumerate(rows):
        if row.kind == "hand":
            playing = True
        elif row.kind == "output" and playing:
            playing = row.data().get("type") not in ENDS
        elif isinstance(records.get(i), ev.HandVoided):
            playing = False
        if not playing:
            between.add(i)
    return between


def _records(rows: list[Row], records: dict[int, ev.Event], header, fail) -> None:
    """Each signature in its context; each header again the session's; each sign-off record
    written between hands signed at once."""
    between = _between_hands(rows, records)
    for i, record in records.items():
        seq = rows[i].seq
        if isinstance(record, ev.HeadSigned):
            if header is None and record.what:
                fail(f"row {seq}: a signature in a session's context, and no header: removed")
            elif header is not None and record.what not in WHATS:
                fail(f"row {seq}: a signature of the bare head, without its context")
            elif header is not None and record.session != header.session:
                fail(f"row {seq}: a signature of session {record.session}, not this one")
        elif isinstance(record, ev.SessionOpened) and i > 0:
            same = header is not None and (record.session, record.table, record.venue) == (
                header.session,
                header.table,
                header.venue,
            )
            if not (record.again and same):
                fail(f"row {seq}: a session header that is not this session's start again")
        elif isinstance(record, SIGNED_AT_ONCE) and header is not None and i in between:
            after = records.get(i + 1)
            if not isinstance(after, ev.HeadSigned):
                fail(
                    f"row {seq}: {type(record).__name__}, which the table signs at once, "
                    "has no signature after it"
                )


def _after_close(rows: list[Row], records: dict[int, ev.Event], fail) -> None:
    """After a SessionClosed and its signature, only the table starting again (a header)."""
    for i, record in records.items():
        if not isinstance(record, ev.SessionClosed):
            continue
        signed = records.get(i + 1)
        if not (isinstance(signed, ev.HeadSigned) and signed.what == CLOSED):
            fail(f"row {rows[i].seq}: the session's close is not signed at once")
            continue
        follows = rows[i + 2 :]
        if follows and not isinstance(records.get(i + 2), ev.SessionOpened):
            fail(
                f"rows {follows[0].seq} to {rows[-1].seq} follow the session's close "
                f"(row {rows[i].seq}) without the table starting again: added after it"
            )


def _seals(rows: list[Row], records: dict[int, ev.Event], trail: Trail, fail) -> None:
    """Every seal revealed, each reveal giving its digest; an open journal may hold back the
    seals of its last hand and of the walls built after it."""
    sealed: dict[str, int] = {}
    for i, record in records.items():
        if isinstance(record, ev.WallSealed):
            sealed.setdefault(record.digest, i)
        elif isinstance(record, ev.WallRevealed):
            at = sealed.pop(record.digest, None)
            if at is not None and not reveal_matches(record):
                fail(
                    f"row {rows[i].seq}: the revealed walls do not give the digest of row "
                    f"{rows[at].seq}"
                )
    held_back: set[str] = set()
    if not trail.closed:
        hands = [i for i, row in enumerate(rows) if row.kind == "hand"]
        dealt = dealt_seals(rows)
        if dealt and dealt[-1][0] is not None:
            held_back.add(dealt[-1][0].digest)
        held_back |= {d for d, i in sealed.items() if not hands or i > hands[-1]}
    for digest, i in sealed.items():
        if digest not in held_back:
            fail(f"row {rows[i].seq}: walls sealed and never revealed")
