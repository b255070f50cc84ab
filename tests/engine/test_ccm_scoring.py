"""The CCM 2012 scorer: the 12 fans, the additional points, "no fan, no win", free arrangement,
the payment formulas with RULES.md 4.11's worked examples, the options of §5.2 it reads, its
config, and `mjtable score --ruleset ccm2012` (RULES.md 4.7-4.11, A-C3/6/7/8/9/10/11).

Hands are typed as people write them: `[..]` an exposed set, `(..)` a concealed kong; the
winning tile apart. Unless a test says otherwise East (0) wins on South's (1) discard.
"""

import copy
import json
import subprocess
import sys

import pytest

from engine.rulesets import build
from engine.rulesets.ccm2012.settlement import doubled, win_payments
from engine.schema import ConfigError
from tests.conftest import REPO
from tests.support.ruleskit import CCM, CONFIG, ids, score, with_options

E, S, W, N = range(4)


# --- the 12 fans (RULES.md 4.8) ----------------------------------------------------------------


@pytest.mark.parametrize(
    "hand, win, expected",
    [
        # 4.8.1 花龍: 123m 456p 789s; 78s waits on 6s and 9s, so no single-tile bonus.
        ("123m 456p 78s 234p 55s", "9s", {"4.8.1": 10, "4.9.7": 8}),
        # 4.8.2 清龍: 123 456 789 of characters, closed wait on 8m.
        ("123m 456m 79m 234p 55s", "8m", {"4.8.2": 10, "4.9.2": 4, "4.9.7": 8}),
        # 4.8.3 組合龍 (shape 8, 組合龍2: knitted + chow + pair), edge wait 12s-3s.
        ("147m 258p 369s 12s EE", "3s", {"4.8.3": 10, "4.9.2": 4, "4.9.7": 8}),
        # 4.8.3 組合龍1 with its set declared (a claimed pung): no 門清.
        ("147m 258p 369s E [CCC]", "E", {"4.8.3": 10, "4.9.2": 4}),
        # 4.8.4 混一色: characters and honours; waits 1m 4m 9m.
        ("123m 567m 99m 11m EEE", "9m", {"4.8.4": 20, "4.9.7": 8}),
        # 4.8.5 對對和: four pungs and a pair, two suits and honours.
        ("555m 99p CC [111s] [EEE]", "9p", {"4.8.5": 20}),
        # 4.8.6 大亂 (十四不靠, shape 7, A-C6); 門清 not added (A-C11).
        ("147m 258p 36s E S W N C", "F", {"4.8.6": 20}),
        # 4.8.7 全求獨釣: four claimed sets, the win on the pair; no single-tile bonus, a
        # single-tile win being part of the fan (A-C7 revised).
        ("[123m] [456p] [678s] [EEE] S", "S", {"4.8.7": 20}),
        # 4.8.8 夾絕張: the other three 5m are the winner's own exposed pung; closed 4-6; no
        # single-tile bonus (A-C7 revised).
        ("46m [555m] 789p 789s 99s", "5m", {"4.8.8": 20}),
        # 4.8.9 全大 (three 789 chows in any suits, A-C9).
        ("789m 789p 78s 123p 99s", "9s", {"4.8.9": 20, "4.9.7": 8}),
        # 4.8.9 全小, edge wait 12s-3s.
        ("123m 123p 12s 55p EEE", "3s", {"4.8.9": 20, "4.9.2": 4, "4.9.7": 8}),
        # 4.8.9 全中.
        ("456m 456p 45s 99p 111s", "6s", {"4.8.9": 20, "4.9.7": 8}),
        # 4.8.10 清一色: no 混一色 beside it (A-C7 full_flush_excludes_half_flush).
        ("11m 234m 456m 678m 99m", "9m", {"4.8.10": 30, "4.9.7": 8}),
        # 4.8.11 七對 + 混一色 (seed 第九條六(一)'s own example): no single-wait bonus, no 門清.
        ("1122m 3344m 55m E CC", "E", {"4.8.4": 20, "4.8.11": 30}),
        # 4.8.12 三箭刻 + 對對和; shanpon 2m/P.
        ("22m PP [CCC] [FFF] 555p", "P", {"4.8.5": 20, "4.8.12": 30}),
    ],
)
def test_each_fan(hand, win, expected):
    """RULES.md 4.8: each of the 12 fans with its value, alone or with what it brings along;
    T is the sum (4.11)."""
    result = score(hand, win)
    assert result.legal, result.reason
    assert ids(result) == expected
    assert result.total == sum(expected.values())


