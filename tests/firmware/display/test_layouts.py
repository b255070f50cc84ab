"""Every screen size (issue 16, "Every screen"): the referee view (/) and the public view
(/table) fit 800x480, 1024x600, 1280x800 and 1920x1080 in Debian's chromium, a busy hand on
the table: no tile, river or meld sticks out of its seat's panel, no panel scrolls sideways,
and the seats and the centre do not overlap. A screenshot of each goes to tmp_path."""

import pytest

from firmware.display.app import create_app
from tests.support.chromium import NEEDED
from tests.support.displaykit import MISFITS, PIN, FakeSource, referee_page
from tests.support.scenes import flower_and_pung, kong_and_pung, view_of
from tests.support.tablekit import Game

pytestmark = [pytest.mark.slow, NEEDED]

SIZES = [(800, 480), (1024, 600), (1280, 800), (1920, 1080)]
BUSY = 64  # discards: rivers of 15 or 16 tiles on every side, three rows of 6


def busy_wsom(wsom) -> Game:
    """East's concealed kong and South's pung (tests/support/scenes.py's scene), then play on."""
    game = kong_and_pung(wsom)
    game.play_through(until=lambda g: len(g.table.discards) >= BUSY)
    return game


def busy_ccm(ccm) -> Game:
    """South's flower at the deal and North's pung (tests/support/scenes.py's scene), then play on,
    the flowers drawn later exposed too."""
    game = flower_and_pung(ccm)
    game.play_through(until=lambda g: len(g.table.discards) >= BUSY)
    return game


@pytest.mark.parametrize("language", ["en", "zh"])  # issue 16: the Chinese fits as well
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@pytest.mark.parametrize("rules, scene", [("wsom", busy_wsom), ("ccm", busy_ccm)])
def test_issue_16_both_views_fit_each_screen_without_clipping_or_overlap(
    rules, scene, size, language, request, tmp_path
):
    game = scene(request.getfixturevalue(rules))
    table = game.table
    assert min(len(river) for river in table.rivers) > 12 and any(table.melds)
    source = FakeSource(view_of(game))
    with referee_page(create_app(source, PIN), viewport=size) as page:
        if language == "zh":
            page.wait_for_selector("#controls #pause", state="attached")
            page.locator("#language").click()
            page.wait_for_selector("#pause:text('暫停')", state="attached")
        for view in ("/", "/table"):
            if view == "/table":
                page.goto(page.url.rstrip("/") + "/table")
            page.wait_for_selector("#table .seat .river .tile")
            page.wait_for_function("document.querySelectorAll('#table .seat').length === 4")
            page.screenshot(
                path=tmp_path
                / f"{rules}-{language}-{size[0]}x{size[1]}{view.replace('/', '-')}.png"
            )
            assert page.evaluate(MISFITS) == [], (view, size)
