"""The venue's broker as deploy/mosquitto/ ships it, and the fleet of simulated tables on it
(issue 15): firmware/venue/demo.py, firmware/bench/venue.py. Real Mosquitto processes
(tests/support/broker.py); .ci/run installs Debian's mosquitto."""

import argparse
import asyncio
import json
import math
import ssl
import time

import aiomqtt
import pytest

from engine import events as ev
from firmware.audit.sheet import sheet
from firmware.bench import venue as bench_venue
from firmware.bus.contract import Envelope, table_publishes
from firmware.cli import main
from firmware.journal.chain import Row
from firmware.journal.store import Journal
from firmware.sim.simulate import Game
from firmware.uplink.client import Uplink
from firmware.uplink.messages import alert_message, event_row, events_message
from firmware.venue.board import VenueBoard
from firmware.venue.bus import VenueBus
from firmware.venue.demo import make_tables, play, run_fleet
from firmware.venue.demo_truth import Truth
from tests.support.broker import Broker
from tests.support.shipped import MOSQUITTO, shipped
from tests.support.uplinkkit import identity


async def _listen(port, user, password, got: list, ready: asyncio.Event, tls=None) -> None:
    """Subscribe to everything the user may read; collect the topics of what comes."""
    async with aiomqtt.Client(
        "127.0.0.1", port, username=user, password=password, identifier=user, tls_context=tls
    ) as client:
        await client.subscribe("mjtable/#", qos=1)
        ready.set()
        async for message in client.messages:
            got.append(str(message.topic))


async def _publish(port, user, password, topics, tls=None) -> None:
    async with aiomqtt.Client(
        "127.0.0.1", port, username=user, password=password, tls_context=tls
    ) as client:
        for topic in topics:
            await client.publish(topic, b"{}", qos=1)


async def _exchange(listeners: list[tuple], publishers: list[tuple], expected: int) -> None:
    """Listen as each (port, user, password, got, tls), publish as each (port, user,
    password, topics, tls) in turn, until `expected` messages came, and a moment more."""
    ready = [asyncio.Event() for _ in listeners]
    tasks = [
        asyncio.create_task(_listen(*args[:4], ready[i], args[4]))
        for i, args in enumerate(listeners)
    ]
    await asyncio.wait_for(asyncio.gather(*(r.wait() for r in ready)), 5)
    for publisher in publishers:
        await _publish(*publisher)
    deadline = time.monotonic() + 5
    while sum(len(args[3]) for args in listeners) < expected and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    await asyncio.sleep(0.2)  # anything refused would have come by now
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def test_acl_keeps_each_table_to_its_own_topics(reachable):
    """Issue 15: under deploy/mosquitto/acl a table publishes only its own four topics (not
    a command, not as another table: the venue never receives those) and reads only its own
    commands and the venue-wide ones, even subscribed to everything; the venue reads all
    and is the one to command."""
    users = {"t1": "p1", "t2": "p2", "venue": "pv"}
    broker = Broker(reachable, users, (MOSQUITTO / "acl").read_text()).start()
    port, venue_got, t1_got = broker.port, [], []
    own = table_publishes("h", "t1")
    forged = ["mjtable/h/table/t1/cmd", "mjtable/h/cmd", "mjtable/h/table/t2/events"]
    commands = ["mjtable/h/table/t2/cmd", "mjtable/h/cmd", "mjtable/h/table/t1/cmd"]
    try:
        asyncio.run(
            _exchange(
                [(port, "venue", "pv", venue_got, None), (port, "t1", "p1", t1_got, None)],
                [
                    (port, "t1", "p1", forged + own, None),
                    (port, "t2", "p2", ["mjtable/h/table/t2/events"], None),
                    (port, "venue", "pv", commands, None),
                ],
                expected=10,
            )
        )
    finally:
        broker.stop()
    assert venue_got == [*own, "mjtable/h/table/t2/events", *commands]
    assert t1_got == ["mjtable/h/cmd", "mjtable/h/table/t1/cmd"]


def test_shipped_config_takes_a_table_over_tls(reachable):
    """Issue 15: deploy/mosquitto/mosquitto.conf, its paths moved into a test folder, starts;
    add-table.sh's user, with the [uplink] section it prints (which the profile's reader
    takes), publishes over TLS to the venue on the loopback listener."""
    kit = shipped(reachable, "t7")
    broker, tls_port, settings = kit.broker, kit.tls_port, kit.settings
    tls = ssl.create_default_context(cafile=settings.ca_file)
    got: list[str] = []
    broker.start()
    try:
        asyncio.run(
            _exchange(
                [(broker.port, "venue", "pv", got, None)],
                [(tls_port, "t7", settings.password, ["mjtable/hall/table/t7/state"], tls)],
                expected=1,
            )
        )
    finally:
        broker.stop()
    assert got == ["mjtable/hall/table/t7/state"]


