"""The venue dashboard `mjtable venue` (issue 15; docs/uplink.md): the consumer fed through a
real Mosquitto (tests/support/broker.py) by a publisher playing N tables, the board's model, the
organiser's credentials and the signed commands. The standings and the round's files are
tests/firmware/venue/test_venue_standings.py, the browser's side
tests/firmware/venue/test_venue_browser.py.

The messages of a table are tests/support/venuekit.py's, shared with those tests.
"""

import asyncio
import contextlib
import json
import logging
import time

import aiomqtt
import httpx
import pytest

from firmware.bus.contract import command_topic
from firmware.bus.signing import signed_by
from firmware.cli import main
from firmware.venue.app import create_app
from firmware.venue.board import VenueBoard
from firmware.venue.bus import VenueBus
from firmware.venue.stream import stream
from firmware.venue.view import organiser_changes, standings_view, tile
from tests.support.venuekeys import OTHER_KEY
from tests.support.venuekit import (
    BASE,
    KEY,
    ORGANISER,
    OWN_PAGE,
    PIN,
    VENUE,
    Bus,
    alert,
    feed,
    organiser_client,
    row,
    state,
    status,
    topic,
)

# -- what the tables say (docs/uplink.md) -----------------------------------------------------


# -- the consumer on a real broker ------------------------------------------------------------


async def until(check, seconds: float = 5.0, what: str = "the venue to catch up"):
    deadline = time.monotonic() + seconds
    while not (result := check()):
        assert time.monotonic() < deadline, f"waited {seconds} s for {what}"
        await asyncio.sleep(0.01)
    return result


@contextlib.asynccontextmanager
async def consuming(broker, board: VenueBoard, key=KEY):
    """The venue's consumer on `broker` while the block runs: its VenueBus."""
    bus = VenueBus(board, "127.0.0.1", broker.port, key=key)
    task = asyncio.create_task(bus.run())
    try:
        await until(lambda: board.connected, what="the venue to connect")
        yield bus
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


@contextlib.asynccontextmanager
async def publisher(broker):
    async with aiomqtt.Client("127.0.0.1", broker.port) as client:
        yield client


async def publish(client, table: str, leaf: str, body, retain: bool = False) -> None:
    payload = body if isinstance(body, str | bytes) else json.dumps(body)
    await client.publish(topic(table, leaf), payload, qos=1, retain=retain)


# -- the consumer --------------------------------------------------------------------------------


def test_rows_of_n_tables_are_kept_once_each_and_gaps_counted(broker):
    """Issue 15: five tables each send rows 1..10; every one sends 2 and 3 again (a
    reconnect), T3 never sends 5 and T4 sends 7 before 6. The venue keeps each row once, in
    seq order, and counts the duplicates and the one gap."""

    async def play():
        board = VenueBoard(VENUE)
        async with consuming(broker, board), publisher(broker) as tables:
            for n in range(1, 6):
                name = f"T{n}"
                seqs = [1, 2, 3, 2, 3, 4, 5, 7, 6, 8, 9, 10] if n == 4 else [*range(1, 11), 2, 3]
                for seq in seqs:
                    if (name, seq) != ("T3", 5):
                        await publish(tables, name, "events", row(name, seq))
            await until(lambda: board.counts()["messages"] == 5 * 12 - 1)
        return board

    board = asyncio.run(play())
    counts = board.counts()
    assert (counts["events"], counts["duplicates"], counts["gaps"]) == (49, 10, 1)
    assert counts["tables"] == 5 and counts["malformed"] == 0
    assert [r["seq"] for r in board.tables["T4"].sessions["s1"].rows] == list(range(1, 11))
    assert board.tables["T3"].sessions["s1"].seqs.missing == 1


def test_a_gap_filled_late_is_no_longer_counted():
    """Issue 15: a row that comes after its successors (QoS 1 redelivered late) fills its
    gap; a new session of the same table counts its own seqs; a state older than the one
    shown is not taken."""
    board = VenueBoard(VENUE)
    for seq in (1, 2, 4, 5):
        feed(board, "T1", "events", row("T1", seq))
    assert board.counts()["gaps"] == 1
    feed(board, "T1", "events", row("T1", 3))
    feed(board, "T1", "events", row("T1", 1, session="s2"))
    feed(board, "T1", "state", state("T1", seq=5, hand=2))
    assert not feed(board, "T1", "state", state("T1", seq=4, hand=1))  # an old one, again
    assert board.tables["T1"].state["hand_number"] == 2
    counts = board.counts()
    assert (counts["gaps"], counts["duplicates"], counts["events"]) == (0, 0, 6)


