"""The session's signed header and its close (issue 35, docs/fairness.md).

Each time a table starts on a journal it writes a SessionOpened (the journal's first row
for a new session; `again` on a journal gone on with) and signs the head at once: which
table of which venue, the session id (the journal's meta), the date, the firmware, the
digests of the rule book and the profile, the key's fingerprint, the dice the profile has,
and the commitment to the seat drawings' secret.

When the table stops with no hand in play it reveals the walls it sealed and never raised
(firmware/table/walls.py), writes a SessionClosed with the seat secret, and signs the head:
a journal so closed has no row after its last signature. Stopped with a hand in play, it
signs the head only: the journal stays open in that hand, as after a power cut, and the
hand is taken up when the table starts again.
"""

import hashlib
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

from engine import events as ev
from firmware.journal import draws, signing
from firmware.journal.schema import canonical


def file_digest(path: Path) -> str:
    """The hex SHA-256 of a file's bytes, as `sha256sum` gives it."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def rules_digest(config: dict) -> str:
    """A rule book's digest: SHA-256 of its canonical JSON as parsed (whatever its comments
    and layout), so that a rule book loaded by name or from a file says the same."""
    return hashlib.sha256(canonical(config).encode()).hexdigest()


def open_session(
    journal, key, t: float, *, table: str, venue: str, rules: str, profile: Path, dice: str
) -> ev.SessionOpened:
    """Write and sign the header of the session `journal` holds (or goes on with); `rules`
    is the rule book's digest (rules_digest)."""
    secret = draws.new_secret()
    opened = ev.SessionOpened(
        t,
        None,
        table=table,
        venue=venue,
        session=journal.session_id or "",
        date=datetime.now(UTC).date().isoformat(),
        firmware=metadata.version("mjtable"),
        rules=rules,
        profile=file_digest(profile),
        key=key.fingerprint,
        dice=dice,
        seats_digest=draws.digest_of(secret),
        seats_secret=secret,
        again=journal.seq > 0,
    )
    journal.record(opened)
    key.sign_journal(journal, t, 0, signing.OPENED)
    return opened


def close_session(journal, key, t: float, hand: int, reason: str, opened: ev.SessionOpened):
    """Write the close of the session opened by `opened`, and sign it."""
    journal.record(ev.SessionClosed(t, None, reason, opened.seats_secret))
    key.sign_journal(journal, t, hand, signing.CLOSED)


def latest_opened(rows) -> ev.SessionOpened | None:
    """The SessionOpened the table last wrote among `rows` (None: before issue 35)."""
    found = None
    for row in rows:
        if row.kind == "device" and '"SessionOpened"' in row.json:
            record = row.event()
            if isinstance(record, ev.SessionOpened):
                found = record
    return found
