"""The round's standings at the venue (issue 15; firmware/venue/standings.py, venue_points.py):
each rule book's ranking as its seed says (WSOM seed 000, CCM seed 004 第十條, 第十一條,
§三十八), held back until every table has finished or the organiser releases them, the
round's zero-sum check and its CSV and JSON. The tables' messages are
tests/support/venuekit.py's.
"""

import csv
import io
import logging
import time

import pytest
from starlette.testclient import TestClient

from firmware.cli import main
from firmware.venue.app import create_app
from firmware.venue.board import VenueBoard
from firmware.venue.points import Stage
from firmware.venue.seating import Player
from firmware.venue.standings import round_csv, round_over, round_report, standings, zero_sum
from firmware.venue.view import board_changes, standings_view
from tests.support.venuekit import (
    BASE,
    ORGANISER,
    OWN_PAGE,
    PIN,
    VENUE,
    WSOM_FINAL,
    WSOM_SHEET,
    Bus,
    feed,
    finish,
    line,
    organiser_client,
    signed,
    state,
    status,
)


def ccm(board: VenueBoard, table: str, chips, seq: int = 50) -> None:
    """CCM table `table` signs one hand that leaves each player `chips` (of the 100 he
    began the 局 with), so his score is chips - 100."""
    changes = [c - 100 for c in chips]
    finish(board, table, [line(1, changes, chips)], list(chips), seq=seq, ruleset="ccm2012")


def by_name(players: list[dict]) -> dict[str, dict]:
    return {p["name"]: p for p in players}


def order(players: list[dict]) -> list[tuple[str, int, int | None]]:
    return [(p["name"], p["rank"], p["standard_points"]) for p in players]


# -- WSOM ----------------------------------------------------------------------------------------


def test_wsom_ranks_by_the_points_won_and_lost_seed_000():
    """Seed 000 麻將的目的與流程 "以多局的得分及失分合計﹐來覺得勝負名次": WSOM ranks by the
    sum of the points won and lost over the hands, penalties deducted; a table not yet signed
    stands in with its live scores, provisional; equal scores share a rank; no standard
    points."""
    board = VenueBoard(VENUE)
    finish(board, "W1")
    feed(board, "L1", "state", state("L1", hand=5, scores=(65, 0, -30, -35)))
    players = standings(board)
    assert order(players)[:4] == [
        ("L1 player 1", 1, None),
        ("W1 player 2", 1, None),
        ("L1 player 2", 3, None),
        ("W1 player 1", 3, None),
    ]
    found = by_name(players)
    assert found["W1 player 1"]["score"] == 30 - 25 - 5 and found["W1 player 1"]["final"]
    assert not found["L1 player 1"]["final"] and {p["book"] for p in players} == {"WSOM"}
    assert found["W1 player 2"]["place"] == 1 and found["W1 player 3"]["place"] == 3


def test_ccm_scores_are_the_chips_won_over_the_ju_seed_004_三十八_局分():
    """Seed 004 §三十八(一)4 局分: every 局 starts at 100 chips, not carried over; the score is
    the 總局分 less those 100 a 局: two 局 on one sheet, the second starting again at 100."""
    board = VenueBoard(VENUE)
    sheet = [  # the first 局 ends after hand 2 (its chips start again at 100)
        line(1, (40, -20, -10, -10), (140, 80, 90, 90)),
        line(2, (-30, 10, 10, 10), (110, 90, 100, 100), (0, 10, -20, 10)),
        line(3, (24, -8, -8, -8), (124, 92, 92, 92)),
    ]
    finish(board, "C1", sheet, [124, 92, 92, 92], ruleset="ccm2012")
    found = by_name(standings(board))
    assert found["C1 player 1"]["score"] == 10 + 24 and found["C1 player 1"]["final"]
    assert found["C1 player 2"]["score"] == -10 + 10 - 8
    assert found["C1 player 3"]["score"] == 0 - 20 - 8
    assert found["C1 player 1"]["book"] == "CCM"


# -- CCM's standard points -------------------------------------------------------------------------


