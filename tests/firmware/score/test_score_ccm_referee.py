"""`mjtable score --ruleset ccm2012` as a CCM referee uses it (issue 13, RULES.md §4, seed 004):
compass seats, 倍打, 包付, several winners and chips as inputs, 搶槓 typed either way, a
contradictory input refused, CCM's names on the card and in --help, Chinese tile names.

Run in-process, as tests/firmware/score/test_score_referee.py does. The hand is RULES.md 4.11's
first worked
example: 清龍 10 + 門清 8 + single wait 4 + two flowers 4 = T 26.
"""

import json

import pytest

from engine import tiles
from engine.rulesets.ccm2012 import Ccm2012
from firmware.cli import main
from firmware.score import ccm as score_ccm
from tests.support.runkit import lines

CCM = ["score", "--ruleset", "ccm2012"]
HAND = "123m 456m 789m 55p 1s3s"  # waits on 2s alone (a closed wait): 清龍 + 門清 + 單張
FLOWERS = ["--flowers", "1f 5f"]
T = 26


def score(capsys, *args: str) -> tuple[int, str, str]:
    status = main([*CCM, *args])
    out, err = capsys.readouterr()
    return status, out, err


def pay(out: str) -> dict[str, int]:
    """The card's Pay line, by compass seat."""
    [line] = [line for line in out.splitlines() if line.startswith("Pay")]
    words = line.split()[1:]
    return {words[i]: int(words[i + 1]) for i in range(0, 8, 2)}


def test_seats_are_compass_seats_and_the_dealer_is_named(capsys):
    """Seed 004 第六條(二) 依抽籤結果就座 and 七、莊家 移莊 (RULES.md 4.3, 4.11): the players keep
    their compass seats while the deal moves; the card names the dealer and pays by compass."""
    status, out, err = score(
        capsys, HAND, "--win", "2s", "--seat", "S", "--dealer", "S", "--self-drawn", *FLOWERS
    )
    assert status == 0, err
    assert "winner S, dealer S" in out
    assert pay(out) == {"E": -T, "S": 3 * T, "W": -T, "N": -T}


@pytest.mark.parametrize(
    "how, pays",
    [
        (["--discarder", "S"], {"E": 4 * T, "S": -4 * T, "W": 0, "N": 0}),  # 104
        (["--self-drawn"], {"E": 6 * T, "S": -2 * T, "W": -2 * T, "N": -2 * T}),  # 52 each
    ],
    ids=["discard", "self-draw"],
)
def test_doubled_hand_doubles_every_payment_once(how, pays, capsys):
    """Seed 004 三十 倍打 「連續坐莊繼續倍打，但不再加倍計分」, RULES.md 4.11 worked example
    (discarder pays 104; 52 from each): --doubled doubles the win, once."""
    status, out, err = score(capsys, HAND, "--win", "2s", *how, *FLOWERS, "--doubled")
    assert status == 0, err
    assert pay(out) == pays
    assert "倍打" in out


@pytest.mark.parametrize("how", [["--self-drawn"], ["--discarder", "N"]], ids=["self", "discard"])
def test_liable_player_pays_the_whole_win_alone(how, capsys):
    """Seed 004 三十四 包付 「一家付三倍分」, 和牌方包括自摸 (RULES.md 4.12): the seat the referee
    ruled liable pays 3T alone, on a self-draw as on another's discard."""
    status, out, err = score(capsys, HAND, "--win", "2s", *how, *FLOWERS, "--liable", "W")
    assert status == 0, err
    assert pay(out) == {"E": 3 * T, "S": 0, "W": -3 * T, "N": 0}
    assert "包付" in out