def test_a_message_of_rows_committed_together_is_taken_row_by_row():
    """Issue 15 (docs/uplink.md `events`): the rows of one message are each taken, dropped
    as duplicates or counted as gaps by their own seqs, and kept in seq order."""
    board = VenueBoard(VENUE)
    message = row("T1", 1)
    message["rows"] += [dict(message["rows"][0], seq=seq) for seq in (2, 3, 5)]
    assert feed(board, "T1", "events", message)
    message["rows"] = [dict(message["rows"][0], seq=seq) for seq in (3, 4)]
    assert feed(board, "T1", "events", message)  # 4 is new, 3 a duplicate
    assert not feed(board, "T1", "events", row("T1", 2))
    counts = board.counts()
    assert (counts["events"], counts["duplicates"], counts["gaps"]) == (5, 2, 0)
    assert [r["seq"] for r in board.tables["T1"].sessions["s1"].rows] == [1, 2, 3, 4, 5]


def test_a_table_is_offline_by_its_retained_status(broker):
    """Issue 15: the statuses and states are retained, so a venue that starts after the tables
    sees them all at once; T2's last will said offline, and its tile says so."""

    async def play():
        async with publisher(broker) as tables:
            for name, online in (("T1", True), ("T2", False)):
                await publish(tables, name, "state", state(name), retain=True)
                await publish(tables, name, "status", status(name, online), retain=True)
        board = VenueBoard(VENUE)
        async with consuming(broker, board):
            await until(lambda: board.counts()["messages"] == 4)
        return board

    board = asyncio.run(play())
    assert tile(board.tables["T1"], time.time())["phase"] == "playing"
    assert tile(board.tables["T2"], time.time())["phase"] == "offline"


def test_malformed_messages_are_counted_logged_and_survived(broker, caplog):
    """Issue 15: whatever lands on the venue's topics, the consumer counts it, logs one line
    and goes on: the good state after the bad ones is taken."""
    bad = [
        ("T1", "events", b"\xff not JSON"),
        ("T1", "events", b"[1, 2]"),
        ("T1", "events", json.dumps(row("T1", 1) | {"v": 2})),
        ("T1", "events", json.dumps(row("T1", 1) | {"table": "T9"})),
        ("T1", "events", json.dumps(row("T1", 10**30))),
        ("T1", "events", json.dumps(row("T1", 1, kind="wall"))),
        ("T1", "events", json.dumps(row("T1", 1) | {"rows": []})),
        ("T1", "events", json.dumps(row("T1", 1) | {"rows": [{"seq": 2, "kind": "input"}]})),
        ("T1", "state", json.dumps(state("T1") | {"players": None})),
        ("T1", "state", json.dumps(state("T1") | {"scores": [1, 2, "x", 4]})),
        ("T1", "state", json.dumps(state("T1") | {"phase": "dancing"})),
        ("T1", "alerts", json.dumps(alert("T1", 1, 1) | {"id": "one"})),
        ("T1", "status", json.dumps(status("T1") | {"status": "asleep"})),
        ("T1", "gossip", b"{}"),
        ("T1", "state", b"[" * 100_000 + b"]" * 100_000),
    ]

    async def play():
        board = VenueBoard(VENUE)
        async with consuming(broker, board), publisher(broker) as tables:
            for name, leaf, payload in bad:
                await publish(tables, name, leaf, payload)
            await tables.publish(f"mjtable/{VENUE}/table/T1/state/extra", b"{}", qos=1)
            await publish(tables, "T1", "state", state("T1", hand=4))
            await until(lambda: board.counts()["messages"] == len(bad) + 2)
        return board

    with caplog.at_level(logging.WARNING, logger="mjtable.venue"):
        board = asyncio.run(play())
    assert board.counts()["malformed"] == len(bad) + 1
    malformed = [r for r in caplog.records if "malformed" in r.getMessage()]
    assert len(malformed) == len(bad) + 1
    assert all("\n" not in r.getMessage() for r in malformed)
    assert board.tables["T1"].state["hand_number"] == 4