def test_all_pungs_all_melded_adds_all_pungs():
    """RULES.md 4.8.7, A-C8: 全求獨釣 made of four pungs also scores 對對和."""
    assert ids(score("[111m] [555p] [888s] [EEE] S", "S")) == {"4.8.5": 20, "4.8.7": 20}


def test_all_melded_counts_a_kong_added_to_a_claimed_pung():
    """Seed 004 §34「當一家形成全求獨釣」, A-C8: an added (or melded) kong was claimed from
    another player as a pung, so it is one of the four claimed sets of 全求獨釣."""
    assert ids(score("[123m] [456p] [678s] [EEEE] S", "S")) == {"4.8.7": 20}


def test_all_melded_concealed_kong_option():
    """A-C8: a concealed kong is not a claimed set, so the hand is not 全求獨釣 (and, with no
    other fan, no win) unless all_melded_allows_concealed_kong."""
    hand = "[123m] [456p] [678s] (EEEE) S"
    assert not score(hand, "S").legal
    ruleset = with_options(all_melded_allows_concealed_kong=True)
    assert ids(score(hand, "S", ruleset=ruleset)) == {"4.8.7": 20}


@pytest.mark.parametrize(
    "hand, win, fan",
    [("[123m] [456p] [678s] [EEE] S", "S", "4.8.7"), ("46m [555m] 789p 789s 99s", "5m", "4.8.8")],
)
def test_single_tile_fans_and_the_single_tile_bonus(hand, win, fan):
    """A-C7 revised (seed 004 §17's 七對 precedent「必須是單張和牌的七對番種情況下，不再追加單張
    和牌分」): 全求獨釣 and 夾絕張 are single-tile wins, so by default the 4-point 單張和牌 is
    not added to them; single_tile_fans_add_bonus true adds it back."""
    assert "4.9.2" not in ids(score(hand, win))
    ruleset = with_options(single_tile_fans_add_bonus=True)
    assert ids(score(hand, win, ruleset=ruleset)) == {fan: 20, "4.9.2": 4}


def test_single_tile_bonus_stays_beside_other_fans():
    """A-C7 revised: the bonus is withheld only from the fans that are a single-tile win; a
    closed wait in 清龍 keeps it (seed 004 §17)."""
    assert ids(score("123m 456m 79m 234p 55s", "8m"))["4.9.2"] == 4


def test_robbing_a_kong_is_a_last_copy():
    """Seed 004 第九條三 8 夾絕張 (「牌池內已經出現碰牌的刻子，剩餘的唯一牌張被夾牌而和牌」): a
    robbed added kong's tile is the last copy, the konger's pung holding the other three, so a
    closed wait on it is 夾絕張 from the robbing_kong flag alone."""
    result = score("13m 234p 456p 678s 99s", "2m", flags=["robbing_kong"])
    assert ids(result) == {"4.8.8": 20, "4.9.7": 8}
    assert result.payments == (84, -84, 0, 0)


def test_last_copy_closed_wait_from_the_flag():
    """RULES.md 4.8.8: another player's exposed pung (the last_copy flag) makes the closed 2m
    the last copy: 夾絕張 20; without it this hand has no fan and is no win."""
    hand = "13m 234p 456p 678s 99s"
    assert ids(score(hand, "2m", flags=["last_copy"])) == {"4.8.8": 20, "4.9.7": 8}
    assert not score(hand, "2m").legal


