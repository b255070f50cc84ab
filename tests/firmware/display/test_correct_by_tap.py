"""Correcting the tracking by tapping (issue 16): on the referee's page the referee taps the
tile on the table and chooses, in words, where it really is; the page sends the desk's
`correct` action with that tile and zone, and no tile number is ever shown. The public view
gives no concealed tile an id to tap."""

import re

import pytest

from engine.seats import LETTERS
from firmware.display.app import create_app
from tests.support.chromium import NEEDED
from tests.support.displaykit import PIN, FakeSource, open_tab, referee_page
from tests.support.scenes import view_of, wsom_scene
from tests.support.tablekit import S, W

pytestmark = [pytest.mark.slow, NEEDED]

MENU = "#correct-menu"


def shows_number(text: str, tile: int) -> bool:
    return re.search(rf"\b{tile}\b", text) is not None


def test_issue_16_the_referee_corrects_the_tracking_by_tapping_the_tile(wsom):
    """Issue 16 "correcting the tracking by touching the tile and choosing where it really
    is, no tile numbers": a tap on a tile of South's hand, then "West's river", sends
    ("correct", {tile, zone}) with the zone on West's side; a refusal names the tile by its
    face, not its number; Escape leaves the mode; the public view has no ids on concealed
    tiles and no mode."""
    game = wsom_scene(wsom)
    view = view_of(game)
    view.session.dealer = 1  # East deals from the S side: a zone's side is not its seat
    source = FakeSource(view)
    tile = game.table.hands[S][0]
    river = f"river_{LETTERS[view.session.player_at(W)]}"  # "river_N"
    shown_face_up = {t for held in game.table.referee.penalty_tiles for t in held}  # RULES 3.9
    concealed = {t for hand in game.table.hands for t in hand} - shown_face_up
    with referee_page(create_app(source, PIN)) as page:
        picked = f".seat[data-seat='S'] .hand .tile[data-id='{tile}']"
        page.wait_for_selector(picked)
        assert "tile id" not in page.inner_text("#sheet")  # no number to type any more
        page.click(picked)  # outside the mode a tap does nothing
        assert page.locator(MENU).count() == 0
        open_tab(page, "tools")  # issue 33: the side column's Tools tab
        page.click("#correct-mode")
        page.click(picked)
        page.click(f"{MENU} button[data-seat='W'][data-zone='river']")
        page.wait_for_selector(f"{MENU} .correct-answer:text('is now in West\\'s river')")
        assert source.acts[-1] == ("correct", {"tile": tile, "zone": river})

        source.refusal = f"tile {tile} is not on the table in this hand"
        page.click(f"{MENU} button[data-seat='W'][data-zone='river']")
        page.wait_for_selector(f"{MENU} .correct-answer.bad")
        shown = page.inner_text(MENU) + page.inner_text("#notice")
        assert "is not on the table in this hand" in shown
        assert not shows_number(shown, tile)
        assert "tile id" not in page.inner_text("body")

        page.keyboard.press("Escape")
        page.wait_for_selector(MENU, state="detached")
        assert page.inner_text("#correct-mode") == "Correct the tracking"
        page.click(picked)  # the mode is left: a tap opens nothing
        assert page.locator(MENU).count() == 0

        page.goto(page.url.rstrip("/") + "/table")
        page.wait_for_selector(".seat[data-seat='S'] .hand .tile")
        assert page.locator("#correct-mode").count() == 0
        assert page.locator(".tile[data-tile='back'][data-id]").count() == 0
        ids = page.eval_on_selector_all(".tile[data-id]", "ts => ts.map(t => +t.dataset.id)")
        assert ids and not set(ids) & concealed