def test_ccm_each_tables_first_earns_the_standard_points_seed_004_第十條():
    """Seed 004 第十條, §三十八(二) 標準分: each table's first by 總局分 earns the stage's
    standard points (8 here, an 精英賽's top stage), the others none; 第十一條: players rank by
    standard points, then score, so C1's second (40) ranks below C2's first (20)."""
    board = VenueBoard(VENUE)
    ccm(board, "C1", (150, 140, 60, 50))
    ccm(board, "C2", (120, 110, 100, 70))
    players = standings(board, Stage(standard_points=8))
    assert order(players)[:4] == [
        ("C1 player 1", 1, 8),
        ("C2 player 1", 2, 8),
        ("C1 player 2", 3, 0),
        ("C2 player 2", 4, 0),
    ]
    assert [p["promoted"] for p in players[:3]] == ["table", "table", None]
    assert standings(board)[0]["standard_points"] == 1  # a first stage's, by default


def test_ccm_best_seconds_across_tables_are_promoted_seed_004_第十條_替補():
    """Seed 004 第十條: each table's second has his 總局分 recorded and the best seconds
    across the tables are promoted as substitutes, earning the standard points too; a
    table's third is no second, whatever his score (C3's third, 15, above C2's second)."""
    board = VenueBoard(VENUE)
    ccm(board, "C1", (150, 140, 60, 50))  # second: 40
    ccm(board, "C2", (120, 110, 100, 70))  # second: 10
    ccm(board, "C3", (130, 125, 115, 30))  # second: 25, third: 15

    def promoted(seconds: int) -> dict[str, str]:
        players = standings(board, Stage(standard_points=3, seconds=seconds))
        return {p["name"]: p["promoted"] for p in players if p["standard_points"] == 3}

    two = promoted(2)
    assert {n for n, why in two.items() if why == "best second"} == {"C1 player 2", "C3 player 2"}
    three = promoted(3)
    assert "C2 player 2" in three and "C3 player 3" not in three and len(three) == 6
    assert len(promoted(0)) == 3


def test_ccm_stages_promoting_two_a_table_give_both_the_points_seed_004_第十條():
    """Seed 004 第十條 "在規定每桌晉級兩名的輪次情況下，第一二名均獲得標準分"."""
    board = VenueBoard(VENUE)
    ccm(board, "C1", (150, 140, 60, 50))
    found = by_name(standings(board, Stage(standard_points=2, per_table=2)))
    assert [found[f"C1 player {n}"]["standard_points"] for n in (1, 2, 3, 4)] == [2, 2, 0, 0]
    with pytest.raises(ValueError, match="promoted already"):
        Stage(per_table=2, seconds=1)


def test_ccm_equal_totals_share_the_place_and_its_points_seed_004_第十一條_並列名次():
    """Seed 004 第十一條 "總局分相同，並列名次": two tied at a table's first share it and
    both earn the standard points, sharing a rank; that table then has no second; seconds
    tied at the last substitute's place both come in."""
    board = VenueBoard(VENUE)
    ccm(board, "C1", (130, 130, 80, 60))
    ccm(board, "C2", (140, 110, 80, 70))  # second: 10
    ccm(board, "C3", (150, 110, 90, 50))  # second: 10
    players = standings(board, Stage(standard_points=5, seconds=1))
    found = by_name(players)
    assert found["C1 player 1"]["rank"] == found["C1 player 2"]["rank"] == 3
    assert found["C1 player 2"]["standard_points"] == 5
    assert found["C1 player 3"]["standard_points"] == 0  # a third, not C1's second
    assert found["C2 player 2"]["promoted"] == found["C3 player 2"]["promoted"] == "best second"
    assert found["C2 player 2"]["rank"] == found["C3 player 2"]["rank"] == 5


def test_a_hall_of_both_books_ranks_each_book_apart():
    """Issue 15: a hall playing WSOM and CCM has two competitions: CCM's players ranked by
    standard points (seed 004 第十一條), then WSOM's by score (seed 000), each from rank 1;
    a WSOM player has no standard points."""
    board = VenueBoard(VENUE)
    finish(board, "W1")
    ccm(board, "C1", (110, 100, 100, 90))
    players = standings(board, Stage(standard_points=4))
    assert [p["book"] for p in players] == ["CCM"] * 4 + ["WSOM"] * 4
    assert order(players)[0] == ("C1 player 1", 1, 4)
    assert order(players)[4] == ("W1 player 2", 1, None)  # 65, over C1's first's 10