def test_last_copy_edge_wait():
    """RULES.md 4.8.8: 夾絕張 includes the edge wait on the last copy (邊張聽絕張)."""
    assert ids(score("12m 234p 456p 678s 99s", "3m", flags=["last_copy"])) == {
        "4.8.8": 20,
        "4.9.7": 8,
    }


def test_last_copy_needs_the_lower_reading_to_be_single():
    """RULES.md 4.8.8 with 就低不就高 (seed 第九條六(二)): 1113m waits on 2m and 3m, so winning
    the last 2m is no closed-wait win: no 夾絕張, no bonus, and here no fan at all."""
    result = score("1113m 234p 456p 678s", "2m", flags=["last_copy"])
    assert not result.legal and "4.8" in result.reason


def test_big_middle_small_same_suit_option():
    """A-C9: small_middle_big_same_suit asks for the three chows in one suit."""
    ruleset = with_options(small_middle_big_same_suit=True)
    assert not score("789m 789p 78s 123p 99s", "9s", ruleset=ruleset).legal
    assert "4.8.9" in ids(score("789m 789m 78m 123p 99s", "9m", ruleset=ruleset))


def test_full_flush_half_flush_option():
    """A-C7: with full_flush_excludes_half_flush false a full flush also scores 混一色."""
    ruleset = with_options(full_flush_excludes_half_flush=False)
    assert ids(score("11m 234m 456m 678m 99m", "9m", ruleset=ruleset)) == {
        "4.8.4": 20,
        "4.8.10": 30,
        "4.9.7": 8,
    }


def test_knitted_gap_is_no_single_tile_win():
    """RULES.md 4.9: the single-tile win is 夾, 邊張 or 單吊 (seed §17); the one missing tile
    of the knitted 147/258/369 is none of them (our reading), though it is the only wait."""
    assert ids(score("147m 25p 369s 123s EE", "8p")) == {"4.8.3": 10, "4.9.7": 8}


def test_thirteen_orphans_is_no_ccm_shape():
    """RULES.md 4.7: the eight shapes do not include thirteen orphans."""
    result = score("1m 9m 1p 9p 1s 9s E S W N C F P", "P")
    assert not result.legal and "4.7" in result.reason


# --- no fan, no win (RULES.md 4.7, seed 第九條一(二) 無番禁和牌) ---


def test_additional_points_alone_do_not_make_a_win():
    """RULES.md 4.7/4.8: a complete hand with flowers, 門清 and the last tile but no fan is
    refused, and the reason names the rule."""
    result = score(
        "123m 456p 78s 234p 55s", "6s", discarder=None, flags=["last_tile"], flowers="1f 2f 6f"
    )
    assert not result.legal and result.total is None and result.payments is None
    assert "RULES.md 4.8" in result.reason and "4.7" in result.reason


# --- additional points (RULES.md 4.9) ---------------------------------------------------------

QINGLONG = "123m 456m 79m 234p 55s"  # 清龍, concealed, closed wait on 8m: 10 + 4 + 8


def test_flowers_two_points_each():
    """RULES.md 4.5/4.9: 2 points for each of the winner's flowers."""
    assert ids(score(QINGLONG, "8m", flowers="1f 6f 8f"))["4.9.1"] == 6
    assert score(QINGLONG, "8m", flowers="1f 6f 8f").total == 22 + 6


def test_flower_kong_flowers_option():
    """A-C3: the four flowers of a flower kong were paid on the spot and score nothing more
    by default; flower_kong_flowers_score counts them."""
    assert ids(score(QINGLONG, "8m", flowers="1f 2f 3f 4f 5f"))["4.9.1"] == 2
    ruleset = with_options(flower_kong_flowers_score=True)
    assert ids(score(QINGLONG, "8m", flowers="1f 2f 3f 4f 5f", ruleset=ruleset))["4.9.1"] == 10


