"""The referee display (issue 6; DESIGN.md firmware/display; SOFTWARE.md §6): the state
document of a real engine table, the HTTP API with the referee's PIN, and the live stream.

The display is served from a fake DisplaySource (tests/support/displaykit.py) over a real
Table in one of tests/support/scenes.py's scenes; the service implements the same interface.
The public view is what players and spectators see, so the tests look for every concealed tile
in it.
"""

import json
import re

import httpx
import pytest
from starlette.testclient import TestClient

from engine import events as ev
from engine import tiles
from engine.seats import LETTERS
from engine.session import Session
from engine.waits import seat_waits
from firmware.display import app as display_app
from firmware.display.app import create_app
from firmware.display.state import TableView, table_state, waits_json
from firmware.texts.public import public_event
from firmware.web.auth import FREE, MAX_WAIT, OK, THROTTLED, WRONG, RefereeAuth
from tests.support.displaykit import BASE, OWN_PAGE, PIN, read_event, referee, running_server
from tests.support.scenes import (
    ccm_scene,
    concealed_tiles,
    leaks,
    ready_south,
    view_of,
    with_waits,
    wsom_scene,
)
from tests.support.tablekit import CCM_DICE, WSOM_DICE, E, Game, N, S, W, of


@pytest.fixture
def client(source):
    return TestClient(create_app(source, PIN), base_url=BASE)


def as_sent(document: dict) -> dict:
    """The document as a client reads it (tuples in events become lists)."""
    return json.loads(json.dumps(document))


# -- the state document ------------------------------------------------------------------------


@pytest.mark.parametrize("make", [wsom_scene, ccm_scene], ids=["wsom", "ccm"])
def test_public_view_shows_no_concealed_tile(make, wsom, ccm):
    """Issue 6: the public view names no concealed tile anywhere (hands, drawn tiles, the
    concealed kong, a proposed penalty's tiles, the event log); the referee view does, which
    shows the search finds them."""
    game = make(wsom if make is wsom_scene else ccm)
    view = view_of(game)
    public, full = table_state(view, referee=False), table_state(view, referee=True)
    assert leaks(public, game.table) == (set(), set())
    standing = {t for side in game.table.wall.remaining() for t in side if t is not None}
    hidden_ids, hidden_kinds = leaks(full, game.table)
    assert hidden_ids == concealed_tiles(game.table) - standing and hidden_kinds
    assert all("hand" not in seat for seat in public["seats"])
    assert [seat["hand_count"] for seat in public["seats"]] == [len(h) for h in game.table.hands]


def test_public_view_keeps_what_lies_face_up(scene):
    """RULES.md 3.9, 3.7: penalty tiles lie face up and claimed tiles are exposed, so the public
    sees them; a concealed kong shows its backs; a proposed penalty only its tile count."""
    public = table_state(view_of(scene), referee=False)
    west = public["seats"][W]
    assert {t["id"] for t in west["penalty_tiles"]} == set(scene.table.referee.penalty_tiles[W])
    assert {t["state"] for t in west["penalty_tiles"]} == {"dead"}  # he has discarded since
    kong = public["seats"][E]["melds"][0]
    assert kong["concealed"] and kong["tiles"] == [{"back": True}] * 4
    pending = [a for a in public["alerts"] if a["state"] == "open" and a["penalty"]]
    assert pending and all(a["penalty"]["penalty_tiles"] == [{"back": True}] * 2 for a in pending)


def test_referee_view_has_the_hands_and_the_kong_faces(scene):
    """Issue 6: the referee sees every concealed tile, in the notation of engine/tiles.py."""
    full = table_state(view_of(scene), referee=True)
    for seat in range(4):
        shown = full["seats"][seat]["hand"]
        assert sorted(t["id"] for t in shown) == sorted(scene.table.hands[seat])
        assert all(t["tile"] == tiles.NAMES[tiles.kind_of(t["id"])] for t in shown)
    assert [t["tile"] for t in full["seats"][E]["melds"][0]["tiles"]] == ["7p"] * 4


