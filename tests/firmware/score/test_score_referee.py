"""`mjtable score` as a referee uses it (issue 12): a declared win that contradicts itself is a
wrong input, exit 2 naming the rule, never a hand scored "not legal"; pattern names are printed
in the rule book's Chinese beside the English.

Each contradiction is one of seed 000's 和種 (RULES.md 1.2 category 9) set against how the
hand says it won.
"""

import json

import pytest

from firmware.cli import main
from tests.support.runkit import lines, mjtable
from tests.support.scorekit import TYPED, variant

NO_DISCARD = {"self_drawn": True, "discarder_seat_index": None, "responsible_seat_index": None}
ON_SOUTH = {"self_drawn": False, "discarder_seat_index": 1, "responsible_seat_index": 1}

# id: (the example it changes, the changes, what the error must name)
CONTRADICTIONS = {
    "earth-not-east-discard": (  # 地和 (RULES.md 9.4.2): on East's first discard
        "wsom-ex-049",
        {"discarder_seat_index": 2, "responsible_seat_index": 2},
        ["earth", "地和", "9.4.2", "W's discard"],
    ),
    "earth-east-wins": (  # 地和: a non-East player's win
        "wsom-ex-049",
        {"winner_seat_index": 0, "seat_wind": "E", **ON_SOUTH},
        ["earth", "地和", "9.4.2", "winner is E"],
    ),
    "earth-self-drawn": ("wsom-ex-049", NO_DISCARD, ["earth", "地和", "self-drawn"]),
    "heaven-on-discard": (  # 天和 (RULES.md 9.4.1): East's 14 dealt tiles, nothing discarded
        "wsom-ex-047",
        ON_SOUTH,
        ["heaven", "天和", "9.4.1", "S's discard"],
    ),
    "heaven-not-east": (  # 天和: the dealer's win only
        "wsom-ex-047",
        {"winner_seat_index": 2, "seat_wind": "W"},
        ["heaven", "天和", "winner is W"],
    ),
    "robbing-self-drawn": (  # seed 000 搶槓 1: 搶槓一律算作銃和
        "wsom-ex-046",
        NO_DISCARD,
        ["robbing_kong", "搶槓", "self-drawn"],
    ),
    "robbing-held-tile": (  # seed 000 搶槓 1: the robbed tile completes the konger's pung
        "wsom-ex-046",
        {"concealed": "123m 567m 2p 345s", "win_tile": "2p"},
        ["robbing_kong", "搶槓", "holds a 2p"],
    ),
    "final-draw-on-discard": (  # 海底撈月 (RULES.md 9.1.1): the seabed tile is drawn
        "wsom-ex-057",
        {"self_drawn": False, "discarder_seat_index": 0, "responsible_seat_index": 0},
        ["final_draw", "海底撈月", "9.1.1"],
    ),
}
GOOD = "wsom-ex-049"


@pytest.fixture(scope="module")
def contradictions_run():
    """Every contradictory line, then a good one, through `mjtable score --json -`."""
    stdin = [
        variant(base, id=name, **changes) for name, (base, changes, _) in CONTRADICTIONS.items()
    ]
    run = mjtable("score", "--json", "-", stdin="\n".join([*stdin, variant(GOOD)]) + "\n")
    return run, lines(run.stderr)


def test_contradictory_lines_exit_2_and_the_good_line_is_still_scored(contradictions_run):
    """Issue 12: a contradictory line is a bad line (exit 2, no result line, no traceback), as a
    malformed line is; the good line after them is scored as RULES.md §2 expects."""
    run, errors = contradictions_run
    assert run.returncode == 2
    assert "Traceback" not in run.stderr
    assert len(errors) == len(CONTRADICTIONS), run.stderr
    [result] = [json.loads(line) for line in lines(run.stdout)]
    assert result["id"] == GOOD and result["legal"] and result["total"] == 160


@pytest.mark.parametrize("name", list(CONTRADICTIONS))
def test_contradiction_is_named_with_its_id_and_rule(contradictions_run, name):
    """Seed 000 和種 (天和, 地和, 搶槓, 海底撈月), issue 12: the error names the line's id, says the
    input contradicts itself and names the flag and its rule."""
    _, errors = contradictions_run
    [error] = [e for e in errors if f"hand {name} (line" in e]
    assert "contradicts itself" in error
    for word in CONTRADICTIONS[name][2]:
        assert word in error, error


@pytest.mark.parametrize(
    "args, words",
    [
        (["--discarder", "W", "--seat", "S", "--flag", "earth"], ["earth", "地和", "9.4.2"]),
        (["--self-drawn", "--seat", "S", "--flag", "heaven"], ["heaven", "天和", "winner is S"]),
        (["--discarder", "E", "--seat", "S", "--flag", "kong_replacement"], ["嶺上開花"]),
        (["--self-drawn", "--seat", "S", "--flag", "robbing_kong"], ["搶槓", "self-drawn"]),
    ],
    ids=["earth-W-discards", "heaven-south", "kong-replacement-discard", "robbing-self-drawn"],
)
def test_typed_contradiction_is_one_clear_line(args, words, capsys):
    """Seed 000 和種 地和 / 天和 / 嶺上開花一律算作自摸和 / 搶槓一律算作銃和, issue 12: the typed
    form exits 2 with one line naming the rule, and prints no score card."""
    status = main(["score", TYPED, "--win", "5s", *args])
    out, err = capsys.readouterr()
    assert status == 2
    assert out == ""
    [error] = lines(err)
    assert "contradicts itself" in error
    for word in words:
        assert word in error, error