@pytest.mark.parametrize(
    "hand, win",
    [
        (QINGLONG, "8m"),  # 夾 closed
        ("123m 456m 789m 12p 55s", "3p"),  # 邊張 edge 12-3
        ("123m 456m 789m 789p 5s", "5s"),  # 單吊 on the pair
    ],
)
def test_single_tile_win(hand, win):
    """RULES.md 4.9: closed, edge and pair waits on one tile earn 4."""
    assert ids(score(hand, win))["4.9.2"] == 4


def test_single_tile_lower_reading():
    """RULES.md 4.9, seed 第九條六(二) 就低不就高: 2345p can be the pair wait on 5p but also
    waits on 2p, so the win on 5p is a many-tile win: no bonus."""
    assert ids(score("123m 456m 789m 234p 5p", "5p")) == {"4.8.2": 10, "4.9.7": 8}


def test_flower_replacement_win():
    """RULES.md 4.9, 4.11: a win on a flower replacement is 6 more and a self-draw."""
    result = score(QINGLONG, "8m", discarder=None, flags=["flower_replacement"])
    assert ids(result)["4.9.3"] == 6 and result.total == 28
    assert result.payments == (84, -28, -28, -28)


def test_kong_replacement_win():
    """RULES.md 4.9: 槓上開花 is 8 more; a concealed kong keeps 門清 (A-C11)."""
    result = score("123m 456m 79m (5555p) 22s", "8m", discarder=None, flags=["kong_replacement"])
    assert ids(result) == {"4.8.2": 10, "4.9.2": 4, "4.9.4": 8, "4.9.7": 8}


def test_last_tile_discard_and_self_draw():
    """RULES.md 4.9, A-C10: the last_tile flag on a discard is 海底撈月, on a self-draw
    妙手回春, 8 each."""
    assert ids(score(QINGLONG, "8m", flags=["last_tile"]))["4.9.5"] == 8
    drawn = ids(score(QINGLONG, "8m", discarder=None, flags=["last_tile"]))
    assert drawn["4.9.6"] == 8 and "4.9.5" not in drawn


def test_concealed_hand():
    """RULES.md 4.9, A-C11: 門清 is 8 for a hand with nothing claimed, won either way; a
    claimed set loses it; concealed_needs_self_draw keeps it for self-draws only."""
    assert ids(score(QINGLONG, "8m"))["4.9.7"] == 8
    assert "4.9.7" not in ids(score("123m 456m 79m [234p] 55s", "8m"))
    ruleset = with_options(concealed_needs_self_draw=True)
    assert "4.9.7" not in ids(score(QINGLONG, "8m", ruleset=ruleset))
    assert "4.9.7" in ids(score(QINGLONG, "8m", discarder=None, ruleset=ruleset))


def test_seven_pairs_and_fourteen_singles_concealed_option():
    """A-C7/A-C11: with seven_pairs_excludes_concealed false, 七對 and 大亂 earn 門清 too."""
    ruleset = with_options(seven_pairs_excludes_concealed=False)
    assert "4.9.7" in ids(score("1122m 3344m 55m E CC", "E", ruleset=ruleset))
    assert "4.9.7" in ids(score("147m 258p 36s E S W N C", "F", ruleset=ruleset))


@pytest.mark.parametrize(
    "flag, discarder", [("flower_replacement", S), ("kong_replacement", S), ("robbing_kong", None)]
)
def test_flags_that_contradict_the_win(flag, discarder):
    """RULES.md 4.9/4.11: replacement wins are self-draws; robbing a kong has the konger as
    discarder."""
    result = score(QINGLONG, "8m", discarder=discarder, flags=[flag])
    assert not result.legal and flag in result.reason


def test_robbed_tile_cannot_be_held():
    """RULES.md 4.11: the konger holds the other three copies of a robbed tile, so a winner
    holding one (here the 5p of a pair wait) cannot have robbed it."""
    result = score("[CCC] [FFF] 234s PPP 5p", "5p", discarder=W, flags=["robbing_kong"])
    assert not result.legal and "konger" in result.reason


