"""The referee display served for tests: `FakeSource` (a DisplaySource over a TableView that
records the referee's actions and publishes updates as the service does), the app on a real port
(`running_server`), Debian's chromium logged in on it (`referee_page`), the live stream's events
read (`read_event`), and MISFITS, the page's own check that nothing sticks out of its panel."""

import asyncio
import threading
import time
from contextlib import contextmanager
from pathlib import Path

from firmware.audit import sheet as export_sheet
from firmware.display import ActionRefused, history
from firmware.display.broadcast import DelayedFeed
from firmware.display.state import TableView, table_state
from firmware.journal.failures import JournalError
from firmware.texts.public import public_event
from firmware.web.server import DisplayServer

PIN = "246810"  # config/tables/sim.toml's


BASE = "http://127.0.0.1:8080"  # the display as sim.toml serves it


OWN_PAGE = {"Origin": BASE}  # what a browser adds to the page's own POSTs


class FakeSource:
    """A DisplaySource over a TableView: it records the referee's actions and publishes one
    update per change to every open stream, dropping the oldest for a full queue."""

    def __init__(self, view: TableView):
        self.view = view
        self.table_name = view.table_name
        self.acts: list[tuple[str, dict]] = []
        self.actors: list[str | None] = []  # who did each of `acts` (None: the profile's PIN)
        self.refusal: str | None = None  # the message of ActionRefused, when set
        self.seq = 0
        self.subscribers: list[tuple[asyncio.Queue, bool, asyncio.AbstractEventLoop]] = []
        self.broadcast: DelayedFeed | None = None  # set by a test of the broadcast view
        self.journal: Path | None = None  # the hand history's (a test's), else none

    def snapshot(self, referee: bool) -> dict:
        return table_state(self.view, referee)

    def offences(self) -> dict:
        return {"ruleset": self.view.session.ruleset.name, "offences": []}

    def score_sheet(self) -> dict:
        if self.journal is None:
            raise JournalError("no journal behind this fake table")
        return export_sheet.sheet(self.journal)

    def history(self, referee: bool) -> dict:
        if self.journal is None:
            return {"history": history.FORMAT, "view": "public", "hands": []}
        return history.hands(self.journal, referee)

    def hand_replay(self, number: int, referee: bool) -> dict:
        if self.journal is None:
            raise history.UnknownHand(f"no hand {number}: this fake table has no journal")
        return history.steps(self.journal, number, referee)

    def subscribe(self, referee: bool) -> asyncio.Queue:
        queue = asyncio.Queue(maxsize=100)
        self.subscribers.append((queue, referee, asyncio.get_running_loop()))
        return queue

    def unsubscribe(self, queue) -> None:
        self.subscribers = [s for s in self.subscribers if s[0] is not queue]

    async def act(self, action: str, body: dict, who: str | None = None) -> dict:
        self.acts.append((action, body))
        self.actors.append(who)
        if self.refusal:
            raise ActionRefused(self.refusal)
        for alert in self.view.alerts:
            if action == "ack" and alert["id"] == body.get("alert"):
                alert["state"] = "acknowledged"
                self.publish()
        return {"done": action}

    def publish(self, events=()) -> None:
        """One change, from any thread: each stream gets the document of its view."""
        self.seq += 1
        for queue, referee, loop in list(self.subscribers):
            update = {
                "seq": self.seq,
                "state": self.snapshot(referee),
                "events": [e if referee else public_event(e) for e in events],
            }
            loop.call_soon_threadsafe(_put_dropping_oldest, queue, update)
        if self.broadcast is not None:
            self.broadcast.add(self.seq, self.snapshot(True))


def _put_dropping_oldest(queue: asyncio.Queue, update: dict) -> None:
    if queue.full():
        queue.get_nowait()
    queue.put_nowait(update)