@pytest.mark.slow  # a second or more: out of the one-minute fast run, in CI's full run
def test_the_consumer_takes_up_again_after_the_broker_restarts(broker):
    """Issue 15: the broker goes away and comes back on its port: the venue reconnects (its
    wait capped), subscribes again and takes what the tables send after."""

    async def play():
        board = VenueBoard(VENUE)
        async with consuming(broker, board):
            broker.stop()
            await until(lambda: not board.connected, 10, "the venue to see the broker gone")
            await asyncio.sleep(0.6)  # a wait of the backoff or two
            broker.start()
            await until(lambda: board.connected, 10, "the venue to reconnect")
            async with publisher(broker) as tables:
                await publish(tables, "T1", "events", row("T1", 1))
            await until(lambda: board.counts()["events"] == 1)
        return board

    assert asyncio.run(play()).counts()["connections"] == 2


def test_rows_sent_while_the_venue_is_away_wait_for_it_in_its_session(broker):
    """Issue 36 ("The uplink speaks MQTT 5", the venue's consumer too): the venue connects
    in MQTT 5 with a persistent session (no clean start, a session expiry: MQTT 5's default
    would end the session as it leaves), so the rows a table sends while the venue is away
    (no venue key here: none is asked for again) reach it when it comes back."""

    async def play():
        async with consuming(broker, VenueBoard(VENUE), key=None):
            pass  # subscribed, then gone
        async with publisher(broker) as tables:
            for seq in range(1, 6):
                await publish(tables, "T1", "events", row("T1", seq))
        board = VenueBoard(VENUE)
        async with consuming(broker, board, key=None):
            await until(lambda: board.counts()["events"] == 5, 10, "the rows kept for it")
        return board

    board = asyncio.run(play())
    assert [r["seq"] for r in board.tables["T1"].sessions["s1"].rows] == [1, 2, 3, 4, 5]


# -- alerts and the signed commands ------------------------------------------------------------


def test_alerts_wait_until_cleared_or_acknowledged():
    """Issue 15: a referee's call waits; one sent again is taken once; a fault cleared is gone;
    a ruling ends with its hand; the table's acknowledgement ends the wait."""
    board = VenueBoard(VENUE)
    feed(board, "T1", "state", state("T1"))
    feed(board, "T1", "alerts", alert("T1", 1, 10))
    assert not feed(board, "T1", "alerts", alert("T1", 1, 10))
    feed(board, "T1", "alerts", alert("T1", 2, 11, "fault"))
    feed(board, "T1", "alerts", alert("T1", 1, 12, "ruling"))
    table = board.tables["T1"]
    assert [a["key"] for a in table.waiting()] == ["fault:1", "fault:2", "ruling:1"]
    assert tile(table, time.time())["calling"] and tile(table, time.time())["badge"] == 3
    feed(board, "T1", "alerts", alert("T1", 2, 13, "cleared"))
    feed(board, "T1", "events", row("T1", 14, "hand", {"type": "Dealt"}))
    feed(board, "T1", "alerts", alert("T1", 1, 15, "acknowledged"))
    assert table.waiting() == [] and not tile(table, time.time())["calling"]
    assert table.alerts["fault:1"]["acknowledged"]["confirmed"]


