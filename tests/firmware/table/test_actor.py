"""The actor (issue 11, DESIGN.md: "Every input, a referee's action included, enters the
service's one queue and is stamped there"): a referee's action and a reader's frame are
journaled and applied in the order they were stamped, whichever came first; a refusal goes
back to the referee; a bug in one item becomes a fault and the table goes on. A fake clock
(tests/support/servicekit.py) gives the stamps; nothing waits on time."""

import asyncio

import pytest

from drivers.reader_frames import Inventory
from engine.seats import zone
from firmware.desk.desk import Desk
from firmware.display import ActionRefused
from firmware.journal.store import Journal
from tests.support.servicekit import Clock, dealt_service, take_queued


@pytest.fixture
def table(tmp_path):
    """A dealt hand whose East has one tile half-way to his river: the zone reader's next
    sweep of the river completes the discard."""
    journal = Journal(tmp_path / "j.sqlite")
    clock = Clock()
    service = dealt_service(journal, clock)
    desk = Desk(service, "test table")
    side = service.hands.interpreter.side(0)  # where East sits
    antenna = {name: antenna for antenna, name in service.profile.zones.items()}
    tile = service.status().table.hands[0][-1]
    tag = {owner: tag for tag, owner in service.profile.tags.items()}[("A", tile)]
    river = Inventory(antenna[zone("river", side)], (tag,))

    async def seen_leaving_the_rack():
        answer = asyncio.ensure_future(
            desk.act("correct", {"tile": tile, "zone": zone("hand", side)})
        )
        await asyncio.sleep(0)  # submitted
        for _ in range(service.hands.tracker.confirm - 1):  # all its sightings but the last
            service.actor.record(river)
            service.actor.record(Inventory(antenna[zone("hand", side)], ()))
        # the rack's second sweep without it: its absence as sure as its presence (issue 32 item 8)
        service.actor.record(Inventory(antenna[zone("hand", side)], ()))
        take_queued(service)
        await answer

    asyncio.run(seen_leaving_the_rack())
    yield service, desk, clock, river
    journal.close()


def inputs_since_the_deal(service) -> list[tuple[str, float]]:
    rows = [r.data() for r in service.journal.rows() if r.kind == "input"]
    return [(r["type"], r["t"]) for r in rows if r["type"] != "DiceRolled"]


async def acted_in_turn(service, queue_both):
    """Queue a frame and a referee's pause while the actor is busy (not yet taking), then
    let it take them; the desk's answer to the pause."""
    pause = await queue_both()
    worker = asyncio.create_task(service.run())
    try:
        return await pause
    finally:
        worker.cancel()


def test_a_frame_stamped_before_a_pause_is_applied_before_it(table):
    """The discard seen at 105.0, the referee's pause at 105.1: the discard is journaled and
    applied first, the pause after (it stops the clocks of the claim window)."""
    service, desk, clock, river = table

    async def queue_both():
        service.actor.record(river)
        clock.t += 0.1
        pause = asyncio.ensure_future(desk.act("pause", {}))
        await asyncio.sleep(0)  # the desk submits: stamped now, queued behind the frame
        return pause

    answer = asyncio.run(acted_in_turn(service, queue_both))
    assert inputs_since_the_deal(service) == [("TileDiscarded", 105.0), ("ClocksPaused", 105.1)]
    assert answer["done"] == "pause"
    status = service.status()
    assert status.state == "claim_window" and status.table.clocks.paused_at == 105.1


def test_a_pause_stamped_before_a_frame_is_applied_before_it(table):
    """The reverse: the pause at 105.0, then the frame at 105.1; the engine has the clocks
    stopped when the discard reaches it."""
    service, desk, clock, river = table

    async def queue_both():
        pause = asyncio.ensure_future(desk.act("pause", {}))
        await asyncio.sleep(0)  # submitted, stamped 105.0
        clock.t += 0.1
        service.actor.record(river)
        return pause

    answer = asyncio.run(acted_in_turn(service, queue_both))
    assert inputs_since_the_deal(service) == [("ClocksPaused", 105.0), ("TileDiscarded", 105.1)]
    assert answer["done"] == "pause" and service.status().table.clocks.paused_at == 105.0


def test_a_refusal_goes_back_to_the_referee_and_is_no_fault(table):
    service, desk, _, _ = table

    async def refused():
        answer = asyncio.ensure_future(desk.act("resume", {}))
        await asyncio.sleep(0)
        take_queued(service)
        return await answer

    with pytest.raises(ActionRefused, match="already running"):
        asyncio.run(refused())
    assert not service.status().faults


def test_a_bug_in_one_item_becomes_a_fault_and_the_next_item_is_taken(table):
    service, _, _, river = table

    async def broken_then_frame():
        failing = service.actor.submit(lambda t: 1 / 0)
        service.actor.record(river)
        take_queued(service)
        with pytest.raises(ZeroDivisionError):
            await failing

    asyncio.run(broken_then_frame())
    fault = service.status().faults[-1]
    assert (fault.device, fault.kind) == ("service", "internal") and "ZeroDivision" in fault.message
    assert inputs_since_the_deal(service)[-1][0] == "TileDiscarded"
