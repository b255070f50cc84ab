"""Issue 16, "Referees by name" and "SSE resume": every referee action is journaled with who did
it and the time of day; a referee's session is a signed token that outlives a restart of the
service and ends when it expires, is tampered with, logged out or his secret changes; a page
that reconnects with Last-Event-ID gets the updates it missed, of its own view only. Clocks
are fake: the wall clock is set by the test, the throttle's stands still.
"""

import asyncio
import base64
import json
import stat

import pytest
from starlette.testclient import TestClient

from engine import events as ev
from firmware.desk.desk import Desk
from firmware.desk.referees import FILE, Referees
from firmware.display import ActionRefused
from firmware.display.app import COOKIE, create_app
from firmware.journal.store import Journal
from firmware.ports import free_port
from firmware.web import sse
from firmware.web.auth import SESSION_SECONDS
from firmware.web.revocation import SESSION_KEY
from tests.support.chromium import NEEDED
from tests.support.displaykit import (
    BASE,
    OWN_PAGE,
    PIN,
    FakeSource,
    open_tab,
    read_event,
    running_server,
)
from tests.support.scenes import view_of, wsom_scene
from tests.support.servicekit import Clock, dealt_service, take_queued

ALICE, ALICE_SECRET = "Alice Wong", "east wind rises"
NOON = 1_796_212_800.0  # 2026-12-02 12:00:00 UTC


class Wall:
    """The wall clock, set by the test."""

    def __init__(self, t: float = NOON):
        self.t = t

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def enrolled(tmp_path) -> Referees:
    referees = Referees(tmp_path / FILE)
    referees.add(ALICE, ALICE_SECRET)
    return referees


@pytest.fixture
def source(wsom):
    return FakeSource(view_of(wsom_scene(wsom)))


def app_of(source, tmp_path, referees=None, wall=None):
    """The display as the rig makes it: its session key in the data directory `tmp_path`."""
    return create_app(
        source, PIN, clock=lambda: 1000.0, referees=referees, data_dir=tmp_path, wall=wall or Wall()
    )


def logged_in(app, secret: str) -> TestClient:
    """Logged in as Alice (her name is not asked while no referee is enrolled)."""
    client = TestClient(app, base_url=BASE)
    body = {"pin": secret, "referee": ALICE}
    assert client.post("/api/referee/login", json=body, headers=OWN_PAGE).is_success
    return client


def with_cookie(app, token: str) -> TestClient:
    return TestClient(app, base_url=BASE, cookies={COOKIE: token})


def acted(desk: Desk, action: str, body: dict, who: str | None) -> dict:
    """The action through the actor's queue, as the display submits it (servicekit's act)."""

    async def acting():
        answer = asyncio.ensure_future(desk.act(action, body, who=who))
        await asyncio.sleep(0)
        take_queued(desk.service)
        return await answer

    return asyncio.run(acting())


# -- who acted, and when ----------------------------------------------------------------------


def test_issue_16_an_action_is_journaled_with_the_referee_and_the_time_of_day(tmp_path):
    """Issue 16 "every action journaled with who and the wall-clock time": the action's own
    rows, then RefereeActed naming the referee, the action and the UTC time; with no referee
    enrolled (the profile's PIN) it names nobody. An input the engine refused is journaled
    (with its Alert), so whose it was too; a refusal before any row journals nothing."""
    with Journal(tmp_path / "j.sqlite") as journal:
        desk = Desk(dealt_service(journal, Clock()), "T07", wall=Wall(NOON + 0.25))
        acted(desk, "pause", {}, ALICE)
        acted(desk, "resume", {}, None)
        seq = journal.seq
        with pytest.raises(ActionRefused, match="no hand to sign"):
            acted(desk, "sign_sheet", {"hand": 1, "referee": ALICE}, ALICE)
        assert journal.seq == seq  # refused before anything was journaled: nothing
        with pytest.raises(ActionRefused, match="already running"):
            acted(desk, "resume", {}, ALICE)  # the engine's refusal: its input journaled
        rows = [(r.kind, r.data()) for r in journal.rows()][-7:]
    assert [(kind, row["type"]) for kind, row in rows] == [
        ("input", "ClocksPaused"),
        ("device", "RefereeActed"),
        ("input", "ClocksResumed"),
        ("device", "RefereeActed"),
        ("input", "ClocksResumed"),
        ("output", "Alert"),
        ("device", "RefereeActed"),
    ]
    alice, pin = rows[1][1], rows[3][1]
    assert rows[6][1]["referee"] == ALICE
    assert (alice["action"], alice["referee"], alice["t"]) == ("pause", ALICE, rows[0][1]["t"])
    assert alice["wall_time"] == "2026-12-02T12:00:00.250+00:00"
    assert (pin["action"], pin["referee"]) == ("resume", None)
    assert ev.from_json(alice) == ev.RefereeActed(
        alice["t"], None, "pause", ALICE, alice["wall_time"]
    )