def test_a_meld_names_the_claimed_tile_and_whom_it_came_from(scene):
    """RULES.md 3.7: South's pung shows East's 9s as the claimed tile (drawn sideways)."""
    pung = table_state(view_of(scene), referee=False)["seats"][S]["melds"][0]
    east_9s = scene.table.melds[S][0].claimed
    assert (pung["kind"], pung["from"], pung["claimed"]["id"]) == ("pung", "E", east_9s)
    assert [t["tile"] for t in pung["tiles"]] == ["9s"] * 3 and not pung["concealed"]


def test_document_has_the_centre_of_the_table(scene):
    """Issue 6: table name, rule book, hand, whose turn, the live wall and the dead wall
    (WSOM: always 14, RULES.md 3.5), dice and break, seats with wind, player and score."""
    doc = table_state(view_of(scene), referee=False)
    table = scene.table
    assert (doc["table"], doc["ruleset"], doc["hand_number"]) == ("T07", "wsom2006", 1)
    assert (doc["state"], doc["turn"]) == ("draw", LETTERS[table.turn])
    assert doc["wall"] == {"live": table.wall.live_count, "dead": 14}
    assert doc["dice"]["break"] == {"seat": "W", "stacks": 12}
    assert [(s["seat"], s["player"], s["score"]) for s in doc["seats"]] == [
        ("E", 0, 120),
        ("S", 1, -40),
        ("W", 2, 35),
        ("N", 3, -115),
    ]
    assert [[t["id"] for t in s["river"]] for s in doc["seats"]] == table.rivers
    json.dumps(doc, allow_nan=False)  # plain JSON: a browser can read it


def test_turn_and_hand_clocks_at_table_time(scene):
    """RULES.md 3.12: the seat to move has 15 s from the previous discard and 3 min a hand;
    the document gives the seconds left at `now`; a referee pause stops them."""
    table = scene.table
    mover, discarded = table.turn, table.discard_times[-1]
    doc = table_state(view_of(scene, now=discarded + 9.5), referee=False)
    turn, hand = doc["seats"][mover]["clock_turn"], doc["seats"][mover]["clock_hand"]
    assert turn == {"remaining": 5.5, "limit": 15, "running": True, "free": 0.0}
    assert (hand["limit"], hand["running"]) == (180, True)
    assert hand["remaining"] == 180 - table.clocks.used[mover] - 9.5
    idle = doc["seats"][(mover + 1) % 4]["clock_turn"]
    assert idle["remaining"] is None and not idle["running"]
    table.apply(ev.ClocksPaused(discarded + 9.5, None))
    doc = table_state(view_of(scene, now=discarded + 30), referee=False)
    assert doc["clocks_paused"] and doc["seats"][mover]["clock_turn"]["remaining"] == 5.5
    assert not doc["seats"][mover]["clock_turn"]["running"]


def late_discards(game, times: int, late: float) -> None:
    """East discards `late` seconds into each of his turns; the others play at once."""
    game.start()
    for turn in range(times):
        if turn:
            for seat in (S, W, N, E):
                game.draw(seat)
                if seat != E:
                    game.ok(ev.TileDiscarded, seat, tile=game.table.hands[seat][-1])
        game.clock += late
        game.apply(ev.TileDiscarded, E, tile=game.table.hands[E][-1])


@pytest.mark.parametrize(
    "rules, times, change",
    [
        ("wsom", 1, [-5, 0, 0, 0]),  # RULES.md 3.12/3.13: 5 a started 15 s, from the offender
        ("ccm", 2, [-30, 10, 10, 10]),
    ],
)  # RULES.md 4.14/4.15: a warning, then 10 to each other
def test_a_penalty_applied_in_the_hand_shows_beside_the_score(rules, times, change, request):
    """A time penalty applies at once; the score changes only when the hand is settled, so the
    seat shows what the hand's penalties will do to it meanwhile."""
    game = Game(request.getfixturevalue(rules), WSOM_DICE if rules == "wsom" else CCM_DICE)
    late_discards(game, times, 40.0)
    assert of(game.log, ev.PenaltyApplied)
    doc = table_state(view_of(game), referee=False)
    assert [s["penalty_points"] for s in doc["seats"]] == change


def test_ccm_clocks_have_no_hand_limit(ccm):
    """RULES.md 4.14: CCM times each discard (10 s) but has no budget per hand."""
    game = ccm_scene(ccm)
    doc = table_state(view_of(game), referee=False)
    mover = doc["seats"][game.table.turn]
    assert mover["clock_turn"]["limit"] == 10 and mover["clock_hand"] is None
    assert [len(s["flowers"]) for s in doc["seats"]] == [len(f) for f in game.table.flowers]