def test_several_winners_are_paid_counter_clockwise_until_the_chips_run_out(capsys):
    """Seed 004 三十五 「數家同時和牌，點炮方按逆時針順序付分」 and 付分 「盤面100分付完為止」
    (RULES.md 4.11, A-C15): West, holding 60, pays North (next after him) his 52 first, and
    East the 8 left."""
    other = "123p 456p 789p 55m 1s3s 2f 6f"  # the same fans, flowers typed in the hand
    args = [HAND, "--win", "2s", "--discarder", "W", *FLOWERS, "--also", "N", other]
    status, out, err = score(capsys, *args)
    assert status == 0, err
    assert pay(out) == {"E": 2 * T, "S": 0, "W": -4 * T, "N": 2 * T}
    status, out, err = score(capsys, *args, "--chips", "100,100,60,100")
    assert status == 0, err
    assert pay(out) == {"E": 8, "S": 0, "W": -60, "N": 52}
    assert "Chips  E 108  S 100  W 0  N 152" in out


def test_no_win_on_the_discard_of_a_player_without_chips(capsys):
    """Seed 004 三十五 「盤面無分者點炮，禁止和牌」, 第九條一(三) 必須是點炮方有分 (RULES.md
    4.11): no pay line, the card says why."""
    args = [HAND, "--win", "2s", "--discarder", "N", *FLOWERS, "--chips", "160,140,100,0"]
    status, out, err = score(capsys, *args)
    assert status == 0, err
    assert "NOT A LEGAL WIN: N has no chips left" in out and "Pay" not in out


@pytest.mark.parametrize(
    "how",
    [
        ["--self-drawn", "--robbed-kong", "W"],  # as seed 004 counts it: 搶槓和牌同自摸
        ["--robbed-kong", "W"],
        ["--discarder", "W", "--flag", "robbing_kong"],  # as the konger's discard
    ],
    ids=["as-self-draw", "konger-only", "as-discard"],
)
def test_robbing_a_kong_is_entered_either_way_and_the_konger_pays(how, capsys):
    """Seed 004 第八條二(二)2 「搶槓和牌同自摸」 and 第九條四(二) 「搶槓和牌由槓牌者一家支付三家分」
    (RULES.md 4.11): typed as a self-draw or as the konger's discard, the konger pays 3T."""
    status, out, err = score(capsys, HAND, "--win", "2s", *how, *FLOWERS)
    assert status == 0, err
    [total] = [int(line.split()[-1]) for line in out.splitlines() if "Total" in line]
    assert pay(out) == {"E": 3 * total, "S": 0, "W": -3 * total, "N": 0}
    assert "robbing W's kong (搶槓)" in out


def test_robbing_a_kong_as_a_self_draw_needs_the_konger(capsys):
    """Seed 004 第九條四(二): a 搶槓 typed as a self-draw without the konger cannot be paid."""
    status, out, err = score(capsys, HAND, "--win", "2s", "--self-drawn", "--flag", "robbing_kong")
    assert status == 2 and out == ""
    [error] = lines(err)
    assert "搶槓和牌同自摸" in error and "--robbed-kong" in error


def test_json_robbing_a_kong_as_a_self_draw_is_scored_like_the_konger_discard(tmp_path, capsys):
    """Seed 004 「搶槓和牌同自摸」: a JSON hand with self_drawn and the konger as discarder
    scores as the konger's discard does."""
    hand = {"concealed": HAND, "win_tile": "2s", "winner_seat_index": 0, "flowers": ["1f"]}
    both = [
        {**hand, "self_drawn": True, "flags": ["robbing_kong"], "discarder_seat_index": 2},
        {**hand, "self_drawn": False, "flags": ["robbing_kong"], "discarder_seat_index": 2},
    ]
    path = tmp_path / "hands.jsonl"
    path.write_text("".join(json.dumps(h) + "\n" for h in both), encoding="utf-8")
    assert main([*CCM, "--json", str(path)]) == 0
    first, second = map(json.loads, lines(capsys.readouterr().out))
    assert first == second and first["payments"][2] == -3 * first["total"]