def test_on_my_way_sends_a_signed_acknowledge_to_the_table(broker):
    """Issue 15: a referee's "on my way" on the dashboard publishes `acknowledge` on the
    table's cmd topic, signed with the venue key (signed_by verifies it), and the alert shows
    him on the way; pause and resume go to every table."""

    async def play():
        board = VenueBoard(VENUE)
        async with consuming(broker, board) as bus, publisher(broker) as tables:
            await tables.subscribe(f"mjtable/{VENUE}/table/T2/cmd", qos=1)
            await tables.subscribe(f"mjtable/{VENUE}/cmd", qos=1)
            await publish(tables, "T2", "state", state("T2"))
            await publish(tables, "T2", "alerts", alert("T2", 7, 30))
            await until(lambda: board.tables.get("T2") and board.tables["T2"].waiting())
            app = create_app(board, bus, PIN)
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url=BASE) as dashboard:
                answer = await dashboard.post(
                    "/api/tables/T2/alerts/fault:7/acknowledge",
                    json={"referee": "Ana Ruiz"},
                    headers=ORGANISER,
                )
                pause_all = {"confirm": True, "reason": "the round's end"}  # issue 36 item 3
                paused = await dashboard.post("/api/pause", json=pause_all, headers=ORGANISER)
            received = []
            async with asyncio.timeout(5):
                async for message in tables.messages:
                    received.append((str(message.topic), json.loads(message.payload)))
                    if len(received) == 2:
                        break
        return board, answer, paused, received

    board, answer, paused, received = asyncio.run(play())
    assert answer.status_code == 200 and paused.status_code == 200
    (ack_topic, ack), (pause_topic, pause) = received
    assert ack_topic == command_topic(VENUE, "T2") == f"mjtable/{VENUE}/table/T2/cmd"
    assert signed_by(ack, KEY.public_key()) and not signed_by(ack, OTHER_KEY.public_key())
    assert ack | {"id": "", "issued": 0, "signature": ""} == {
        "v": 1,
        "id": "",
        "issued": 0,
        "venue": VENUE,
        "table": "T2",
        "command": "acknowledge",
        "args": {"alert": 7, "of": "fault", "referee": "Ana Ruiz"},
        "signature": "",
    }
    assert abs(ack["issued"] - time.time()) < 60 and answer.json()["sent"] == ack["id"]
    assert pause_topic == f"mjtable/{VENUE}/cmd" and pause["table"] == "*"
    assert (
        pause["command"] == "pause" and pause["args"] == {} and signed_by(pause, KEY.public_key())
    )
    on_way = board.tables["T2"].alerts["fault:7"]["acknowledged"]
    assert on_way["referee"] == "Ana Ruiz" and not on_way["confirmed"]


def test_the_dashboard_needs_the_organisers_secret():
    """Issue 15: without the organiser's PIN every organiser route says 401, a wrong one 403;
    /board is public and carries public state only; a weak PIN is refused."""
    board = VenueBoard(VENUE)
    feed(board, "T1", "state", state("T1"))
    feed(board, "T1", "alerts", alert("T1", 1, 10))
    feed(board, "T1", "events", row("T1", 11))
    client = organiser_client(board)
    for url in ("/api/venue", "/api/stream", "/api/tables/T1", "/api/round.csv", "/api/round.json"):
        assert client.get(url).status_code == 401, url
    for url in ("/api/pause", "/api/resume", "/api/tables/T1/message"):
        assert client.post(url, json={"text": "hi"}, headers=OWN_PAGE).status_code == 401, url
    wrong = {"Authorization": "Bearer 000000"}
    assert client.get("/api/venue", headers=wrong).status_code == 403
    assert client.get("/api/venue", headers=ORGANISER).status_code == 200
    public = client.get("/api/board").json()
    assert set(public["tables"][0]) == {
        "name",
        "phase",
        "hand_number",
        "round_wind",
        "seconds_left",
        "running",
        "players",
        "scores",
        "finished",
    }
    assert "West calls" not in json.dumps(public) and "TileDiscarded" not in json.dumps(public)
    login = client.post("/api/login", json={"pin": PIN}, headers=OWN_PAGE)
    assert login.status_code == 200 and client.get("/api/venue").status_code == 200
    for weak in ("1234", "short"):
        with pytest.raises(ValueError, match="too easily guessed"):
            create_app(board, Bus(), weak)


def test_commands_say_why_they_were_not_sent():
    """Issue 15: a message is checked before it is sent; with the broker away the organiser
    is told so (503), and an unknown alert or table is a 404."""
    board = VenueBoard(VENUE)
    feed(board, "T1", "state", state("T1"))
    client = organiser_client(board)
    post = lambda url, body: client.post(url, json=body, headers=ORGANISER)  # noqa: E731
    assert post("/api/tables/T1/message", {"text": "x" * 201}).status_code == 422
    assert post("/api/tables/T1/message", {"text": "line\nbreak"}).status_code == 422
    sent = post("/api/tables/T1/message", {"text": "Five minutes left"})
    assert sent.status_code == 503 and "not connected" in sent.json()["error"]
    assert post("/api/tables/T9/message", {"text": "hi"}).status_code == 404
    assert post("/api/tables/T1/alerts/fault:1/acknowledge", {"referee": "A"}).status_code == 404


