"""Issue 33 "A real overlay": `/broadcast?transparent=1` draws only what a stream lays over a
camera (name plates, the hands along the edges, waits, scores, the result at a win) and leaves
the frame's centre third clear; the result stays until the next deal; the winds shown are the
hand's, though the session has moved on to the next hand's once the hand is on the sheet.

The hand: North self-draws 9p (RULES.md 1.2, 1.3: 平和 5 + 門前清 5 + 一氣通貫 40 = 50), the
fourth deal of the East round, so recording it passes the deal into the South round. The
browser tests run Debian's chromium (tests/support/chromium.py) at OBS's 1920×1080.
"""

import struct
import zlib

import pytest

from engine.session import Session
from firmware.display.app import create_app
from firmware.display.broadcast import DelayedFeed, broadcast_state
from firmware.display.state import table_state
from firmware.table.venue_notes import VenueNotes
from tests.support.chromium import NEEDED
from tests.support.displaykit import PIN, FakeSource, running_server
from tests.support.followkit import north_self_draws_9p
from tests.support.scenes import ccm_win, view_of_win
from tests.support.tablekit import WSOM_DICE, Game, stacked_walls

TOKEN = "a-long-overlay-test-token"
NAMES = ({"name": "Li Wei"}, {"name": "Chan Mei"}, {"name": "Ng Ka"}, {"name": "Wong Fai"})
# the fourth deal: player 3 (Wong Fai) is East, so North is player 2 (Ng Ka)
AS_PLAYED = {"E": "Wong Fai", "S": "Li Wei", "W": "Chan Mei", "N": "Ng Ka"}
PATTERNS = [("1.1", "平和", "5"), ("1.2", "門前清", "5"), ("7.1", "一氣通貫", "40")]
SIDE, HEIGHT = 1920, 1080


def fourth_deal_win(wsom) -> tuple[Session, Game]:
    """Hand 4, the East round's last deal: North self-draws 9p for 50 (RULES.md 1.3)."""
    session = Session(wsom, dealer=3, passes=3, hand_number=3)  # new_table: hand 4
    game = north_self_draws_9p(wsom, session)
    return session, game


def shown(session: Session, game: Game) -> dict:
    view = view_of_win(session, game, VenueNotes(players=NAMES))
    return broadcast_state(table_state(view, True))


def test_issue_33_the_overlay_shows_the_hands_winds_after_it_is_recorded(wsom):
    """Issue 33 "the winds of the hand shown": once the win is on the sheet the session's
    dealer, round and hand number are the next hand's (South round, Li Wei East); the
    broadcast's document keeps the hand's: East round, hand 4, Wong Fai East, Ng Ka North
    with the score the sheet gave him, and the result's winner is that same North."""
    session, game = fourth_deal_win(wsom)
    before = shown(session, game)
    session.record(game.table)
    referee = table_state(view_of_win(session, game, VenueNotes(players=NAMES)), True)
    assert (referee["round_wind"], referee["dealer"]) == ("S", 0)  # the session moved on
    after = broadcast_state(referee)
    for state in (before, after):
        assert (state["round_wind"], state["hand_number"], state["dealer"]) == ("E", 4, 3)
        assert {s["seat"]: s["name"] for s in state["seats"]} == AS_PLAYED
        assert state["result"]["wins"][0]["name"] == "Ng Ka"
    north = next(s for s in after["seats"] if s["seat"] == "N")
    assert north["score"] == session.scores[2] == 150


def test_issue_33_seed_004_5_a_game_cut_by_its_time_keeps_the_hands_winds_on_the_overlay(ccm):
    """Seed 004 第五條 (RULES.md 4.14): the game ends early when its time runs out. The hand
    that ended it, South round's last deal (player 3 East), is won by South; once recorded the
    session is at the next game's first hand (East round, player 0 East, fresh chips). The
    overlay holds the result with the hand's winds and the chips the hand left."""
    session, game = ccm_win(ccm, Session(ccm, dealer=3, passes=7, hand_number=7))
    session.record(game.table, time_up=True)
    assert "time" in session.games[-1]["ended"]  # the game ended by its time, not its rounds
    referee = table_state(view_of_win(session, game, VenueNotes(players=NAMES)), True)
    assert (referee["round_wind"], referee["dealer"]) == ("E", 0)  # the next game's
    fresh = ccm.table_rules.start_chips
    assert [s["score"] for s in referee["seats"]] == [fresh] * 4
    state = broadcast_state(referee)
    assert (state["round_wind"], state["hand_number"], state["dealer"]) == ("S", 8, 3)
    assert {s["seat"]: s["name"] for s in state["seats"]} == AS_PLAYED
    assert state["result"]["wins"][0]["seat"] == "S"
    left = session.sheet[-1].totals  # the chips after the hand, by player
    assert {s["player"]: s["score"] for s in state["seats"]} == dict(enumerate(left))
    assert sorted(left) != [fresh] * 4


# -- in the browser ------------------------------------------------------------------------------


