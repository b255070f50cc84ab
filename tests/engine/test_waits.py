"""Live waits, tiles left and hand values (issue 18, engine/waits.py), both rule books.

Worked examples on dealt hands (tests/support/tablekit.py lays the walls), then the agreement with
brute
force on every discard of simulated hands (firmware/bench/waits.py, which `mjtable bench waits`
runs on long sessions): each of the 34 kinds added to the 13 tiles and asked of the rule book's
scorer, the copies counted again from where every tile of the table lies.
Seats 0..3 = E S W N. WSOM: RULES.md 1.1, 3.5, 3.7; CCM: 4.7, 4.8.
"""

import json
import random
import subprocess
import sys

import pytest

from engine import shanten, tiles, waits
from engine.hand import counts, is_standard
from engine.scoring import Win
from firmware.bench.waits import CheckedGame, brute_force, recount
from tests.conftest import REPO
from tests.support.tablekit import E, Game, W

WSOM_DICE = ((3, 4), (2, 3))
CCM_DICE = (3, 4)


def dealt(ruleset, hands, **layout) -> Game:
    dice = WSOM_DICE if ruleset.table_rules.two_roll_break else CCM_DICE
    game = Game(ruleset, dice, hands=hands, **layout)
    game.start()
    return game


def kinds(ids) -> list[int]:
    return [k for k in map(tiles.kind_of, ids) if not tiles.is_flower(k)]


def wait_names(report) -> list[str]:
    return [tiles.NAMES[w.tile] for w in report.waits]


# Worked examples -------------------------------------------------------------------------------


def test_ready_hand_its_waits_values_and_tiles_left_wsom(wsom):
    """Issue 18, RULES.md 1.2: West's 123s 789s 45s EEE SS waits on 3s and 6s (Mixed One-Suit,
    Concealed Hand...), valued by the WSOM scorer both ways; East's 3s in the river is seen by
    all. East, holding 14 before his first discard, has no waits and is reported ready on his
    best discard (3s); after it he waits on 4p and 7p."""
    game = dealt(wsom, ["123m 456m 789m 11p 56p 3s", "", "123s 789s 45s EEE SS", ""])
    before = waits.seat_waits(game.table, E)
    assert (before.shanten, before.waits) == (0, ())
    game.discard(E, "3s")
    report = waits.seat_waits(game.table, W)
    assert report.shanten == 0 and wait_names(report) == ["3s", "6s"]
    three = report.waits[0]
    assert three.unseen == 2  # 4, less West's own 3s and East's in the river
    assert (three.unseen, three.in_wall) == recount(game.table, W, tiles.tile("3s"))
    expected = wsom.score(Win(tuple(kinds(game.table.hands[W])), (), three.tile, True, W))
    assert three.self_draw.legal and three.self_draw.total == expected.total
    assert three.self_draw.patterns == tuple(f"{p.name} {p.points}" for p in expected.patterns)
    assert wait_names(waits.seat_waits(game.table, E)) == ["4p", "7p"]
    assert [r.seat for r in waits.table_waits(game.table)] == [0, 1, 2, 3]


def test_to_json_is_the_display_contract(wsom):
    """Issue 18: the JSON form the display reads, key for key."""
    game = dealt(wsom, ["123m 456m 789m 11p 56p N", "", "", ""])
    game.discard(E, "N")
    data = waits.seat_waits(game.table, E).to_json()
    assert set(data) == {"seat", "shanten", "waits"} and data["seat"] == 0
    first = data["waits"][0]
    assert set(first) == {"tile", "unseen", "in_wall", "discard", "self_draw"}
    assert first["tile"] == "4p"
    assert set(first["discard"]) == {"legal", "total", "patterns", "reason"}
    assert all(isinstance(p, str) for p in first["self_draw"]["patterns"])


def test_ccm_shape_without_a_fan_waits_but_may_not_win(ccm):
    """RULES.md 4.7 無番禁和牌: 234m 345m 456p 678s 5p is complete with a second 5p, but has
    none of the 12 fans of 4.8: the wait is shown, legal False with the scorer's reason."""
    game = dealt(ccm, ["", "", "234m 345m 456p 678s 5p", ""])
    report = waits.seat_waits(game.table, W)
    assert report.shanten == 0 and wait_names(report) == ["5p"]
    for value in (report.waits[0].discard, report.waits[0].self_draw):
        assert not value.legal and value.total is None and "no fan" in value.reason