def test_between_hands_the_scores_stay(wsom):
    """Between hands there is no table: the seats keep wind, player and score, no tiles."""
    session = Session(wsom, dealer=1, hand_number=4, scores=[10, 20, 30, -60])
    doc = table_state(TableView("T07", session, None, 0.0), referee=True)
    assert (doc["state"], doc["turn"], doc["wall"]) == ("between_hands", None, None)
    assert [(s["seat"], s["player"], s["score"], s["hand"]) for s in doc["seats"]] == [
        ("E", 1, 20, []),
        ("S", 2, 30, []),
        ("W", 3, -60, []),
        ("N", 0, 10, []),
    ]


def test_public_log_hides_draws_deal_and_concealed_kong(scene):
    """engine/events.py HIDDEN fields and the concealed kong's faces stay out of the public
    event log, declared or made; an event the schema does not know keeps only its type,
    time and seat."""
    log = table_state(view_of(scene), referee=False)["log"]
    assert all("tile" not in e for e in log if e["type"] == "Drew")
    assert all("hands" not in e for e in log if e["type"] == "Dealt")
    kongs = [e for e in log if e["type"] == "Konged" and e["kind"] == "concealed"]
    assert kongs and all("tiles" not in e for e in kongs)
    declared = ev.KongDeclared(3.0, E, tuple(scene.table.melds[E][0].tiles)).to_json()
    assert "tiles" not in public_event(declared)
    added = ev.KongDeclared(9.0, S, (scene.table.melds[S][0].claimed,)).to_json()
    assert public_event(added) == added
    secret = {"type": "ReaderInventory", "t": 1.0, "seat": 2, "tiles": [5, 6, 7]}
    assert public_event(secret) == {"type": "ReaderInventory", "t": 1.0, "seat": 2}


def test_public_view_passes_on_only_the_named_fields_of_records(source, scene):
    """A record may carry more than the display contract names (a fault's tile may be a
    concealed one): the public view passes on only the named fields of alerts, faults and
    the shuffler."""
    hidden = scene.table.hands[N][0]
    source.view.faults[0]["tile"] = hidden
    source.view.alerts[0]["tile"] = hidden
    source.view.shuffler["tile"] = hidden
    public = source.snapshot(referee=False)
    assert "tile" not in public["faults"][0] and "tile" not in public["alerts"][0]
    assert "tile" not in public["shuffler"]
    assert (
        public["faults"][0]["device"] == "reader N"
    )  # its texts: tests/firmware/display/test_public_texts.py
    assert source.snapshot(referee=True)["faults"][0]["tile"] == hidden


# -- the API and the referee's credentials ---------------------------------------------------


def test_public_state_is_the_public_document(client, source):
    """Issue 6: GET /api/state is the public view, without hands."""
    response = client.get("/api/state")
    assert response.status_code == 200
    assert response.json() == as_sent(source.snapshot(referee=False))


def test_referee_state_needs_the_pin(client, source):
    """Issue 6: no credentials 401 (asking for a bearer), a wrong PIN 403, the PIN 200."""
    response = client.get("/api/referee/state")
    assert response.status_code == 401 and response.headers["www-authenticate"] == "Bearer"
    assert client.get("/api/referee/state", headers=referee("1111")).status_code == 403
    response = client.get("/api/referee/state", headers=referee())
    assert response.status_code == 200 and response.json() == as_sent(source.snapshot(referee=True))


def test_wrong_pins_are_throttled(source):
    """Issue 6, issue 20 item 1: after FREE wrong PINs in a row from one device its next PIN
    is refused with 429 and a Retry-After, the right one too, by the login and by a bearer
    token alike (the clock stands still)."""
    client = TestClient(create_app(source, PIN, clock=lambda: 100.0))
    for _ in range(FREE):
        assert client.post("/api/referee/login", json={"pin": "000000"}).status_code == 403
    refused = client.post("/api/referee/login", json={"pin": PIN})
    assert refused.status_code == 429 and refused.headers["retry-after"] == "1"
    assert "from this device" in refused.json()["error"]
    assert client.get("/api/referee/state", headers=referee()).status_code == 429


