"""Properties of the CCM 2012 scorer and settlement on random input (RULES.md 4.7-4.13).

Hands are built as they are laid down: four random sets (chow, pung or kong) each declared
(exposed, or a concealed kong) or held, plus a pair, or seven pairs; no kind more than four
times; the winning tile one of the held tiles; a random win method, flags and flowers. Chips
and payments are random too. Whatever the input: a legal win has a fan and the additional
points never decide legality; T is the sum of the items; every payment sums to zero; nobody's
chips go below zero and no chip is made or lost.
"""

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import tiles
from engine.rulesets.ccm2012 import reasons
from engine.rulesets.ccm2012.ledger import Due, run
from engine.rulesets.ccm2012.reasons import paid_lines
from engine.rulesets.ccm2012.settlement import (
    chase_payments,
    chipless_win_fine,
    doubled,
    kong_payments,
    pay,
    transfers,
    win_payments,
)
from engine.scoring import win_from_json
from engine.transfers import PAYMENT, net
from firmware.resources import load_ruleset
from tests.support.strategies import a_set

CCM = load_ruleset("ccm2012")
RATES = CCM.rates
PROPERTY = settings(max_examples=300, deadline=None)
SEATS = st.integers(0, 3)


# --- strategies ---------------------------------------------------------------------------------


@st.composite
def a_hand(draw) -> dict:
    """A complete hand in the JSON form of `mjtable score`, won some random way."""
    used = Counter()
    melds, hand = [], []
    if draw(st.integers(0, 4)) == 0:  # seven pairs
        for kind in draw(
            st.lists(st.integers(0, tiles.KINDS - 1), min_size=7, max_size=7, unique=True)
        ):
            hand += [kind, kind]
    else:
        for _ in range(4):
            kind, kinds, held = draw(a_set(used))
            if held == "in hand":
                hand += kinds
            else:
                melds.append(
                    {
                        "type": kind,
                        "tiles": [tiles.NAMES[k] for k in kinds],
                        "concealed": held == "concealed kong",
                    }
                )
        pair = draw(st.sampled_from([k for k in range(tiles.KINDS) if used[k] <= 2]))
        hand += [pair, pair]
    win = draw(st.sampled_from(hand))
    hand.remove(win)
    winner = draw(SEATS)
    obj = {
        "concealed": [tiles.NAMES[k] for k in draw(st.permutations(hand))],
        "win_tile": tiles.NAMES[win],
        "melds": melds,
        "winner_seat_index": winner,
        "flowers": [tiles.NAMES[34 + f] for f in draw(st.sets(st.integers(0, 7)))],
    }
    if draw(st.booleans()):
        obj["self_drawn"] = True
        obj["flags"] = draw(
            st.sets(
                st.sampled_from(
                    ["kong_replacement", "flower_replacement", "last_tile", "last_copy"]
                ),
                max_size=2,
            )
        )
    else:
        obj["discarder_seat_index"] = draw(st.sampled_from([s for s in range(4) if s != winner]))
        obj["flags"] = draw(
            st.sets(st.sampled_from(["last_tile", "robbing_kong", "last_copy"]), max_size=1)
        )
    obj["flags"] = sorted(obj["flags"])
    return obj


def scored(obj: dict):
    return CCM.score(win_from_json(obj, CCM.flags))


# --- scorer ---------------------------------------------------------------------------------------


@pytest.mark.slow  # a second or more: out of the one-minute fast run, in CI's full run
@PROPERTY
@given(a_hand())
def test_a_legal_win_has_a_fan_and_t_is_its_sum(obj):
    """RULES.md 4.7/4.8: no fan, no win; 4.11: T = fans + additional points."""
    result = scored(obj)
    if result.legal:
        assert any(p.id.startswith("4.8.") for p in result.patterns)
        assert result.total == sum(p.points for p in result.patterns) > 0
    else:
        assert result.total is None and result.payments is None and result.reason


@pytest.mark.slow  # a second or more: out of the one-minute fast run, in CI's full run
@PROPERTY
@given(a_hand())
def test_additional_points_never_decide_legality(obj):
    """RULES.md 4.7: flowers and the situation of the win (additional points, 4.9) neither
    make nor unmake a win: the same tiles without them are legal exactly when the fans say.
    The last copy is a fan's fact (夾絕張), and robbing a kong is one (seed 004 第九條三 8)."""
    result = scored(obj)
    facts = ("last_copy", "robbing_kong")
    plain = scored({**obj, "flowers": [], "flags": [f for f in obj["flags"] if f in facts]})
    if result.legal:
        assert plain.legal
        fans = [p for p in result.patterns if p.id.startswith("4.8.")]
        assert fans == [p for p in plain.patterns if p.id.startswith("4.8.")]
    elif "4.8" in result.reason:
        assert not plain.legal