def test_issue_16_the_display_passes_who_and_its_answer_echoes_him(source, tmp_path, enrolled):
    """Issue 16: the desk is told which enrolled referee pressed (his session's name), and
    the answer says so; with no referee enrolled the profile's PIN acts as nobody (None)."""
    client = logged_in(app_of(source, tmp_path, enrolled), ALICE_SECRET)
    answer = client.post("/api/referee/ack", json={"alert": 1}, headers=OWN_PAGE)
    assert answer.json() == {"done": "ack", "by": ALICE}
    other = FakeSource(source.view)
    pin = logged_in(app_of(other, tmp_path / "pin"), PIN)
    assert pin.post("/api/referee/ack", json={"alert": 1}, headers=OWN_PAGE).json()["by"] is None
    assert (source.actors, other.actors) == ([ALICE], [None])


# -- sessions that outlive a restart -----------------------------------------------------------


def test_issue_16_a_session_outlives_a_restart_of_the_service(source, tmp_path, enrolled):
    """Issue 16 "sessions survive a service restart (signed tokens)": the token signed before
    opens the referee's view of a new app on the same data directory, still his; the key is
    kept there, readable by its owner only (a damaged one is replaced, ending the sessions)."""
    token = logged_in(app_of(source, tmp_path, enrolled), ALICE_SECRET).cookies[COOKIE]
    assert stat.S_IMODE((tmp_path / SESSION_KEY).stat().st_mode) == 0o600
    restarted = FakeSource(source.view)
    client = with_cookie(app_of(restarted, tmp_path, enrolled), token)
    assert client.get("/api/referee/state").status_code == 200
    assert client.post("/api/referee/ack", json={"alert": 1}, headers=OWN_PAGE).is_success
    assert restarted.actors == [ALICE]
    other_table = with_cookie(app_of(restarted, tmp_path / "other"), token)
    assert other_table.get("/api/referee/state").status_code == 401  # another table's key
    (tmp_path / SESSION_KEY).write_text("not a key")  # a damaged key: a new one, none open
    damaged = with_cookie(app_of(restarted, tmp_path, enrolled), token)
    assert damaged.get("/api/referee/state").status_code == 401
    assert len(bytes.fromhex((tmp_path / SESSION_KEY).read_text())) == 32


def test_issue_16_a_tampered_token_opens_nothing(source, tmp_path, enrolled):
    """Issue 16: the token is signed (HMAC-SHA256): a payload changed (another name, a later
    expiry) or a signature changed is no session."""
    app = app_of(source, tmp_path, enrolled)
    token = logged_in(app, ALICE_SECRET).cookies[COOKIE]
    text, signature = token.split(".")
    payload = json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
    for forged in ({**payload, "referee": "Mallory"}, {**payload, "expires": NOON * 2}):
        raw = base64.urlsafe_b64encode(json.dumps(forged).encode()).rstrip(b"=").decode()
        assert with_cookie(app, f"{raw}.{signature}").get("/api/referee/state").status_code == 401
    flipped = signature[:-1] + ("A" if signature[-1] != "A" else "B")
    assert with_cookie(app, f"{text}.{flipped}").get("/api/referee/state").status_code == 401
    assert with_cookie(app, token).get("/api/referee/state").status_code == 200