@pytest.mark.parametrize(
    "args, words",
    [
        ([HAND, "--win", "2s", "--self-drawn", "--flag", "kong_replacement"], ["槓上開花", "kong"]),
        ([HAND, "--win", "2s", "--self-drawn", "--flag", "flower_replacement"], ["補花和牌"]),
        (
            ["123m 456m 789m 55p 2s3s", "--win", "2s", "--discarder", "S", "--flag", "last_copy"],
            ["絕張", "cannot hold one"],
        ),
        ([HAND, "--win", "2s", "--discarder", "S", "--liable", "E"], ["包付", "own win"]),
        ([HAND, "--win", "2s", "--self-drawn", "--also", "N", HAND], ["三十五", "self-draw"]),
        ([HAND, "--win", "2s", "--discarder", "S", "--also", "S", HAND], ["discarder"]),
        ([HAND, "--win", "2s", "--discarder", "S", "--follow-tile", "W"], ["跟張免責", "--liable"]),
    ],
    ids=[
        "kong-replacement-no-kong",
        "flower-replacement-no-flower",
        "last-copy-held",
        "liable-winner",
        "several-self-drawn",
        "discarder-wins",
        "follow-tile",
    ],
)
def test_input_that_contradicts_itself_exits_2(args, words, capsys):
    """RULES.md 4.9 (槓上開花 is won on a kong's replacement, 補花和牌 on a flower's), 4.8.8 (絕張:
    the other three lie in an exposed pung), 4.12 (包付), seed 004 三十五 (several winners on
    one discard), 4.11 (CCM has no follow-tile exemption): one line, no card."""
    status, out, err = score(capsys, *args)
    assert status == 2 and out == ""
    [error] = lines(err)
    for word in words:
        assert word in error, error


@pytest.mark.parametrize(
    "hand, english, chinese",
    [
        ("123m 123p 123s 23p 55s", "All Small", "全小"),
        ("456m 456p 456s 23p 55s", "All Middle", "全中"),
        ("789m 789p 789s 23p 55s", "All Big", "全大"),
    ],
)
def test_big_middle_small_is_named_as_the_hand_has_it(hand, english, chinese, capsys):
    """Seed 004 第九條三 9 「全大即三組789，或全中三組456，或全小三組123」 (RULES.md 4.8 #9): the
    card says which of the three, in English and Chinese, beside its 20 points."""
    status, out, err = score(capsys, hand, "--win", "1p", "--discarder", "S")
    assert status == 0, err
    [line] = [line for line in out.splitlines() if line.lstrip().startswith("4.8.9")]
    assert f"{english} {chinese}" in line and line.split()[-1] == "20"
    assert "／" not in line


def test_chinese_tile_names_are_read_as_the_notation():
    """Seed 004 第一條 一 (萬子 一萬…九萬, 餅子, 條子; 東南西北, 中發白, 春夏秋冬梅蘭竹菊; RULES.md
    4.1), and the display's 筒 / 索: each reads as its tile, numerals grouped before a suit."""
    chinese = "一萬 九餅 九筒 五條 五索 東南西北 中發白 春夏秋冬梅蘭竹菊 一二三萬 789條"
    notation = "1m 9p 9p 5s 5s E S W N C F P 1f 2f 3f 4f 5f 6f 7f 8f 123m 789s"
    assert tiles.parse(chinese) == tiles.parse(notation)
    assert [tiles.NAMES[t] for t in tiles.parse("中 發 白")] == ["C", "F", "P"]


def test_chinese_typed_hand_scores_as_the_notation_and_is_echoed_as_typed(capsys):
    """Seed 004 第一條 一 (tile names), RULES.md 4.11 procedure (the winner lays his hand down
    as he made it): the same card whichever names are typed, the hand echoed as typed."""
    typed = "一二三萬 四五六萬 七八九萬 五五餅 一條三條 春 梅"
    status, chinese, err = score(capsys, typed, "--win", "二條", "--discarder", "S")
    assert status == 0, err
    status, notation, err = score(capsys, HAND, "--win", "2s", "--discarder", "S", *FLOWERS)
    assert status == 0, err
    assert f"Hand   {typed}" in chinese and f"Hand   {HAND}" in notation
    assert chinese.splitlines()[2:] == notation.splitlines()[2:]


