"""Issue 32 item 5: no venue row lost to a broker crash. The venue asks a table again, in a
signed `resend`, for every row of its session it misses (firmware/venue/resend.py,
firmware/venue/bus.py); a row sent again fills its gap and is dropped if held; a row that
comes late disturbs neither the rulings waiting nor the venue's watch of the walls.

The end to end run: the shipped broker (deploy/mosquitto/) SIGKILLed while the venue is away,
a table started as `mjtable run`, every row at the venue once (a slow test, below)."""

import asyncio
import json
import signal
import subprocess
import sys
import time

import aiomqtt
import pytest

from firmware.bus.signing import signed_by
from firmware.journal.store import Journal
from firmware.venue import bus as venue_bus
from firmware.venue import resend
from firmware.venue.board import VenueBoard
from firmware.venue.resend import ASK_AFTER, ASK_AGAIN, ROWS_AT_ONCE, TABLES_AT_ONCE, Asks
from tests.support.shipped import REPO, VENUE_PASSWORD, shipped, table_profile
from tests.support.venuekit import KEY, VENUE, alert, feed, row, state, status

T0 = 1000.0  # the venue's monotonic clock, seconds


def fed(seqs, latest: int | None = None, table: str = "T1") -> VenueBoard:
    """A board holding `table`'s rows `seqs` of session s1, and its state at row `latest`."""
    board = VenueBoard(VENUE)
    if latest is not None:
        feed(board, table, "state", state(table, seq=latest))
        feed(board, table, "status", status(table))
    for seq in seqs:
        feed(board, table, "events", row(table, seq))
    return board


def test_issue_32_every_gap_and_the_tail_are_asked_for_once_they_stand():
    """Issue 32 item 5: rows 1-10 and 21-30 held, the table's state at row 40: once the gap
    has stood ASK_AFTER, one resend asks for rows 11 to 40 (the rows between come twice,
    dropped by seq); not again before ASK_AGAIN. A gap that closes before (rows in flight,
    a state sent a moment before its rows) is never asked for."""
    board, asks = fed([1, 2], latest=4), Asks()
    assert asks.due(board, T0) == []
    feed(board, "T1", "events", row("T1", 3))
    assert asks.due(board, T0 + 1) == []
    feed(board, "T1", "state", state("T1", seq=6))
    feed(board, "T1", "events", row("T1", 4))
    assert asks.due(board, T0 + ASK_AFTER) == []  # a first gap other each time: none stood
    for seq in (5, 6):
        feed(board, "T1", "events", row("T1", seq))
    assert asks.due(board, T0 + 2 * ASK_AFTER) == []
    board, asks = fed([*range(1, 11), *range(21, 31)], latest=40), Asks()
    assert asks.due(board, T0) == []
    assert asks.due(board, T0 + ASK_AFTER - 0.1) == []
    wanted = {"session": "s1", "after": 10, "until": 40}
    assert asks.due(board, T0 + ASK_AFTER) == [("T1", wanted)]
    assert asks.due(board, T0 + ASK_AFTER + ASK_AGAIN - 0.1) == []
    assert asks.due(board, T0 + ASK_AFTER + ASK_AGAIN) == [("T1", wanted)]


def test_issue_32_the_first_rows_of_a_session_are_asked_for_too():
    """Issue 32 item 5: a session begun while the venue was away and the broker crashed: its
    state says row 6, no row came: rows 1 to 6 are asked for (after 0)."""
    board, asks = fed([], latest=6), Asks()
    asks.due(board, T0)
    assert asks.due(board, T0 + ASK_AFTER) == [("T1", {"session": "s1", "after": 0, "until": 6})]


