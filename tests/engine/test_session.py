"""Dealer rotation, doubling, running scores and the score sheet (RULES.md 3.1, 4.11, A-C13)."""

from dataclasses import FrozenInstanceError, replace

import pytest

from engine.penalties import Penalty
from engine.session import Session
from tests.support.sessionkit import finished, won


def penalty(seat, points, paid_to_others):
    return Penalty(seat, "overtime_discard", "RULES.md x", points, paid_to_others, "", (), False, 1)


def test_wsom_deal_always_passes(wsom):
    """RULES.md 3.1: no dealer repeat in WSOM, after a dealer win or a draw alike."""
    session = Session(wsom)
    session.record(finished(session, won(0, [30, -10, -10, -10])))  # the dealer wins
    assert session.dealer == 1 and not session.doubling
    session.record(finished(session))  # exhaustive draw
    assert session.dealer == 2


def test_seats_turn_with_the_deal(wsom):
    """RULES.md 3.1: the player in seat s is the dealer's s-th right neighbour; payments
    reach players, not seats."""
    session = Session(wsom, dealer=2)
    assert [session.player_at(s) for s in range(4)] == [2, 3, 0, 1]
    row = session.record(finished(session, won(1, [-10, 30, -10, -10])))  # South wins: player 3
    assert row.winners == (3,) and row.changes == (-10, -10, -10, 30)
    assert session.scores == [-10, -10, -10, 30] and sum(session.scores) == 0


def test_score_sheet_keeps_running_totals(wsom):
    """RULES.md 3.8: the referee records every hand; totals run across the sheet."""
    session = Session(wsom)
    session.record(finished(session, won(2, [-5, -5, 15, -5])))
    session.record(finished(session, won(0, [45, -15, -15, -15])))  # player 1 deals and wins
    assert [row.totals for row in session.sheet] == [(-5, -5, 15, -5), (-20, 40, 0, -20)]
    assert [row.dealer for row in session.sheet] == [0, 1]


def test_ccm_dealer_repeats_and_doubles_within_the_chips(ccm):
    """RULES.md 4.11, A-C13, A-C14, 4.13: a winning dealer keeps the deal and every change is
    doubled while he continues, never beyond what the payer holds; the deal passes after
    another's win; the game ends when two players have no chips, and the next starts afresh."""
    session = Session(ccm)
    assert session.scores == [100, 100, 100, 100]
    session.record(finished(session, won(0, [52, -52, 0, 0], from_seat=1)))
    assert session.dealer == 0 and session.doubling and session.scores == [152, 48, 100, 100]
    row = session.record(finished(session, won(0, [52, -52, 0, 0], from_seat=1)))
    assert row.doubled and row.changes == (48, -48, 0, 0)  # 104 due, 48 held
    row = session.record(finished(session, won(2, [0, 0, 52, -52], from_seat=3)))
    assert row.doubled and row.changes == (0, 0, 100, -100)
    assert row.totals == (200, 0, 200, 0)
    assert session.games == [
        {
            "hands": 3,
            "ended": "two players have no chips left (RULES.md 4.13)",
            "chips": [200, 0, 200, 0],
            "held": [0, 0, 0, 0],
            "dead": 0,
            "seating": [0, 1, 2, 3],
        }
    ]
    assert session.scores == [100] * 4 and session.dealer == 0 and not session.doubling


def test_ccm_deal_passes_after_a_draw(ccm):
    """RULES.md 4.11: 荒牌移莊, the deal passes after an exhaustive draw."""
    session = Session(ccm)
    session.record(finished(session))
    assert session.dealer == 1


def test_wsom_penalty_deducted_from_the_offender_only(wsom):
    """RULES.md 3.13: point penalties are deducted from the offender, not paid to others."""
    session = Session(wsom, dealer=1)
    row = session.record(
        finished(session, won(2, [-5, -5, 15, -5]), penalties=[penalty(1, 10, False)])
    )
    assert row.changes == (-5, -5, -5, 15) and sum(row.changes) == 0
    assert row.penalties == (0, 0, -10, 0)
    assert session.scores == [-5, -5, -15, 15]


def test_ccm_penalty_paid_to_each_of_the_others(ccm):
    """RULES.md 4.15: the offender pays the points to each of the other three."""
    session = Session(ccm)
    row = session.record(finished(session, penalties=[penalty(3, 10, True)]))
    assert row.penalties == (10, 10, 10, -30) and session.scores == [110, 110, 110, 70]


def test_a_rule_book_weighs_a_win_on_the_hand_frozen(ccm):
    """RULES.md 4.13: the rule book is asked about a win not yet made on a frozen outcome and
    answers with a verdict and a settlement; nothing it is given can change."""
    session = Session(ccm)
    proposed = won(0, [52, -52, 0, 0], from_seat=1)
    outcome = replace(finished(session).outcome(), proposed=proposed)
    assert outcome.results == () and outcome.wins == (proposed,)
    assert ccm.win_banned(outcome) == ""
    settled = ccm.settle(outcome)
    assert settled[:3] == ((52, -52, 0, 0), (0, 0, 0, 0), ())
    assert [(line.payer, line.payee, line.amount) for line in settled.lines] == [(1, 0, 52)]
    with pytest.raises(FrozenInstanceError):
        outcome.results = (proposed,)
