"""Every option of config/rules/ccm2012.toml [options] changes what the table does, or any
value but the one it plays is refused at start-up (issue 13 item 6; RULES.md §5.2 A-C1..A-C21).

Each test flips one option from the shipped config and shows the table, the scorer or the
settlement acting otherwise; it fails if the option stopped being read. Options proven by
tests elsewhere are named in PROVEN_ELSEWHERE, so that the first test here sees them all.
"""

import ast

import pytest

from engine import events as ev
from engine import tiles
from engine.hand_state import Spot, WinResult
from engine.rulebook import HandOutcome
from engine.rulesets.ccm2012.config import PLAYED_ONLY
from engine.schema import ConfigError
from tests.conftest import REPO
from tests.support.ruleskit import CONFIG, ids, score, with_options
from tests.support.tablekit import E, N, S, ccm_game, of

PROVEN_ELSEWHERE = {
    "flower_kong_flowers_score": "engine.test_ccm_scoring::test_flower_kong_flowers_option",
    "full_flush_excludes_half_flush": "engine.test_ccm_scoring::test_full_flush_half_flush_option",
    "seven_pairs_excludes_concealed": (
        "engine.test_ccm_scoring::test_seven_pairs_and_fourteen_singles_concealed_option"
    ),
    "single_tile_fans_add_bonus": (
        "engine.test_ccm_scoring::test_single_tile_fans_and_the_single_tile_bonus"
    ),
    "drawn_tile_in_rack_is_in_hand": (
        "engine.test_single_placement::"
        "test_seed_004_the_drawn_tile_seen_joining_the_hand_loses_the_single_tile_win"
    ),
    "all_melded_allows_concealed_kong": (
        "engine.test_ccm_scoring::test_all_melded_concealed_kong_option"
    ),
    "small_middle_big_same_suit": "engine.test_ccm_scoring::test_big_middle_small_same_suit_option",
    "concealed_needs_self_draw": "engine.test_ccm_scoring::test_concealed_hand",
    "last_copy_from": "engine.test_ccm_seed_liability::test_last_copy_from_every_copy_seen_option",
    "block_win_from_chipless": (
        "firmware.desk.test_ccm_chipless_win::test_a_c14_option_off_the_win_off_a_chipless_player_stands"
    ),
    "chipless_win_fine_score": (
        "firmware.desk.test_ccm_chipless_win::test_option_chipless_win_fine_score_total_pays_t_alone"
    ),
    "discard_flower_kong_at_game_end": (
        "engine.test_ccm_spot_payments::test_seed_004_elsewhere_discarding_a_flower_makes_a_dead_hand"
    ),
    "game_ending_kong": (
        "engine.test_ccm_spot_payments::test_seed_004_section_15_option_a_game_ending_kong_scores_nothing"
    ),
    "penalties_paid": (
        "engine.test_ccm_spot_payments::test_option_penalties_paid_dead_makes_dead_points_the_default"
    ),
}
PROVEN_HERE = {
    "chow_allowed",
    "multiple_winners",
    "fourteen_singles_min_gap",
    "seven_pairs_four_of_a_kind",
    "added_kong_each_pays",
    "doubling_factor",
    "cap_payments_at_chips",
    "last_tile",
    "liability_streak",
    "penalty_step",
    "penalty_cap_per_recipient",
}
UNPLAYED = {  # for each option of PLAYED_ONLY, a value the rule book accepts and the table not
    "intentional_false_win_tiles_short": 3,
    "record_hands_from_sensors": False,
    "log_earth_announcement": True,
}


def test_every_option_is_proven_or_refused():
    """Issue 13 item 6: no option of the rule book is accepted and never read: each is proven
    by a test (here or where PROVEN_ELSEWHERE says) or refused unless played."""
    covered = PROVEN_HERE | set(PROVEN_ELSEWHERE) | set(PLAYED_ONLY)
    assert covered == set(CONFIG["options"])  # the schema asks for every one
    assert set(UNPLAYED) == set(PLAYED_ONLY)
    for test in PROVEN_ELSEWHERE.values():  # read, not imported: issue 29, no test imports one
        module, name = test.split("::")
        tree = ast.parse((REPO / "tests" / f"{module.replace('.', '/')}.py").read_text())
        assert name in {f.name for f in tree.body if isinstance(f, ast.FunctionDef)}, test


