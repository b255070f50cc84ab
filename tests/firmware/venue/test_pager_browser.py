"""The referees' pager in a real browser (issue 33, "Public and hall"): `mjtable venue` on a
real Mosquitto with 200 tables (tests/support/venuetables.py), Debian's Chromium. The pager
updates in place, so a tap on "On my way" never lands on a button just replaced, and on a
phone (390x844) it is one list, waiting longest first, readable at 200 tables."""

from itertools import pairwise

import pytest

from tests.support.broker import Broker
from tests.support.chromium import NEEDED
from tests.support.venuekit import PIN, alert, state, status
from tests.support.venuetables import Tables, dashboard

pytestmark = [pytest.mark.slow, NEEDED]

TABLES = 200
PHONE = {"width": 390, "height": 844}
PHONE_TEXT_PX = 16  # a phone's own body text: smaller is read only by bringing it close


@pytest.fixture(scope="module")
def hall(tmp_path_factory):
    """The broker, T1 ... T200 (retained states) and `mjtable venue` on them."""
    folder = tmp_path_factory.mktemp("pager")
    broker = Broker(folder / "broker").start()
    tables = Tables(broker.port)
    for n in range(1, TABLES + 1):
        tables.send(f"T{n}", "status", status(f"T{n}"), retain=True)
        tables.send(f"T{n}", "state", state(f"T{n}", hand=2), retain=True)
    tables.flush()
    try:
        with dashboard(folder, broker.address, TABLES) as base:
            yield base, tables
    finally:
        tables.close()
        broker.stop()


def logged_in(browser, base: str, viewport: dict):
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    page.goto(base + "/")
    page.fill("#pin", PIN)
    page.click("#login button")
    page.wait_for_selector("#dashboard:not([hidden])")
    return context, page


def test_on_my_way_is_the_same_button_after_two_updates(browser, hall):
    """Issue 33 "Public and hall": the pager keeps an alert's item while it says the same, so
    the "On my way" button held before two updates is still on the page, and a tap on it
    sends the acknowledge for its table."""
    base, tables = hall
    context, page = logged_in(browser, base, {"width": 1280, "height": 800})
    tables.send("T11", "alerts", alert("T11", 5, 50))
    held = page.wait_for_selector("#pager li[data-table='T11'] button.on-my-way", timeout=30_000)
    for n, table in enumerate(("T12", "T13")):  # two updates, each a new alert
        tables.send(table, "alerts", alert(table, 5, 50 + n))
        page.wait_for_selector(f"#pager li[data-table='{table}']", timeout=30_000)
    assert held.evaluate("(button) => button.isConnected")
    page.fill("#referee-name", "Ana Ruiz")
    held.click()
    name, command = tables.command("acknowledge")
    assert name.endswith("/table/T11/cmd") and command["args"]["referee"] == "Ana Ruiz"
    context.close()


def test_the_phone_pager_lists_200_tables_waiting_longest_first(browser, hall):
    """Issue 33 "Public and hall": at 390x844 with a call at every one of 200 tables the page
    is the pager's list (no grid), the longest waiting first, each item whole in the width
    and in the phone's own text size, its "On my way" a finger's size."""
    base, tables = hall
    context, page = logged_in(browser, base, PHONE)
    order = [f"T{n}" for n in range(TABLES, 0, -1) if n not in (11, 12, 13)]
    for n, table in enumerate(order):
        tables.send(table, "alerts", alert(table, 7, 70 + n))
        if n % 50 == 49:  # in waves, so the venue receives them in this order
            page.wait_for_selector(f"#pager li[data-table='{table}']", timeout=60_000)
    page.wait_for_function(
        f"document.querySelectorAll('#pager li.alert').length >= {len(order)}", timeout=60_000
    )
    assert page.locator("#grid").is_hidden()
    shown = page.eval_on_selector_all(
        "#pager li.alert:not(.acknowledged)", "(items) => items.map((i) => i.dataset.table)"
    )
    waves = [order[i : i + 50] for i in range(0, len(order), 50)]
    places = {table: shown.index(table) for table in order}
    for earlier, later in pairwise(waves):
        assert max(places[t] for t in earlier) < min(places[t] for t in later)
    sizes = page.eval_on_selector_all(
        "#pager li.alert",
        """(items) => items.map((item) => ({
          wide: item.scrollWidth > item.clientWidth || item.getBoundingClientRect().right > 390,
          font: parseFloat(getComputedStyle(item.querySelector('.text')).fontSize),
          button: item.querySelector('button')?.getBoundingClientRect().height ?? 44}))""",
    )
    assert [s for s in sizes if s["wide"]] == []
    assert min(s["font"] for s in sizes) >= PHONE_TEXT_PX
    assert min(s["button"] for s in sizes) >= 44  # px: the usual finger's target on a phone
    context.close()