def test_issue_16_a_session_expires_and_a_logout_ends_it(source, tmp_path, enrolled):
    """Issue 16: a session lasts SESSION_SECONDS on the wall clock (a session of play; the
    cookie as long); a logout ends it at once."""
    wall = Wall()
    app = app_of(source, tmp_path, enrolled, wall)
    client = TestClient(app, base_url=BASE)
    login = client.post(
        "/api/referee/login", json={"pin": ALICE_SECRET, "referee": ALICE}, headers=OWN_PAGE
    )
    assert f"Max-Age={int(SESSION_SECONDS)}" in login.headers["set-cookie"]
    token = client.cookies[COOKIE]
    wall.t = NOON + SESSION_SECONDS - 1
    assert with_cookie(app, token).get("/api/referee/state").status_code == 200
    wall.t = NOON + SESSION_SECONDS
    assert with_cookie(app, token).get("/api/referee/state").status_code == 401
    wall.t = NOON
    assert client.post("/api/referee/logout", json={}, headers=OWN_PAGE).is_success
    assert with_cookie(app, token).get("/api/referee/state").status_code == 401


def test_issue_16_a_new_secret_ends_the_sessions_of_the_old(source, tmp_path, enrolled):
    """Issue 16 with issue 19: a referee given a new secret, or removed, loses the sessions
    his old secret opened; a PIN's session ends once referees are enrolled."""
    app = app_of(source, tmp_path, enrolled)
    token = logged_in(app, ALICE_SECRET).cookies[COOKIE]
    enrolled.add(ALICE, "a new secret for the final")
    assert with_cookie(app, token).get("/api/referee/state").status_code == 401
    token = logged_in(app, "a new secret for the final").cookies[COOKIE]
    enrolled.remove(ALICE)
    assert with_cookie(app, token).get("/api/referee/state").status_code == 401
    pin = logged_in(app, PIN).cookies[COOKIE]  # none enrolled: the profile's PIN
    enrolled.add(ALICE, ALICE_SECRET)
    assert with_cookie(app, pin).get("/api/referee/state").status_code == 401


# -- the stream's resume ------------------------------------------------------------------------


def events_of(lines, n: int) -> list[dict]:
    return [read_event(lines) for _ in range(n)]


def drawn(tile: int) -> dict:
    return ev.TileDrawn(50.0 + tile, 1, tile).to_json()


def test_issue_16_a_page_that_reconnects_gets_the_updates_it_missed(source, tmp_path):
    """Issue 16 "SSE resume with Last-Event-ID": each update has an id; a page away while two
    updates go out reconnects with the last id it had and gets both, in order, then the live
    ones; no document first, since it has the state."""
    with TestClient(app_of(source, tmp_path), base_url=BASE) as client:
        with client.stream("GET", "/api/stream") as response:
            lines = response.iter_lines()
            first = read_event(lines)
            source.publish([drawn(1)])
            seen = read_event(lines)
        epoch = first["id"].rpartition("-")[0]
        assert seen["id"] == f"{epoch}-1"
        source.publish([drawn(2)])
        source.publish([drawn(3)])
        with client.stream("GET", "/api/stream", headers={"Last-Event-ID": seen["id"]}) as again:
            lines = again.iter_lines()
            opening, *missed = events_of(lines, 3)
            source.publish([drawn(4)])
            live = read_event(lines)
    assert opening == {"retry": "2000"}
    assert [m["id"] for m in missed + [live]] == [f"{epoch}-{n}" for n in (2, 3, 4)]
    assert [json.loads(m["data"])["seq"] for m in missed] == [2, 3]
    assert [json.loads(m["data"])["events"][0]["t"] for m in missed] == [52.0, 53.0]


