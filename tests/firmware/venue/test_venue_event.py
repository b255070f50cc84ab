"""The venue seats the hall, plays its rounds and ranks the event (issue 36 items 1 to 3): the
plan imported on the dashboard, each round's start_session to every table, the rounds added up
in the results file, and who may do what."""

import base64
import csv
import io

from starlette.testclient import TestClient

from firmware.desk.referees import FILE, Referees
from firmware.venue.app import create_app
from firmware.venue.board import VenueBoard
from firmware.venue.people import VenuePeople
from tests.support.venuekit import (
    BASE,
    ORGANISER,
    OWN_PAGE,
    PIN,
    WSOM_SHEET,
    Bus,
    feed,
    line,
    signed,
    state,
)

PLAN = (
    "\ufeffround,table,seat,name,federation_id,country\n"
    "1,T1,東,張偉,CN-1,China\n1,T1,南,王芳,CN-2,China\n1,T1,西,李娜,CN-3,China\n"
    "1,T1,北,劉洋,CN-4,China\n"
    "2,T1,E,劉洋,CN-4,China\n2,T1,S,李娜,CN-3,China\n2,T1,W,王芳,CN-2,China\n"
    "2,T1,N,張偉,CN-1,China\n"
)
WITH_PAGE = ORGANISER | OWN_PAGE


class Sent:
    """A bus that records the commands the dashboard sends."""

    def __init__(self):
        self.commands: list[tuple[str, str, dict]] = []

    async def send(self, table, name, args):
        self.commands.append((table, name, args))
        return {"id": f"c{len(self.commands)}"}


def seated(table: str, names: list[tuple[str, str]], **kwargs) -> dict:
    """The table's state once it has taken the venue's start_session."""
    players = [
        {"seat": s, "name": n, "federation_id": f} for s, (n, f) in zip("ESWN", names, strict=True)
    ]
    return state(table, players=players, **kwargs)


def test_the_organiser_imports_the_plan_and_each_round_seats_the_hall():
    """Issue 36 item 1: the plan's CSV (BOM, 東南西北, Chinese names) imported, then round 1's
    start_session sent to its table with the names by seat and the sitting's minutes."""
    bus = Sent()
    client = TestClient(create_app(VenueBoard("hall"), bus, PIN), base_url=BASE)
    bad = client.post("/api/seating", json={"csv": PLAN + "3,T1,X,Nobody,,\n"}, headers=WITH_PAGE)
    assert bad.status_code == 422 and "line 10: seat 'X'" in bad.json()["error"]
    assert client.post("/api/rounds/1/start", json={}, headers=WITH_PAGE).status_code == 409
    answer = client.post("/api/seating", json={"csv": PLAN}, headers=WITH_PAGE)
    assert answer.status_code == 200 and answer.json()["players"] == 4
    begun = client.post("/api/rounds/1/start", json={"minutes": 90}, headers=WITH_PAGE)
    assert begun.json() == {"round": 1, "sent": 1, "not_sent": {}}
    assert bus.commands == [
        (
            "T1",
            "start_session",
            {
                "players": [
                    {"name": "張偉", "federation_id": "CN-1"},
                    {"name": "王芳", "federation_id": "CN-2"},
                    {"name": "李娜", "federation_id": "CN-3"},
                    {"name": "劉洋", "federation_id": "CN-4"},
                ],
                "minutes": 90,
            },
        )
    ]
    again = client.post("/api/rounds/2/start", json={}, headers=WITH_PAGE)
    assert again.status_code == 409 and "round 1 is not over" in again.json()["error"]


