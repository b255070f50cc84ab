"""The referee display in a real browser against the real table (issue 6; SOFTWARE.md §6,
§8 #23-25): `mjtable run` plays the simulated table in a subprocess and serves the display;
Debian's Chromium, driven by Playwright, shows it. Never `playwright install`: the browser is
/usr/bin/chromium, with fonts-noto-cjk for the winds and dragons.

The run (seed 3, five times real time) makes East slow, so overtime alerts come with their
penalties (RULES.md 3.12), and puts a foreign tile on a hand rack in the first hand, a
tracking fault for the referee. What the run cannot be made to show on cue (a clock turning
amber, an alert awaiting a ruling, a concealed kong) is shown by the fake source of
tests/support/displaykit.py.
"""

import json
import re
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import expect

from engine.seats import LETTERS
from firmware.display.app import create_app
from firmware.display.broadcast import DelayedFeed
from firmware.display.state import waits_json
from firmware.journal.failures import Stopped
from firmware.journal.store import Journal
from firmware.ports import free_port
from firmware.table.venue_notes import VenueNotes
from firmware.texts.notices import NOT_REFEREEING
from firmware.web.auth import SHIPPED_BROADCAST_TOKEN
from tests.conftest import REPO
from tests.support.chromium import NEEDED
from tests.support.displaykit import PIN, FakeSource, open_tab, read_event, running_server
from tests.support.scenes import (
    concealed,
    hidden_fields,
    leaks,
    ready_south,
    tile_ids,
    view_of,
    with_waits,
    wsom_scene,
)
from tests.support.tablekit import E, S

REFEREE = {"Authorization": f"Bearer {PIN}"}  # config/tables/sim.toml's referee PIN
BROADCAST_TOKEN = "a-long-browser-test-token"
START_SECONDS = 30  # bounds on waiting for the run: to serve, to deal, to show a fault
PLAY_SECONDS = 40

pytestmark = [
    pytest.mark.slow,
    NEEDED,
]


# -- the table: `mjtable run` in a subprocess ---------------------------------------------------