def test_issue_16_an_id_too_old_or_of_another_start_gets_the_document(
    source, tmp_path, monkeypatch
):
    """Issue 16: when the missed updates are no longer all kept (more than BACKLOG), or the
    id is from before a restart (another epoch), the page gets the whole document again, with
    the id of the newest update."""
    monkeypatch.setattr(sse, "BACKLOG", 2)
    with TestClient(app_of(source, tmp_path), base_url=BASE) as client:
        with client.stream("GET", "/api/stream") as response:
            first = read_event(response.iter_lines())
        epoch = first["id"].rpartition("-")[0]
        for tile in (1, 2, 3):
            source.publish([drawn(tile)])
        for stale in (f"{epoch}-0", f"{epoch}-9", "0badc0de-3", "3"):
            with client.stream("GET", "/api/stream", headers={"Last-Event-ID": stale}) as again:
                document = read_event(again.iter_lines())
            assert document["id"] == f"{epoch}-3"
            assert json.loads(document["data"]) == {
                "seq": None,
                "state": json.loads(json.dumps(source.snapshot(False))),
                "events": [],
            }
        with client.stream("GET", "/api/stream", headers={"Last-Event-ID": f"{epoch}-1"}) as kept:
            _, update = events_of(kept.iter_lines(), 2)
        assert update["id"] == f"{epoch}-2"  # 2 and 3 are kept


def test_issue_16_the_public_resume_never_carries_the_referees_updates(source, tmp_path):
    """Issue 16 with issue 6: each view keeps its own backlog; the public one replays public
    documents only, without a drawn tile's face, while the referee's replays his."""
    with TestClient(app_of(source, tmp_path), base_url=BASE) as client:
        bearer = {"Authorization": f"Bearer {PIN}"}
        ids = {}
        for path, headers in (("/api/stream", {}), ("/api/referee/stream", bearer)):
            with client.stream("GET", path, headers=headers) as response:
                ids[path] = read_event(response.iter_lines())["id"]
        source.publish([drawn(7)])
        replayed = {}
        for path, headers in (("/api/stream", {}), ("/api/referee/stream", bearer)):
            resume = {**headers, "Last-Event-ID": ids[path]}
            with client.stream("GET", path, headers=resume) as response:
                replayed[path] = json.loads(events_of(response.iter_lines(), 2)[1]["data"])
    public, referee = replayed["/api/stream"], replayed["/api/referee/stream"]
    assert public["state"] == json.loads(json.dumps(source.snapshot(False)))
    assert "tile" not in public["events"][0]
    assert referee["state"] == json.loads(json.dumps(source.snapshot(True)))
    assert referee["events"][0]["tile"] == 7


# -- in the browser: the kiosk's way in, and a restart -----------------------------------------


@pytest.mark.slow
@NEEDED
def test_issue_16_the_kiosk_reaches_the_login_and_a_restart_keeps_the_referee_in(
    browser, source, tmp_path
):
    """Issue 16: the public view on the table's screen has a discreet way to the referee's
    login; once logged in, a restart of the service (a new app on the same data directory
    and port) leaves the referee logged in, and the "connection lost" banner goes once the
    page is connected again."""
    port = free_port()
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        with running_server(app_of(source, tmp_path), port=port) as (base, _):
            page.goto(base + "/table")
            page.click("#to-referee")
            page.fill("#login #pin", PIN)
            page.press("#login #pin", "Enter")
            open_tab(page, "tools")  # issue 33: the controls are the Tools tab's
            page.wait_for_selector("#controls", state="visible")
            assert page.locator("#to-referee").is_hidden()  # on the referee's page: none
        page.wait_for_selector("body.offline")
        with running_server(app_of(FakeSource(source.view), tmp_path), port=port):
            page.wait_for_selector("body:not(.offline)", timeout=10_000)
            assert page.locator("#controls").is_visible() and page.locator("#login").is_hidden()
    finally:
        page.close()
