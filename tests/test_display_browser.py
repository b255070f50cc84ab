"""The referee display page in a real browser (issue 6; SOFTWARE.md §6, §8 #24-25): Debian's
Chromium driven by Playwright against the app served by uvicorn, with the fake source of
tests/test_display.py over a real WSOM table. Never `playwright install`: the browser is
/usr/bin/chromium, with fonts-noto-cjk for the winds and dragons.

`display` is the one fixture that starts the table's display; point it at `mjtable run`
once the service exists.
"""

import json
from pathlib import Path

import httpx
import pytest

from engine import events as ev
from firmware.display.app import create_app
from tests.test_display import (PIN, FakeSource, leaks, read_event, running_server,
                                view_of, wsom_scene)

CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOT = Path(__file__).resolve().parents[1] / "docs" / "display.png"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is missing: "
                                "install Debian's chromium and fonts-noto-cjk to run the "
                                "browser tests (never `playwright install`)")


@pytest.fixture
def display(wsom):
    """(base URL, fake source, the game behind it): the display served on a free port. The
    table's clock: the seat to move has 8 s left of his 15 (RULES.md 3.12)."""
    game = wsom_scene(wsom)
    source = FakeSource(view_of(game, now=game.table.discard_times[-1] + 7))
    with running_server(create_app(source, PIN)) as (base, _server):
        yield base, source, game


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 800})   # a 10-inch screen
    yield context.new_page()
    context.close()


def log_in(page, base):
    page.goto(base + "/")
    page.fill("#login #pin", PIN)
    page.press("#login #pin", "Enter")
    page.wait_for_selector("[data-seat] .hand .tile")


def test_referee_logs_in_and_sees_four_seats(page, display):
    """Issue 6: the referee page asks for the PIN, then shows the four seats, each with
    its wind and its concealed hand."""
    base, _, game = display
    page.goto(base + "/")
    page.wait_for_selector("#login:not([hidden])")
    page.fill("#pin", "1111")
    page.press("#pin", "Enter")
    page.wait_for_selector("#login-error:text('Wrong PIN')")
    log_in(page, base)
    assert page.locator("[data-seat]").count() == 4
    assert page.locator("[data-seat='E'] .wind").inner_text().startswith("東")
    south = page.locator("[data-seat='S'] .hand .tile").count()
    assert south == len(game.table.hands[1])


def test_clocks_count_down_amber_then_red(page, display):
    """Issue 6, RULES.md 3.12: the mover's turn clock counts down in the page between
    updates and turns amber under 5 s; an update restarts it from its own time: over the
    limit it is red. The hand clock shows minutes."""
    base, source, game = display
    log_in(page, base)
    clock = page.locator(f"[data-seat='{'ESWN'[game.table.turn]}'] .clock-turn")
    assert 5 < float(clock.locator(".time").inner_text()) <= 8
    clock.and_(page.locator(".warn")).wait_for(timeout=6000)
    assert float(clock.locator(".time").inner_text()) < 5
    source.view.now = game.table.discard_times[-1] + 16
    source.publish()
    clock.and_(page.locator(".over")).wait_for(timeout=1000)
    assert clock.locator(".time").inner_text().startswith("−")
    hand = page.locator(f"[data-seat='{'ESWN'[game.table.turn]}'] .clock-hand .time")
    assert ":" in hand.inner_text()


def test_an_update_reaches_the_log_within_a_second(page, display):
    """Issue 6, SOFTWARE.md §6: a published change is on the page (#log) within a second."""
    base, source, game = display
    log_in(page, base)
    paused = ev.ClocksPaused(game.clock + 1, None)
    source.view.log.append(paused.to_json())
    source.publish([paused.to_json()])
    page.wait_for_selector("#log li[data-type='ClocksPaused']", timeout=1000)


def test_alert_is_acknowledged_by_its_button(page, display):
    """Issue 6: a new alert appears in #alerts and the referee acknowledges it with its
    button: the source gets the ack, and the alert is shown acknowledged."""
    base, source, game = display
    log_in(page, base)
    alert = game.table.referee.alert(game.clock + 1, 2, "RULES.md 3.6", "W reached for the wall")
    source.view.alerts.append(dict(alert.to_json(), state="open"))
    source.publish([alert.to_json()])
    item = page.locator(f"#alerts [data-alert-id='{alert.id}']")
    item.locator("button.ack").click()
    page.wait_for_selector(f"#alerts [data-alert-id='{alert.id}'].acknowledged")
    assert ("ack", {"alert": alert.id}) in source.acts


def test_public_page_and_stream_show_no_concealed_tile(page, display):
    """Issue 6: at /table, with no PIN, the page shows the four seats without any concealed
    tile: backs only for the hands and the concealed kong; the stream it reads has none."""
    base, _, game = display
    page.goto(base + "/table")
    page.wait_for_selector("[data-seat] .hand .tile")
    assert page.locator("#login").is_hidden() and page.locator("[data-seat]").count() == 4
    shown = {int(i) for i in page.eval_on_selector_all("[data-id]",
                                                       "nodes => nodes.map(n => n.dataset.id)")}
    public, _ = leaks({"tiles": sorted(shown)}, game.table)
    assert shown and public == set()
    assert page.locator("[data-seat='E'] .meld.concealed .tile[data-tile='back']").count() == 4
    with httpx.stream("GET", f"{base}/api/stream", timeout=10) as response:
        document = json.loads(read_event(response.iter_lines())["data"])
    assert leaks(document, game.table) == (set(), set())


def test_screenshot_of_the_referee_view(page, display):
    """docs/display.png: the referee view of a WSOM hand in play, for the README. The page's
    clock stands still, so the picture (and the file) is the same on every run."""
    base, _, _ = display
    page.clock.install(time=0)
    page.clock.pause_at(1000)
    log_in(page, base)
    page.evaluate("document.fonts.ready")
    SCREENSHOT.parent.mkdir(exist_ok=True)
    page.screenshot(path=str(SCREENSHOT))
    assert SCREENSHOT.stat().st_size > 10_000
