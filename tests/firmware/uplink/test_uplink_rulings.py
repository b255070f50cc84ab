"""Issue 16 "Where the venue issue has landed, the sheet and the rulings also go up the uplink"
(docs/uplink.md): a ruling is a `ruled` alert and a revocation a `revoked` one, each with the
referee's reason and name; the score sheet goes up retained on `sheet` as it changes.

The referee's desk on a dealt service (tests/support/servicekit.py) acts through the actor's queue
while the table's uplink (firmware/uplink/client.py) publishes to a real Mosquitto
(tests/support/broker.py),
on one loop; a paho client is the venue (tests/support/uplinkkit.py `Venue`).
"""

import asyncio
import json
import re
import threading

import paho.mqtt.client as mqtt

from engine import events as ev
from engine import tiles
from firmware.audit.sheet import sheet
from firmware.bus.settings import UplinkSettings
from firmware.journal.chain import Row
from firmware.uplink.client import Uplink
from firmware.uplink.messages import status_state
from firmware.uplink.sheet import SheetBuilds
from firmware.venue.board import VenueBoard
from tests.support.servicekit import play_out, take_queued
from tests.support.tablekit import E, S
from tests.support.uplinkkit import TABLE, TILE_FIELDS, Venue, identity
from tests.support.venuekit import ORGANISER, VENUE, organiser_client, state

APPLIED = "he called pung holding one tile of it"
REVOKED = "the tile he showed was his second"
TOPIC = f"mjtable/{VENUE}/table/{TABLE}"


async def acting(desk, action: str, body: dict, who: str | None = None) -> dict:
    """The referee `who`'s action through the actor's queue, as the display submits it."""
    answer = asyncio.ensure_future(desk.act(action, body, who))
    await asyncio.sleep(0)  # the desk submits it: stamped and queued
    take_queued(desk.service)
    return await answer


def uplinked(desk, port: int, story) -> None:
    """`story()` played on the desk while its uplink publishes, as firmware/run/rig.py runs it;
    then the uplink's last word (its rows, its sheet, offline)."""

    async def run() -> None:
        service = desk.service
        settings = UplinkSettings("127.0.0.1", port, VENUE, False, None, None, None, None, 2)
        uplink = Uplink(
            settings,
            service.journal,
            TABLE,
            lambda: status_state(service.status(), uplink.alerts),
            identity(service.journal.path),
        )
        service.commands.subscribe(lambda events: uplink.changed())
        running = asyncio.create_task(uplink.run())
        try:
            await story()
        finally:
            uplink.close()
            await asyncio.wait_for(running, 10)

    asyncio.run(run())


async def arrived(venue: Venue, done) -> None:
    await asyncio.to_thread(venue.wait, done)


def empty_pung(desk) -> int:
    """RULES.md 3.7: East discards, South calls pung without the tiles for it; the alert."""
    hands = desk.service.hands
    hands.apply(ev.TileDiscarded(desk.service.clock(), E, hands.table.hands[E][0]))
    hands.apply(ev.ClaimDeclared(desk.service.clock(), S, "pung", ()))
    return next(a["id"] for a in desk.alerts.values() if a["needs_ruling"])


def rulings(venue: Venue) -> list[dict]:
    return [a for a in venue.bodies("alerts") if a["kind"] in ("ruled", "revoked")]


def test_issue_16_a_ruling_then_its_revocation_go_up_with_their_reasons(desk, broker, venue):
    """Issue 16: a penalty applied with a reason arrives as `ruled`, then revoked with a
    reason as `revoked`: each with the offence, the points, the reason and the referee who
    acted (the RefereeActed after it), in the public's words; the venue's board takes the
    `ruled` as closing the ruling that waited, and so does the table's own count."""
    alert = 0

    async def story() -> None:
        nonlocal alert
        alert = empty_pung(desk)
        await arrived(venue, lambda: any(a["kind"] == "ruling" for a in venue.bodies("alerts")))
        await acting(desk, "rule", {"alert": alert, "apply": True, "reason": APPLIED}, "Li")
        await acting(desk, "revoke", {"alert": alert, "reason": REVOKED}, "Wang")
        await arrived(venue, lambda: len(rulings(venue)) == 2)

    uplinked(desk, broker.port, story)
    applied = next(
        row.data() for row in desk.service.journal.rows() if '"PenaltyApplied"' in row.json
    )
    said = [
        (a["kind"], a["id"], a["seat"], a["offence"], a["points"], a["reason"], a["referee"])
        for a in rulings(venue)
    ]
    offence, points = applied["offence"], applied["points"]
    assert said == [
        ("ruled", alert, S, offence, points, APPLIED, "Li"),
        ("revoked", alert, S, offence, points, REVOKED, "Wang"),
    ]
    ruled, revoked = rulings(venue)
    assert ruled["applied"] and ruled["text"] == (
        "South: called without the tiles for it (WSOM 2006 rules: false claims): penalty "
        "applied, 2 penalty "
        f"tiles; reason: {APPLIED}"
    )
    assert revoked["text"] == (
        f"South: called without the tiles for it: penalty revoked; reason: {REVOKED}"
    )
    board = VenueBoard(VENUE)
    for body in venue.bodies("alerts"):
        board.take(f"{TOPIC}/alerts", json.dumps(body))
    table = board.tables[TABLE]
    assert table.waiting() == [] and [r["kind"] for r in table.rulings.values()] == [
        "ruled",
        "revoked",
    ]
    venue.wait(venue.offline)  # the last word, after the last state: it has arrived too
    assert venue.bodies("state")[-1]["alerts_waiting"] == 0