class Run:
    """`mjtable run` on the simulated table with its display on a free port."""

    def __init__(self, folder: Path):
        self.journal = folder / "j.sqlite"
        self.output = folder / "run.txt"
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        with open(self.output, "w") as out:  # a file, not a pipe: the run prints a lot
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "firmware.cli",
                    "run",
                    "--port",
                    str(self.port),
                    "--speed",
                    "5",
                    "--seed",
                    "3",
                    "--journal",
                    str(self.journal),
                    "--faults",
                    "slow=E,foreign=1",
                ],
                cwd=REPO,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        self.wait_until(
            lambda: f"referee display: {self.base}/" in self.output.read_text(),
            "print the display's address",
        )
        self.wait_until(self._answers, "answer /api/state")

    def _answers(self) -> bool:
        try:
            return httpx.get(f"{self.base}/api/state", timeout=2).status_code == 200
        except httpx.TransportError:
            return False

    def wait_until(self, ready, what: str, seconds: float = START_SECONDS):
        deadline = time.monotonic() + seconds
        while not (result := ready()):
            assert self.process.poll() is None, (
                f"mjtable run ended before it could {what}:\n" + self.output.read_text()
            )
            assert time.monotonic() < deadline, f"mjtable run did not {what} in {seconds} s"
            time.sleep(0.1)
        return result

    def referee_state(self) -> dict:
        return httpx.get(f"{self.base}/api/referee/state", headers=REFEREE, timeout=5).json()

    def in_play(self) -> dict:
        """The referee's document once the hand is dealt and play is on."""

        def dealt():
            state = self.referee_state()
            return state if state["state"] in ("draw", "discard", "claim_window") else None

        return self.wait_until(dealt, "deal a hand")

    def stop(self) -> int:
        """Ctrl-C, as at the table: the run ends within seconds, even with pages open."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                raise AssertionError("mjtable run did not stop within 20 s of Ctrl-C") from None
        return self.process.returncode


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """One run for the tests that only look at it, whatever their order."""
    run = Run(tmp_path_factory.mktemp("run"))
    yield run
    run.stop()


@pytest.fixture
def own_table(tmp_path):
    """A run of its own for a test that changes it (acknowledges its fault, stops it), so that
    the others find theirs as they need it in any order."""
    run = Run(tmp_path)
    yield run
    run.stop()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 800})  # a 10-inch screen
    yield context.new_page()
    context.close()


def log_in(page, base):
    page.goto(base + "/")
    page.fill("#login #pin", PIN)
    page.press("#login #pin", "Enter")
    page.wait_for_selector("[data-seat] .hand .tile")


def turn_clocks(page) -> dict[str, tuple[bool, str]]:
    return {
        c["seat"]: (c["running"], c["time"])
        for c in page.eval_on_selector_all(
            "[data-seat]",
            """seats => seats.map(s => ({seat: s.dataset.seat,
            running: s.querySelector('.clock-turn').hasAttribute('data-running'),
            time: s.querySelector('.clock-turn .time').textContent}))""",
        )
    }


# -- the real table ---------------------------------------------------------------------------


def test_referee_logs_in_and_sees_four_seats_with_live_clocks(page, table):
    """Issue 6: the referee page asks for the PIN (a wrong one is refused), then shows the
    four seats of the hand in play, each with its wind and its concealed hand, and the
    clocks run: a turn clock's number changes between two looks (RULES.md 3.12); the hand
    clock shows minutes."""
    table.in_play()
    page.goto(table.base + "/")
    page.wait_for_selector("#login:not([hidden])")
    page.fill("#pin", "1111")
    page.press("#pin", "Enter")
    page.wait_for_selector("#login-error:text('Wrong PIN')")
    log_in(page, table.base)
    assert page.locator("[data-seat]").count() == 4
    assert page.locator("[data-seat='E'] .wind").inner_text().startswith("東")
    for seat in LETTERS:
        assert page.locator(f"[data-seat='{seat}'] .hand .tile[data-id]").count() > 0
    assert page.locator(".hand .tile[data-tile='back']").count() == 0
    assert ":" in page.locator("[data-seat='E'] .clock-hand .time").inner_text()
    before = turn_clocks(page)

    def ticked():
        nonlocal before
        now = turn_clocks(page)
        moved = any(
            running and before[seat][0] and before[seat][1] != shown
            for seat, (running, shown) in now.items()
        )
        before = now
        return moved

    table.wait_until(ticked, "show a turn clock counting")


def test_an_event_is_pushed_to_the_open_page(page, table):
    """Issue 6, SOFTWARE.md §6: what the service did comes to the open page without a reload:
    the newest entry of the referee's event log, as the API gives it, comes into the page's
    event list (three entries, as play goes on). How soon is `mjtable bench display`'s to
    measure: tests never assert a time (DESIGN.md, Conventions)."""
    table.in_play()
    log_in(page, table.base)
    shows = """([type, t]) => [...document.querySelectorAll('#log li')].some(li =>
        li.dataset.type === type && li.querySelector('.t').textContent === Number(t).toFixed(1))"""
    seen = None

    def newer():
        entry = table.referee_state()["log"][-1]
        return entry if entry != seen else None

    for _ in range(3):
        newest = table.wait_until(newer, "log a new event")
        page.wait_for_function(shows, arg=[newest["type"], newest["t"]], timeout=10_000)
        seen = newest


def test_actions_without_the_pin_are_refused(table):
    """Issue 6: a referee action without credentials is 401, with a wrong PIN 403, and the
    table goes on unpaused."""
    pause = f"{table.base}/api/referee/pause"
    assert httpx.post(pause, json={}).status_code == 401
    assert httpx.post(pause, json={}, headers={"Authorization": "Bearer 1357"}).status_code == 403
    assert httpx.get(f"{table.base}/api/referee/state").status_code == 401
    assert table.referee_state()["clocks_paused"] is False


def read_stream(url: str, headers: dict, updates: int = 8, seconds: float = 15) -> list[dict]:
    """The stream's first message (the whole document) and the next `updates` updates, or
    what came in `seconds`."""
    messages, deadline = [], time.monotonic() + seconds
    try:
        with httpx.stream("GET", url, headers=headers, timeout=httpx.Timeout(5, read=10)) as r:
            lines = r.iter_lines()
            while len(messages) <= updates and time.monotonic() < deadline:
                event = read_event(lines)
                if "data" in event:
                    messages.append(json.loads(event["data"]))
    except httpx.ReadTimeout:
        pass  # a quiet table: what came is enough
    return messages


def test_public_page_and_stream_show_no_concealed_tile(page, table):
    """Issue 6: at /table, with no PIN, the hands are backs and no concealed tile is on the
    page; the public stream, read beside the referee's, never carries a tile that the
    referee's update of the same moment (the same seq) has concealed, nor a hidden field:
    no hand, no drawn tile, no deal, no concealed kong's faces, no fault's tile."""
    table.in_play()
    page.goto(table.base + "/table")
    page.wait_for_selector("[data-seat] .hand .tile")
    assert page.locator("#login").is_hidden() and page.locator("[data-seat]").count() == 4
    assert page.locator(".hand .tile:not(.penalty):not([data-tile='back'])").count() == 0

    def shown_while_still():  # the page's tiles while the hands stood still
        hidden = concealed(table.referee_state())
        shown = {
            int(i)
            for i in page.eval_on_selector_all("[data-id]", "nodes => nodes.map(n => n.dataset.id)")
        }
        return (hidden, shown) if concealed(table.referee_state()) == hidden else None

    hidden, shown = table.wait_until(shown_while_still, "stand still")
    assert hidden and not hidden & shown

    with ThreadPoolExecutor(2) as pool:
        public = pool.submit(read_stream, f"{table.base}/api/stream", {})
        referee = pool.submit(read_stream, f"{table.base}/api/referee/stream", REFEREE)
        public, referee = public.result(), referee.result()
    assert public and public[0]["seq"] is None
    assert [
        problem
        for message in public
        for problem in hidden_fields(dict(message["state"], events=message["events"]))
    ] == []
    same_moment = {m["seq"]: m for m in referee if m["seq"] is not None}
    pairs = [(m, same_moment[m["seq"]]) for m in public if m["seq"] in same_moment]
    assert pairs, "no update came on both streams"
    for mine, theirs in pairs:
        assert not tile_ids(mine) & concealed(theirs["state"]), f"update {mine['seq']}"


def test_screenshot_of_the_referee_view(page, table, screenshot_path):
    """README's docs/display.png: the referee's view of the run's first hand on the common
    10.1-inch 1024x600 panel (issue 33), the concealed hands shown, an overtime alert in the
    side column's first tab, the faults counted on theirs. Written to the checkout only when
    asked (`--screenshot docs/display.png`, tests/conftest.py)."""
    page.set_viewport_size({"width": 1024, "height": 600})
    log_in(page, table.base)
    page.wait_for_selector(
        "#faults .fault button.ack", state="attached", timeout=PLAY_SECONDS * 1000
    )
    page.wait_for_selector("#alerts .alert")
    page.evaluate("document.fonts.ready")
    screenshot_path.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(screenshot_path))
    assert screenshot_path.stat().st_size > 10_000


def test_a_fault_is_acknowledged_by_its_button_and_journaled(page, own_table):
    """Issue 6: the foreign tile's fault appears in the referee's fault list; its button
    acknowledges it: the page shows it done, and the journal keeps the acknowledgement
    (a device row). Ctrl-C then stops the run at once although the page's stream is open
    (SOFTWARE.md §8 #23)."""
    log_in(page, own_table.base)
    open_tab(page, "faults")  # issue 33: the side column's Faults tab
    fault = page.locator("#faults .fault", has_text="foreign").first
    fault.wait_for(timeout=PLAY_SECONDS * 1000)
    fault_id = int(fault.get_attribute("data-fault-id"))
    fault.locator("button.ack").click()
    page.wait_for_selector(f"#faults [data-fault-id='{fault_id}'].seen")  # not cleared: issue 16
    assert own_table.stop() == 0
    with Journal(own_table.journal, create=False) as journal:
        devices = [row.data() for row in journal.rows() if row.kind == "device"]
    assert [d["fault"] for d in devices if d["type"] == "Acknowledged"] == [fault_id]


# -- what the run cannot show on cue: the fake source over a WSOM scene -------------------------


@pytest.fixture
def display(wsom):
    """(base URL, fake source, the game behind it): the display served on a free port. The
    table's clock: the seat to move has 8 s left of his 15 (RULES.md 3.12)."""
    game = wsom_scene(wsom)
    source = FakeSource(view_of(game, now=game.table.discard_times[-1] + 7))
    with running_server(create_app(source, PIN)) as (base, _server):
        yield base, source, game


def test_clocks_count_down_amber_then_red(page, display):
    """Issue 6, RULES.md 3.12: the mover's turn clock counts down in the page between
    updates and turns amber under 5 s; an update restarts it from its own time: over the
    limit it is red."""
    base, source, game = display
    page.clock.install(time=0)  # the page's clock, moved by the test: a busy machine is no
    page.clock.pause_at(1000)  # later for it (issue 29)
    log_in(page, base)
    clock = page.locator(f"[data-seat='{LETTERS[game.table.turn]}'] .clock-turn")
    page.clock.run_for(100)  # the page's first tick: 8 s left, less its 0.1 s
    assert float(clock.locator(".time").inner_text()) == 7.9
    assert clock.and_(page.locator(".warn")).count() == 0
    page.clock.run_for(3000)
    assert float(clock.locator(".time").inner_text()) == 4.9
    assert clock.and_(page.locator(".warn")).count() == 1
    source.view.now = game.table.discard_times[-1] + 16
    source.publish()
    # The update has come (its own time, 1 s over the limit): looked for by Playwright, not by
    # the page, whose paused clock fires no frame to wait on.
    expect(clock).to_have_attribute("data-remaining", re.compile(r"^-"), timeout=60_000)
    page.clock.run_for(100)
    assert clock.and_(page.locator(".over")).count() == 1
    assert clock.locator(".time").inner_text().startswith("−")


def test_a_proposed_penalty_is_ruled_by_its_buttons(page, display):
    """Issue 6, RULES.md 3.11, issue 16: an alert whose penalty awaits the referee has Apply
    and Waive buttons, at the centre; Apply sends the ruling for that alert with the reason
    chosen."""
    base, source, _ = display
    waiting = next(
        a
        for a in source.view.alerts
        if a["state"] == "open" and a["penalty"] and a["penalty"]["confirm"]
    )
    waiting["awaits_ruling"] = (
        True  # as the desk says of a penalty it holds (firmware/desk/desk.py)
    )
    log_in(page, base)
    panel = page.locator(f"#ruling[data-alert-id='{waiting['id']}']")
    assert panel.locator("button.waive").is_visible()
    panel.locator("select.reason-choice").select_option("seen by the referee")
    panel.locator("button.apply").click()
    page.wait_for_selector("#ruling .feedback:text('rule: done')")
    body = {"alert": waiting["id"], "apply": True, "reason": "seen by the referee"}
    assert ("rule", body) in source.acts


def test_public_page_shows_a_concealed_kong_face_down(page, display):
    """Issue 6: at /table East's concealed kong is four backs, and no concealed tile is
    anywhere on the page."""
    base, _, game = display
    page.goto(base + "/table")
    page.wait_for_selector("[data-seat] .hand .tile")
    assert page.locator("[data-seat='E'] .meld.concealed .tile[data-tile='back']").count() == 4
    shown = {
        int(i)
        for i in page.eval_on_selector_all("[data-id]", "nodes => nodes.map(n => n.dataset.id)")
    }
    assert shown and leaks({"tiles": sorted(shown)}, game.table) == (set(), set())


def test_issue_20_item_7_a_table_that_stopped_refereeing_says_so_over_the_page(page, display):
    """Issue 20 item 7: once the table stops refereeing (its journal's disk), a banner over
    the referee's page says NOT REFEREEING, why and what to do, and his buttons go (no
    action can be journaled); the public page says it in its own words."""
    base, source, _ = display
    log_in(page, base)
    assert page.locator("#not-refereeing").is_hidden()
    source.view.not_refereeing = Stopped(30.0, "disk full", "disk full: 40 MB free for the journal")
    source.publish()
    banner = page.locator("#not-refereeing")
    banner.wait_for(timeout=30_000)
    assert banner.locator(".headline").inner_text() == "NOT REFEREEING"
    assert "40 MB free" in banner.inner_text() and "call the technician" in banner.inner_text()
    assert page.locator("#pause").is_hidden() and page.locator("#alerts button").count() > 0
    assert not any(button.is_visible() for button in page.locator("#alerts button").all())
    page.goto(base + "/table")
    page.locator("#not-refereeing").wait_for(timeout=30_000)
    assert NOT_REFEREEING["disk full"] in page.locator("#not-refereeing").inner_text()


def test_issue_15_both_pages_show_the_venues_message_seating_and_referee_on_the_way(page, display):
    """Issue 15: what the venue sent is on both pages: its message in the centre, each
    seat's name as the venue seated the players, and "<referee> is on the way" in the
    centre and beside the call the venue acknowledged (fault 1 of the scene)."""
    base, source, _ = display
    names = ["Li Wei", "Ana Souza", "山田 花子", "Tom Berg"]
    source.view.venue = VenueNotes(
        tuple({"name": name, "federation_id": None} for name in names),
        "Round 2 starts at 14:00",
        {"referee": "Chen Jun", "alert": 1, "at": 1_750_000_000.0},
    )
    for visit in (lambda: page.goto(base + "/table"), lambda: log_in(page, base)):
        visit()
        page.locator("#centre .venue-message", has_text="Round 2 starts at 14:00").wait_for(
            timeout=30_000
        )
        assert page.locator("#centre .on-way").inner_text() == "Chen Jun is on the way"
        open_tab(page, "faults")
        call = page.locator("#faults [data-fault-id='1'] .on-way")
        assert call.inner_text() == "Chen Jun is on the way"
        shown = page.eval_on_selector_all(
            "[data-seat] .player-name", "ns => ns.map(n => n.textContent)"
        )
        assert sorted(shown) == sorted(names)


def test_issue_17_both_pages_show_the_seal_then_the_reveal(page, display):
    """Issue 17: "wall sealed: <16 hex digits>…" on both pages while the hand is played, then
    "wall revealed" with the whole digest and that it matches the seal."""
    base, source, _ = display
    digest = "3fa9" + "0123456789abcdef" * 3 + "c0ffee012345"
    shown = digest[:16] + "…"
    log_in(page, base)
    for state, text in (
        ("sealed", f"wall sealed: {shown}"),
        ("revealed", f"wall revealed: {digest}"),
    ):
        source.view.seal = {
            "hand": {"state": state, "digest": digest, "shown": shown, "matches": True},
            "next": None,
        }
        for view in ("/table", "/"):  # the public page, the referee's (logged in)
            page.goto(base + view)
            seal = page.locator(f"#centre .seal-hand[data-state='{state}']")
            seal.wait_for(timeout=30_000)
            assert seal.inner_text().startswith(text)
    assert "matches the seal" in seal.inner_text()


# -- issue 18: the waits on the referee's page and the broadcast view ---------------------------


@pytest.fixture
def ready_display(wsom):
    """(base URL, the game): the fake source over a hand where South, ready on 1p 4p 7p,
    has called a win on East's 4p; the broadcast's feed 0.2 s late, its document released."""
    game = ready_south(wsom)
    game.discard(E, "4p")
    game.claim(S, "win")
    source = FakeSource(with_waits(game))
    now = [100.0]  # the table's clock, moved by hand: the delay passes without a sleep
    source.broadcast = DelayedFeed(0.2, lambda: now[0])
    source.publish()
    now[0] += 0.3
    with running_server(create_app(source, PIN, BROADCAST_TOKEN)) as (base, _server):
        yield base, game


def test_issue_18_the_referee_page_shows_each_seats_waits_and_the_win_check(page, ready_display):
    """Issue 18: under each hand the referee sees how far it is from ready, and for South each
    winning tile's face with its counts (unseen / in the live wall) and values; the centre
    shows the win called on the discard: "win check: legal, N". The public page shows none."""
    base, game = ready_display
    log_in(page, base)
    south = page.locator("[data-seat='S'] .waits.ready")
    assert [w.get_attribute("data-wait") for w in south.locator(".wait").all()] == [
        "1p",
        "4p",
        "7p",
    ]
    assert south.locator(".wait[data-wait='4p'] .tile").count() == 1
    east = page.locator("[data-seat='E'] .waits .shanten").inner_text()
    assert east.endswith("away")
    check = page.locator("#centre .win-check[data-winner='S']")
    total = next(w for w in waits_json(game.table)[0][S]["waits"] if w["tile"] == "4p")
    total = total["discard"]["total"]
    assert check.locator(".verdict").inner_text() == f"win check: legal, {total}"
    page.goto(base + "/table")
    page.wait_for_selector("[data-seat] .hand .tile")
    assert page.locator(".waits, .win-check").count() == 0


@pytest.fixture
def hd_page(browser):
    context = browser.new_context(viewport={"width": 1920, "height": 1080})  # OBS's source
    yield context.new_page()
    context.close()


def test_issue_18_the_broadcast_shows_four_hands_and_waits_at_1080p(hd_page, ready_display):
    """Issue 18: /broadcast with its token, at 1920×1080, shows all four hands face up, South's
    waits with their values and the win check; ?transparent=1 leaves the background clear;
    without the token the page is refused."""
    base, game = ready_display
    assert httpx.get(f"{base}/broadcast").status_code == 401
    hd_page.goto(f"{base}/broadcast?token={BROADCAST_TOKEN}&transparent=1")
    hd_page.wait_for_selector("[data-seat='S'] .waits.ready .wait")
    for seat in LETTERS:
        faces = hd_page.locator(f"[data-seat='{seat}'] .hand .tile[data-id]").count()
        assert faces == len(game.table.hands[LETTERS.index(seat)])
    assert hd_page.locator(".hand .tile[data-tile='back']").count() == 0
    assert hd_page.locator("[data-seat='S'] .wait").count() == 3
    assert "win check: legal" in hd_page.locator("#outcome .win-check").inner_text()
    background = hd_page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgba(0, 0, 0, 0)"
    box = hd_page.locator("#broadcast").bounding_box()
    assert (box["width"], box["height"]) == (1920, 1080)


def test_issue_16_the_broadcast_in_chinese_by_its_address(hd_page, ready_display):
    """Issue 16 "the interface in Chinese": a stream's browser source has no switch to tap,
    so ?lang=zh gives the broadcast in Chinese (the round, the phase, the win check, the
    delay); without it the broadcast stays English."""
    base, _ = ready_display
    hd_page.goto(f"{base}/broadcast?token={BROADCAST_TOKEN}&lang=zh")
    hd_page.wait_for_selector("#outcome .win-check")
    assert "和牌檢查：合規" in hd_page.locator("#outcome .win-check").inner_text()
    assert "風圈" in hd_page.locator("#info .round").inner_text()
    assert "延遲" in hd_page.locator("#info .delay").inner_text()
    hd_page.goto(f"{base}/broadcast?token={BROADCAST_TOKEN}")
    hd_page.wait_for_selector("#outcome .win-check")
    assert "round" in hd_page.locator("#info .round").inner_text()


def test_issue_18_the_run_broadcasts_its_waits_with_the_shipped_token(hd_page, table):
    """Issue 18: `mjtable run`'s broadcast, opened on the table itself with the shipped token,
    shows the first hand a minute of table time late, once a seat is ready with its waits.
    (README's docs/broadcast.png is the overlay at a win: test_broadcast_overlay.py.)"""
    hd_page.goto(f"{table.base}/broadcast?token={SHIPPED_BROADCAST_TOKEN}")
    hd_page.wait_for_selector(".waits.ready .wait", timeout=4 * PLAY_SECONDS * 1000)
    assert hd_page.locator(".plate[data-seat] .hand .tile[data-id]").count() >= 4 * 13
