"""CCM 2012 settlement, the pure functions the session calls: kongs and 追牌 on the spot, win
payments, 包付, doubling, paying out of chips, several winners, the chip-less discarder and
the end of the game (RULES.md 4.10-4.13, A-C3/8/12/13/14/15/16).

Seats are 0..3 = E S W N of the hand.
"""

import pytest

from engine import tiles
from engine.rulesets.ccm2012.game_end import game_over, is_first, release_held, win_banned
from engine.rulesets.ccm2012.ledger import Due, run
from engine.rulesets.ccm2012.liability import (
    Claim,
    flush_display,
    hung_zone,
    liable_player,
    streak_pairs,
)
from engine.rulesets.ccm2012.settlement import (
    Rates,
    chase_payer,
    chase_payments,
    chipless_win_fine,
    counter_clockwise_from,
    discard_win_blocked,
    doubled,
    kong_payments,
    pay,
    transfers,
    win_payments,
)
from firmware.resources import load_ruleset

RATES = load_ruleset("ccm2012").rates
E, S, W, N = range(4)
FULL = (100, 100, 100, 100)


def held_payments(ledger) -> tuple:
    """What the ledger holds outside the table, per seat, in order (seed 004 §32)."""
    return tuple(due.payments for due in ledger.held)


def t(name: str) -> int:
    return tiles.tile(name)


def claim(claimer, feeder, text="123m") -> Claim:
    return Claim(claimer, feeder, tuple(tiles.parse(text)))


# --- rates from the config -------------------------------------------------------------------


def test_rates_are_the_configured_ones():
    """RULES.md 4.10/4.11, A-C12/A-C13: the config's numbers reach the payments."""
    assert (
        Rates(
            discard=2,
            self_draw_each=1,
            robbed_kong=3,
            liable=3,
            chipless_win_fine_each=10,
            melded_kong=12,
            added_kong_each=4,
            concealed_kong_each=6,
            flower_kong_each=8,
            chase_each=4,
            doubling_factor=2,
            cap_at_chips=True,
            block_win_from_chipless=True,
        )
        == RATES
    )


# --- on the spot: kongs and 追牌 (RULES.md 4.10) -------------------------------------------------


def test_melded_kong_paid_by_its_feeder():
    """RULES.md 4.10: an exposed kong is 4 a player, all 12 paid by the player who fed it."""
    assert kong_payments(RATES, W, "melded", feeder=E) == (-12, 0, 12, 0)


def test_melded_kong_needs_a_feeder():
    """RULES.md 4.10: a melded kong is made on somebody's discard."""
    with pytest.raises(ValueError, match="discarded"):
        kong_payments(RATES, W, "melded")


def test_concealed_kong_six_from_each():
    """RULES.md 4.10: a concealed kong: 6 from each of the other three."""
    assert kong_payments(RATES, S, "concealed") == (-6, 18, -6, -6)


def test_added_kong_each_pays_four():
    """A-C12: an added kong has no feeder; each of the three pays 4."""
    assert kong_payments(RATES, N, "added") == (-4, -4, -4, 12)


def test_flower_kong_eight_from_each():
    """RULES.md 4.5/4.10, A-C3: a flower kong: 8 from each of the other three."""
    assert kong_payments(RATES, E, "flower") == (24, -8, -8, -8)


def test_unknown_kong_kind():
    with pytest.raises(ValueError, match="unknown kong"):
        kong_payments(RATES, E, "big")


def test_chase_four_players_one_tile():
    """RULES.md 4.10 追牌: four players in a row discard one tile: the first pays 4 to each."""
    discards = [(N, t("3p")), (E, t("9s")), (S, t("9s")), (W, t("9s")), (N, t("9s"))]
    assert chase_payer(discards) == E
    assert chase_payments(RATES, E) == (-12, 4, 4, 4)


@pytest.mark.parametrize(
    "discards",
    [
        [(E, "9s"), (S, "9s"), (W, "9s")],  # only three so far
        [(E, "9s"), (S, "9s"), (W, "8s"), (N, "9s")],  # another tile between
        [(E, "9s"), (W, "9s"), (N, "9s"), (E, "9s")],  # South's turn skipped by a call
    ],
)
def test_no_chase(discards):
    """RULES.md 4.10: 追牌 needs the four players one after another, one tile."""
    assert chase_payer([(seat, t(name)) for seat, name in discards]) is None