# --- free arrangement ---------------------------------------------------------------------------


def test_best_reading_is_scored():
    """RULES.md 4.8 (as WSOM's free arrangement, §1.1): 111222333m read as three 123 chows
    gives 全小 (58 with 清一色 and 門清), as pungs only 38: the higher counts."""
    result = score("111222333789m 5m", "5m")
    assert ids(result) == {"4.8.9": 20, "4.8.10": 30, "4.9.7": 8}


def test_pungs_reading_beats_chows():
    """RULES.md 4.8: 222333444m read as pungs gives 對對和; as chows, nothing."""
    assert ids(score("222333444m 777p 5s", "5s")) == {"4.8.5": 20, "4.9.2": 4, "4.9.7": 8}


# --- payments and RULES.md 4.11's worked examples -------------------------------------------------


def test_worked_example_26():
    """RULES.md 4.11 table row 1-2: 清龍 10 + 門清 8 + single wait 4 + 2 flowers 4 = 26; the
    discarder pays 52, a self-draw 26 from each; doubled (A-C13) 104 and 52 each."""
    on_discard = score(QINGLONG, "8m", discarder=N, flowers="1f 5f")
    assert ids(on_discard) == {"4.8.2": 10, "4.9.1": 4, "4.9.2": 4, "4.9.7": 8}
    assert on_discard.total == 26 and on_discard.payments == (52, 0, 0, -52)
    self_drawn = score(QINGLONG, "8m", discarder=None, flowers="1f 5f")
    assert self_drawn.total == 26 and self_drawn.payments == (78, -26, -26, -26)
    assert doubled(CCM.rates, on_discard.payments, True) == (104, 0, 0, -104)
    assert doubled(CCM.rates, self_drawn.payments, True) == (156, -52, -52, -52)


def test_worked_example_42():
    """RULES.md 4.11 row 3: 混一色 20 + 對對和 20 + 1 flower 2 = 42; the discarder pays 84."""
    result = score("555m 99m CC [111m] [EEE]", "9m", discarder=W, flowers="2f", winner=S)
    assert ids(result) == {"4.8.4": 20, "4.8.5": 20, "4.9.1": 2}
    assert result.total == 42 and result.payments == (0, 84, -84, 0)


def test_worked_example_50_seven_pairs():
    """RULES.md 4.11 row 4: 七對 30 + 混一色 20 = 50, no single-wait bonus for 七對; the
    discarder pays 100, a self-draw 50 from each."""
    assert score("1122m 3344m 55m E CC", "E").payments == (100, -100, 0, 0)
    assert score("1122m 3344m 55m E CC", "E", discarder=None).payments == (150, -50, -50, -50)


def test_worked_example_robbing_a_kong():
    """RULES.md 4.11 row 5: 三箭刻 30 + 對對和 20 = 50 robbed from a kong: the konger pays
    150. (That exact hand cannot rob a kong: its winning tile completes a pung or the pair,
    and the konger holds all other copies; the 50 is scored on a discard, the 3T rule on a
    hand that can rob: the robbed closed 8m is the last copy, 夾絕張 20 in place of the
    single-tile 4, seed 004 第九條三 8.)"""
    assert score("22m PP [CCC] [FFF] 555p", "P").total == 50
    assert win_payments(CCM.rates, 50, E, discarder=W, robbed_kong=True) == (150, 0, -150, 0)
    robbed = score(QINGLONG, "8m", discarder=W, flags=["robbing_kong"])
    assert robbed.total == 10 + 20 + 8 and robbed.payments == (114, 0, -114, 0)


def test_discard_win_pays_twice():
    """RULES.md 4.11: the discarder alone pays 2T; the others nothing."""
    result = score(QINGLONG, "8m", discarder=S, winner=W)
    assert result.payments == (0, -44, 44, 0)