def test_shipped_config_delivers_a_tables_score_sheet_to_the_venue(reachable):
    """Issue 29: over deploy/mosquitto as shipped (TLS, passwords, the ACL) and add-table.sh's
    [uplink] section, a table's uplink publishes its score sheet and the venue's consumer
    keeps it as that table's latest: the sheet the table's journal makes, as of its last row.
    The ACL shipped before issue 29 dropped every sheet at the broker."""
    journals = reachable / "journals"
    journals.mkdir()
    (table,) = make_tables(1, 2, journals)
    table.commit_until(math.inf)
    kit = shipped(reachable, table.name)
    broker, settings = kit.broker, kit.settings
    board = VenueBoard("hall")
    broker.start()
    try:
        asyncio.run(_sheet_delivered(table, settings, board, broker.port))
    finally:
        broker.stop()
        table.journal.close()
    kept = board.tables[table.name].score_sheet
    assert kept is not None and kept["seq"] == table.journal.seq
    made = sheet(table.journal.path)
    assert kept["sheet"] == {name: value for name, value in made.items() if name != "journal"}
    assert kept["sheet"]["hands"], "two hands played: the sheet has their rows"
    assert board.counts()["malformed"] == 0


async def _sheet_delivered(table, settings, board: VenueBoard, venue_port: int) -> None:
    """Run the venue's consumer and the table's uplink until the board holds the table's sheet
    as of its last row (or 30 s: the assertions after say what did not come)."""
    bus = VenueBus(board, "127.0.0.1", venue_port, "venue", "pv")
    consumer = asyncio.create_task(bus.run())
    uplink = Uplink(settings, table.journal, table.name, table.state, identity(table.journal.path))
    publishing = asyncio.create_task(uplink.run())

    def done() -> bool:
        held = board.tables.get(table.name)
        kept = held.score_sheet if held is not None else None
        return kept is not None and kept["seq"] == table.journal.seq

    try:
        deadline = time.monotonic() + 30
        while not done() and time.monotonic() < deadline and not publishing.done():
            await asyncio.sleep(0.02)
    finally:
        uplink.close()
        await asyncio.wait([publishing], timeout=5)
        consumer.cancel()
        await asyncio.gather(consumer, publishing, return_exceptions=True)


def _row(seq: int, kind: str, event: ev.Event) -> Row:
    return Row(seq, kind, json.dumps(event.to_json()), "", "", 3)


def test_truth_finds_a_concealed_tile_and_the_wall_order():
    """Issue 15: the fleet's leak check flags a drawn tile, the deal, a concealed kong's
    faces, the walls or a run of their order, and a tile in the public state; the public
    forms the uplink makes of the same rows pass."""
    truth, walls = Truth(), [list(range(w * 36, w * 36 + 36)) for w in range(4)]
    truth.hand(1, walls)
    secret_rows = [
        (2, ev.Dealt(1.0, None, ((1, 2), (3, 4), (5, 6), (7, 8)))),
        (3, ev.Drew(2.0, 0, 77)),
        (4, ev.Konged(3.0, 0, "concealed", (8, 9, 10, 11))),
        (5, ev.KongDeclared(3.0, 0, (8, 9, 10, 11))),
    ]
    for seq, event in secret_rows:
        truth.row(seq, event)
        public = event_row(_row(seq, "output", event))
        private = dict(public, event=event.to_json())
        assert not truth.leaks("events", events_message([public], Envelope("hall", "t1", "s"))), (
            event
        )
        assert truth.leaks("events", events_message([public, private], Envelope("hall", "t1", "s")))
    hand = {"v": 1, "rows": [{"seq": 1, "kind": "hand", "event": {"walls": walls}}]}
    assert truth.leaks("events", hand)
    drawn_then_discarded = [  # the tile drawn is concealed in its row, public in the next
        {"seq": 3, "kind": "output", "event": {"type": "Drew", "seat": 0}},
        {"seq": 6, "kind": "input", "event": {"type": "TileDiscarded", "seat": 0, "tile": 77}},
    ]
    assert not truth.leaks("events", {"v": 1, "rows": drawn_then_discarded})
    assert truth.leaks("alerts", {"seq": 9, "text": "see", "order": [40, 41, 42, 43]})
    assert not truth.leaks("alerts", {"seq": 9, "text": "see", "order": [40, 42, 41, 43]})
    assert truth.leaks("state", {"seq": 3, "scores": [0, 0, 0, 0], "hands": [[77]]})
    assert not truth.leaks("state", {"seq": 3, "scores": [25, -5, -5, -15]})