def test_issue_16_a_waived_penalty_goes_up_with_the_offence_its_alert_proposed(desk, broker, venue):
    """Issue 16: a penalty waived names no offence itself: the `ruled` alert takes it and its
    points from the alert's proposal, with the reason; `applied` is false."""

    async def story() -> None:
        alert = empty_pung(desk)
        await acting(desk, "rule", {"alert": alert, "apply": False, "reason": APPLIED})
        await arrived(venue, lambda: len(rulings(venue)) == 1)

    uplinked(desk, broker.port, story)
    (waived,) = rulings(venue)
    assert (waived["kind"], waived["applied"], waived["reason"]) == ("ruled", False, APPLIED)
    assert waived["offence"] == "empty_call" and waived["referee"] is None  # the profile's PIN
    assert waived["text"].endswith(f"penalty waived; reason: {APPLIED}")


def latest_sheet(venue: Venue) -> dict:
    sheets = venue.bodies("sheet")
    return sheets[-1]["sheet"] if sheets else {}


def retained(port: int, topic: str) -> dict:
    """What a subscriber that comes now gets on `topic`: its retained message."""
    got, came = [], threading.Event()

    def take(client, userdata, message) -> None:
        got.append(message)
        came.set()

    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="a-late-venue")
    client.on_connect = lambda c, *_: c.subscribe(topic, 1)
    client.on_message = take
    client.connect("127.0.0.1", port, keepalive=5)
    client.loop_start()
    try:
        assert came.wait(5)
    finally:
        client.disconnect()  # first: it wakes the network thread, which then ends
        client.loop_stop()
    assert got[0].retain
    return json.loads(got[0].payload)


def test_issue_16_the_sheet_goes_up_retained_as_it_is_confirmed_and_signed(desk, broker, venue):
    """Issue 16: the score sheet goes up on `sheet` once the hand ends, again when the
    referee confirms its row and when he signs: a venue that subscribes afterwards gets the
    latest, retained; it is export_sheet's (the one definition) without the journal's path."""
    hands = desk.service.hands

    async def story() -> None:
        await arrived(venue, lambda: "hands" in latest_sheet(venue))  # each connection's
        play_out(hands, desk.service.clock())
        await arrived(venue, lambda: len(latest_sheet(venue).get("hands", ())) == 1)
        await acting(desk, "confirm_score", {"hand": 1})
        await arrived(venue, lambda: latest_sheet(venue)["hands"][0]["confirmed"])
        assert latest_sheet(venue)["signatures"] == []
        await acting(desk, "sign_sheet", {"hand": 1, "referee": "Ref A"})
        await arrived(venue, lambda: latest_sheet(venue)["signatures"] != [])

    uplinked(desk, broker.port, story)
    late = retained(broker.port, f"{TOPIC}/sheet")
    made = sheet(desk.service.journal.path)
    assert late["sheet"] == {k: v for k, v in made.items() if k != "journal"}
    assert [s["referee"] for s in late["sheet"]["signatures"]] == ["Ref A"]
    assert late["seq"] <= desk.service.journal.seq and late["session"] == made["session_id"]
    board = VenueBoard(VENUE)
    board.take(f"{TOPIC}/sheet", json.dumps(late))
    assert board.tables[TABLE].score_sheet == {"seq": late["seq"], "sheet": late["sheet"]}


NAMING = TILE_FIELDS - {"hand"}  # a sheet's `hand` is a hand's number


def named_tiles(payload, field: str | None = None) -> set[int]:
    """The tile ids a payload names: under a field that names tiles, or by name in a text
    ("5p", "五筒")."""
    if isinstance(payload, dict):
        return {t for name, value in payload.items() for t in named_tiles(value, name)}
    if isinstance(payload, list):
        return {t for value in payload for t in named_tiles(value, field)}
    if isinstance(payload, str):
        kinds = {
            kind
            for kind in range(tiles.KINDS)
            if tiles.CHINESE[kind] in payload
            or (kind < 27 and re.search(rf"\b{tiles.NAMES[kind]}\b", payload))
        }
        return {tile for tile in range(144) if tiles.kind_of(tile) in kinds}
    if isinstance(payload, int) and not isinstance(payload, bool) and field in NAMING:
        return {payload}
    return set()