def test_breakdown_prints_chinese_names_beside_english(capsys):
    """Issue 12, RULES.md 1.2 (config [patterns] chinese): each pattern line of the score card
    reads English, then Chinese, then the points."""
    assert main(["score", TYPED, "--win", "5s", "--self-drawn", "--seat", "S"]) == 0
    stdout = capsys.readouterr().out
    for english, chinese, points in [
        ("Concealed Hand", "門前清", "5"),
        ("All Triplets", "對對和", "30"),
        ("Four Concealed Triplets", "四暗刻", "125"),
    ]:
        [line] = [line for line in stdout.splitlines() if f"{english} {chinese}" in line]
        assert line.split()[-1] == points


def test_ccm_breakdown_prints_chinese_fan_names(capsys):
    """Issue 12, RULES.md 4.8 (config [fans] chinese): the CCM card names its fans in Chinese."""
    typed = ["--ruleset", "ccm2012", "1122m 3344m 55m E CC", "--win", "E", "--discarder", "S"]
    assert main(["score", *typed]) == 0
    stdout = capsys.readouterr().out
    assert "Half Flush 混一色" in stdout and "Seven Pairs 七對" in stdout


FLUSH = "111m 234m 567m 8m [999m]"  # Full Flush, 80 points: above the standard score of 30


@pytest.mark.parametrize(
    "option, pays",
    [
        ([], {"S": -30, "W": -30, "N": -180}),  # the discarder pays 3V - 60
        (["--follow-tile", "S"], {"S": -180, "W": -30, "N": -30}),  # S discarded it first
        (["--follow-tile", "E"], {"S": -80, "W": -80, "N": -80}),  # the winner himself did
        (["--responsible", "W"], {"S": -30, "W": -180, "N": -30}),  # the referee's ruling
        (["--responsible", "none"], {"S": -80, "W": -80, "N": -80}),
    ],
    ids=["discarder", "follow-tile-S", "follow-tile-winner", "responsible-W", "nobody"],
)
def test_typed_form_takes_the_follow_tile_situation_and_the_responsible_seat(option, pays, capsys):
    """Issue 12, RULES.md 1.3, seed 000 計分 得分授受法 跟張免責: the referee types who first
    discarded the winning kind (or who he ruled responsible) and the card pays accordingly."""
    status = main(["score", FLUSH, "--win", "8m", "--discarder", "N", "--seat", "E", *option])
    out, err = capsys.readouterr()
    assert status == 0, err
    pay = out.splitlines()[-1].split()
    assert pay[0] == "Pay"
    assert {pay[i]: int(pay[i + 1]) for i in range(3, 9, 2)} == pays
    if option:
        assert "跟張免責" in out


@pytest.mark.parametrize(
    "how, option, words",
    [
        (["--self-drawn"], ["--follow-tile", "S"], ["self-drawn", "nobody responsible"]),
        (["--discarder", "N"], ["--follow-tile", "N"], ["discarder", "no exemption"]),
        (["--discarder", "N"], ["--responsible", "E"], ["winner cannot pay"]),
    ],
    ids=["self-drawn", "discarder-first", "winner-pays"],
)
def test_typed_exemption_that_contradicts_the_win_exits_2(how, option, words, capsys):
    """Issue 12, RULES.md 1.3: an exemption the win cannot have is a wrong input, one line."""
    status = main(["score", FLUSH, "--win", "8m", "--seat", "E", *how, *option])
    out, err = capsys.readouterr()
    assert status == 2 and out == ""
    [error] = lines(err)
    for word in words:
        assert word in error, error


def test_a_nine_gates_whose_drawn_tile_was_mixed_in_is_no_nine_gates(capsys):
    """Seed 000 九蓮寶燈自摸規條 (RULES.md 1.2 2.2): a self-drawn Nine Gates counts only if the
    drawn tile was kept apart until shown; the referee's ruling `drawn_tile_mixed` leaves the
    hand its other patterns, and it is a self-draw's flag only."""
    gates = ["score", "1112345678999m", "--win", "5m", "--seat", "S"]
    assert main([*gates, "--self-drawn"]) == 0
    assert "Nine Gates 九蓮寶燈" in capsys.readouterr().out
    assert main([*gates, "--self-drawn", "--flag", "drawn_tile_mixed"]) == 0
    out = capsys.readouterr().out
    assert "Nine Gates" not in out and "Pure One-Suit 清一色" in out
    assert main([*gates, "--discarder", "E", "--flag", "drawn_tile_mixed"]) == 2
    assert "needs a self-drawn win" in capsys.readouterr().err
