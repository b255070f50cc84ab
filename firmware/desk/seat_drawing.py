"""The seat drawing (執位, seed 000; RULES.md 3.2) at the start of each half-session.

The seed draws four wind tiles face down, with dice choosing who picks first. The table
either draws the winds itself, from the session's seat secret (committed to in the signed
session header before any drawing, shown when the session closes) and the moment the referee
asked for the drawing, so that anyone recomputes it (firmware/journal/draws.py, issue 35), or
takes the winds the referee read off the tiles the players drew. It is a record
(journaled, shown on both views), not a hand's input: it tells the players where to sit. The
player who drew East deals first on the E side, so the hand's own seating is unchanged.
"""

from engine import events as ev
from engine.seats import WORDS
from engine.session import HALF_SESSION_HANDS
from firmware.display import ActionRefused
from firmware.journal import draws, header


def drawn(t: float, status, winds, rows) -> ev.SeatsDrawn:
    """The drawing now, for the desk to journal: refused while a hand is in play or once the
    half-session's first hand is on the sheet; `winds` entered, or (None) drawn by the table
    from the secret of the session header among the journal's `rows`."""
    if status.in_play:
        raise ActionRefused("seats are drawn between hands, not with a hand in play")
    played = len(status.session.sheet) % HALF_SESSION_HANDS
    if played:
        raise ActionRefused(
            f"seats are drawn at the start of a half-session; {played} of its "
            f"{HALF_SESSION_HANDS} hands are played"
        )
    if winds is None:
        opened = header.latest_opened(rows)
        if opened is None:  # cannot be: the table writes a header whenever it starts
            raise ActionRefused("the session has no header to draw the seats from")
        return ev.SeatsDrawn(t, None, draws.seats(opened.seats_secret, opened.session, t))
    return ev.SeatsDrawn(t, None, tuple(winds), "tiles")


def said(drawing: ev.SeatsDrawn) -> str:
    """The drawing as the console and the players read it."""
    moves = ", ".join(
        f"the {WORDS[side]} side's player drew {WORDS[wind]}"
        for side, wind in enumerate(drawing.winds)
    )
    return f"seats drawn ({drawing.source}): {moves}; East deals first and sits on the E side"