# --- the win (RULES.md 4.11) ------------------------------------------------------------------


def test_win_payment_formulas():
    """RULES.md 4.11: discard 2T by the discarder; self-draw T from each; robbed kong 3T by the
    konger."""
    assert win_payments(RATES, 26, S, discarder=N) == (0, 52, 0, -52)
    assert win_payments(RATES, 26, S) == (-26, 78, -26, -26)
    assert win_payments(RATES, 50, S, discarder=W, robbed_kong=True) == (0, 150, -150, 0)


def test_liable_player_pays_three_times_even_on_a_discard():
    """RULES.md 4.12, seed §34 "一家付三倍分": the liable player pays 3T alone, on a
    self-draw and on a discard win alike (where the discarder would pay only 2T)."""
    assert win_payments(RATES, 20, E, liable=W) == (60, 0, -60, 0)
    assert win_payments(RATES, 20, E, discarder=S, liable=W) == (60, 0, -60, 0)
    assert win_payments(RATES, 20, E, discarder=W, liable=W) == (60, 0, -60, 0)


def test_doubling_once_never_more():
    """A-C13 倍打: while a winning dealer keeps the deal every change is doubled, and a further
    repeat does not double again; otherwise nothing changes."""
    payment = win_payments(RATES, 26, E, discarder=S)
    assert doubled(RATES, payment, True) == (104, -104, 0, 0)
    assert doubled(RATES, doubled(RATES, payment, True), False) == (104, -104, 0, 0)
    assert doubled(RATES, kong_payments(RATES, S, "concealed"), True) == (-12, 36, -12, -12)
    assert doubled(RATES, payment, False) == payment


# --- paying out of chips (A-C14, A-C15) ---------------------------------------------------------


def test_payment_stops_at_the_payers_chips():
    """RULES.md 4.11, A-C14: "paid until the 100 are used up": a discarder with 30 pays 30."""
    chips, made = pay(RATES, (30, 100, 100, 100), [win_payments(RATES, 42, S, discarder=E)])
    assert chips == (0, 130, 100, 100) and made == [(-30, 30, 0, 0)]


def test_self_draw_each_pays_what_he_has():
    """A-C14: on a self-draw each payer is capped on his own."""
    chips, made = pay(RATES, (100, 10, 100, 0), [win_payments(RATES, 26, E)])
    assert chips == (136, 0, 74, 0) and made == [(36, -10, -26, 0)]


def test_several_winners_paid_counter_clockwise_until_chips_run_out():
    """RULES.md 4.11, A-C15: West discards to North and South: North (next in turn) is paid
    first and takes 52 of West's 60; South gets the 8 left."""
    order = counter_clockwise_from(W, [S, N])
    assert order == [N, S]
    payments = [win_payments(RATES, 26, seat, discarder=W) for seat in order]
    chips, made = pay(RATES, (100, 100, 60, 100), payments)
    assert made == [(0, 0, -52, 52), (0, 8, -8, 0)]
    assert chips == (100, 108, 0, 152)


def test_one_payer_pays_receivers_in_turn_order():
    """RULES.md 4.15 "in seat order" (A-C18), used for 追牌 and penalties: a payer short of
    chips pays the receivers in turn order after him."""
    assert transfers(chase_payments(RATES, W)) == [(W, N, 4), (W, E, 4), (W, S, 4)]
    chips, _ = pay(RATES, (100, 100, 6, 100), [chase_payments(RATES, W)])
    assert chips == (102, 100, 0, 104)


def test_uncapped_option():
    """A-C14: cap_payments_at_chips false lets a payer go below zero."""
    rates = Rates(cap_at_chips=False)
    assert pay(rates, (30, 100, 100, 100), [(-52, 52, 0, 0)])[0] == (-22, 152, 100, 100)


def test_payments_must_balance():
    """Every payment sums to zero; one with several payers and receivers is refused."""
    with pytest.raises(ValueError):
        transfers((-5, 4, 0, 0))
    with pytest.raises(ValueError):
        transfers((-5, -5, 5, 5))