def test_issue_16_no_sheet_or_alert_names_a_concealed_tile(desk, broker, venue):
    """Issue 16, docs/uplink.md: nothing in `sheet` or `alerts` names a tile the players hold
    concealed: not South's two tiles that became penalty tiles (a count only), not a tile of
    any hand, through a ruling, the hand's end and its confirmation."""
    hands = desk.service.hands
    held = {tile for hand in hands.table.hands for tile in hand}
    assert len(held) == 53  # the deal: East's fourteen, thirteen each for the others

    async def story() -> None:
        alert = empty_pung(desk)
        await acting(desk, "rule", {"alert": alert, "apply": True, "reason": APPLIED})
        play_out(hands, desk.service.clock())
        await acting(desk, "confirm_score", {"hand": 1})
        await arrived(venue, lambda: latest_sheet(venue).get("hands", [{}])[0].get("confirmed"))

    uplinked(desk, broker.port, story)
    (ruled,) = rulings(venue)
    assert "2 penalty tiles" in ruled["text"]  # told as a count
    bodies = venue.bodies("alerts") + venue.bodies("sheet")
    (offence,) = latest_sheet(venue)["hands"][0]["offences"]  # the sheet names the ruling
    assert (offence["offence"], offence["reason"]) == ("empty_call", APPLIED)
    for body in bodies:
        assert not named_tiles(body) & held, body


def test_issue_16_a_burst_of_changes_costs_one_build_after_the_one_running(tmp_path, monkeypatch):
    """Issue 16: the sheet is built off the loop, one build at a time: the changes that come
    while one runs (a hand's end, its confirmation, a signature) make one more build, not
    one each."""
    started, running, release = [], threading.Event(), threading.Event()

    def slow_sheet(path) -> dict:
        started.append(path)
        running.set()
        assert release.wait(5)
        return {"journal": str(path), "hands": [len(started)]}

    monkeypatch.setattr("firmware.uplink.sheet.sheet", slow_sheet)
    woken = []
    builds = SheetBuilds(tmp_path / "j.sqlite", lambda: 7, lambda: woken.append(1))

    def record(kind: type, seq: int) -> Row:
        return Row(seq, "device", json.dumps({"type": kind.__name__}), "", "", 3)

    async def run() -> list:
        assert [b async for b in builds.built()] == []  # the first build started
        assert await asyncio.to_thread(running.wait, 5)  # in its thread, waiting
        for seq, kind in enumerate((ev.ScoreConfirmed, ev.SheetSigned, ev.PlayerSigned), 1):
            builds.follow(record(kind, seq))
        release.set()
        return [b async for b in builds.built(last=True)]

    published = asyncio.run(run())
    assert [document["hands"] for _, document in published] == [[1], [2]]
    assert len(started) == 2 and len(woken) == 2


def test_issue_16_the_venue_serves_each_tables_latest_sheet():
    """Issue 16: the venue keeps a table's latest sheet by seq (an older one sent after it is
    dropped, one that is no sheet counted malformed) and serves it to the organiser only,
    at /api/tables/<name>/sheet; a table without one is a 404 saying so."""
    board = VenueBoard(VENUE)
    client = organiser_client(board)

    def published(seq: int, hands) -> dict:
        lists = ("players", "games", "signatures", "player_signatures")
        document: dict = {name: [] for name in lists}
        return {"v": 1, "venue": VENUE, "table": TABLE, "session": "s1", "seq": seq} | {
            "sheet": document | {"hands": hands, "journal": "/var/lib/mjtable/j.sqlite"}
        }

    board.take(f"{TOPIC}/state", json.dumps(state(TABLE)))
    url = f"/api/tables/{TABLE}/sheet"
    assert client.get(url, headers=ORGANISER).status_code == 404
    assert "no score sheet yet" in client.get(url, headers=ORGANISER).json()["error"]
    board.take(f"{TOPIC}/sheet", json.dumps(published(40, [{"number": 1}])))
    board.take(f"{TOPIC}/sheet", json.dumps(published(30, [])))  # older, sent again
    assert not board.take(f"{TOPIC}/sheet", json.dumps(published(50, {})))  # no sheet
    assert board.counts()["malformed"] == 1
    assert client.get(url).status_code == 401
    answer = client.get(url, headers=ORGANISER).json()
    assert answer["seq"] == 40 and answer["sheet"]["hands"] == [{"number": 1}]
    assert "journal" not in answer["sheet"]
