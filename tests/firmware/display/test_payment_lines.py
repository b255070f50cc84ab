"""The draw and win panels say why each payment is what it is (issue 33): the result document
carries the settlement's transfers (payer, payee or "deducted"/"dead", amount, reason, the
rule book's article) as the rule book made them with its figures, and the lines of each seat
add up to the figure the panel shows for it. WSOM's cases are seed 000 計分系統 得分授受法's
(RULES.md 1.3), CCM's seed 004 第九條's, 第一條三十四's (包付) and 三十六's (現場匯); RULES.md
4.8-4.11. The browser test draws them under each seat's figure in both languages.
"""

import re

import pytest

from engine import events as ev
from engine.session import Session
from firmware.display.app import create_app
from firmware.display.state import table_state
from firmware.table.venue_notes import VenueNotes
from tests.support.chromium import NEEDED
from tests.support.displaykit import PIN, FakeSource, running_server
from tests.support.followkit import (
    FOLLOWED,
    FOLLOWED_DRAWS,
    FOLLOWED_HANDS,
    north_self_draws_9p,
    north_wins_on_south,
    rule,
)
from tests.support.scenes import ccm_win, view_of_win
from tests.support.tablekit import CCM_DICE, WSOM_DICE, E, Game, S, of, stacked_walls

KONG_HAND = ["1111m", "", "", ""]  # East holds four 1m, kongs them concealed


def result_of(session: Session, game: Game) -> dict:
    return table_state(view_of_win(session, game), False)["result"]


def lines_of(result: dict) -> list[tuple]:
    """(payer, payee, amount, reason, column) of each line, seats by wind."""
    return [
        (
            line["payer"]["seat"],
            line["payee"] if isinstance(line["payee"], str) else line["payee"]["seat"],
            line["amount"],
            line["reason"],
            line["column"],
        )
        for line in result["lines"]
    ]


def assert_lines_add_up(result: dict) -> None:
    """Each seat's lines make the figures the panel shows: payments and penalties its change,
    held ones its held amount; what nobody receives, the dead points (CCM)."""
    for payment in result["payments"]:
        seat = payment["seat"]
        for columns, figure in (
            (("payments", "penalties"), payment["change"]),
            (("held",), payment["held"]),
        ):
            got = sum(
                line["amount"]
                for line in result["lines"]
                if line["column"] in columns and _payee(line) == seat
            )
            paid = sum(
                line["amount"]
                for line in result["lines"]
                if line["column"] in columns and line["payer"]["seat"] == seat
            )
            assert got - paid == figure, (seat, columns)
    dead = [
        line for line in result["lines"] if line["payee"] == "dead" and line["column"] != "held"
    ]
    assert sum(line["amount"] for line in dead) == result["dead"]


def _payee(line: dict) -> str | None:
    return None if isinstance(line["payee"], str) else line["payee"]["seat"]


def wsom_discard_win(wsom) -> tuple[Session, Game, int]:
    """North wins on South's 9p, 50 points; East discarded a 9p first in North's go-around
    (the follow-tile exemption's case, proposed to South by the alert returned)."""
    session = Session(wsom)
    game = Game(wsom, WSOM_DICE)
    game.table = session.new_table(stacked_walls(wsom, WSOM_DICE, FOLLOWED_HANDS, FOLLOWED_DRAWS))
    out = north_wins_on_south(game, FOLLOWED)
    [alert] = [a for a in of(out, ev.Alert) if a.rule == "RULES.md 1.3"]
    return session, game, alert.id


def test_seed_000_payment_3_a_discard_win_above_the_standard_score(wsom):
    """seed 000 計分系統 得分授受法 3 (RULES.md 1.3): a 50-point win on South's discard: East and
    West pay the standard score 30 each, South the discarder the rest, 3 x 50 - 60 = 90."""
    session, game, _ = wsom_discard_win(wsom)
    result = result_of(session, game)
    assert lines_of(result) == [
        ("E", "N", 30, "standard_share", "payments"),
        ("S", "N", 90, "discarder_rest", "payments"),
        ("W", "N", 30, "standard_share", "payments"),
    ]
    [line] = [line for line in result["lines"] if line["reason"] == "discarder_rest"]
    assert line["rule"] == "RULES.md 1.3 (出銃包付大牌)"
    assert line["rule_text"] == {
        "en": "WSOM 2006 scoring: payment (出銃包付大牌)",
        "zh": "世界麻將大賽 計分系統：得分授受法 (出銃包付大牌)",
    }
    assert_lines_add_up(result)


