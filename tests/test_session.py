"""Dealer rotation, doubling, running scores and the score sheet (RULES.md 3.1, 4.11, A-C13)."""

from types import SimpleNamespace

from engine.session import Session


def finished(*results):
    """A finished hand as the Table leaves it: (winner seat, from seat, score) per winner."""
    return SimpleNamespace(ended=True, results=list(results))


def won(seat, payments, from_seat=None):
    return (seat, from_seat, {"payments": payments})


def test_wsom_deal_always_passes(wsom):
    """RULES.md 3.1: no dealer repeat in WSOM, after a dealer win or a draw alike."""
    session = Session(wsom)
    session.record(finished(won(0, [30, -10, -10, -10])))       # the dealer wins
    assert session.dealer == 1 and not session.doubling
    session.record(finished())                                  # exhaustive draw
    assert session.dealer == 2


def test_seats_turn_with_the_deal(wsom):
    """RULES.md 3.1: the player in seat s is the dealer's s-th right neighbour; payments
    reach players, not seats."""
    session = Session(wsom, dealer=2)
    assert [session.player_at(s) for s in range(4)] == [2, 3, 0, 1]
    row = session.record(finished(won(1, [-10, 30, -10, -10])))  # South wins: player 3
    assert row.winners == (3,) and row.changes == (-10, -10, -10, 30)
    assert session.scores == [-10, -10, -10, 30] and sum(session.scores) == 0


def test_score_sheet_keeps_running_totals(wsom):
    """RULES.md 3.8: the referee records every hand; totals run across the sheet."""
    session = Session(wsom)
    session.record(finished(won(2, [-5, -5, 15, -5])))
    session.record(finished(won(0, [45, -15, -15, -15])))   # player 1 deals and wins
    assert [row.totals for row in session.sheet] == [(-5, -5, 15, -5), (-20, 40, 0, -20)]
    assert [row.dealer for row in session.sheet] == [0, 1]


def test_ccm_dealer_repeats_and_doubles(ccm):
    """RULES.md 4.11, A-C13: a winning dealer keeps the deal; while he continues every score
    change is doubled, never more than twice; the deal passes after another's win or a draw."""
    session = Session(ccm)
    session.record(finished(won(0, [52, -52, 0, 0])))
    assert session.dealer == 0 and session.doubling
    row = session.record(finished(won(0, [52, -52, 0, 0])))
    assert row.doubled and row.changes == (104, -104, 0, 0)
    row = session.record(finished(won(2, [0, 0, 52, -52])))
    assert row.doubled and row.changes == (0, 0, 104, -104)
    assert session.dealer == 1 and not session.doubling
    session.record(finished())
    assert session.dealer == 2


def test_unscored_win_is_marked(ccm):
    """Until the CCM scorer exists a CCM win changes no score and the sheet says so."""
    row = Session(ccm).record(finished(won(1, None)))
    assert row.unscored and row.changes == (0, 0, 0, 0)