def test_standard_points_stay_provisional_until_the_round_is_over():
    """Seed 004 第十條: a best second's standard points depend on every table, so they are
    worked out from the live chips of a table still playing, provisional, and change when it
    signs; the standings say the round is complete only then."""
    board = VenueBoard(VENUE)
    stage = Stage(standard_points=2, seconds=1)
    ccm(board, "C1", (130, 110, 80, 80))  # second: 10
    feed(board, "C2", "state", state("C2", hand=4, scores=(140, 120, 80, 60), ruleset="ccm2012"))
    live = standings_view(board, hide=False, stage=stage)
    found = by_name(live["players"])
    assert not live["complete"] and not found["C2 player 2"]["final"]
    assert found["C2 player 2"]["promoted"] == "best second"  # 20, for now
    ccm(board, "C2", (140, 105, 85, 70))  # signed: second 5
    signed_up = standings_view(board, hide=False, stage=stage)
    found = by_name(signed_up["players"])
    assert signed_up["complete"] and found["C2 player 2"]["standard_points"] == 0
    assert found["C1 player 2"]["promoted"] == "best second"


def test_the_command_line_refuses_a_stage_that_cannot_be(capsys):
    """Issue 15: `mjtable venue` refuses, with status 2 and a line saying why, standard points
    under 1, a third promoted at each table, and best seconds where two a table are promoted
    already (seed 004 第十條 gives substitutes only when one a table is)."""
    base = ["venue", "--venue", VENUE, "--port", "0", "--broker", "127.0.0.1:1883"]
    for extra, why in (
        (["--standard-points", "0"], "standard points from 1 to 99, not '0'"),
        (["--promote-per-table", "3"], "players promoted at each table from 1 to 2"),
        (["--promote-seconds", "-1"], "best seconds promoted from 0"),
    ):
        with pytest.raises(SystemExit) as exited:
            main([*base, *extra])
        assert exited.value.code == 2 and why in capsys.readouterr().err
    assert main([*base, "--promote-per-table", "2", "--promote-seconds", "1"]) == 2
    assert "the seconds are promoted already" in capsys.readouterr().err


# -- held back, released ---------------------------------------------------------------------------


def test_standings_are_held_back_until_every_table_has_finished():
    """Issue 15 (VENUE.md §1.2): with --hide-standings neither the dashboard nor the board
    shows standings or scores until every table has signed its sheet up to its last hand
    and stopped playing; then both do, and the round's files may be had."""
    board = VenueBoard(VENUE)
    for name in ("T1", "T2", "T3"):
        feed(board, name, "state", state(name, hand=3, scores=WSOM_FINAL))
    finish(board, "T1")
    finish(board, "T2")
    held = standings_view(board, hide=True)
    assert held == {
        "hidden": True,
        "released_by_organiser": False,
        "complete": False,
        "finished": 2,
        "tables": 3,
        "players": None,
    }
    assert board_changes(board, -1, held, time.time())["tables"][0]["scores"] is None
    client = organiser_client(board, hide=True)
    assert client.get("/api/round.csv", headers=ORGANISER).status_code == 409
    feed(board, "T3", "events", signed("T3", 50, WSOM_SHEET[:2]))  # not its last hand yet
    assert not round_over(board)
    finish(board, "T3", seq=51)
    shown = standings_view(board, hide=True)
    assert not shown["hidden"] and len(shown["players"]) == 12 and shown["complete"]
    assert board_changes(board, -1, shown, time.time())["tables"][0]["scores"] == WSOM_FINAL
    assert client.get("/api/round.csv", headers=ORGANISER).status_code == 200
    assert not standings_view(VenueBoard(VENUE), hide=True)["players"]  # no table: no round