def test_seed_000_payment_4_the_follow_tile_exemption_moves_the_rest_to_east(wsom):
    """seed 000 得分授受法 4 跟張免責: South claims the exemption; East, the first to discard 9p
    in North's go-around, pays the rest, South the standard score like West."""
    session, game, alert = wsom_discard_win(wsom)
    rule(game, alert)
    result = result_of(session, game)
    assert lines_of(result) == [
        ("E", "N", 90, "follow_tile_rest", "payments"),
        ("S", "N", 30, "standard_share", "payments"),
        ("W", "N", 30, "standard_share", "payments"),
    ]
    assert result["lines"][0]["rule"] == "RULES.md 1.3 (跟張免責規條)"
    assert_lines_add_up(result)


def test_seed_000_payment_2_a_self_draw_each_pays_the_value(wsom):
    """seed 000 得分授受法 2 自摸各家分付: North's self-drawn 50: each of the three pays 50."""
    session = Session(wsom)
    game = north_self_draws_9p(wsom, session)
    result = result_of(session, game)
    assert lines_of(result) == [
        ("E", "N", 50, "self_draw_each", "payments"),
        ("S", "N", 50, "self_draw_each", "payments"),
        ("W", "N", 50, "self_draw_each", "payments"),
    ]
    assert_lines_add_up(result)


def test_seed_004_article_9_a_discard_win_the_discarder_pays_double(ccm):
    """seed 004 第九條 四(一) 點和 (RULES.md 4.11): South's 26 on East's 5s: East alone pays
    2 x 26 = 52."""
    session, game = ccm_win(ccm)
    result = result_of(session, game)
    [win] = result["wins"]
    assert win["total"] == 26
    assert lines_of(result) == [("E", "S", 52, "discard_win", "payments")]
    [line] = result["lines"]
    assert line["rule"] == "RULES.md 4.11 (第九條 四(一) 點和)"
    assert (
        line["rule_text"]["zh"]
        == "中國競技麻將 第九條 和牌與比賽成績的計算 四、分數的計算 (第九條 四(一) 點和)"
    )
    assert (line["doubled"], line["short"]) == (False, False)
    assert_lines_add_up(result)


def test_seed_004_article_9_a_self_draw_each_of_the_three_pays_once(ccm):
    """seed 004 第九條 四(二) 自摸 (RULES.md 4.11): South self-draws his single 5s: each of the
    three pays T once."""
    session = Session(ccm)
    game = Game(ccm, CCM_DICE)
    south = "1m 1m 1m 9p 9p 9p E E E 7s 7s 7s 5s"
    game.table = session.new_table(stacked_walls(ccm, CCM_DICE, ["", south, "", ""], {0: "5s"}))
    game.start()
    game.ok(ev.TileDiscarded, E, tile=game.table.hands[E][-1])
    game.close()
    game.draw(S)
    game.ok(ev.WinDeclared, S)
    result = result_of(session, game)
    [win] = result["wins"]
    each = win["total"]
    assert win["by"] == "self_draw"
    assert lines_of(result) == [
        ("W", "S", each, "self_draw_win", "payments"),
        ("N", "S", each, "self_draw_win", "payments"),
        ("E", "S", each, "self_draw_win", "payments"),
    ]
    assert {line["rule"] for line in result["lines"]} == {"RULES.md 4.11 (第九條 四(二) 自摸)"}
    assert_lines_add_up(result)