@pytest.mark.slow  # a second or more: out of the one-minute fast run, in CI's full run
@PROPERTY
@given(a_hand())
def test_win_payments_follow_the_formula(obj):
    """RULES.md 4.11: discard 2T by the discarder, robbed kong 3T by the konger, self-draw T
    from each; they sum to zero."""
    result = scored(obj)
    if not result.legal:
        return
    pay_ = result.payments
    total, winner = result.total, obj["winner_seat_index"]
    assert sum(pay_) == 0
    if obj.get("self_drawn"):
        assert pay_[winner] == 3 * total and all(pay_[s] == -total for s in range(4) if s != winner)
    else:
        times = 3 if "robbing_kong" in obj["flags"] else 2
        assert pay_[obj["discarder_seat_index"]] == -times * total
        assert pay_[winner] == times * total


@pytest.mark.slow  # a second or more: out of the one-minute fast run, in CI's full run
@PROPERTY
@given(a_hand(), st.randoms(use_true_random=False))
def test_tile_order_does_not_matter(obj, rnd):
    """The score of a hand does not depend on the order its tiles are listed in."""
    shuffled = list(obj["concealed"])
    rnd.shuffle(shuffled)
    assert scored(obj) == scored({**obj, "concealed": shuffled})


# --- settlement -----------------------------------------------------------------------------------


@st.composite
def a_payment(draw):
    """Any payment the session can make: a win (liable or not), a kong, 追牌, the A-C14 fine,
    doubled or not."""
    what = draw(st.sampled_from(["win", "kong", "chase", "fine"]))
    seat = draw(SEATS)
    other = draw(st.sampled_from([s for s in range(4) if s != seat]))
    if what == "win":
        how = draw(st.sampled_from(["self", "discard", "robbed", "liable"]))
        payment = win_payments(
            RATES,
            draw(st.integers(1, 200)),
            seat,
            discarder=None if how in ("self", "liable") else other,
            robbed_kong=how == "robbed",
            liable=other if how == "liable" else None,
        )
    elif what == "kong":
        kind = draw(st.sampled_from(["melded", "added", "concealed", "flower"]))
        payment = kong_payments(RATES, seat, kind, other if kind == "melded" else None)
    elif what == "chase":
        payment = chase_payments(RATES, seat)
    else:
        payment = chipless_win_fine(RATES, seat, other, draw(st.integers(0, 400)))
    return doubled(RATES, payment, draw(st.booleans()))


CHIPS = st.tuples(*[st.integers(0, 250)] * 4)


@PROPERTY
@given(a_payment())
def test_every_payment_sums_to_zero(payment):
    """RULES.md 4.10/4.11/4.12, A-C13/A-C14: what one pays another receives."""
    assert sum(payment) == 0


@PROPERTY
@given(CHIPS, st.lists(a_payment(), max_size=12))
def test_chips_never_below_zero_and_conserved(chips, payments):
    """A-C14/A-C15: paying in order out of chips: nobody goes below zero, no chip is made or
    lost, each payment made sums to zero and moves no more than was owed."""
    after, made = pay(RATES, chips, payments)
    assert min(after) >= 0 and sum(after) == sum(chips)
    for owed, moved in zip(payments, made, strict=True):
        assert sum(moved) == 0
        assert all(abs(m) <= abs(o) and m * o >= 0 for m, o in zip(moved, owed, strict=True))


@PROPERTY
@given(CHIPS, a_payment(), SEATS)
def test_held_or_paid_keeps_chips_whole(chips, payment, actor):
    """RULES.md 4.13, seed §32: a kong or penalty is paid or held outside, never half."""
    ledger = run(RATES, chips, [Due("penalties", actor, payment)], void_kongs=False)
    assert min(ledger.chips) >= 0 and sum(ledger.chips) == sum(chips)
    (moved,) = ledger.moved
    held = tuple(due.payments for due in ledger.held)
    assert (moved is not None and held == ()) or (
        held == (payment,) and ledger.chips == tuple(chips)
    )


@given(CHIPS, a_payment())
def test_issue_33_a_payments_transfers_add_up_to_what_it_moved(chips, payment):
    """Issue 33 (the panels say why each payment is what it is), RULES.md 4.11 付完為止
    (A-C14): a payment paid out of the chips there are, told as transfers, adds up to what it
    moved; none is more than was due, and one that is less says so (short)."""
    _, (moved,) = pay(RATES, chips, [payment])
    lines = paid_lines(payment, moved, reasons.CHASE, PAYMENT, False)
    assert net(lines, PAYMENT) == moved
    due = {(payer, payee): amount for payer, payee, amount in transfers(payment)}
    for line in lines:
        assert 0 <= line.amount <= due[line.payer, line.payee]
        assert line.short == (line.amount < due[line.payer, line.payee])