def test_only_the_contracts_public_fields_reach_a_page():
    """Issue 15 (docs/uplink.md): a state with a field the contract does not name (a table's
    bug that would leak a hand) is cut to the contract's fields before anything shows it."""
    board = VenueBoard(VENUE)
    feed(board, "T1", "state", state("T1", concealed=[11, 12, 13], walls=[[1, 2]]))
    client = organiser_client(board)
    for url in ("/api/tables/T1", "/api/venue", "/api/board"):
        text = client.get(url, headers=ORGANISER).text
        assert "concealed" not in text and "walls" not in text, url
    assert set(board.tables["T1"].state) == set(state("T1")) - {"v", "venue", "table"}


def test_a_stream_sends_the_whole_board_then_what_changed():
    """Issue 15: a page's stream starts with every table, then brings only the tables that
    changed, and the standings only when they changed."""
    board = VenueBoard(VENUE)
    for name in ("T1", "T2", "T3"):
        feed(board, name, "state", state(name))

    def document(since):
        return organiser_changes(board, since, standings_view(board, False), time.time())

    async def read():
        updates = stream(board, document, set()).body_iterator
        first = await anext(updates)
        feed(board, "T2", "state", state("T2", phase="paused"))
        second = await anext(updates)
        feed(board, "T3", "state", state("T3", scores=(5, -5, 0, 0)))
        third = await anext(updates)
        await updates.aclose()
        return [json.loads(chunk.partition("data: ")[2]) for chunk in (first, second, third)]

    first, second, third = asyncio.run(read())
    assert first["full"] and [t["name"] for t in first["tables"]] == ["T1", "T2", "T3"]
    assert not second["full"] and [t["phase"] for t in second["tables"]] == ["paused"]
    assert "standings" not in second
    assert [t["name"] for t in third["tables"]] == ["T3"] and "standings" in third


# -- the command line -----------------------------------------------------------------------------


def test_the_command_line_refuses_what_would_not_serve(tmp_path, capsys):
    """Issue 15: `mjtable venue` refuses, with status 2 and one line, a broker address
    without a port, a weak organiser PIN, a key file that is not an Ed25519 private key (an
    HMAC secret of before issue 35, a public key), a listener beyond this machine without TLS
    and no --broker or --venue; a seating plan with a problem, naming its line (issue 36)."""
    weak, short, plan = tmp_path / "pin", tmp_path / "key", tmp_path / "plan.csv"
    weak.write_text("1234\n")
    short.write_text("short\n")
    plan.write_text("round,table,seat,name,federation_id,country\n1,T1,Q,Ann,,\n")
    base = ["venue", "--venue", VENUE, "--port", "0"]
    with pytest.raises(SystemExit) as exited:
        main([*base, "--broker", "localhost"])
    assert exited.value.code == 2
    cases = {
        "too easily guessed": ["--organiser-pin-file", str(weak)],
        "not an Ed25519 private key in PEM": ["--key-file", str(short)],
        "needs TLS": ["--host", "0.0.0.0"],
        "go together": ["--user", "venue"],
        f"--seating {plan}: line 2: seat 'Q'": ["--seating", str(plan)],
        "cannot read it": ["--seating", str(tmp_path / "none.csv")],
    }
    for why, extra in cases.items():
        capsys.readouterr()
        assert main([*base, "--broker", "127.0.0.1:1883", *extra]) == 2
        assert why in capsys.readouterr().err
    assert main(["venue", "--port", "0", "--broker", "127.0.0.1:1883"]) == 2
    assert "--broker and --venue are required" in capsys.readouterr().err


def test_an_acknowledgement_names_the_fault_or_the_ruling_it_is_for():
    """Issue 15 (docs/uplink.md `alerts`, `of`): a table's fault 3 and ruling 3 wait at
    once; its referee acknowledges the ruling: that one is confirmed, the call still waits."""
    board = VenueBoard(VENUE)
    feed(board, "T1", "state", state("T1"))
    feed(board, "T1", "alerts", alert("T1", 3, 5, "call_referee"))
    feed(board, "T1", "alerts", alert("T1", 3, 6, "ruling"))
    feed(board, "T1", "alerts", alert("T1", 3, 7, "acknowledged") | {"of": "ruling"})
    alerts = board.tables["T1"].alerts
    assert alerts["ruling:3"]["acknowledged"]["confirmed"]
    assert alerts["fault:3"]["acknowledged"] is None
