"""The result of the hand on both views (issue 16 "The result"): at a win or a draw the state
document's `result` holds the winner, the winning tile and from whom, the winner's whole hand,
each pattern or fan in English and Chinese with its points, the total, the payments as the
score sheet records them and the penalties settled; it stays until the next hand's walls rise,
and after a restart between hands. The public view shows the winner's hand and no other
concealed tile. The browser tests draw the panel in Debian's chromium (tests/support/chromium.py).
"""

import pytest

from engine import events as ev
from engine import tiles
from engine.seats import LETTERS
from engine.session import Session
from firmware.display.app import create_app
from firmware.display.state import table_state
from firmware.table.venue_notes import VenueNotes
from tests.support.chromium import NEEDED
from tests.support.displaykit import PIN, FakeSource, running_server
from tests.support.followkit import north_self_draws_9p
from tests.support.scenes import ccm_win, tile_ids, view_of_win
from tests.support.tablekit import CCM_DICE, WSOM_DICE, E, Game, W, stacked_walls

NAMES = ({"name": "Li Wei"}, {"name": "Chan Mei"}, {"name": "Ng Ka"}, {"name": "Wong Fai"})


def wsom_win(wsom) -> tuple[Session, Game]:
    """Hand 1: North self-draws 9p, 1.1 + 1.2 + 7.1 = 50, each pays 50 (RULES.md 1.3)."""
    session = Session(wsom)
    game = north_self_draws_9p(wsom, session)
    return session, game


def result_of(session: Session, game: Game | None, referee: bool = False, venue=None) -> dict:
    return table_state(view_of_win(session, game, venue), referee)


def by_player(result: dict, key: str) -> tuple[int, ...]:
    """A per-seat column of the result's payments in the sheet's order (by player)."""
    column = [0] * 4
    for payment in result["payments"]:
        column[payment["player"]] = payment[key]
    return tuple(column)


def test_issue_16_wsom_win_shows_winner_tile_patterns_total_and_the_sheets_payments(wsom):
    """RULES.md 1.2, 1.3: North's self-drawn 9p: each pattern with its Chinese name (the rule
    book's) and points, the total 50, and payments summing as the sheet's row records them;
    the venue's names (issue 15) name the players."""
    session, game = wsom_win(wsom)
    result = result_of(session, game, venue=VenueNotes(players=NAMES))["result"]
    [win] = result["wins"]
    assert (win["seat"], win["by"], win["from"], win["tile"]["tile"]) == (
        "N",
        "self_draw",
        None,
        "9p",
    )
    assert win["name"] == "Wong Fai"
    assert [(p["id"], p["chinese"], p["name"], p["points"]) for p in win["patterns"]] == [
        ("1.1", "平和", "All Sequences", 5),
        ("1.2", "門前清", "Concealed Hand", 5),
        ("7.1", "一氣通貫", "Nine-Tile Straight", 40),
    ]
    assert win["total"] == 50 == sum(p["points"] for p in win["patterns"])
    assert len(win["hand"]["concealed"]) == 13  # the drawn 9p is the winning tile, apart
    before = by_player(result, "change")
    row = session.record(game.table)
    after = result_of(session, game)["result"]
    assert before == by_player(after, "change") == row.changes == (-50, -50, -50, 150)
    assert sum(row.changes) == 0


def test_issue_16_ccm_win_shows_the_discarder_fans_flowers_and_payments(ccm):
    """RULES.md 4.8-4.10: South wins on East's discard: from East, the fans and additional
    points in Chinese and English, his pung and flower laid out with the hand, East paying; the
    payments are the sheet's row once recorded (the dealer has then passed: still East's)."""
    session, game = ccm_win(ccm)
    result = result_of(session, game)["result"]
    [win] = result["wins"]
    assert (win["seat"], win["by"], win["from"]["seat"]) == ("S", "discard", "E")
    assert [(p["chinese"], p["name"], p["points"]) for p in win["patterns"]] == [
        ("對對和", "All Pungs", 20),
        ("花牌", "Flower x1", 2),
        ("單張和牌", "Single-Tile Win", 4),
    ]
    assert win["total"] == 26 and win["tile"]["tile"] == "5s"
    [pung] = win["hand"]["melds"]
    assert (pung["kind"], pung["from"], pung["claimed"]["tile"]) == ("pung", "E", "7s")
    assert [t["tile"] for t in win["hand"]["flowers"]] == ["1f"]
    assert len(win["hand"]["concealed"]) == 10  # 1m 9p E pungs and the 5s waiting for its pair
    row = session.record(game.table)
    after = result_of(session, game)["result"]
    assert session.dealer == 1 and after["wins"][0]["player"] == 1  # the hand's, not the next
    assert by_player(after, "change") == row.changes
    assert row.changes[0] < 0 < row.changes[1] and sum(row.changes) == 0


@pytest.mark.parametrize("make", [wsom_win, ccm_win])
def test_issue_16_public_result_shows_the_winners_hand_and_no_other_concealed_tile(make, wsom, ccm):
    """Issue 16: the hand won is shown on the public view (every tile of it), and every tile
    id in the public document is the winner's, an exposed meld's, a river's or a flower."""
    session, game = make(wsom if make is wsom_win else ccm)
    table = game.table
    public = result_of(session, game)
    [win] = public["result"]["wins"]
    winner = LETTERS.index(win["seat"])
    shown = set(table.hands[winner]) | {t for m in table.melds[winner] for t in m.tiles}
    shown |= {
        t for m in (m for seat in table.melds for m in seat) if not m.concealed for t in m.tiles
    }
    shown |= {t for river in table.rivers for t in river}
    shown |= {t for flowers in table.flowers for t in flowers}
    found = tile_ids(public)
    assert found <= shown, found - shown
    assert set(table.hands[winner]) <= tile_ids(public["result"])
    others = {t for seat, hand in enumerate(table.hands) if seat != winner for t in hand}
    assert not found & others


