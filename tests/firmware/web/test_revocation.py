"""Issue 32 item 6, "Sessions end when they should": a referee's open stream ends when his
session does (a logout, his removal, a new secret, a new session key), before it sends
anything more; and a logout holds after a restart of the service. The wall clock is the
test's; nothing waits.
"""

import json
import secrets
import stat

import pytest
from starlette.testclient import TestClient

from engine import events as ev
from firmware.desk.referees import FILE, Referees
from firmware.display.app import COOKIE, create_app
from firmware.venue.board import VenueBoard
from firmware.web.revocation import LOGOUTS, SESSION_KEY
from tests.support.chromium import NEEDED
from tests.support.displaykit import (
    BASE,
    OWN_PAGE,
    PIN,
    FakeSource,
    read_event,
    running_server,
)
from tests.support.scenes import view_of, wsom_scene
from tests.support.venuekit import PIN as ORGANISER_PIN
from tests.support.venuekit import VENUE, organiser_client

ALICE, ALICE_SECRET = "Alice Wong", "east wind rises"
NOON = 1_796_212_800.0  # 2026-12-02 12:00:00 UTC


@pytest.fixture
def enrolled(tmp_path) -> Referees:
    referees = Referees(tmp_path / FILE)
    referees.add(ALICE, ALICE_SECRET)
    return referees


@pytest.fixture
def source(wsom):
    return FakeSource(view_of(wsom_scene(wsom)))


def app_of(source, folder, referees, wall=lambda: NOON):
    """The display with its session key and logouts in the data directory `folder`."""
    return create_app(
        source, PIN, clock=lambda: 1000.0, referees=referees, data_dir=folder, wall=wall
    )


def logged_in(app) -> TestClient:
    client = TestClient(app, base_url=BASE)
    body = {"referee": ALICE, "pin": ALICE_SECRET}
    assert client.post("/api/referee/login", json=body, headers=OWN_PAGE).is_success
    return client


def next_event(lines) -> dict | None:
    """The stream's next event, or None when it ended."""
    try:
        return read_event(lines)
    except AssertionError:
        return None


def concealed_draw(tile: int) -> dict:
    return ev.TileDrawn(50.0 + tile, 1, tile).to_json()


def new_key(folder) -> None:
    (folder / SESSION_KEY).write_text(secrets.token_bytes(32).hex() + "\n")


@pytest.mark.parametrize(
    "revoke",
    [
        pytest.param(lambda folder, referees: referees.remove(ALICE), id="removal"),
        pytest.param(
            lambda folder, referees: referees.add(ALICE, "a new secret for the final"),
            id="new-secret",
        ),
        pytest.param(lambda folder, referees: new_key(folder), id="new-key"),
        pytest.param(lambda folder, referees: (folder / SESSION_KEY).unlink(), id="key-deleted"),
    ],
)
def test_issue_32_item_6_a_revoked_sessions_stream_sends_nothing_more(
    source, tmp_path, enrolled, revoke
):
    """Issue 32 item 6 (263 messages with every concealed tile in 10 s after a removal): once
    the referee is removed, his secret changed or the table's session key replaced (or
    deleted, the technician's way to end every session), his open
    stream ends before the next update, a concealed draw, is sent."""
    client = logged_in(app_of(source, tmp_path, enrolled))
    with client.stream("GET", "/api/referee/stream") as response:
        lines = response.iter_lines()
        assert next_event(lines) is not None  # the document
        source.publish([concealed_draw(1)])
        assert json.loads(next_event(lines)["data"])["events"][0]["tile"] == 1
        revoke(tmp_path, enrolled)
        source.publish([concealed_draw(2)])
        assert next_event(lines) is None
    assert client.get("/api/referee/state").status_code == 401
    assert len(source.subscribers) == 1  # the view's backlog: the page's own queue is closed


