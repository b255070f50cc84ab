"""A settlement's transfers and their reasons (issue 33: the panels say why each payment is
what it is), in the cases the result panel's scenes do not reach: WSOM's small hand, its
winner-first exemption and its deducted penalties (seed 000 計分系統 得分授受法 3, 4; RULES.md
1.3, 3.13); CCM's 包付 (seed 004 第一條三十四), 倍打 (第一條三十), a payer short of chips
(第一條三十八 付分: 付完為止), dead points and points to the disadvantaged (三十八 罰分) and
a kong held outside the table (三十二). The figures are the sums of the lines.
"""

from engine.hand_state import Spot, WinResult
from engine.penalties import Penalty
from engine.rulebook import HandOutcome
from engine.transfers import HELD, PAYMENT, PENALTY, net


def outcome(*results, spot=(), claims=(), chips=(100, 100, 100, 100), doubling=False):
    return HandOutcome(
        results=tuple(results),
        spot=tuple(spot),
        claims=tuple(claims),
        discards=(),
        hands=((),) * 4,
        melds=((),) * 4,
        chips=chips,
        doubling=doubling,
        last_deal=False,
    )


def won(seat, payments, from_seat=None, total=None):
    score = {"payments": list(payments), "total": total or max(payments), "patterns": []}
    return WinResult(seat, from_seat, score, 0)


def penalty(seat, points, paid_to_others, to=None, rule="RULES.md 3.12"):
    return Penalty(seat, "overtime_discard", rule, points, paid_to_others, "", (), False, 1, to)


def lines(settled) -> list[tuple]:
    return [(x.payer, x.payee, x.amount, x.reason, x.column) for x in settled.lines]


def test_seed_000_payment_3_a_small_hand_on_a_discard_each_pays_it(wsom):
    """得分授受法 3: a 24-point win on West's discard, under the standard 30: each pays 24."""
    settled = wsom.settle(outcome(won(0, (72, -24, -24, -24), from_seat=2)))
    assert lines(settled) == [(s, 0, 24, "small_hand_each", PAYMENT) for s in (1, 2, 3)]
    assert settled.payments == net(settled.lines, PAYMENT) == (72, -24, -24, -24)


def test_seed_000_payment_4_the_winner_discarded_first_nobody_is_the_discarder(wsom):
    """得分授受法 4 當作沒有銃家，各家分付: a 50-point discard win where nobody is responsible:
    each pays the 50, not 30 + 30 + 90."""
    settled = wsom.settle(outcome(won(3, (-50, -50, -50, 150), from_seat=1)))
    assert [line[3] for line in lines(settled)] == ["no_discarder_each"] * 3
    assert settled.lines[0].rule == "RULES.md 1.3 (跟張免責規條)"


def test_rules_3_13_a_wsom_penalty_is_deducted_and_paid_to_nobody(wsom):
    """RULES.md 1.3, 3.13: overtime points are deducted from the offender, nobody receives
    them; the line cites the offence's rule."""
    settled = wsom.settle(outcome(spot=[Spot("penalty", 2, 0, penalty=penalty(2, 10, False))]))
    assert lines(settled) == [(2, None, 10, "deducted", PENALTY)]
    assert settled.lines[0].rule == "RULES.md 3.12"
    assert settled.penalties == (0, 0, -10, 0)


def test_seed_004_article_1_34_liable_pays_for_the_three(ccm):
    """第一條三十四 包付 (RULES.md 4.12): South punged East three times running; South's win
    on West's discard is paid 3T by East alone."""
    pungs = [(1, 0, (k, k, k)) for k in (0, 9, 18)]
    settled = ccm.settle(outcome(won(1, (0, 60, -60, 0), from_seat=2, total=30), claims=pungs))
    assert lines(settled) == [(0, 1, 90, "liable_win", PAYMENT)]
    assert settled.lines[0].rule == "RULES.md 4.12 (第一條三十四 包付)"


def test_seed_004_article_1_30_doubled_while_the_dealer_continues(ccm):
    """第一條三十 倍打 (A-C13): every payment doubled, and its line says so."""
    win = won(0, (52, -52, 0, 0), from_seat=1)
    settled = ccm.settle(outcome(win, chips=(200,) * 4, doubling=True))
    [line] = settled.lines
    assert (line.amount, line.reason, line.doubled, line.short) == (104, "discard_win", True, False)


def test_seed_004_article_1_38_a_payer_short_of_chips_pays_what_he_has(ccm):
    """第一條三十八 (一) 5 付分: 付完為止 (A-C14): North holds 10 chips against a self-draw of 30
    each: he pays 10, his line short."""
    settled = ccm.settle(outcome(won(1, (-30, 90, -30, -30)), chips=(100, 100, 100, 10)))
    assert [(x.payer, x.amount, x.short) for x in settled.lines] == [
        (2, 30, False),
        (3, 10, True),
        (0, 30, False),
    ]
    assert settled.payments == (-30, 70, -30, -10)


def test_seed_004_article_1_38_dead_points_and_points_to_the_disadvantaged(ccm):
    """第一條三十八 (一) 6: a penalty made dead points leaves the table (no payee); one given
    to the player it disadvantaged is all his, three times the points (at most the cap)."""
    spot = [
        Spot("penalty", 2, 0, penalty=penalty(2, 10, False, rule="RULES.md 4.15")),
        Spot("penalty", 3, 1, penalty=penalty(3, 10, False, to=0, rule="RULES.md 4.15")),
    ]
    settled = ccm.settle(outcome(spot=spot))
    assert lines(settled) == [
        (2, None, 30, "dead_points", PENALTY),
        (3, 0, 30, "penalty_to", PENALTY),
    ]
    assert settled.penalties == (30, 0, -30, -30)


def test_seed_004_article_1_32_a_kong_that_would_end_the_game_is_held(ccm):
    """第一條三十二: North's concealed kong would leave East and South without chips, North
    not first: held outside the table, its lines in the held column, nothing paid now."""
    settled = ccm.settle(outcome(spot=[Spot("concealed", 3, 0)], chips=(6, 0, 220, 174)))
    assert lines(settled) == [(s, 3, 6, "concealed_kong", HELD) for s in (0, 1, 2)]
    assert settled.payments == (0, 0, 0, 0)
    assert settled.held == ((-6, -6, -6, 18),) and net(settled.lines, HELD) == (-6, -6, -6, 18)