@contextmanager
def running_server(app, tls=None, port: int = 0):
    """The app served by uvicorn (DisplayServer) on `port` (0: a free one) in a thread, over
    TLS with `tls` (certificate and key files): yields (base URL, server); stops it on the
    way out."""
    server = DisplayServer(app, "127.0.0.1", port, tls)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60  # a hang's bound: a busy machine only starts it later
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"{'https' if tls else 'http'}://127.0.0.1:{port}", server
    finally:
        server.should_exit = True
        thread.join(10)


@contextmanager
def referee_page(app, viewport=(1280, 800)):
    """The app served, and Debian's chromium on it at `viewport` (width, height) with the
    referee logged in (PIN): yields the page."""
    from playwright.sync_api import sync_playwright

    from tests.support.chromium import ARGS, CHROMIUM

    with (
        sync_playwright() as playwright,  # its own: the browser modules' others use asyncio.run
        running_server(app) as (base, _server),
    ):
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        page = browser.new_page(viewport={"width": viewport[0], "height": viewport[1]})
        page.goto(base + "/")
        page.fill("#login #pin", PIN)
        page.press("#login #pin", "Enter")
        try:
            yield page
        finally:
            browser.close()


def referee(pin=PIN) -> dict:
    return {"Authorization": f"Bearer {pin}"}


def read_event(lines) -> dict:
    """The fields of the next SSE event (comments kept under ':')."""
    event: dict = {}
    for line in lines:
        if not line:
            if event:
                return event
            continue
        name, _, value = line.partition(":")
        event[name] = value.strip()
    raise AssertionError("the stream ended")


# What is out of place on the page: each seat's tiles, rivers, hands and melds inside its
# panel, no panel wider or taller than it shows, the rivers' rows of 6 on one line each, no
# two of the seats and centre overlapping.
MISFITS = """() => {
  const out = [], box = (n) => n.getBoundingClientRect();
  const inside = (r, p) => r.left >= p.left - 1 && r.right <= p.right + 1
    && r.top >= p.top - 1 && r.bottom <= p.bottom + 1;
  const name = (n) => n.dataset.seat ? `seat ${n.dataset.seat}` : n.id || n.className;
  const panels = [...document.querySelectorAll("#table .seat, #centre")];
  for (const panel of [...panels, document.getElementById("table")]) {
    if (panel.scrollWidth > panel.clientWidth || panel.scrollHeight > panel.clientHeight)
      out.push(`${name(panel)} overflows: ${panel.scrollWidth}x${panel.scrollHeight} in `
        + `${panel.clientWidth}x${panel.clientHeight}`);
    const p = box(panel);
    for (const part of panel.querySelectorAll(
      ".tile, .river, .river-row, .hand, .exposed, .meld, .flowers, header, .waits")) {
      if (part.getClientRects().length && !inside(box(part), p))
        out.push(`${name(panel)}: a ${part.className} sticks out`);
    }
  }
  for (const row of document.querySelectorAll(".river-row")) {  // rows of 6, on one line
    const tops = [...row.children].map((t) => Math.round(box(t).top));
    if (row.children.length > 6 || new Set(tops).size > 1) out.push("a river row is broken");
  }
  for (const [i, a] of panels.entries()) for (const b of panels.slice(i + 1)) {
    const r = box(a), s = box(b);
    if (r.left < s.right - 1 && s.left < r.right - 1 && r.top < s.bottom - 1
      && s.top < r.bottom - 1) out.push(`${name(a)} overlaps ${name(b)}`);
  }
  const side = document.getElementById("side");
  if (side && side.offsetParent && side.scrollWidth > side.clientWidth)
    out.push("the side panel scrolls sideways");
  const table = box(document.getElementById("table"));
  if (table.right > innerWidth + 1 || table.bottom > innerHeight + 1)
    out.push("the table is bigger than the screen");
  return [...new Set(out)];
}"""


def open_tab(page, tab: str) -> None:
    """The side column's tab `tab` (alerts, penalties, faults, sheet, history, players, tools:
    display/static/tabs.js, issue 33) opened, its panel shown."""
    page.click(f"#tab-{tab}")
    page.wait_for_selector(f"#tab-{tab}[aria-selected='true']")
