"""Finished hands for a Session to record (engine/session.py): what a Table leaves at its
end, without the Table."""

from types import SimpleNamespace

from engine.hand_state import Spot, WinResult
from engine.rulebook import HandOutcome


def finished(session, *results, penalties=()):
    """A finished hand as the Table leaves it: its wins, and the penalties its referee
    applied; no kong, no call, no discard; the chips and doubling the session gave it."""
    chips = tuple(session.scores[session.player_at(seat)] for seat in range(4))
    outcome = HandOutcome(
        results=tuple(results),
        spot=tuple(Spot("penalty", p.seat, 0, penalty=p) for p in penalties),
        claims=(),
        discards=(),
        hands=((),) * 4,
        melds=((),) * 4,
        chips=chips,
        doubling=session.doubling,
        last_deal=False,
    )
    return SimpleNamespace(ended=True, outcome=lambda: outcome)


def won(seat, payments, from_seat=None):
    return WinResult(
        seat, from_seat, {"payments": payments, "total": max(payments or [0]), "patterns": []}, 0
    )