@pytest.mark.parametrize("option, value", sorted(UNPLAYED.items()))
def test_an_option_the_table_cannot_play_is_refused_at_start_up(option, value):
    """A-C19, A-C20, A-C21: a value the table does not play is refused
    when the rule book is built, naming the option, never silently ignored."""
    with pytest.raises(ConfigError, match=f"options.{option}: only .* is supported: .*A-C"):
        with_options(**{option: value})


# --- the table (RULES.md 4.6, 4.11) ------------------------------------------------------------


def test_chow_allowed_false_refuses_the_chow_from_the_left():
    """chow_allowed, A-C5 (seed 004 §34): with false, South's chow of East's 3m is refused."""
    hands = ["3m", "2m 4m", "", ""]
    game = ccm_game(with_options(chow_allowed=True), hands=hands)
    game.discard(E, "3m")
    game.claim(S, "chow", "2m 4m")
    assert [c.claim for c in of(game.close(), ev.Claimed)] == ["chow"]
    game = ccm_game(with_options(chow_allowed=False), hands=hands)
    game.discard(E, "3m")
    alert = game.refused(ev.ClaimDeclared, S, claim="chow", tiles=game.own(S, "2m 4m"))
    assert alert.rule == "RULES.md 4.6 (A-C5)" and "chow is not allowed" in alert.message


@pytest.mark.parametrize("allowed, winners", [(True, [S, N]), (False, [S])])
def test_multiple_winners_option(allowed, winners):
    """multiple_winners, A-C15 (RULES.md 4.11): North and South call win on East's 9p; with
    false only the nearest after the discarder (South) wins."""
    game = ccm_game(
        with_options(multiple_winners=allowed),
        hands=["9p", "123m 456m 789m 123p 9p", "", "123s 456s 789s 123p 9p"],
    )
    game.discard(E, "9p")
    game.claim(N, "win")
    game.claim(S, "win")
    assert [w.seat for w in of(game.close(), ev.Won)] == winners


def last_tile_flags(ruleset, live_left: int) -> tuple[bool, bool, int]:
    """Play a CCM hand through until a draw leaves at most `live_left` live tiles: whether a
    self-drawn win by the drawer would be a last tile's (妙手回春), whether a discard win on
    his discard would (海底撈月), and the live tiles left."""
    game = ccm_game(ruleset)
    game.play_through(until=lambda g: g.table.wall.live_count <= live_left)
    table, seat = game.table, game.table.turn
    drawn = "last_tile" in table.winning.flags(seat, None, False)
    game.discard(seat, tiles.NAMES[tiles.kind_of(table.hands[seat][-1])])
    discarded = "last_tile" in table.winning.flags((seat + 1) % 4, seat, False)
    return drawn, discarded, table.wall.live_count


@pytest.mark.parametrize("reading", ["final", "go-around"])
def test_issue_30_item_13_seed_004_last_tile_each_players_last_draw(reading):
    """Issue 30 item 13, seed 004 第一條三十八(一)3(4) 「海底撈月（本盤最後各人一張牌的點炮和牌）、
    妙手回春（本盤最後各人一張牌的自摸和牌）」, A-C10: under "go-around" each player's last draw,
    one of the last four live tiles, is a last tile: a self-drawn win on it is 妙手回春 and a
    win on its drawer's discard after it 海底撈月; under "final" (the default) only the final
    tile is. A draw before the last four is none under either."""
    ruleset = with_options(last_tile=reading)
    go_around = reading == "go-around"
    drawn, discarded, left = last_tile_flags(ruleset, 2)
    assert 0 < left <= 2 and (drawn, discarded) == (go_around, go_around)
    assert last_tile_flags(ruleset, 0)[:2] == (True, True)  # the final tile: both readings
    drawn, discarded, left = last_tile_flags(ruleset, 5)
    assert left >= 4 and (drawn, discarded) == (False, False)


# --- the scorer (RULES.md 4.7) -----------------------------------------------------------------


