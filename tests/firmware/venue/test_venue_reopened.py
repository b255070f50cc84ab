"""Issue 36, "Waive, revoke ... can be undone": a waive undone reopens the venue's ruling. At a
real service's desk (tests/support/deskkit.py's DeskedTable: WSOM's 3.6 wrong_draw_win, 10
points, reported against South in hand 1, hand 2 dealt), the floor referee waives hand 1's
alert 1, then undoes the waive and applies it. The table's uplink (firmware/uplink/client.py)
publishes its journal to a real Mosquitto; the venue's own consumer (firmware/venue/bus.py)
feeds its board: the ruling waits, is closed by the waive, waits again once the waive is
undone (`reopened`, paged for as a ruling), and is closed by the ruling that applies it.
"""

import asyncio
import contextlib
import time

from firmware.bus.settings import UplinkSettings
from firmware.journal.store import Journal
from firmware.uplink.client import Uplink
from firmware.uplink.messages import status_state
from firmware.venue.board import VenueBoard
from firmware.venue.bus import VenueBus
from firmware.venue.view import tile
from tests.support.deskkit import reported_then_dealt
from tests.support.servicekit import Clock, take_queued
from tests.support.tablekit import S
from tests.support.uplinkkit import TABLE, identity
from tests.support.venuekit import VENUE

WAIVED = {"alert": 1, "apply": False, "reason": "not seen", "hand": 1}
UNDONE = {"alert": 1, "hand": 1, "reason": "he had seen it after all"}
APPLIED = {"alert": 1, "apply": True, "reason": "seen by the floor referee", "hand": 1}
WAITED = 30.0  # seconds at most for the venue to see what the table did (a busy machine)


async def acting(desk, action: str, body: dict) -> dict:
    """The referee's action through the actor's queue, as the display submits it."""
    answer = asyncio.ensure_future(desk.act(action, body))
    await asyncio.sleep(0)  # the desk submits it: stamped and queued
    take_queued(desk.service)
    return await answer


async def until(check, what: str):
    deadline = time.monotonic() + WAITED
    while not (result := check()):
        assert time.monotonic() < deadline, f"waited {WAITED} s for {what}"
        await asyncio.sleep(0.02)
    return result


def ruling_waits(board: VenueBoard) -> list[tuple]:
    """(key, kind, hand, seat) of each ruling the venue's board shows waiting for the table."""
    table = board.tables.get(TABLE)
    waiting = table.waiting() if table else []
    return [(a["key"], a["kind"], a["hand"], a["seat"]) for a in waiting if a["of"] == "ruling"]


def test_issue_36_a_waive_undone_reopens_the_venues_ruling_through_the_broker(tmp_path, broker):
    """Hand 1's alert 1 waits at the venue; waived, it is closed; the waive undone, it waits
    again as a ruling the pager calls for, saying so with the undo's reason; applied, it is
    closed, and the table's drill-down lists ruled, reopened, ruled with their reasons."""
    seen: dict[str, object] = {}

    async def day(journal, table) -> None:
        desk, service = table.desk, table.service
        board = VenueBoard(VENUE)
        settings = UplinkSettings("127.0.0.1", broker.port, VENUE, False, None, None, None, None, 2)
        uplink = Uplink(
            settings,
            journal,
            TABLE,
            lambda: status_state(service.status(), uplink.alerts),
            identity(journal.path),
        )
        service.commands.subscribe(lambda events: uplink.changed())
        bus = VenueBus(board, "127.0.0.1", broker.port)
        tasks = [asyncio.create_task(bus.run()), asyncio.create_task(uplink.run())]
        try:
            hand_1 = ("ruling:1:1", "ruling", 1, S)
            await until(lambda: ruling_waits(board) == [hand_1], "hand 1's ruling to wait")
            await acting(desk, "rule", WAIVED)
            await until(lambda: ruling_waits(board) == [], "the waive to close it")
            await acting(desk, "undo_waive", UNDONE)
            await until(lambda: ruling_waits(board) == [hand_1], "the undo to reopen it")
            seen["reopened"] = dict(board.tables[TABLE].alerts["ruling:1:1"])
            seen["calling"] = tile(board.tables[TABLE], time.time())["calling"]
            seen["waiting_at_the_table"] = uplink.alerts.count
            await acting(desk, "rule", APPLIED)
            await until(lambda: ruling_waits(board) == [], "the ruling to close it again")
            rulings = lambda: list(board.tables[TABLE].rulings.values())  # noqa: E731
            await until(lambda: len(rulings()) == 3, "the three rulings")
            seen["rulings"] = rulings()
        finally:
            uplink.close()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(tasks[1], WAITED)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    with Journal(tmp_path / "j.sqlite") as journal:
        asyncio.run(day(journal, reported_then_dealt(journal, Clock())))
    reopened = seen["reopened"]
    assert reopened["text"].endswith(
        f"waive undone, the penalty awaits a ruling; reason: {UNDONE['reason']}"
    )
    assert seen["calling"], "the pager calls for the ruling again"
    assert seen["waiting_at_the_table"] == 1, "the table's own count waits for it again"
    rulings = seen["rulings"]
    said = [(r["kind"], r["hand"], r["applied"], r["reason"], r["offence"]) for r in rulings]
    assert said == [
        ("ruled", 1, False, WAIVED["reason"], "wrong_draw_win"),
        ("reopened", 1, False, UNDONE["reason"], "wrong_draw_win"),
        ("ruled", 1, True, APPLIED["reason"], "wrong_draw_win"),
    ]
    assert [r["points"] for r in rulings] == [10, 10, 10]  # seed 000: a first offence
