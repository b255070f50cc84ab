"""The organiser seats the hall and a floor referee's phone gets the pager only, in a real
browser (issue 36 item 6): `mjtable venue` in a subprocess on a real Mosquitto, with its
organisers and floor referees each enrolled with his own secret, a paho client playing the
hall's tables, Debian's Chromium through Playwright (executable_path, never `playwright
install`)."""

import json
import time

import httpx
import pytest

from firmware.bus.signing import signed_by
from firmware.desk.referees import FILE, Referees
from tests.support.broker import Broker
from tests.support.chromium import NEEDED
from tests.support.venuekit import KEY, alert, state, status
from tests.support.venuetables import Tables, dashboard

pytestmark = [pytest.mark.slow, NEEDED]

TABLES = 8
ORGANISER, FLOOR = ("Mei Chen", "organiser-secret"), ("Ana Ruiz", "floor-secret-1")
NAMES = ["張偉", "王芳", "李娜", "劉洋", "陳靜", "楊勇", "黃敏", "趙磊"]


def plan_csv() -> str:
    """Round 1 of 32 players on T1..T8, Chinese names, seats as 東南西北, with a BOM."""
    lines = ["\ufeffround,table,seat,name,federation_id,country"]
    for t in range(TABLES):
        for s, wind in enumerate("東南西北"):
            n = 4 * t + s
            lines.append(f"1,T{t + 1},{wind},{NAMES[n % 8]}{n},CN-{n:03d},China")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def hall(tmp_path_factory):
    folder = tmp_path_factory.mktemp("venue-roles")
    broker = Broker(folder / "broker").start()
    tables = Tables(broker.port)
    for n in range(1, TABLES + 1):
        tables.send(f"T{n}", "status", status(f"T{n}"), retain=True)
        tables.send(f"T{n}", "state", state(f"T{n}"), retain=True)
    tables.flush()
    Referees(folder / "organisers" / FILE).add(*ORGANISER)
    Referees(folder / "floor" / FILE).add(*FLOOR)
    (folder / "plan.csv").write_text(plan_csv(), encoding="utf-8")
    people = ["--organisers", str(folder / "organisers"), "--floor-referees", str(folder / "floor")]
    try:
        with dashboard(folder, broker.address, TABLES, *people) as base:
            yield base, tables, folder / "plan.csv"
    finally:
        tables.close()
        broker.stop()


def log_in(browser, base: str, who: tuple[str, str], viewport: dict):
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    page.goto(base + "/")
    page.fill("#login-name", who[0])
    page.fill("#pin", who[1])
    page.click("#login button")
    page.wait_for_selector("#dashboard:not([hidden])")
    return page


def test_the_organiser_imports_the_plan_and_seats_the_hall(browser, hall):
    """Issue 36 items 1 and 6: the organiser chooses the plan's CSV, imports it and seats
    round 1: every table of the plan gets its start_session, signed with the venue key, with
    its four Chinese names by seat."""
    base, tables, plan = hall
    page = log_in(browser, base, ORGANISER, {"width": 1920, "height": 1080})
    page.set_input_files("#plan-file", str(plan))
    page.click("#import-plan")
    page.wait_for_function("document.getElementById('notice').textContent.includes('imported')")
    page.click("#seat-round")
    page.wait_for_function("document.getElementById('notice').textContent.includes('seated')")
    assert "start_session sent to 8 tables" in page.inner_text("#notice")
    seated = {}
    for _ in range(TABLES):
        _, command = tables.command("start_session", seconds=30)
        assert signed_by(command, KEY.public_key())
        seated[command["table"]] = [p["name"] for p in command["args"]["players"]]
    assert seated["T1"] == ["張偉0", "王芳1", "李娜2", "劉洋3"]
    assert sorted(seated) == sorted(f"T{n}" for n in range(1, TABLES + 1))
    page.context.close()


def test_a_floor_referees_phone_sees_the_pager_but_no_organiser_control(browser, hall):
    """Issue 36 items 3 and 6: on a 390x844 phone the floor referee sees the call on the
    pager and his On my way, and none of pause, resume, seating, standings or round files."""
    base, tables, _ = hall
    tables.send("T3", "alerts", alert("T3", 5, 40))
    page = log_in(browser, base, FLOOR, {"width": 390, "height": 844})
    button = page.locator("#pager li.alert[data-table='T3'] button.on-my-way")
    button.wait_for(timeout=30_000)
    assert button.is_visible()
    assert "Ana Ruiz (floor referee)" in page.inner_text("#you")
    for control in ("#pause-all", "#resume-all", "#seating", "#standings", "#grid"):
        assert not page.locator(control).is_visible(), control
    assert page.locator("a[href='/api/results.csv']").is_hidden()
    refused = page.evaluate(
        """() => fetch('/api/pause', {method: 'POST', headers: {'Content-Type':
        'application/json'}, body: JSON.stringify({confirm: true, reason: 'x'})})
        .then((r) => r.status)"""
    )
    assert refused == 403
    page.context.close()


def test_names_reach_the_board_once_the_tables_take_them(hall):
    """Issue 36 item 1: a table that took its start_session says its players' names in its
    state, and the board shows them."""
    base, tables, _ = hall
    players = [{"seat": s, "name": f"李娜{i}", "federation_id": None} for i, s in enumerate("ESWN")]
    tables.send("T8", "state", state("T8", players=players, seq=5), retain=True)
    deadline = time.monotonic() + 30
    while True:
        board = httpx.get(f"{base}/api/board", timeout=5).json()
        shown = {t["name"]: t["players"] for t in board["tables"]}
        if shown.get("T8", [None])[0] == "李娜0":
            break
        assert time.monotonic() < deadline, json.dumps(shown.get("T8"), ensure_ascii=False)
        time.sleep(0.1)