def test_throttle_doubles_each_wait_and_a_right_pin_clears_it():
    """Issue 20 item 1: each wrong PIN past FREE doubles the client's wait, up to MAX_WAIT;
    once it is over the right PIN passes and the count starts again (times passed in)."""
    auth = RefereeAuth(PIN)
    ip = "10.0.0.5"
    assert [auth.check_pin("9", 0.0, ip) for _ in range(FREE - 1)] == [(WRONG, 0.0)] * (FREE - 1)
    t, waits = 0.0, []
    for _ in range(14):
        status, wait = auth.check_pin("9", t, ip)
        assert status == WRONG
        assert auth.check_pin(PIN, t + wait - 0.1, ip)[0] == THROTTLED  # not even compared
        waits.append(wait)
        t += wait
    assert waits[:4] == [1.0, 2.0, 4.0, 8.0] and waits[-1] == MAX_WAIT
    assert auth.check_pin(PIN, t, ip) == (OK, 0.0)
    assert auth.check_pin("9", t, ip) == (WRONG, 0.0)  # a typo is free again


def test_login_sets_a_session_cookie(client):
    """Issue 6: the PIN opens a session: an HttpOnly SameSite=Strict cookie that alone lets
    the page in; a made-up cookie does not."""
    response = client.post("/api/referee/login", json={"pin": PIN})
    cookie = response.headers["set-cookie"]
    assert response.status_code == 200 and "httponly" in cookie.lower()
    assert "samesite=strict" in cookie.lower()
    assert client.get("/api/referee/state").status_code == 200
    stranger = TestClient(client.app, cookies={"mjtable_referee": "guessed"})
    assert stranger.get("/api/referee/state").status_code == 401


def test_logging_out_ends_the_session_on_that_device(client):
    """A referee leaving a tablet logs out: the same cookie opens nothing any more."""
    client.post("/api/referee/login", json={"pin": PIN})
    token = client.cookies.get("mjtable_referee")
    assert client.post("/api/referee/logout", json={}, headers=OWN_PAGE).status_code == 200
    replay = TestClient(client.app, cookies={"mjtable_referee": token})
    assert replay.get("/api/referee/state").status_code == 401


@pytest.mark.parametrize("login", [{"pin": 246810}, {}, "246810"])
def test_login_without_a_pin_text_names_the_pin(client, login):
    """Bad input gets a clear message: the login body is {"pin": "..."}."""
    response = client.post("/api/referee/login", json=login)
    assert response.status_code == 422 and response.json()["field"] == "pin"


ACTIONS = [
    ("ack", {"alert": 3}),
    ("ack", {"fault": 1}),
    ("rule", {"alert": 3, "apply": False, "reason": "the player was not in turn"}),
    ("pause", {}),
    ("resume", {}),
    ("correct", {"tile": 17, "zone": "river S"}),
    ("confirm_score", {"hand": 1}),
    ("void_hand", {"reason": "a tile fell off the table"}),
    ("accept_table", {"reason": "the tracking has every tile where it lies"}),
]  # sign_sheet's body loses its PIN on the way: tests/firmware/desk/test_sheet_desk.py


@pytest.mark.parametrize("action, body", ACTIONS)
def test_each_action_goes_to_the_source(client, source, action, body):
    """Issue 6: each referee action is passed to the source with its body; its answer is
    the reply, saying who acted (issue 16; None: the profile's PIN)."""
    response = client.post(f"/api/referee/{action}", json=body, headers=referee())
    assert response.status_code == 200 and response.json() == {"done": action, "by": None}
    assert source.acts == [(action, body)] and source.actors == [None]


def test_actions_need_the_referee(client, source):
    """Issue 6: an action without credentials is refused (401) before anything else, even
    an unknown one, and never reaches the table."""
    assert client.post("/api/referee/pause", json={}).status_code == 401
    assert client.post("/api/referee/explode", json={}).status_code == 401
    assert source.acts == []


def test_a_hand_is_voided_only_with_the_referee_s_reason(client, source):
    """Issue 14: a hand is lost only by a referee's decision, journaled with his reason: a
    void without one is refused (422, naming the field) and never reaches the table."""
    response = client.post("/api/referee/void_hand", json={}, headers=referee())
    assert response.status_code == 422 and response.json()["field"] == "reason"
    blank = client.post("/api/referee/void_hand", json={"reason": "  "}, headers=referee())
    assert blank.status_code == 422 and source.acts == []