def test_issue_32_a_gap_filled_is_asked_no_more_and_a_silent_table_less_often():
    """Issue 32 item 5: while none of a gap comes (a table switched off, or refusing) the
    venue asks again less and less often; rows coming bring it back to ASK_AGAIN; a gap
    filled is asked no more; a table whose status is offline is not asked (it cannot hear)."""
    board, asks = fed([*range(1, 11)], latest=20), Asks()
    asks.due(board, T0)
    t = T0 + ASK_AFTER
    assert len(asks.due(board, t)) == 1
    assert len(asks.due(board, t + ASK_AGAIN)) == 1  # nothing came: next after 2 x ASK_AGAIN
    assert asks.due(board, t + 3 * ASK_AGAIN - 0.1) == []
    assert len(asks.due(board, t + 3 * ASK_AGAIN)) == 1  # then after 4 x ASK_AGAIN
    for seq in range(11, 16):
        feed(board, "T1", "events", row("T1", seq))
    t += 7 * ASK_AGAIN
    assert asks.due(board, t) == []  # a gap that begins later stands from now
    t += ASK_AFTER
    assert asks.due(board, t) == [("T1", {"session": "s1", "after": 15, "until": 20})]
    assert len(asks.due(board, t + ASK_AGAIN)) == 1  # rows came: ASK_AGAIN again
    feed(board, "T1", "status", status("T1", online=False))
    assert asks.due(board, t + 10 * ASK_AGAIN) == []
    feed(board, "T1", "status", status("T1"))
    for seq in range(16, 21):
        feed(board, "T1", "events", row("T1", seq))
    assert asks.due(board, t + 20 * ASK_AGAIN) == []
    counts = board.counts()
    assert (counts["events"], counts["gaps"]) == (20, 0)


def test_issue_32_a_long_gap_is_asked_for_a_part_at_a_time_and_a_few_tables_a_round():
    """Issue 32 item 5: at most ROWS_AT_ONCE rows in one resend; a venue started in a full
    hall (every table's state names rows it never had) asks TABLES_AT_ONCE tables a round,
    each in turn."""
    board, asks = fed([1], latest=ROWS_AT_ONCE * 3), Asks()
    asks.due(board, T0)
    ((_, args),) = asks.due(board, T0 + ASK_AFTER)
    assert (args["after"], args["until"]) == (1, 1 + ROWS_AT_ONCE)
    board, asks, hall = VenueBoard(VENUE), Asks(), 3 * TABLES_AT_ONCE
    for n in range(hall):
        feed(board, f"T{n}", "state", state(f"T{n}", seq=500))
    asks.due(board, T0)
    rounds = [asks.due(board, T0 + ASK_AFTER + second) for second in range(4)]
    assert [len(asked) for asked in rounds] == [TABLES_AT_ONCE] * 3 + [0]
    assert sorted(name for asked in rounds for name, _ in asked) == sorted(board.tables)
    assert rounds[0][0][1] == {"session": "s1", "after": 0, "until": 500}


def test_issue_32_a_row_sent_again_is_kept_once_and_late_ones_leave_the_rulings_be():
    """Issue 32 item 5: a row held already and sent again is a duplicate, dropped; a hand row
    of an earlier hand that fills a gap late does not end the ruling that waits in the hand
    after it (the engine numbers its alerts afresh each hand, so on main it did)."""
    board = fed([1, 2, 3, 10])
    feed(board, "T1", "events", row("T1", 11, "hand", {"type": "HandStarted"}))
    feed(board, "T1", "alerts", alert("T1", 1, 12, "ruling"))
    assert "ruling:1" in board.tables["T1"].alerts
    feed(board, "T1", "events", row("T1", 5, "hand", {"type": "HandStarted"}))  # sent again
    feed(board, "T1", "events", row("T1", 6, "output", {"type": "PenaltyApplied", "alert": 1}))
    feed(board, "T1", "events", row("T1", 2))
    assert "ruling:1" in board.tables["T1"].alerts
    counts = board.counts()
    assert (counts["events"], counts["duplicates"]) == (7, 1)


def test_issue_32_the_venues_bus_asks_the_table_signed(broker, monkeypatch):
    """Issue 32 item 5: the venue's client on a real broker sends the resend for a gap on the
    table's cmd topic, signed with the venue key, for the table's session."""
    monkeypatch.setattr(resend, "ASK_AFTER", 0.5)
    monkeypatch.setattr(venue_bus, "ASK_SECONDS", 0.05)

    async def play():
        board = VenueBoard(VENUE)
        bus = venue_bus.VenueBus(board, "127.0.0.1", broker.port, key=KEY)
        consumer = asyncio.create_task(bus.run())
        try:
            await wait(lambda: board.connected)  # subscribed: it hears all that follows
            async with aiomqtt.Client("127.0.0.1", broker.port) as table:
                await table.subscribe(f"mjtable/{VENUE}/table/T2/cmd", qos=1)
                topic = f"mjtable/{VENUE}/table/T2"
                await table.publish(f"{topic}/state", json.dumps(state("T2", seq=9)), qos=1)
                for seq in (1, 2, 5):
                    await table.publish(f"{topic}/events", json.dumps(row("T2", seq)), qos=1)
                async with asyncio.timeout(10):
                    async for message in table.messages:
                        return json.loads(message.payload)
        finally:
            consumer.cancel()
            await asyncio.gather(consumer, return_exceptions=True)

    sent = asyncio.run(play())
    assert (
        signed_by(sent, KEY.public_key()) and sent["table"] == "T2" and sent["command"] == "resend"
    )
    assert sent["args"] == {"session": "s1", "after": 2, "until": 9}