def test_issue_32_item_6_a_logout_ends_its_open_streams_at_once(source, tmp_path, enrolled):
    """Issue 32 item 6: a logout ends the streams its session opened at once, with nothing
    published since; a stream of another session (another tablet) goes on."""
    with TestClient(app_of(source, tmp_path, enrolled), base_url=BASE) as client:
        tokens = []
        for _ in range(2):  # the tablet's session, then the desk's
            body = {"referee": ALICE, "pin": ALICE_SECRET}
            client.post("/api/referee/login", json=body, headers=OWN_PAGE)
            tokens.append(client.cookies[COOKIE])
        client.cookies.clear()
        tablet, desk = ({"Cookie": f"{COOKIE}={token}"} for token in tokens)
        with (
            client.stream("GET", "/api/referee/stream", headers=tablet) as mine,
            client.stream("GET", "/api/referee/stream", headers=desk) as other,
        ):
            lines, others = mine.iter_lines(), other.iter_lines()
            assert next_event(lines) is not None and next_event(others) is not None
            logout = client.post("/api/referee/logout", json={}, headers=OWN_PAGE | tablet)
            assert logout.is_success
            assert next_event(lines) is None
            source.publish([concealed_draw(3)])
            assert json.loads(next_event(others)["data"])["events"][0]["tile"] == 3
        assert len(source.subscribers) == 1  # the view's backlog: the tablet's queue closed


def test_issue_32_item_6_the_organisers_logout_ends_his_dashboards_stream():
    """Issue 32 item 6 at the venue (the same login, firmware/web/login.py): the organiser's
    logout ends his dashboard's open stream at once."""
    with organiser_client(VenueBoard(VENUE)) as client:
        body = {"pin": ORGANISER_PIN}
        assert client.post("/api/login", json=body, headers=OWN_PAGE).is_success
        with client.stream("GET", "/api/stream") as response:
            lines = response.iter_lines()
            assert next_event(lines) is not None  # every table, at once
            assert client.post("/api/logout", json={}, headers=OWN_PAGE).is_success
            assert next_event(lines) is None


def test_issue_32_item_6_a_logout_outlives_a_restart(source, tmp_path, enrolled):
    """Issue 32 item 6 "a logout is forgotten by a restart": the token logged out opens
    nothing on a new app over the same data directory, where the logout is kept (0600)
    until the session would have expired; the session of another tablet still opens."""
    app = app_of(source, tmp_path, enrolled)
    tablet, desk = logged_in(app), logged_in(app)
    token = tablet.cookies[COOKIE]
    assert tablet.post("/api/referee/logout", json={}, headers=OWN_PAGE).json() == {"ok": True}
    restarted = app_of(FakeSource(source.view), tmp_path, enrolled)
    again = TestClient(restarted, base_url=BASE, cookies={COOKIE: token})
    assert again.get("/api/referee/state").status_code == 401
    other = TestClient(restarted, base_url=BASE, cookies={COOKIE: desk.cookies[COOKIE]})
    assert other.get("/api/referee/state").status_code == 200
    assert stat.S_IMODE((tmp_path / LOGOUTS).stat().st_mode) == 0o600


def test_issue_32_item_6_a_damaged_logouts_file_trusts_no_earlier_session(
    source, tmp_path, enrolled
):
    """Issue 32 item 6: a logouts file that cannot be read cannot say which sessions ended:
    none opened before the start is let in (the referee logs in again), never a crash."""
    token = logged_in(app_of(source, tmp_path, enrolled)).cookies[COOKIE]
    (tmp_path / LOGOUTS).write_text("{not json")
    restarted = app_of(FakeSource(source.view), tmp_path, enrolled, wall=lambda: NOON + 60)
    again = TestClient(restarted, base_url=BASE, cookies={COOKIE: token})
    assert again.get("/api/referee/state").status_code == 401
    assert logged_in(restarted).get("/api/referee/state").status_code == 200


@pytest.mark.slow
@NEEDED
def test_issue_32_item_6_the_page_of_a_removed_referee_goes_back_to_the_login(
    browser, source, tmp_path, enrolled
):
    """Issue 32 items 3 and 6 in the browser: an enrolled referee logs in with his name and
    his secret (issue 32 item 3: the name looks his record up); once he is removed, his
    page's stream ends at the next update and the page asks for a login again."""
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        with running_server(app_of(source, tmp_path, enrolled)) as (base, _):
            page.goto(base + "/")
            page.fill("#login #referee-name", ALICE)
            page.fill("#login #pin", ALICE_SECRET)
            page.press("#login #pin", "Enter")
            page.wait_for_selector("#tabs", state="visible")  # logged in: the desk is shown
            enrolled.remove(ALICE)
            source.publish([concealed_draw(4)])
            page.wait_for_selector("#login", state="visible", timeout=30_000)
    finally:
        page.close()
