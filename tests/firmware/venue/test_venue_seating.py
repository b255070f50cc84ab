"""The seating plan (issue 36 item 1): the CSV the organiser imports, its problems named by
line, and the dashboard's draw."""

import random

import pytest

from firmware.venue.seating import SeatingError, draw, player, read_plan, start_session

HEADER = "round,table,seat,name,federation_id,country\n"
ROUND_1 = (
    "1,t01,東,張偉,CN-0001,China\n"
    "1,t01,南,王芳,CN-0002,China\n"
    "1,t01,西,李娜,,\n"
    "1,t01,北,Anna Berg,SE-0003,Sweden\n"
)


def test_chinese_names_and_winds_with_a_byte_order_mark():
    """Issue 36: UTF-8 with a BOM (Excel's CSV UTF-8), seats as 東南西北, Chinese names."""
    plan = read_plan(("\ufeff" + HEADER + ROUND_1).encode("utf-8"))
    four = plan.players(1, "t01")
    assert [p.name for p in four] == ["張偉", "王芳", "李娜", "Anna Berg"]
    assert four[2].federation_id is None and four[3].country == "Sweden"
    assert start_session(four, 120) == {
        "players": [
            {"name": "張偉", "federation_id": "CN-0001"},
            {"name": "王芳", "federation_id": "CN-0002"},
            {"name": "李娜", "federation_id": None},
            {"name": "Anna Berg", "federation_id": "SE-0003"},
        ],
        "minutes": 120,
    }


def test_seat_letters_in_any_order_and_without_a_bom():
    text = HEADER + "2,t9,n,D,,\n2,t9,E,A,,\n2,t9,W,C,,\n2,t9,S,B,,\n"
    assert [p.name for p in read_plan(text.encode()).players(2, "t9")] == ["A", "B", "C", "D"]


@pytest.mark.parametrize(
    ("lines", "said"),
    [
        ("1,t01,X,A,,\n", "line 2: seat 'X': E, S, W or N"),
        ("one,t01,E,A,,\n", "line 2: round 'one'"),
        ("1,t 01,E,A,,\n", "line 2: table 't 01'"),
        ("1,t01,E,,,\n", "line 2: the player's name is empty"),
        (
            "1,t01,E,A,,\n1,t01,E,B,,\n",
            "line 3: round 1 table t01 seat E is given already on line 2",
        ),
        ("1,t01,E,A,F1,\n1,t02,E,A,F1,\n", "line 3: A is seated twice in round 1 (line 2 too)"),
        ("1,t01,E,A\n", "line 2: 4 cells, not 6"),
        ("1,t01,E,A,,\n", "round 1 table t01: no player for seat S/W/N"),
    ],
)
def test_each_problem_named_by_its_line(lines, said):
    """Issue 36: clear errors naming line and problem, never a crash."""
    with pytest.raises(SeatingError) as refused:
        read_plan((HEADER + lines).encode())
    assert said in str(refused.value)


def test_a_wrong_header_or_encoding_is_said():
    with pytest.raises(SeatingError, match="line 1: the header must be round,table,seat"):
        read_plan(b"table,seat,name\n")
    with pytest.raises(SeatingError, match="not UTF-8"):
        read_plan((HEADER + ROUND_1).encode("big5"))
    with pytest.raises(SeatingError, match="seats nobody"):
        read_plan(HEADER.encode())


def test_a_draw_where_no_two_meet_twice():
    """Issue 36 item 1: the dashboard's draw, no two players at one table twice."""
    players = [player(f"P{i}", f"F{i}") for i in range(32)]
    tables = [f"t{i:02d}" for i in range(1, 9)]
    plan = draw(players, tables, 3, meet_once=True, rng=random.Random(7))
    met: set[frozenset[str]] = set()
    for number in (1, 2, 3):
        seated = plan.rounds[number]
        assert sorted(seated) == tables
        assert sorted(p.key for four in seated.values() for p in four) == sorted(
            p.key for p in players
        )
        pairs = {frozenset((a.key, b.key)) for f in seated.values() for a in f for b in f if a != b}
        assert not pairs & met
        met |= pairs


def test_a_draw_that_cannot_be_made_says_so():
    players = [player(f"P{i}") for i in range(8)]
    with pytest.raises(SeatingError, match="no two players meet again"):
        draw(players, ["a", "b"], 5, meet_once=True, rng=random.Random(1))
    with pytest.raises(SeatingError, match="7 players for 2 tables"):
        draw(players[:7], ["a", "b"], 1)
