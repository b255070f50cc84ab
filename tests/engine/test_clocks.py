"""The four chess clocks of a hand (RULES.md 3.12, 4.14, A-W14, A-C22), on the times inputs
carry: a fake clock by construction, never a sleep."""

import pytest

from engine.clocks import Clocks, Timing

WSOM = Timing(
    discard_limit=15,
    first_discard_limit=15,
    hand_limit=180,
    free_after_deal=15,
    block=15,
    kong_ends_turn=True,
)
CCM = Timing(
    discard_limit=10,
    first_discard_limit=20,
    hand_limit=None,
    free_after_deal=0,
    block=10,
    call_limit=3,
)


@pytest.mark.parametrize(
    "seconds,blocks", [(15.0, 0), (15.01, 1), (30.0, 1), (30.5, 2), (45.0, 2), (60.0, 3)]
)
def test_wsom_every_started_15_seconds_over(seconds, blocks):
    """RULES.md 3.12, A-W14: exactly 15.0 s is not over; each started 15 s beyond it is one
    block (5 points)."""
    clocks = Clocks(WSOM)
    clocks.deal(0.0)
    clocks.discard(0, 15.0)  # East used his free preparation
    clocks.start(1, 100.0)
    over = clocks.discard(1, 100.0 + seconds)
    assert sum(o.blocks for o in over if o.limit == "discard") == blocks


def test_wsom_preparation_after_the_deal_is_free():
    """RULES.md 3.12: the first 15 s after the deal are free: East discarding at 29 s has used
    14 s; at 31 s he is over."""
    clocks = Clocks(WSOM)
    clocks.deal(0.0)
    assert clocks.discard(0, 29.0) == []
    clocks = Clocks(WSOM)
    clocks.deal(0.0)
    assert [o.limit for o in clocks.discard(0, 31.0)] == ["discard"]


def test_wsom_hand_budget_of_three_minutes_applies_too():
    """RULES.md 3.12: 180 s a hand per player; both limits apply. Twelve turns of 16 s: each
    over the turn limit by 1 s; the hand budget is passed at the 12th turn (192 s)."""
    clocks = Clocks(WSOM)
    clocks.deal(-100.0)  # preparation long over
    t, found = 0.0, []
    for _ in range(12):
        clocks.start(2, t)
        found += clocks.discard(2, t + 16.0)
        t += 100.0
    assert sum(o.blocks for o in found if o.limit == "discard") == 12
    assert [(o.limit, o.blocks) for o in found if o.limit == "hand"] == [("hand", 1)]


def test_referee_pause_stops_every_clock():
    """RULES.md 3.12/3.13 (暫停): time while the referee has paused the clocks never counts."""
    clocks = Clocks(WSOM)
    clocks.deal(-100.0)
    clocks.start(1, 0.0)
    assert clocks.pause(5.0) and not clocks.pause(6.0)
    assert clocks.snapshot(50.0)[1]["turn_left"] == 10.0
    assert clocks.resume(60.0)
    assert clocks.discard(1, 70.0) == []  # 5 s + 10 s counted


def test_ccm_dealer_has_20_seconds_then_10():
    """RULES.md 4.14: the dealer's first discard within 20 s, every later discard within 10."""
    clocks = Clocks(CCM)
    clocks.deal(0.0)
    assert clocks.discard(0, 20.0) == []
    clocks.start(1, 20.0)
    assert [o.limit for o in clocks.discard(1, 31.0)] == ["discard"]


def test_ccm_pung_within_three_seconds():
    """RULES.md 4.14, A-C22: a pung called more than 3 s after the discard is late."""
    clocks = Clocks(CCM)
    assert not clocks.call_is_late(10.0, 13.0)
    assert clocks.call_is_late(10.0, 13.5)


def test_snapshot_counts_down_for_the_display():
    """RULES.md 3.12: each seat's turn and hand time left, for the referee's screen."""
    clocks = Clocks(WSOM)
    clocks.deal(0.0)
    view = clocks.snapshot(20.0)
    assert view[0] == {"turn_left": 10.0, "hand_left": 175.0, "running": True}
    assert view[1] == {"turn_left": None, "hand_left": 180.0, "running": False}


def ticks(t: float, n: int) -> float:
    """Table time after n ticks of 0.1 s from t, summed as a fake clock would."""
    for _ in range(n):
        t += 0.1
    return t


@pytest.mark.parametrize("start,end", [(1.1, 16.1), (15.0, ticks(15.0, 150))])
def test_exactly_the_limit_whatever_the_float_noise(start, end):
    """RULES.md 3.12, A-W14: 15.0 s is within the limit even when the float difference of the
    table times is not 15.0 (16.1 - 1.1 = 15.000000000000002): time is reckoned in whole
    milliseconds."""
    clocks = Clocks(WSOM)
    clocks.deal(-100.0)
    clocks.start(1, start)
    assert clocks.discard(1, end) == []
    assert clocks.used[1] == 15.0


def test_a_kong_replacement_ends_the_turn_and_keeps_its_time():
    """RULES.md 3.12 (seed 000 打牌時限 3, 另一巡): the turn before the kong ends at its
    replacement (20 s: one block over) and counts in the hand; the replacement's turn is
    another (1 s); the first turn's overtime comes with the seat's next discard."""
    clocks = Clocks(WSOM)
    clocks.deal(-100.0)
    clocks.start(2, 0.0)
    clocks.start(2, 20.0)  # the kong's replacement
    assert clocks.snapshot(20.0)[2]["hand_left"] == 160.0
    assert [(o.limit, o.blocks) for o in clocks.discard(2, 21.0)] == [("discard", 1)]
    assert clocks.used[2] == 21.0