def test_two_rounds_in_one_session_are_ranked_as_the_event():
    """Issue 36 item 2: round 2 counts only its own hands (the table played both in one
    journal session), and the results file adds the rounds up: WSOM's points are the scores
    won and lost (seed 000, 麻將的目的與流程), games the rounds played, countries the plan's."""
    board, bus = VenueBoard("hall"), Sent()
    client = TestClient(create_app(board, bus, PIN), base_url=BASE)
    client.post("/api/seating", json={"csv": PLAN}, headers=WITH_PAGE)
    client.post("/api/rounds/1/start", json={}, headers=WITH_PAGE)
    first = [("張偉", "CN-1"), ("王芳", "CN-2"), ("李娜", "CN-3"), ("劉洋", "CN-4")]
    feed(board, "T1", "events", signed("T1", 50, WSOM_SHEET))
    final = WSOM_SHEET[-1]["totals"]  # 0, 65, -35, -35
    feed(board, "T1", "state", seated("T1", first, phase="between_hands", hand=3, scores=final))
    assert client.post("/api/rounds/2/start", json={}, headers=WITH_PAGE).status_code == 200
    second = list(reversed(first))
    feed(board, "T1", "state", seated("T1", second, hand=3, scores=final, seq=60))
    provisional = client.get("/api/round.json", headers=ORGANISER).json()["standings"]
    assert {p["name"]: p["score"] for p in provisional} == dict.fromkeys(dict(second), 0)
    sheet = [*WSOM_SHEET, line(4, (-20, -20, -20, 60), (-20, 45, -55, 25))]
    feed(board, "T1", "events", signed("T1", 70, sheet))
    scores = (-20, 45, -55, 25)
    ended = seated("T1", second, phase="between_hands", hand=4, scores=scores, seq=71)
    feed(board, "T1", "state", ended)
    results = client.get("/api/results.csv", headers=ORGANISER)
    lines = list(csv.DictReader(io.StringIO(results.text)))
    assert [(r["place"], r["name"], r["points"], r["games"], r["country"]) for r in lines] == [
        ("1", "張偉", "60", "2", "China"),  # 0, then 60 from the North seat
        ("2", "王芳", "45", "2", "China"),  # 65, then -20
        ("3", "劉洋", "-55", "2", "China"),  # -35, then -20: a tie shares the place
        ("3", "李娜", "-55", "2", "China"),
    ]
    assert client.get("/api/results.json", headers=ORGANISER).json()["rounds"] == [1, 2]


def test_pausing_the_hall_needs_a_confirmation_and_a_reason():
    """Issue 36: "Pause all clocks" asks for a confirmation and a reason."""
    bus = Sent()
    client = TestClient(create_app(VenueBoard("hall"), bus, PIN), base_url=BASE)
    for body in ({}, {"confirm": True}, {"confirm": True, "reason": " "}, {"reason": "end"}):
        assert client.post("/api/pause", json=body, headers=WITH_PAGE).status_code == 422
    assert bus.commands == []
    body = {"confirm": True, "reason": "a fire alarm"}
    assert client.post("/api/pause", json=body, headers=WITH_PAGE).status_code == 200
    assert bus.commands == [("*", "pause", {})]


def test_a_floor_referee_gets_the_pager_and_nothing_of_the_organisers(tmp_path):
    """Issue 36 item 3: organisers and floor referees log in each with his own secret; the
    floor referee's session opens the pager and its acknowledgements, never seating, pause,
    release, messages or a table's sheet."""
    Referees(tmp_path / "organisers" / FILE).add("Mei Chen", "organiser-secret")
    Referees(tmp_path / "floor" / FILE).add("Ana Ruiz", "floor-secret-1")
    people = VenuePeople(tmp_path / "organisers", tmp_path / "floor")
    board = VenueBoard("hall")
    feed(board, "T1", "state", state("T1"))
    feed(board, "T1", "alerts", {**_alert(), "seq": 2})
    client = TestClient(create_app(board, Bus(), PIN, people=people), base_url=BASE)

    def basic(name, secret):
        token = base64.b64encode(f"{name}:{secret}".encode()).decode()
        return {"Authorization": f"Basic {token}"} | OWN_PAGE

    floor, organiser = basic("Ana Ruiz", "floor-secret-1"), basic("Mei Chen", "organiser-secret")
    seen = client.get("/api/venue", headers=floor)
    assert seen.status_code == 200
    assert seen.json()["you"] == {"name": "Ana Ruiz", "role": "floor referee"}
    ack = client.post(
        "/api/tables/T1/alerts/fault:7/acknowledge", json={"referee": "Ana Ruiz"}, headers=floor
    )
    assert ack.status_code == 503  # let in: the test's bus is not connected
    for url, body in (
        ("/api/pause", {"confirm": True, "reason": "x"}),
        ("/api/resume", {}),
        ("/api/standings/release", {}),
        ("/api/tables/T1/message", {"text": "hi"}),
        ("/api/seating", {"csv": PLAN}),
        ("/api/rounds/1/start", {}),
    ):
        assert client.post(url, json=body, headers=floor).status_code == 403, url
    for url in ("/api/tables/T1", "/api/round.csv", "/api/results.csv", "/api/seating"):
        assert client.get(url, headers=floor).status_code == 403, url
    assert client.post("/api/seating", json={"csv": PLAN}, headers=organiser).status_code == 200
    assert client.get("/api/venue", headers=ORGANISER).status_code == 422  # names needed now


def _alert() -> dict:
    return {
        "v": 1,
        "venue": "hall",
        "table": "T1",
        "session": "s1",
        "kind": "call_referee",
        "id": 7,
        "seat": 2,
        "text": "West calls the referee",
        "t": 12.5,
    }
