"""Each of the 44 WSOM patterns (RULES.md 1.2) on a hand built for it, with the composition
rules of RULES.md 1.1: series exclusivity, Value Honor per set, listed and compound limits,
free arrangement. Totals are worked out by hand from the pattern table in
config/rules/wsom2006.toml (ZJ v3.3 values, A-W1)."""

import pytest

from engine.scoring import win_from_text
from engine.seats import LETTERS as SEATS

# (rule, typed hand, winning tile, winner, discarder or None for a self-draw, flags,
#  expected pattern ids in score-card order, expected total)
HANDS = [
    ("1.1 All Sequences, exposed chow", "456p 789s 34s 55m [123m]", "2s", "E", "S", (), ["1.1"], 5),
    ("1.1 + 1.2 concealed", "123m 456p 789s 34s 55m", "2s", "E", "S", (), ["1.1", "1.2"], 10),
    ("1.3 No Terminals", "234m 567p 345s 6s [888p]", "6s", "E", "S", (), ["1.3"], 5),
    ("2.1.1 Mixed One-Suit", "123m 345m 678m 9m [NNN]", "9m", "E", "S", (), ["2.1.1"], 40),
    ("2.1.2 Pure One-Suit", "123p 345p 678p 9p [222p]", "9p", "E", "S", (), ["2.1.2"], 80),
    ("2.2 Nine Gates, listed limit", "1112345678999s", "5s", "W", None, (), ["2.2"], 480),
    (
        "1.1 Nine Gates shape dealt to East scores Heaven, not Nine Gates",
        "1112345678999s",
        "5s",
        "E",
        None,
        ("heaven",),
        ["1.2", "2.1.2", "4.2.1", "9.4.1"],
        245,
    ),
    (
        "3.1 + 3.3.1 Small Three Winds, own wind East",
        "123m 456p EEE SSS W",
        "W",
        "E",
        "N",
        (),
        ["1.2", "3.1", "3.3.1", "4.2.1"],
        50,
    ),
    (
        "3.1 no prevailing wind: South's East pung is worthless",
        "123m 456p 789s 5m [EEE]",
        "5m",
        "S",
        "W",
        (),
        None,
        None,
    ),
    (
        "3.3.3 Small Four Winds, listed limit",
        "123m EEE SSS WWW N",
        "N",
        "E",
        "S",
        (),
        ["3.3.3"],
        320,
    ),
    (
        "3.3.4 over 3.4: the highest listed limit alone",
        "EEE SSS WWW NNN P",
        "P",
        "S",
        None,
        (),
        ["3.3.4"],
        400,
    ),
    ("3.4 All Honors, listed limit", "EEE SSS CCC FFF P", "P", "E", None, (), ["3.4"], 320),
    (
        "4.3.2 Two Kongs; one concealed kong is one concealed triplet",
        "123m 456p 7s (2222s) [9999p]",
        "7s",
        "E",
        "N",
        (),
        ["4.3.2"],
        20,
    ),
    (
        "4.3.4 Four Kongs, listed limit",
        "5m (1111m) [2222p] [3333s] [EEEE]",
        "5m",
        "S",
        None,
        (),
        ["4.3.4"],
        480,
    ),
    (
        "5.1.2 beats Seven Pairs: one arrangement only",
        "123m 123m 456p 456p 9s",
        "9s",
        "E",
        None,
        (),
        ["1.1", "1.2", "5.1.2"],
        70,
    ),
    (
        "5.1.4 Four Identical Sequences, listed limit",
        "123s 123s 123s 123s 5p",
        "5p",
        "E",
        None,
        (),
        ["5.1.4"],
        480,
    ),
    (
        "6.2.1 Small Three Similar Triplets",
        "777m 777p 123s 456m 7s",
        "7s",
        "E",
        "S",
        (),
        ["1.2", "4.2.1", "6.2.1"],
        40,
    ),
    (
        "7.2.2 Four Consecutive Triplets: compound limit 320",
        "333p 444p 555p 666p 9m",
        "9m",
        "E",
        "S",
        (),
        ["1.2", "4.1", "4.2.3", "7.2.2"],
        320,
    ),
    (
        "4.2 a pung completed on a discard is not concealed",
        "111m 999m 99p 789s 11s",
        "9p",
        "E",
        "S",
        (),
        ["1.2", "4.2.1", "8.1.2"],
        60,
    ),
    (
        "4.2 the winner reads the discard into the chow, keeping the pung concealed",
        "111m 999m 234s 55p 23p",
        "4p",
        "E",
        "S",
        (),
        ["1.2", "4.2.1"],
        10,
    ),
    (
        "9.2 Win on Kong",
        "123m 456p 789s 5p (EEEE)",
        "5p",
        "S",
        None,
        ("kong_replacement",),
        ["1.2", "4.3.1", "9.2"],
        20,
    ),
    (
        "9.1.1 + 9.2: a supplement that is the seabed (A-W10)",
        "123m 456p 789s 5p (EEEE)",
        "5p",
        "S",
        None,
        ("kong_replacement", "final_draw"),
        ["1.2", "4.3.1", "9.1.1", "9.2"],
        30,
    ),
    (
        "10.1 Thirteen Terminals: 160 only (A-W7)",
        "19m 19p 19s ESWNCFP",
        "1m",
        "N",
        "E",
        (),
        ["10.1"],
        160,
    ),
    (
        "10.2 Seven Pairs with four alike as two pairs (A-W6), No Terminals",
        "22m 22m 44p 66p 88s 33s 5s",
        "5s",
        "W",
        None,
        (),
        ["10.2", "1.3"],
        35,
    ),
]


@pytest.mark.parametrize(
    "rule,text,won,winner,discarder,flags,expected,total", HANDS, ids=[h[0] for h in HANDS]
)
def test_pattern(wsom, rule, text, won, winner, discarder, flags, expected, total):
    win = win_from_text(
        text, won, SEATS.index(winner), None if discarder is None else SEATS.index(discarder), flags
    )
    score = wsom.score(win)
    if expected is None:
        assert not score.legal and "RULES.md 1.1" in score.reason
        return
    assert score.legal, score.reason
    assert [p.id for p in score.patterns] == expected
    assert score.total == total


def test_value_honor_scores_each_set(wsom):
    """RULES.md 1.2 3.1: 10 per dragon or own-wind set: C, F and the seat wind make 30."""
    win = win_from_text("123m CCC FFF SSS 5p", "5p", 1, None)
    assert [p.id for p in wsom.score(win).patterns].count("3.1") == 3


def test_free_arrangement_takes_one_grouping(wsom):
    """RULES.md 1.1 (seed example): 111222333m is three identical chows (120) or three
    consecutive triplets (100), never both."""
    score = wsom.score(win_from_text("111222333m 789p 5s", "5s", 0, None))
    # Triplets: 1.2 + 4.2.2 + 7.2.1 = 135 beats chows: 1.1 + 1.2 + 5.1.3 = 130.
    assert [p.id for p in score.patterns] == ["1.2", "4.2.2", "7.2.1"]
    assert score.total == 135