# --- config ---------------------------------------------------------------------------------------


def test_values_come_from_the_config():
    """RULES.md 4.8/4.9 values live in config/rules/ccm2012.toml: changing one changes T."""
    config = copy.deepcopy(CONFIG)
    config["fans"]["4.8.2"]["points"] = 12
    config["additional"]["4.9.1"]["points"] = 1
    assert score(QINGLONG, "8m", flowers="1f 5f", ruleset=build(config)).total == 12 + 2 + 4 + 8


@pytest.mark.parametrize(
    "section, key",
    [("fans", "4.8.5"), ("additional", "4.9.3"), ("payments", "liable"), ("instant", "chase_each")],
)
def test_config_entries_are_checked(section, key):
    """A missing value is refused, naming it."""
    config = copy.deepcopy(CONFIG)
    del config[section][key]
    with pytest.raises(ConfigError, match=rf"\[{section}\] {key}: missing key"):
        build(config)


def test_config_refuses_a_worthless_fan():
    """A fan worth 0 would let a fan-less hand win (RULES.md 4.7)."""
    config = copy.deepcopy(CONFIG)
    config["fans"]["4.8.1"]["points"] = 0
    with pytest.raises(ConfigError, match=r"4\.8\.1"):
        build(config)


def test_chinese_names_in_the_config():
    """The config carries the seed's names beside ours (RULES.md 4.8/4.9)."""
    assert CONFIG["fans"]["4.8.7"]["chinese"] == "全求獨釣"
    assert CONFIG["additional"]["4.9.6"]["chinese"] == "妙手回春"


# --- mjtable score --------------------------------------------------------------------------------


def mjtable_score(*lines: dict) -> list[dict]:
    run = subprocess.run(
        [sys.executable, "-m", "firmware.cli", "score", "--ruleset", "ccm2012", "--json", "-"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        input="".join(json.dumps(line) + "\n" for line in lines),
        check=True,
    )
    return [json.loads(line) for line in run.stdout.splitlines()]


def test_cli_prints_fans_total_and_payments():
    """RULES.md 4.11 row 1 through `mjtable score --ruleset ccm2012 --json -`: fans and
    additional points with their values, T = 26 and the payments; a flower-replacement
    self-draw; a fan-less hand refused."""
    qinglong = {
        "concealed": "123m 456m 79m 234p 55s",
        "win_tile": "8m",
        "flowers": ["1f", "5f"],
        "winner_seat_index": 0,
        "discarder_seat_index": 3,
    }
    flower = {
        **qinglong,
        "discarder_seat_index": None,
        "self_drawn": True,
        "flags": ["flower_replacement"],
        "id": "flower",
    }
    no_fan = {
        "concealed": "123m 456p 78s 234p 55s",
        "win_tile": "6s",
        "winner_seat_index": 1,
        "discarder_seat_index": 0,
    }
    first, second, third = mjtable_score(qinglong, flower, no_fan)
    assert first["legal"] and first["total"] == 26 and first["payments"] == [52, 0, 0, -52]
    assert [(p["id"], p["points"]) for p in first["patterns"]] == [
        ("4.8.2", 10),
        ("4.9.1", 4),
        ("4.9.2", 4),
        ("4.9.7", 8),
    ]
    assert first["patterns"][0]["name"] == "Pure Straight"
    assert second["id"] == "flower" and second["total"] == 32
    assert second["payments"] == [96, -32, -32, -32]
    assert not third["legal"] and third["total"] is None and "4.8" in third["reason"]


def test_cli_typed_hand_breakdown():
    """RULES.md 4.8/4.9: the readable breakdown lists each item and T."""
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "firmware.cli",
            "score",
            "--ruleset",
            "ccm2012",
            "1122m 3344m 55m E CC",
            "--win",
            "E",
            "--discarder",
            "S",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert "Seven Pairs" in run.stdout and "Half Flush" in run.stdout
    assert "50" in run.stdout and "S -100" in run.stdout