def test_no_discard_win_from_a_player_without_chips():
    """RULES.md 4.11, A-C14 "盤面無分者點炮，禁止和牌": nobody wins on the discard of a player
    with no chips; with the option off the block is lifted."""
    assert discard_win_blocked(RATES, (0, 150, 100, 150), E)
    assert not discard_win_blocked(RATES, (2, 148, 100, 150), E)
    assert not discard_win_blocked(Rates(block_win_from_chipless=False), (0, 150, 100, 150), E)


def test_fine_for_winning_from_a_chipless_player():
    """A-C14: if a win from a chip-less player is forced, the winner pays him the hand score
    and 10 to each of the three."""
    assert chipless_win_fine(RATES, S, E, 52) == (62, -82, 10, 10)


# --- 包付 (RULES.md 4.12, A-C16, A-C8) ---


def test_three_claims_in_a_row_from_the_left():
    """RULES.md 4.12, A-C16: South claims (chow or pung) three times in a row from East, his
    left: if South wins East pays everything; if East wins South does (mutual); the others'
    wins are ordinary."""
    claims = [claim(S, E), claim(S, E, "555p"), claim(S, E, "789s")]
    assert streak_pairs(claims) == [(S, E)]
    assert liable_player(claims, S, None, t("1m"), False, None) == E
    assert liable_player(claims, E, W, t("1m"), False, None) == S
    assert liable_player(claims, W, None, t("1m"), False, None) is None


def test_a_claim_from_another_feeder_breaks_the_run():
    """A-C16: the claimer's claim from another player resets the run of that pair."""
    claims = [claim(S, E), claim(S, E), claim(S, N, "777p"), claim(S, E)]
    assert streak_pairs(claims) == []


def test_punged_three_times_by_the_same_player():
    """RULES.md 4.12 (seed §34): a player punged three times in a row by the same player
    binds them, even when that player also claimed from others in between."""
    claims = [claim(W, E, "111p"), claim(W, N, "222p"), claim(W, E, "333p"), claim(W, E, "444p")]
    assert streak_pairs(claims) == [(W, E)]
    broken = [
        claim(W, E, "111p"),
        claim(N, E, "222p"),
        claim(W, E, "333p"),
        claim(W, N, "555s"),
        claim(W, E, "444p"),
    ]
    assert streak_pairs(broken) == []


def test_liability_streak_length_is_configurable():
    """A-C16: liability_streak sets the run length."""
    assert streak_pairs([claim(S, E), claim(S, E)], streak=2) == [(S, E)]


def test_flush_display_feeder_pays():
    """RULES.md 4.12 險牌(1): North shows three claims of bamboo; West feeds a fourth that
    keeps the display: West pays all of North's win."""
    claims = [claim(N, W, "123s"), claim(N, E, "555s"), claim(N, S, "789s"), claim(N, W, "444s")]
    assert flush_display(claims, N)
    assert liable_player(claims, N, None, t("9s"), False, None) == W


def test_discarding_into_an_actual_full_flush():
    """RULES.md 4.12 險牌(1): against a three-claim bamboo display, whoever discards into a win
    that is a full flush pays everything; a win that is not one is ordinary."""
    claims = [claim(N, W, "123s"), claim(N, E, "555s"), claim(N, S, "789s")]
    assert liable_player(claims, N, E, t("9s"), True, None) == E
    assert liable_player(claims, N, E, t("E"), False, None) is None


def test_two_claims_are_no_flush_display():
    assert not flush_display([claim(N, W, "123s"), claim(N, E, "555s")], N)
    assert not flush_display([claim(N, W, "123s"), claim(N, E, "555s"), claim(N, S, "EEE")], N)


@pytest.mark.parametrize(
    "hung, zone",
    [
        ("5m", "3m 4m 5m 6m 7m"),
        ("1p", "1p 2p 3p"),
        ("8s", "6s 7s 8s 9s"),
        ("S", "E S W N"),
        ("F", "C F P"),
    ],
)
def test_hung_tile_zone(hung, zone):
    """RULES.md 4.12 險牌(2), A-C8: the five tiles around the hung single (fewer at a suit's
    end), every wind for a wind, every dragon for a dragon."""
    assert hung_zone(t(hung)) == frozenset(tiles.parse(zone))


def test_hung_tile_discarder_pays():
    """RULES.md 4.12 險牌(2): discarding into a 全求獨釣 player's hung tile pays for all
    three; once he has changed the tile (hung_tile None) it is an ordinary discard win."""
    assert liable_player([], N, E, t("5m"), False, t("5m")) == E
    assert liable_player([], N, E, t("5m"), False, None) is None
    assert liable_player([], N, None, t("5m"), False, t("5m")) is None