def journal_of(path) -> tuple[int, str | None, int]:
    """The journal's last seq, its session and the uplink's cursor (read-only, as it runs)."""
    with Journal(path, readonly=True) as journal:
        return journal.seq, journal.session_id, journal.uplink_seq()


def held(board: VenueBoard, table: str) -> list[list[int]]:
    """The runs of seqs the venue holds of `table`'s current session."""
    known = board.tables.get(table)
    log = known.sessions.get(known.session or "") if known else None
    return [list(run) for run in log.seqs.runs] if log else []


@pytest.mark.slow  # a table started as `mjtable run` and a broker killed: 15-30 s
def test_issue_32_a_broker_killed_while_the_venue_is_away_loses_no_row(reachable):
    """Issue 32 item 5 (Done when): the broker as deploy/mosquitto/ ships it (TLS, passwords,
    the ACL, its persistence), a table started as `mjtable run` with add-table.sh's [uplink],
    the venue's client holding its rows. The venue goes away; the table's rows go on and the
    broker acknowledges them (the table's cursor passes them); the broker is SIGKILLed and
    started again on its store; the venue comes back. Every row of the journal reaches the
    venue once: its session held as one run from row 1 to the last, no gap, each row taken
    once (a row sent again is a duplicate, dropped)."""
    table = "sim-1"
    kit = shipped(reachable, table)
    broker, tls_port = kit.broker, kit.tls_port
    profile, journal = table_profile(reachable, table, tls_port), reachable / "j.sqlite"
    board = VenueBoard(VENUE)

    def venue() -> asyncio.Task:
        bus = venue_bus.VenueBus(board, "127.0.0.1", broker.port, "venue", VENUE_PASSWORD, KEY)
        return asyncio.create_task(bus.run())

    async def away(task: asyncio.Task) -> None:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)

    async def play(running: subprocess.Popen) -> None:
        listening = venue()
        await wait(lambda: held(board, table) and held(board, table)[-1][1] >= 20)
        await away(listening)  # its session stays on the broker, its rows queued there
        gone_at = held(board, table)[-1][1]
        await wait(lambda: journal_of(journal)[2] >= gone_at + 40)  # acknowledged since
        broker.kill()
        broker.start()
        listening = venue()
        try:
            lost_at = journal_of(journal)[0]
            await wait(lambda: whole(held(board, table), lost_at))
            await wait(lambda: held(board, table)[-1][1] > lost_at + 20)  # and rows go on
        finally:
            running.send_signal(signal.SIGTERM)
            await asyncio.to_thread(running.wait, 30)
        last, _, cursor = journal_of(journal)
        assert cursor == last
        await wait(lambda: held(board, table) == [[1, last]])
        await away(listening)

    broker.start()
    running = start(profile, journal)
    try:
        asyncio.run(play(running))
    finally:
        running.kill()
        broker.stop()
    err = running.stderr.read() if running.stderr else ""
    assert running.returncode == 0 and "Traceback" not in err, err
    last, session, _ = journal_of(journal)
    assert board.tables[table].session == session
    assert board.counts()["events"] == last  # each row taken once, whatever came twice


def whole(runs: list[list[int]], last: int) -> bool:
    """One run of seqs from row 1 to `last` or beyond: no row missing."""
    return len(runs) == 1 and runs[0][0] == 1 and runs[0][1] >= last


def start(profile, journal) -> subprocess.Popen:
    """`mjtable run` on `profile` until stopped (SIGTERM), 30 times real time, no display."""
    cmd = [sys.executable, "-m", "firmware.cli", "run", "--profile", str(profile)]
    cmd += ["--port", "0", "--journal", str(journal), "--seed", "1", "--speed", "30"]
    return subprocess.Popen(
        cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )


async def wait(done, seconds: float = 60.0) -> None:
    """Until `done()`; the bound only ends a wait for what never comes (a busy machine makes
    it later, never wrong)."""
    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline, "waited too long"
        await asyncio.sleep(0.05)