def pixels(png: bytes) -> tuple[int, int, list[bytes]]:
    """An 8-bit RGBA PNG (a screenshot without background) as its rows of bytes, unfiltered
    (the PNG specification's five filters)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    at, idat, width, height = 8, b"", 0, 0
    while at < len(png):
        length, kind = struct.unpack(">I4s", png[at : at + 8])
        body = png[at + 8 : at + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert (depth, colour) == (8, 6), "not 8-bit RGBA"
        elif kind == b"IDAT":
            idat += body
        at += 12 + length
    raw, stride, rows = zlib.decompress(idat), width * 4, []
    previous = bytearray(stride)
    for y in range(height):
        kind, line = (
            raw[y * (stride + 1)],
            bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)]),
        )
        for x in range(stride):
            left = line[x - 4] if x >= 4 else 0
            up, corner = previous[x], previous[x - 4] if x >= 4 else 0
            if kind == 1:
                line[x] = (line[x] + left) & 255
            elif kind == 2:
                line[x] = (line[x] + up) & 255
            elif kind == 3:
                line[x] = (line[x] + (left + up) // 2) & 255
            elif kind == 4:
                guess = left + up - corner
                near = min((abs(guess - left), 0), (abs(guess - up), 1), (abs(guess - corner), 2))
                line[x] = (line[x] + (left, up, corner)[near[1]]) & 255
        rows.append(bytes(line))
        previous = line
    return width, height, rows


def alphas(rows: list[bytes], left: int, top: int, right: int, bottom: int) -> set[int]:
    return {row[x * 4 + 3] for row in rows[top:bottom] for x in range(left, right)}


@pytest.mark.slow
@NEEDED
def test_issue_33_the_overlay_leaves_the_centre_clear_and_holds_the_result(
    browser, wsom, broadcast_screenshot_path
):
    """Issue 33 "A real overlay": at 1920×1080 with ?transparent=1, a screenshot without
    background has every pixel of the frame's centre third fully transparent (alpha 0) while
    the plates are drawn; the plates name the players (the venue's names) by the hand's winds;
    at the win the result shows the winner, the tile, each pattern and the points, still after
    the hand is recorded and the session moved on (in Chinese too, by ?lang=zh), and gone at the
    next deal. README's
    docs/broadcast.png is this overlay over a checkerboard (`--broadcast-screenshot`)."""
    session, game = fourth_deal_win(wsom)
    source = FakeSource(view_of_win(session, game, VenueNotes(players=NAMES)))
    now = [100.0]  # the table's clock, moved by hand: the delay passes without a sleep
    source.broadcast = DelayedFeed(0.2, lambda: now[0])

    def publish() -> None:
        source.publish()
        now[0] += 0.3

    publish()
    with running_server(create_app(source, PIN, TOKEN)) as (base, _server):
        context = browser.new_context(viewport={"width": SIDE, "height": HEIGHT})
        page = context.new_page()
        address = f"{base}/broadcast?token={TOKEN}&transparent=1"
        page.goto(address)
        result = page.locator("#outcome .win[data-winner='N']")
        result.wait_for()
        page.evaluate("document.fonts.ready")

        def result_shown() -> None:
            assert "North 北 · Ng Ka wins" in result.locator(".winner").inner_text()
            assert result.locator(".win-tile .tile[data-tile='9p']").count() == 1
            rows = result.locator(".pattern")
            assert [
                (r.get_attribute("data-pattern"), *r.inner_text().split("\t")[::2])
                for r in rows.all()
            ] == PATTERNS
            assert result.locator(".total .points").inner_text() == "50"
            plates = {
                p.get_attribute("data-seat"): p.locator(".player").inner_text()
                for p in page.locator(".plate").all()
            }
            assert plates == AS_PLAYED
            assert page.locator("#info .round").get_attribute("data-round") == "E"

        result_shown()
        width, height, rows = pixels(page.screenshot(omit_background=True))
        assert (width, height) == (SIDE, HEIGHT)
        assert alphas(rows, SIDE // 3, HEIGHT // 3, 2 * SIDE // 3, 2 * HEIGHT // 3) == {0}
        assert 255 in alphas(rows, 0, 0, SIDE, HEIGHT // 3)  # the plates and corners are drawn

        session.record(game.table)  # on the sheet: the session is at the South round's hand 5
        publish()
        page.wait_for_function("document.querySelector('#info .round').textContent.includes('4')")
        result_shown()

        page.set_content(  # what the stream shows: the overlay over a picture (a checkerboard)
            "<body style='margin:0;background:repeating-conic-gradient(#8a8a8a 0 25%,"
            "#d0d0d0 0 50%) 0 0/80px 80px'><iframe src='" + address + "' style='border:0;"
            f"width:{SIDE}px;height:{HEIGHT}px'></iframe></body>"
        )
        page.frame_locator("iframe").locator("#outcome .win").wait_for()
        page.evaluate("document.fonts.ready")
        broadcast_screenshot_path.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(broadcast_screenshot_path))
        page.goto(address + "&lang=zh")  # issue 33 "Complete Chinese": the overlay too
        result.wait_for()
        assert result.locator(".winner").inner_text() == "北家 · Ng Ka 和牌"
        assert result.locator(".pattern").all_inner_texts()[0].split("\t") == ["平和", "5"]
        assert "莊家" in page.locator(".plate[data-seat='E'] .dealer").inner_text()
        page.goto(address)
        result.wait_for()

        source.view.table = session.new_table(stacked_walls(wsom, WSOM_DICE, [""] * 4))
        publish()  # the next deal: the walls rise
        page.locator("#outcome .win").wait_for(state="detached")
        assert page.locator("#info .round").get_attribute("data-round") == "S"
        context.close()