def test_thirteen_orphans_thirteen_sided_and_the_dead_wall_not_in_the_wall(wsom, ccm):
    """RULES.md 1.2 (10.1) Thirteen Terminals: 19m 19p 19s ESWNCFP waits on all 13 kinds. The
    live wall's count leaves out the 14 tiles of the dead wall (3.5), which hold some of them.
    CCM has no such shape (4.7) but has fourteen singles (shape 7, A-C6): there the same hand
    is ready only on a 4, 5 or 6 of a suit, none of the thirteen."""
    hand = "19m 19p 19s ESWNCFP"
    game = dealt(wsom, ["", "", hand, ""])
    report = waits.seat_waits(game.table, W)
    assert report.shanten == 0 and len(report.waits) == 13
    assert all(w.discard.legal and w.self_draw.legal for w in report.waits)
    dead = kinds(game.table.broken_wall.dead_wall_tiles)
    assert sum(dead.count(w.tile) for w in report.waits) > 0  # the dead wall holds some
    for w in report.waits:
        assert (w.unseen, w.in_wall) == recount(game.table, W, w.tile)
    report = waits.seat_waits(dealt(ccm, ["", "", hand, ""]).table, W)
    assert report.shanten == 0
    assert [w.tile for w in report.waits] == tiles.parse("456m 456p 456s")
    assert all(w.self_draw.patterns[0].startswith("Fourteen Singles") for w in report.waits)


@pytest.mark.parametrize(
    "ruleset, hand, wait",
    [("wsom2006", "1199m 1199p EESSW", "W"), ("ccm2012", "1111m 99m 11p 99p EE S", "S")],
)
def test_seven_pairs_single_wait(ruleset, hand, wait, wsom, ccm):
    """RULES.md 1.2 (7.1) and 4.8.11 七對, four alike as two pairs (A-W6): the one wait."""
    game = dealt({"wsom2006": wsom, "ccm2012": ccm}[ruleset], ["", "", hand, ""])
    report = waits.seat_waits(game.table, W)
    assert wait_names(report) == [wait] and report.waits[0].self_draw.legal


def test_hand_with_a_pung_and_no_fifth_copy(wsom):
    """RULES.md 3.7 and issue 18: West pungs East's 5s, keeping his third 5s; his 13 (the pung
    as a set) are 234s 5s 456p 789p + 555s: 2s completes 22s 345s, and 5s would too, but
    he holds all four: no fifth copy, no wait. His pung is seen by all."""
    game = dealt(wsom, ["5s", "", "5s 5s 5s 234s 456p 789p 9m", ""])
    game.discard(E, "5s")
    game.claim(W, "pung", "5s 5s")
    game.close()
    game.discard(W, "9m")
    report = waits.seat_waits(game.table, W)
    assert report.shanten == 0 and wait_names(report) == ["2s"]
    assert brute_force(game.table, W).keys() == {tiles.tile("2s")}
    two = report.waits[0]
    assert (two.unseen, two.in_wall) == recount(game.table, W, two.tile)


def test_another_players_concealed_kong_is_not_seen(wsom):
    """Issue 18, RULES.md 3.7: East's concealed kong of 7p hides its tiles from West, who waits
    on 4p and 7p: all four 7p are unseen for him, and none is in the wall."""
    game = dealt(
        wsom, ["7p 7p 7p 7p 123s 456s 789s S", "", "123m 456m 789m 11p 56p", ""],
        replacements=["N"],
    )  # fmt: skip
    game.kong(E, "7p 7p 7p 7p")
    game.draw(E)
    game.discard(E, "S")
    seven = waits.seat_waits(game.table, W).waits[1]
    assert tiles.NAMES[seven.tile] == "7p" and (seven.unseen, seven.in_wall) == (4, 0)


def test_before_the_deal_no_hand(wsom):
    """Issue 18: before the dice nobody holds a hand: no number, no waits."""
    table = Game(wsom, WSOM_DICE).table
    assert [(r.shanten, r.waits) for r in waits.table_waits(table)] == [(None, ())] * 4


def test_both_scorers_word_a_shape_refusal_as_waits_reads_it(wsom, ccm):
    """engine/waits.py tells a shape that may not win from no shape by the scorer's reason."""
    win = Win(tuple(tiles.parse("1357m 2468p 13579s")), (), tiles.tile("E"), True, 0)
    for ruleset in (wsom, ccm):
        assert ruleset.score(win).reason.startswith(waits.SHAPE_REFUSAL)