@pytest.mark.parametrize("ruleset", ["wsom2006", "ccm2012"])
def test_truth_passes_the_uplinks_messages_and_flags_the_rows_themselves(tmp_path, ruleset):
    """Issue 15: over two tables' two hands, every events and alerts message the uplink makes
    of a journal row passes the leak check, and each row with a concealed part, sent as it
    is in the journal, is flagged."""
    tables = make_tables(2, 2, tmp_path, ruleset)
    asyncio.run(play(tables, 100_000.0))
    secrets = 0
    for table in tables:
        for row in table.journal.rows():
            public = json.loads(json.dumps(event_row(row)))
            message = events_message([public], Envelope("hall", table.name, "s"))
            assert not table.truth.leaks("events", message), row
            alert = alert_message(row, Envelope("hall", table.name, "s"))
            assert alert is None or not table.truth.leaks("alerts", alert), row
            if row.seq in table.truth.secrets:
                secrets += 1
                private = dict(public, event=row.data())
                assert table.truth.leaks(
                    "events", events_message([private], Envelope("hall", "t", "s"))
                )
        table.journal.close()
    assert secrets > 100


@pytest.mark.slow  # a second or more: out of the one-minute fast run, in CI's full run
def test_fleet_tables_play_the_simulated_game_on_their_clock(tmp_path, wsom):
    """Issue 15: a fleet table's journal holds the very rows `mjtable simulate --journal`
    writes for its seed, committed on its clock: at `speed` 100, a row of table time t is
    committed t / 100 s after the start, not before, and not much after."""
    tables = make_tables(3, 1, tmp_path)
    started = time.monotonic()
    asyncio.run(play(tables, 100.0))
    for i, table in enumerate(tables):
        direct = Journal(tmp_path / f"direct{i}.sqlite")
        Game(wsom, i + 1, 0.0, journal=direct).play_hand()
        rows = [(r.kind, r.json) for r in table.journal.rows()]
        assert rows == [(r.kind, r.json) for r in direct.rows()]
        assert table.journal.verify() is None and table.hands_done == 1
        times = [(r.data().get("t"), r.seq) for r in table.journal.rows() if r.kind == "input"]
        for t, seq in times:
            late = table.committed[seq] - started - (t + table.offset) / 100.0
            assert -0.01 < late < 1.0, (table.name, seq, late)
        direct.close()
        table.journal.close()


@pytest.mark.slow  # a second and more: CI's full run
def test_run_fleet_brings_every_row_to_the_venue(tmp_path, broker):
    """Issue 15: three tables, a hand each at 100 times real time, each with the real uplink
    to a real broker: the venue's board holds every row, none twice, no gap, and no message
    shows a concealed tile; the rows committed together travel in one message."""
    summary = asyncio.run(run_fleet(("127.0.0.1", broker.port), "hall", 3, 1, 100.0, tmp_path))
    assert summary["complete"] and summary["tables"] == 3 and summary["hands"] == 3
    assert summary["rows"] > 3 * 100 and 0 < summary["messages"] < summary["rows"]
    assert (summary["duplicates"], summary["gaps"], summary["malformed"]) == (0, 0, 0)
    assert summary["concealed_leaks"] == 0


def test_bench_broker_has_the_venue_settings():
    """Issue 15: `mjtable bench venue` measures a broker set up as the venue's is."""
    shipped = (MOSQUITTO / "mosquitto.conf").read_text().splitlines()
    assert set(bench_venue.VENUE_SETTINGS) <= set(shipped)


@pytest.mark.slow
def test_every_row_reaches_the_venue_across_a_broker_outage():
    """Issue 15: the bench's fleet through a broker stopped for 20 s of table time and
    started again: the backlog drains, every row committed reaches the venue's consumer."""
    args = argparse.Namespace(
        tables=5, hands=4, speed=5.0, seconds=10.0, outage=20.0, broker=None, json=True
    )
    result = bench_venue.run_bench(args)
    assert result["backlog_rows"] > 0 and result["drain_seconds"] is not None
    assert result["measured_rows"] > 0


@pytest.mark.slow  # a second and more: CI's full run
def test_venue_simulate_runs_the_fleet_beside_the_dashboard(broker, tmp_path, capsys):
    """Issue 15: `mjtable venue --simulate 2 --hands 1 --speed 100 --json-summary`: the
    dashboard serves while its own bus feeds the fleet's board, and the summary line says
    every row came and none leaked a concealed tile."""
    given = f"venue --broker {broker.address} --venue hall --port 0 --simulate 2 --hands 1"
    results = ["--results-dir", str(tmp_path)]
    assert main([*given.split(), "--speed", "100", *results, "--json-summary"]) == 0
    out = capsys.readouterr().out
    summary = json.loads(out.strip().splitlines()[-1])
    assert summary["complete"] and summary["tables"] == 2 and summary["concealed_leaks"] == 0
    assert summary["gaps"] == 0 and summary["hands"] == 2