def test_unknown_action_is_404(client, source):
    response = client.post("/api/referee/explode", json={}, headers=referee())
    assert response.status_code == 404 and "void_hand" in response.json()["error"]
    assert source.acts == []


@pytest.mark.parametrize(
    "action, body, field",
    [
        ("rule", {"alert": 3, "reason": "seen"}, "apply"),
        ("rule", {"alert": 3, "apply": 1, "reason": "seen"}, "apply"),
        ("rule", {"alert": "3", "apply": True, "reason": "seen"}, "alert"),
        ("rule", {"alert": 3, "apply": True}, "reason"),
        ("rule", {"alert": 3, "apply": True, "reason": " "}, "reason"),
        ("revoke", {"alert": 3}, "reason"),
        ("ack", {}, "alert"),
        ("ack", {"alert": 3, "fault": 1}, "alert"),
        ("ack", {"alert": -1}, "alert"),
        ("correct", {"tile": 144, "zone": "river"}, "tile"),
        ("correct", {"tile": 17, "zone": " "}, "zone"),
        ("confirm_score", {"hand": 0}, "hand"),
        ("sign_sheet", {"hand": 1, "pin": PIN}, "referee"),  # the profile's PIN: no name
        ("pause", {"now": True}, "now"),
        ("pause", [], "body"),
    ],
)
def test_bad_body_is_422_naming_the_field(client, source, action, body, field):
    """Issue 6: a body the action cannot take is refused with 422 naming the field."""
    response = client.post(f"/api/referee/{action}", json=body, headers=referee())
    assert response.status_code == 422 and response.json()["field"] == field
    assert field in response.json()["error"] or field == "body"
    assert source.acts == []


def test_body_that_is_not_json_is_422(client):
    json_type = {"Content-Type": "application/json"}
    response = client.post("/api/referee/pause", content=b"{pause", headers=referee() | json_type)
    assert response.status_code == 422 and response.json()["field"] == "body"


def test_refused_action_is_409_with_the_reason(client, source):
    """A DisplaySource raises ActionRefused when the table cannot do it: 409 with its reason."""
    source.refusal = "the hand is still being played"
    response = client.post("/api/referee/confirm_score", json={"hand": 1}, headers=referee())
    assert response.status_code == 409
    assert response.json() == {"error": "the hand is still being played"}


def test_the_page_and_its_files_are_served_without_outside_links(client):
    """Issue 6: / (referee) and /table (public) serve the one page; its script and style come
    from the table itself: no CDN, nothing downloaded."""
    page = client.get("/")
    assert page.status_code == 200 and client.get("/table").text == page.text
    for name in ("tiles.js", "display.js", "display.css", "broadcast.js", "broadcast.css"):
        response = client.get(f"/static/{name}")
        assert response.status_code == 200
        assert not re.search(
            r"""(src=|href=|url\(|import |fetch\()\s*["']?https?:""", response.text + page.text
        )


# -- the live stream -------------------------------------------------------------------------


def test_stream_sends_the_document_then_each_update(client, source):
    """Issue 6, SOFTWARE.md §6: the stream opens with the current document, then brings each
    update as `data:` JSON with `id:` = seq (after this start's epoch, issue 16: the document's
    is the seq it is as of); a closed page unsubscribes (the view's backlog stays)."""
    with client.stream("GET", "/api/stream") as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        lines = response.iter_lines()
        first = read_event(lines)
        assert json.loads(first["data"])["state"] == as_sent(source.snapshot(referee=False))
        discard = ev.Discarded(99.0, S, 17).to_json()
        source.publish([discard])
        update = read_event(lines)
        epoch, _, seq = first["id"].rpartition("-")
        assert epoch and seq == "0" and update["id"] == f"{epoch}-1"
        assert json.loads(update["data"]) == as_sent(
            {"seq": 1, "state": source.snapshot(False), "events": [discard]}
        )
    assert [s[0] for s in source.subscribers] == [client.app.state.backlogs[False].queue]