def test_seed_004_article_1_36_a_draw_shows_the_kong_paid_on_the_spot(ccm):
    """seed 004 第一條三十六 現場匯 (RULES.md 4.10): East's concealed kong is paid 6 by each of
    the three when made; the hand ends in an exhaustive draw and its panel says why East
    gained 18."""
    session = Session(ccm)
    game = Game(ccm, CCM_DICE)
    game.table = session.new_table(stacked_walls(ccm, CCM_DICE, KONG_HAND))
    game.start()
    game.kong(E, "1m 1m 1m 1m")
    game.draw(E)
    game.play_through()
    result = result_of(session, game)
    assert (result["outcome"], result["wins"]) == ("draw", [])
    assert lines_of(result) == [
        ("S", "E", 6, "concealed_kong", "payments"),
        ("W", "E", 6, "concealed_kong", "payments"),
        ("N", "E", 6, "concealed_kong", "payments"),
    ]
    assert result["lines"][0]["rule"] == "RULES.md 4.10 (第一條十五, 三十六 現場匯)"
    assert_lines_add_up(result)
    row = session.record(game.table)
    assert row.changes == (18, -6, -6, -6)


def test_seed_004_ch_3_a_penalty_to_each_other_player_is_its_own_line(ccm):
    """seed 004 第三章 第一條 二(二) 均分給其他三家 (RULES.md 4.15): a wrong call's 10 to each
    of the three, a line each, in the penalties' column."""
    session = Session(ccm)
    game = Game(ccm, CCM_DICE)
    table = game.table = session.new_table(stacked_walls(ccm, CCM_DICE, ["", "", "", ""]))
    game.start()
    game.ok(ev.TileDiscarded, E, tile=table.hands[E][-1])
    first = table.hands[2][0]
    other = next(t for t in table.hands[2] if t // 4 != first // 4)
    alert = game.refused(ev.ClaimDeclared, 2, claim="pung", tiles=(first, other))
    game.apply(ev.Ruling, None, alert=alert.id, apply=True)
    game.close()
    game.play_through()
    result = result_of(session, game)
    assert lines_of(result) == [
        ("W", "N", 10, "penalty_each", "penalties"),
        ("W", "E", 10, "penalty_each", "penalties"),
        ("W", "S", 10, "penalty_each", "penalties"),
    ]
    assert_lines_add_up(result)


# -- in the browser --------------------------------------------------------------------------

NAMES = ({"name": "Li Wei"}, {"name": "Chan Mei"}, {"name": "Ng Ka"}, {"name": "Wong Fai"})


@pytest.mark.slow
@NEEDED
def test_issue_33_the_panel_shows_each_seats_lines_and_they_add_up(browser, ccm):
    """Issue 33: under each seat's figure the panel lists the transfers it adds up from, each
    with its reason and the rule book's article (seed 004 第九條 四(一)); in Chinese with no
    Latin word but the players' names."""
    session, game = ccm_win(ccm)
    source = FakeSource(view_of_win(session, game, VenueNotes(players=NAMES)))
    with running_server(create_app(source, PIN)) as (base, _server):
        context = browser.new_context(viewport={"width": 1024, "height": 600})
        page = context.new_page()
        page.goto(base + "/table")
        panel = page.locator("#result")
        panel.locator(".line").first.wait_for()
        for seat in "ESWN":
            block = panel.locator(f"[data-payer='{seat}']")
            amounts = [
                int(a)
                for a in block.locator(".line").evaluate_all(
                    "(lines) => lines.map((l) => l.dataset.amount)"
                )
            ]
            assert sum(amounts) == int(block.locator(".change").inner_text())
        east = panel.locator("[data-payer='E'] .line")
        assert east.get_attribute("data-reason") == "discard_win"
        text = east.inner_text()
        assert text.startswith("-52 to South 南 · discard win: the discarder pays double")
        assert "CCM 2012 art. 9: scoring, item 4 (第九條 四(一) 點和)" in text
        south = panel.locator("[data-payer='S'] .line").inner_text()
        assert south.startswith("+52 from East 東")
        page.locator("#language").click()
        panel.locator(".line:text('點和：點炮方支付雙份')").first.wait_for()
        chinese = panel.locator(".payments").inner_text()
        assert "-52 給南家 · 點和：點炮方支付雙份" in chinese
        latin = set(re.findall(r"[A-Za-z]{2,}", chinese)) - {
            w for n in NAMES for w in n["name"].split()
        }
        assert latin == set()
        context.close()