def test_streak_comes_before_danger_tiles():
    """RULES.md 4.12: the three-claim liability is checked first."""
    claims = [claim(N, W, "123s"), claim(N, W, "456s"), claim(N, W, "789s")]
    assert liable_player(claims, N, E, t("9s"), True, t("9s")) == W


# --- the end of the game (RULES.md 4.13) ---------------------------------------------------------


@pytest.mark.parametrize(
    "chips, scheduled, time_up, words",
    [
        ((0, 0, 200, 200), False, False, "two players"),
        ((0, 120, 140, 140), True, False, "scheduled"),
        ((0, 120, 140, 140), False, True, "time is up"),
    ],
)
def test_game_over(chips, scheduled, time_up, words):
    """RULES.md 4.13 局結: two players without chips; the scheduled rounds done; time up."""
    assert words in game_over(chips, scheduled, time_up)


def test_game_goes_on():
    """RULES.md 4.13: one player without chips does not end the game."""
    assert game_over((0, 120, 140, 140)) is None


def test_first_place_ties_count():
    assert is_first((50, 150, 150, 50), S) and not is_first((50, 150, 150, 50), E)


def test_non_leader_may_not_end_the_game_by_winning():
    """RULES.md 4.13, seed §32: South's win would take West's last chips and leave two players
    without chips with North first: banned, South plays on; North may end it."""
    chips = (0, 60, 40, 300)
    assert win_banned(RATES, chips, win_payments(RATES, 20, S, discarder=W), S)
    assert not win_banned(RATES, chips, win_payments(RATES, 20, N, discarder=W), N)


def test_non_leader_may_not_end_the_last_hand():
    """Seed §32: in the last hand any win ends the game: only a winner who is then first may
    take it."""
    chips = (100, 90, 100, 110)
    assert win_banned(RATES, chips, win_payments(RATES, 4, S, discarder=E), S, last_hand=True)
    assert not win_banned(RATES, chips, win_payments(RATES, 20, S, discarder=E), S, last_hand=True)
    assert not win_banned(RATES, chips, win_payments(RATES, 4, S, discarder=E), S)


def test_kong_that_would_end_the_game_is_held_outside():
    """RULES.md 4.10/4.13, seed §32: a kong whose payment would leave two players without
    chips while the konger is not first is held outside and added after the game."""
    chips = (6, 0, 220, 174)
    ledger = run(RATES, chips, [kong_due(N, "concealed")], void_kongs=False)
    assert ledger.chips == chips and held_payments(ledger) == ((-6, -6, -6, 18),)
    assert ledger.moved == (None,)
    assert release_held(RATES, ledger.chips, list(held_payments(ledger))) == (0, 0, 214, 186)


def test_seed_004_section_15_a_kong_that_would_end_the_game_scores_nothing():
    """Seed 004 §15 「遇到槓牌導致非勝式局結，則本次槓牌不得分」 (options.game_ending_kong "void"):
    the kong is neither paid nor held; a penalty would still be held (§32)."""
    chips = (6, 0, 220, 174)
    ledger = run(RATES, chips, [kong_due(N, "concealed")], void_kongs=True)
    assert ledger.chips == chips and held_payments(ledger) == () and ledger.moved == (None,)
    fine = Due("penalties", W, (10, 10, -30, 10))
    ledger = run(RATES, (6, 0, 20, 374), [fine], void_kongs=True)
    assert held_payments(ledger) == ((10, 10, -30, 10),)


def test_kong_by_the_leader_is_paid():
    """Seed §15: unless the konger himself becomes first."""
    chips = (6, 0, 194, 200)
    ledger = run(RATES, chips, [kong_due(N, "concealed")], void_kongs=False)
    assert held_payments(ledger) == () and ledger.chips == (0, 0, 188, 212)


def test_kong_that_does_not_end_the_game_is_paid():
    ledger = run(RATES, FULL, [kong_due(E, "melded", feeder=S)], void_kongs=False)
    assert held_payments(ledger) == () and ledger.chips == (112, 88, 100, 100)


def kong_due(konger: int, kind: str, feeder: int | None = None) -> Due:
    return Due("payments", konger, kong_payments(RATES, konger, kind, feeder), True)