def test_issue_16_an_exhaustive_draw_has_no_hand_and_settles_the_penalties(ccm):
    """RULES.md 4.15 (錯碰), 4.9: West's wrong call is penalised 10 to each other player,
    then the wall runs out: "draw", no win, no hand; the penalty in the public's words with
    its points and payees, and the payments' columns the sheet's row (changes, penalties)."""
    session = Session(ccm)
    game = Game(ccm, CCM_DICE)
    table = game.table = session.new_table(stacked_walls(ccm, CCM_DICE, ["", "", "", ""]))
    game.start()
    game.ok(ev.TileDiscarded, E, tile=table.hands[E][-1])
    first = table.hands[W][0]
    other = next(t for t in table.hands[W] if tiles.kind_of(t) != tiles.kind_of(first))
    alert = game.refused(ev.ClaimDeclared, W, claim="pung", tiles=(first, other))
    game.apply(ev.Ruling, None, alert=alert.id, apply=True)
    game.close()
    game.play_through()
    result = result_of(session, game)["result"]
    assert (result["outcome"], result["state"], result["wins"]) == ("draw", "exhausted", [])
    [penalty] = result["penalties"]
    assert (penalty["seat"], penalty["points"], penalty["to"]) == ("W", 10, "others")
    assert (
        penalty["text"] == "West: made a wrong call (CCM 2012 ch. 3 art. 2: offences and penalties)"
    )
    row = session.record(table)
    assert by_player(result, "payment") == row.changes == (0, 0, 0, 0)
    assert by_player(result, "penalty") == row.penalties == (10, 10, -30, 10)


def test_issue_16_the_result_stays_between_hands_and_goes_at_the_next_deal(wsom):
    """Issue 16: before the first hand there is none; once recorded it stays, also on a
    service restarted between hands (no table: the session's last hand); the next hand's
    walls up, it is gone."""
    assert result_of(Session(wsom), None)["result"] is None
    session, game = wsom_win(wsom)
    session.record(game.table)
    restarted = result_of(session, None)["result"]
    assert restarted["wins"][0]["seat"] == "N" and restarted["hand_number"] == 1
    game.table = session.new_table(stacked_walls(wsom, WSOM_DICE, ["", "", "", ""]))
    assert result_of(session, game)["result"] is None
    assert result_of(session, game, referee=True)["result"] is None


# -- in the browser --------------------------------------------------------------------------


@pytest.mark.slow
@NEEDED
def test_issue_16_the_panel_shows_winner_patterns_and_points_in_both_rule_books(browser, wsom, ccm):
    """Issue 16 "Done when": after a WSOM win the public page's panel names the winner, each
    pattern in Chinese and English with its points and the total, and every payment; the
    source switched to a CCM win, the panel follows; the next deal takes it away."""
    session, game = wsom_win(wsom)
    source = FakeSource(view_of_win(session, game, VenueNotes(players=NAMES)))
    with running_server(create_app(source, PIN)) as (base, _server):
        context = browser.new_context(viewport={"width": 800, "height": 480})
        page = context.new_page()
        page.goto(base + "/table")
        panel = page.locator("#result")
        panel.locator(".win").wait_for()
        assert "North 北 · Wong Fai wins" in panel.locator(".result-title").inner_text()
        rows = panel.locator(".pattern").all_inner_texts()
        assert [r.split("\t") for r in rows] == [
            ["平和", "All Sequences", "5"],
            ["門前清", "Concealed Hand", "5"],
            ["一氣通貫", "Nine-Tile Straight", "40"],
        ]
        assert panel.locator(".total .points").inner_text() == "50"
        assert panel.locator("[data-payer='N'] .change").inner_text() == "+150"
        assert panel.locator(".win-hand .tile").count() == 14
        source.view = view_of_win(*ccm_win(ccm))
        source.publish()
        panel.locator(".pattern[data-pattern='4.8.5']").wait_for()
        assert "對對和" in panel.locator(".patterns").inner_text()
        assert panel.locator(".win-hand .meld.pung .tile").count() == 3
        assert "on the discard of" in panel.locator(".win-tile").inner_text()
        source.view.table = source.view.session.new_table(stacked_walls(ccm, CCM_DICE, [""] * 4))
        source.publish()
        panel.wait_for(state="detached")
        context.close()


@pytest.mark.slow
@NEEDED
def test_issue_16_screenshot_of_the_result_panel(browser, ccm, result_screenshot_path):
    """README's docs/result.png: the referee's view at a CCM win, the panel over the table
    (`--result-screenshot docs/result.png`, tests/conftest.py); its fold button makes it a
    strip over the table, and brings it back."""
    session, game = ccm_win(ccm)
    source = FakeSource(view_of_win(session, game, VenueNotes(players=NAMES)))
    with running_server(create_app(source, PIN)) as (base, _server):
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        page = context.new_page()
        page.goto(base + "/")
        page.fill("#login #pin", PIN)
        page.press("#login #pin", "Enter")
        panel = page.locator("#result")
        panel.locator(".win").wait_for()
        page.evaluate("document.fonts.ready")
        result_screenshot_path.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(result_screenshot_path))
        assert result_screenshot_path.stat().st_size > 10_000
        panel.locator("button.fold").click()
        page.locator("#result.folded").wait_for()
        assert panel.locator(".win").count() == 0
        panel.locator("button.fold").click()
        panel.locator(".win").wait_for()
        context.close()