def test_referee_stream_needs_the_pin_and_carries_the_hands(client, source):
    assert client.get("/api/referee/stream").status_code == 401
    with client.stream("GET", "/api/referee/stream", headers=referee()) as response:
        first = read_event(response.iter_lines())
    assert all("hand" in seat for seat in json.loads(first["data"])["state"]["seats"])


def test_idle_stream_pings(client, monkeypatch):
    """SOFTWARE.md §6: an idle stream sends a comment line every PING_SECONDS, so proxies
    and the page know it is alive (the interval shortened here)."""
    monkeypatch.setattr(display_app, "PING_SECONDS", 0.01)
    with client.stream("GET", "/api/stream") as response:
        lines = response.iter_lines()
        read_event(lines)
        assert read_event(lines) == {"": "ping"}


def test_stopping_the_server_ends_open_streams(source):
    """SOFTWARE.md §8 #23: uvicorn's graceful shutdown waits for every handler; the display
    server ends its open streams so that it stops at once: the client sees the stream end
    cleanly, not cut by the graceful timeout."""
    app = create_app(source, PIN)
    with (
        running_server(app) as (base, server),
        httpx.stream("GET", f"{base}/api/stream", timeout=10) as response,
    ):
        lines = response.iter_lines()
        read_event(lines)
        server.should_exit = True
        assert list(lines) == []  # the end of the body, without an error
    assert [s[0] for s in source.subscribers] == [app.state.backlogs[False].queue]
    assert app.state.streams == set()


# -- issue 18: the waits, the values and the win check in the referee's document --------------


def test_issue_18_the_referee_document_has_each_seats_waits_and_values(wsom):
    """Issue 18: each seat's shanten, and for a ready seat every winning tile with the copies
    unseen from his view, those in the live wall and the values by discard and self-draw, as
    engine/waits.py gives them; the public document has none of it."""
    game = ready_south(wsom)
    game.discard(E, "9m")
    view = with_waits(game)
    full, public = table_state(view, referee=True), table_state(view, referee=False)
    south = full["seats"][S]
    engine = seat_waits(game.table, S).to_json()
    assert south["shanten"] == 0 and [w["tile"] for w in south["waits"]] == ["1p", "4p", "7p"]
    assert south["waits"] == [
        dict(w, zh=tiles.CHINESE[tiles.tile(w["tile"])]) for w in engine["waits"]
    ]
    assert all(s["shanten"] > 0 and s["waits"] == [] for s in full["seats"] if s["seat"] != "S")
    assert full["win_check"] is None  # nobody has called a win
    text = json.dumps(public)
    assert [k for k in ("shanten", "waits", "win_check", "in_wall", "unseen") if k in text] == []


def test_issue_18_a_win_called_on_the_discard_is_checked_at_once(wsom):
    """Issue 18: South calls a win on East's 4p: while the calls are still open, the referee's
    document says whether it is legal and what it is worth, from South's waits."""
    game = ready_south(wsom)
    game.discard(E, "4p")
    game.claim(S, "win")
    assert game.table.state == "claim_window"
    view = with_waits(game)
    wait = next(w for w in view.waits[S]["waits"] if w["tile"] == "4p")
    [check] = table_state(view, referee=True)["win_check"]
    assert (check["seat"], check["by"], check["tile"]["tile"]) == ("S", "discard", "4p")
    assert check["legal"] and check["total"] == wait["discard"]["total"] > 0
    assert check["patterns"] == wait["discard"]["patterns"]
    assert "win_check" not in table_state(view, referee=False)


def test_issue_18_a_self_drawn_winning_tile_is_checked_from_the_waits_before_the_draw(wsom):
    """Issue 18: South draws the 1p he waits on: his turn shows the self-draw's check from the
    waits he held before the draw (holding 14 tiles, he has no waits of his own)."""
    game = ready_south(wsom)
    game.discard(E, "9m")
    game.close()
    _, held = waits_json(game.table)
    game.draw(S)
    view = with_waits(game, held)
    assert view.waits[S]["waits"] == []
    [check] = table_state(view, referee=True)["win_check"]
    wait = next(w for w in held[S] if w["tile"] == "1p")
    assert (check["seat"], check["by"], check["tile"]["tile"]) == ("S", "self_draw", "1p")
    assert check["total"] == wait["self_draw"]["total"] and check["legal"]