def test_fourteen_singles_min_gap_option():
    """fourteen_singles_min_gap, A-C6 (十四不靠 「所有序數牌張不連不夾」): 1m 3m 5m are one apart,
    refused at the default 3, a 大亂 at 2."""
    hand = ("135m 258p 36s E S W N C", "F")
    assert not score(*hand).legal
    assert ids(score(*hand, ruleset=with_options(fourteen_singles_min_gap=2))) == {"4.8.6": 20}


def test_seven_pairs_four_of_a_kind_option():
    """seven_pairs_four_of_a_kind (seed silent; as WSOM A-W6): four 1m stand as two pairs of a
    七對 + 混一色; with false the hand has no shape."""
    hand = ("1111m 3344m 55m CC E", "E")
    assert ids(score(*hand)) == {"4.8.4": 20, "4.8.11": 30}
    assert not score(*hand, ruleset=with_options(seven_pairs_four_of_a_kind=False)).legal


# --- the settlement (RULES.md 4.10-4.12) -------------------------------------------------------


def outcome(**fields) -> HandOutcome:
    """A hand as the table hands it to the rule book: nothing happened unless `fields` say."""
    empty: dict = {
        "results": (),
        "spot": (),
        "claims": (),
        "discards": (),
        "hands": ((),) * 4,
        "melds": ((),) * 4,
        "chips": (100, 100, 100, 100),
        "doubling": False,
        "last_deal": False,
    }
    return HandOutcome(**(empty | fields))


def paid(options: dict, **fields) -> tuple[int, ...]:
    return with_options(**options).settle(outcome(**fields)).payments


def test_added_kong_each_pays_option():
    """added_kong_each_pays, A-C12: East's added kong, each of the three pays the configured
    amount (4 shipped)."""
    kong = (Spot("added", E, 0),)
    assert paid({}, spot=kong) == (12, -4, -4, -4)
    assert paid({"added_kong_each_pays": 8}, spot=kong) == (24, -8, -8, -8)


def test_doubling_factor_option():
    """doubling_factor, A-C13 (倍打): a concealed kong (6 from each) while the dealer
    continues is multiplied by the factor."""
    kong = (Spot("concealed", S, 0),)
    assert paid({}, spot=kong, doubling=True) == (-12, 36, -12, -12)
    assert paid({"doubling_factor": 3}, spot=kong, doubling=True) == (-18, 54, -18, -18)


def test_cap_payments_at_chips_option():
    """cap_payments_at_chips, A-C14 (「付完為止」): West has 2 chips for a 6-chip kong payment;
    with false he pays it all and goes below zero."""
    kong, chips = (Spot("concealed", S, 0),), (100, 100, 2, 100)
    assert paid({}, spot=kong, chips=chips) == (-6, 14, -2, -6)
    assert paid({"cap_payments_at_chips": False}, spot=kong, chips=chips) == (-6, 18, -6, -6)


def test_liability_streak_option():
    """liability_streak, A-C16 (seed 004 三十四 「連續吃碰上家三次牌」): South chowed twice from
    East, then self-draws T = 10: each pays 10, unless the streak is 2, when East pays 30."""
    chow = tuple(tiles.parse("123m"))
    won = WinResult(S, None, {"payments": [-10, 30, -10, -10], "patterns": [], "total": 10}, 0)
    fields = {"claims": ((S, E, chow), (S, E, chow)), "results": (won,)}
    assert paid({}, **fields) == (-10, 30, -10, -10)
    assert paid({"liability_streak": 2}, **fields) == (-30, 30, 0, 0)


# --- the penalties at start-up (RULES.md 4.15) ---------------------------------------------------


@pytest.mark.parametrize(
    "option, value, refused",
    [
        ("penalty_step", 20, "10 is not a multiple of 20 up to 50"),
        ("penalty_cap_per_recipient", 10, "20 is not a multiple of 10 up to 10"),
    ],
)
def test_penalty_points_are_checked_against_the_options(option, value, refused):
    """penalty_step, penalty_cap_per_recipient, A-C18 (seed 004 「罰分限定為10分一個單位，限於
    50分以內」): the shipped penalties (10, then 20 to each) are refused once the step or the cap
    says otherwise."""
    message = rf"^penalties\.\w+\.points: {refused} a recipient \(A-C18\)$"
    with pytest.raises(ConfigError, match=message):
        with_options(**{option: value})