def test_the_organiser_releases_held_standings_when_a_table_is_offline(caplog):
    """Issue 15: T2 went offline mid-hand, so the round would never be over; the organiser,
    and only he (his PIN, from his own page), releases the standings: the board then shows
    them and the scores, marked released before every table finished; it is logged."""
    board = VenueBoard(VENUE)
    finish(board, "T1")
    feed(board, "T2", "state", state("T2", hand=2, scores=(10, -10, 0, 0)))
    feed(board, "T2", "status", status("T2", online=False))
    client = organiser_client(board, hide=True)
    release = "/api/standings/release"
    assert client.get("/api/board").json()["standings"]["hidden"]
    assert client.post(release, json={}, headers=OWN_PAGE).status_code == 401
    wrong = OWN_PAGE | {"Authorization": "Bearer 000000"}
    assert client.post(release, json={}, headers=wrong).status_code == 403
    assert client.post("/api/login", json={"pin": PIN}, headers=OWN_PAGE).status_code == 200
    elsewhere = {"Origin": "http://127.0.0.1:9999"}  # another page, the cookie riding along
    assert client.post(release, json={}, headers=elsewhere).status_code == 403
    public = client.get("/api/board").json()
    assert public["standings"]["hidden"] and not public["released"]
    with caplog.at_level(logging.WARNING, logger="mjtable.venue"):
        answer = client.post(release, json={}, headers=OWN_PAGE)
    assert answer.status_code == 200 and answer.json()["not_finished"] == ["T2"]
    assert "released the standings with 1 of 2 tables not finished: 'T2'" in caplog.text
    public = TestClient(client.app, base_url=BASE).get("/api/board").json()
    assert public["released"] and public["standings"]["released_by_organiser"]
    assert len(public["standings"]["players"]) == 8 and not public["standings"]["complete"]
    assert [t["scores"] for t in public["tables"]] == [WSOM_FINAL, [10, -10, 0, 0]]
    assert client.get("/api/round.csv", headers=ORGANISER).status_code == 200
    assert client.post(release, json={}, headers=OWN_PAGE).status_code == 409


def test_a_release_lasts_for_the_round_the_organiser_saw():
    """Issue 15: the organiser's release is for the round in play; once a table of it starts
    the next round's session, --hide-standings holds that round's back again."""
    board = VenueBoard(VENUE)
    finish(board, "T1")
    feed(board, "T2", "state", state("T2", hand=2))
    client = organiser_client(board, hide=True)
    assert client.post("/api/standings/release", json={}, headers=ORGANISER).status_code == 200
    assert not client.get("/api/board").json()["standings"]["hidden"]
    feed(board, "T1", "state", state("T1", session="s2"))
    assert client.get("/api/board").json()["standings"]["hidden"]


# -- the round's files -----------------------------------------------------------------------------


def test_the_zero_sum_check_finds_a_sheet_that_does_not_add_up():
    """Issue 15 (VENUE.md §1.2): every hand's payments add up to nothing, so do CCM's
    penalties (WSOM deducts them) but for the dead points the referee made of them (seed 004
    §38 一 6), each line's totals follow from the one before."""
    board = VenueBoard(VENUE)
    finish(board, "T1")
    assert zero_sum(board.tables["T1"]) == {"ok": True, "problems": [], "hands": 3}
    bad = [
        line(1, (30, -10, -10, -9), (30, -10, -10, -9)),
        line(2, (0, 0, 0, 0), (31, -10, -10, -9)),
    ]
    finish(board, "T2", bad, [31, -10, -10, -9])
    problems = zero_sum(board.tables["T2"])["problems"]
    assert problems == [
        "hand 1: the payments add up to 1, not 0",
        "hand 2: the totals do not follow from the line before",
    ]
    fined = [line(1, (0, 0, 0, 0), (90, 100, 100, 100), (-10, 0, 0, 0))]
    finish(board, "C1", fined, [90, 100, 100, 100], ruleset="ccm2012")
    assert zero_sum(board.tables["C1"])["problems"] == [
        "hand 1: the penalties add up to -10, not 0"
    ]
    dead = [line(1, (0, 0, 0, 0), (70, 100, 100, 100), (-30, 0, 0, 0)) | {"dead": 30}]
    finish(board, "C2", dead, [70, 100, 100, 100], ruleset="ccm2012")
    assert zero_sum(board.tables["C2"])["problems"] == []  # seed 004 §38 一 6: dead points
    feed(board, "T3", "events", signed("T3", 9, [{"number": 1, "changes": "x"}]))
    assert not zero_sum(board.tables["T3"])["ok"]


