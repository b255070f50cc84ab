"""What the device key signs, and when (issue 35, docs/fairness.md).

A HeadSigned signs a context, not the bare head: what was signed (a hand's end, a void, a
sign-off record, the session opening or closing, the table stopping mid-hand), the
journal's session id, the hand and the head. So a signature cannot be lifted into another
session's journal, or passed off as another moment's. A journal written before issue 35
signed the ASCII of the head alone (HeadSigned.what is "" there).

When: after each hand's end and void (firmware/table/hands.py), after each record of
SIGNED_AT_ONCE written between hands (the sheet, the players' list and signatures, the
seats, the referee's actions: `Journal.record` calls `after_record`; during a hand its end's
signature covers them), when the session opens and closes (firmware/journal/header.py), and
when the table stops mid-hand. So a journal whose table stopped cleanly has no row after its
last signature.
"""

from engine import events as ev

CONTEXT = "mjtable journal head 1"
HAND_END, VOID, RECORD = "hand end", "void", "record"
OPENED, CLOSED, STOPPED = "session opened", "session closed", "stopped mid-hand"
WHATS = (HAND_END, VOID, RECORD, OPENED, CLOSED, STOPPED)

# The sign-off and the seats: rows a forger would add after the last hand, each signed at once.
SIGNED_AT_ONCE = (
    ev.ScoreConfirmed,
    ev.SheetSigned,
    ev.PlayersEntered,
    ev.PlayerSigned,
    ev.SeatsDrawn,
    ev.SeatsChanged,
    ev.RefereeActed,
)


def context(what: str, session: str, hand: int, head: str) -> bytes:
    """The bytes a HeadSigned's signature is over; the head alone for one of before issue 35."""
    if not what:
        return head.encode("ascii")
    return f"{CONTEXT}\nwhat {what}\nsession {session}\nhand {hand}\nhead {head}".encode("ascii")


class Signer:
    """Signs the head of `journal` with `key` (firmware/journal/device_key.py); `hand()` is
    the session's hand number now, which a record's signature names, `in_play()` whether a
    hand is in play."""

    def __init__(self, journal, key, hand, in_play):
        self.journal, self.key, self.hand, self.in_play = journal, key, hand, in_play

    def sign(self, t: float, what: str, hand: int | None = None) -> None:
        self.key.sign_journal(self.journal, t, self.hand() if hand is None else hand, what)

    def after_record(self, record: ev.Event) -> None:
        """A record just journaled: signed at once if it is of SIGNED_AT_ONCE, between hands."""
        if isinstance(record, SIGNED_AT_ONCE) and not self.in_play():
            self.sign(record.t, RECORD)