@pytest.mark.parametrize(
    "hand, melds, number, seven, thirteen",
    [
        ("123m 456p 789s EE SW", 0, 1, 5, 7),  # two singles: one exchange from ready
        ("147m 258p 369s ESW", 0, 8, 6, 8),  # no set, no partial: the most there is
        ("119m 19p 19s ESWNC 5m", 0, 7, 5, 1),  # 11 of the 13 kinds and a pair of them
        ("1199m 1199p EESS W", 0, 3, 0, 5),  # seven pairs, ready on W
        ("23m 456p 9s", 2, 1, 6, 12),  # two declared sets count as complete
    ],
)
def test_shanten_worked_examples(hand, melds, number, seven, thirteen):
    """Issue 18: tiles to exchange before ready, for each shape on its own."""
    c = counts(tiles.parse(hand))
    assert shanten.standard(c, melds) == number
    assert (shanten.seven_pairs(c), shanten.thirteen_orphans(c)) == (seven, thirteen)


def _plus(c, kind: int) -> bytearray:
    d = bytearray(c)
    d[kind] += 1
    return d


def _minus(c, kind: int) -> bytearray:
    d = bytearray(c)
    d[kind] -= 1
    return d


def _ready(c) -> bool:
    """A tile (no fifth copy) completes four sets and a pair."""
    return any(c[k] < 4 and is_standard(_plus(c, k)) for k in range(tiles.KINDS))


def test_shanten_counts_exchanges_to_ready():
    """Issue 18: the standard number is 0 exactly when a tile completes four sets and a pair
    (engine/hand.py), and at most 1 exactly when one exchange makes the hand ready: on random
    13-tile hands and on hands two exchanges off a winning one (no four alike)."""
    rng = random.Random(18)
    hands = []
    for _ in range(40):
        ids = list(range(4 * tiles.KINDS))
        rng.shuffle(ids)
        hands.append(counts(t // 4 for t in ids[:13]))
        near = counts(tiles.parse("123m 456p 789s 234m 5p"))
        for _ in range(2):
            near[rng.choice([k for k in range(tiles.KINDS) if near[k]])] -= 1
            near[rng.randrange(tiles.KINDS)] += 1
        hands.append(near)
    checked = 0
    for c in hands:
        if max(c) >= 4:
            continue
        checked += 1
        number, ready = shanten.standard(c), _ready(c)
        one_away = any(
            _ready(_plus(_minus(c, out), into))
            for out in range(tiles.KINDS)
            if c[out]
            for into in range(tiles.KINDS)
            if into != out and c[into] < 4
        )
        assert (number == 0) == ready, tiles.format_tiles(_kinds(c))
        assert (number <= 1) == (ready or one_away), tiles.format_tiles(_kinds(c))
    assert checked > 60


def _kinds(c) -> list[int]:
    return [k for k in range(tiles.KINDS) for _ in range(c[k])]


# Brute force on simulated hands ----------------------------------------------------------------


@pytest.mark.slow  # a second or more: out of the one-minute fast run, in CI's full run
@pytest.mark.parametrize("name", ["wsom2006", "ccm2012"])
def test_waits_agree_with_brute_force_on_every_discard(name, wsom, ccm):
    """Issue 18: on every discard of 12 simulated hands (2000 in `mjtable bench waits`),
    each seat's waits are the kinds the rule book's scorer reads as a winning shape when
    added to his 13 tiles, with the same legality and totals by discard and by self-draw,
    and the copies left agree with a recount of the table's tiles."""
    game = CheckedGame({"wsom2006": wsom, "ccm2012": ccm}[name], seed=18)
    for _ in range(12):
        game.play_hand()
    assert game.problems == []
    assert len(game.first_ms) > 400 and game.ready > 100  # the check met many ready hands


@pytest.mark.slow  # a second and more: CI's full run
def test_bench_waits_reports_percentiles_and_disagreements():
    """Issue 18: `mjtable bench waits --json` gives the figures README quotes (never asserted)
    and the count of disagreements with brute force, 0 expected."""
    out = subprocess.run(
        [sys.executable, "-m", "firmware.cli", "bench", "waits", "--ruleset", "ccm2012"]
        + ["--hands", "3", "--json"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    result = json.loads(out)
    assert (result["ruleset"], result["hands"], result["disagreements"]) == ("ccm2012", 3, 0)
    assert result["discards"] > 0 and result["p99_ms"] >= result["p50_ms"] > 0