def test_help_gives_ccm_flags_options_and_the_flower_groups(capsys):
    """Issue 13; RULES.md 4.5 and seed 004 十三 花牌, 十五 花槓 (A-C3): --help lists every flag
    of the CCM scorer with its Chinese name, the CCM options, and which flowers form a group."""
    assert set(score_ccm.FLAG_WORDS) == Ccm2012.flags
    with pytest.raises(SystemExit) as done:
        main(["score", "--help"])
    assert done.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    for word in [*Ccm2012.flags, "槓上開花", "補花和牌", "搶槓", "絕張", "海底撈月", "妙手回春"]:
        assert word in text, word
    for word in [
        "--doubled",
        "倍打",
        "--liable",
        "包付",
        "--also",
        "--chips",
        "--dealer",
        "--robbed-kong",
        "1f-4f = 春夏秋冬",
        "5f-8f = 梅蘭竹菊",
        "花槓",
    ]:
        assert word in text, word


def test_a_flower_kong_is_noted_as_paid_on_the_spot(capsys):
    """Seed 004 十五 花槓 「三家現場各支付8分」, 「所有槓牌在和牌後不再計算附加分」 (RULES.md 4.10,
    A-C3): the card says the flower kong was paid on the spot and its flowers score nothing."""
    status, out, err = score(
        capsys, HAND, "--win", "2s", "--discarder", "S", "--flowers", "春 夏 秋 冬 菊"
    )
    assert status == 0, err
    assert "花槓   春夏秋冬: paid on the spot, 8 from each" in out
    assert "Flower x1" in out  # 菊 alone scores (A-C3 default)


@pytest.mark.parametrize(
    "option",
    [["--doubled"], ["--liable", "W"], ["--chips", "100,100,100,100"], ["--also", "W", "5s"]],
)
def test_ccm_options_are_refused_with_wsom(option, capsys):
    """Seed 000 has no 倍打, 包付 or chips, and one winner on a discard (RULES.md A-W17): a WSOM
    card refuses CCM's options rather than ignoring them."""
    status = main(["score", "111m 888m 444p 666s 5s", "--win", "5s", "--discarder", "N", *option])
    out, err = capsys.readouterr()
    assert status == 2 and out == ""
    assert len(lines(err)) == 1


def test_json_line_that_contradicts_itself_is_a_bad_line(tmp_path, capsys):
    """RULES.md 4.9 槓上開花 (a win on a kong's replacement): a JSON hand with the flag and no
    kong is refused as the typed form refuses it, naming its line."""
    hand = {"concealed": HAND, "win_tile": "2s", "winner_seat_index": 0, "self_drawn": True}
    path = tmp_path / "hands.jsonl"
    path.write_text(json.dumps({**hand, "flags": ["kong_replacement"]}) + "\n", encoding="utf-8")
    assert main([*CCM, "--json", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "line 1: contradicts itself: kong_replacement (槓上開花" in err


def test_a_wsom_seat_wind_follows_the_dealer_compass_seat(capsys):
    """RULES.md 1.2 3.1 (番牌: the seat wind) with compass seats: South dealing sits East, so
    his pung of E is his seat wind."""
    typed = ["score", "123m 456m 789p EEE 5s", "--win", "5s", "--discarder", "N", "--seat", "S"]
    assert main([*typed, "--dealer", "S"]) == 0
    assert "Value Honor 番牌" in capsys.readouterr().out
    assert main(typed) == 0
    assert "Value Honor" not in capsys.readouterr().out