def test_the_round_has_one_csv_and_one_json():
    """Issue 15: at the round's end the organiser downloads the round: a JSON document with
    every table's signed sheet and check and the stage's promotion, and a CSV of one line a
    player with his book, his standard points (CCM's, seed 004 第十條) and why."""
    board = VenueBoard(VENUE)
    finish(board, "T1")
    finish(board, "T2", [line(1, (9, -3, -3, -3), (9, -3, -3, -2))], [9, -3, -3, -2])
    ccm(board, "C1", (120, 110, 90, 80))
    stage = Stage(standard_points=8, seconds=1)
    client = TestClient(create_app(board, Bus(), PIN, True, stage=stage), base_url=BASE)
    document = client.get("/api/round.json", headers=ORGANISER)
    assert document.headers["content-disposition"] == 'attachment; filename="hall-round.json"'
    report = document.json()
    assert report["complete"] and [t["table"] for t in report["tables"]] == ["C1", "T1", "T2"]
    assert report["stage"] == {"standard_points": 8, "promote_per_table": 1, "promote_seconds": 1}
    assert report["tables"][1]["sheet"] == WSOM_SHEET and report["tables"][1]["zero_sum"]["ok"]
    assert not report["tables"][2]["zero_sum"]["ok"]
    text = client.get("/api/round.csv", headers=ORGANISER).text
    lines = list(csv.DictReader(io.StringIO(text)))
    assert len(lines) == 12 and {r["round_over"] for r in lines} == {"True"}
    first, second, wsom = lines[0], lines[1], lines[4]
    assert (first["book"], first["name"], first["rank"]) == ("CCM", "C1 player 1", "1")
    assert (first["standard_points"], first["promoted"]) == ("8", "table")
    assert (second["standard_points"], second["promoted"]) == ("8", "best second")
    assert (wsom["book"], wsom["name"], wsom["rank"]) == ("WSOM", "T1 player 2", "1")
    assert wsom["standard_points"] == "" and wsom["promoted"] == ""
    assert {r["zero_sum"] for r in lines if r["table"] == "T1"} == {"ok"}
    assert {r["signed_by"] for r in lines} == {"Li Wei"}
    assert round_csv(round_report(board, stage)) == text


def test_a_spreadsheet_formula_in_a_name_stays_text():
    """Issue 15: a name a table reports that a spreadsheet would run stays text in the CSV."""
    board = VenueBoard(VENUE)
    evil = state("T1", phase="between_hands", hand=3, scores=WSOM_FINAL)
    evil["players"][0]["name"] = "=HYPERLINK(1)"
    feed(board, "T1", "events", signed("T1", 50, WSOM_SHEET))
    feed(board, "T1", "state", evil)
    assert "'=HYPERLINK(1)" in round_csv(round_report(board))


def test_the_standings_name_a_player_the_table_has_not_named_from_the_seating_plan():
    """Issue 33 "Public and hall": a table that has no name for a seat is shown with the name
    the seating plan gave that seat, not as "T1 S"; a name the table has is its own."""
    board = VenueBoard(VENUE)
    unnamed = [{"seat": s, "name": None, "federation_id": None} for s in "ESWN"]
    unnamed[0]["name"] = "Named At The Table"
    feed(board, "T1", "state", state("T1", hand=3, scores=WSOM_FINAL, players=unnamed))
    plan = {"T1": tuple(Player(f"Seated {s}", None, None) for s in "ESWN")}
    view = standings_view(board, hide=False, seated=plan.get)
    names = {p["seat"]: p["name"] for p in view["players"]}
    assert names == {"E": "Named At The Table", "S": "Seated S", "W": "Seated W", "N": "Seated N"}
    assert {p["name"] for p in standings_view(board, hide=False)["players"]} == {
        "Named At The Table",
        None,
    }
