"""The referee's desk over the service: each action of /api/referee/ does what the referee
expects and leaves its trace in the journal (issue 6: "Referee actions, each an engine input
that is journaled"). The service runs here without devices (tests/support/servicekit.py): a fake
shuffler, walls handed over as the stacker would, inputs applied by the test."""

import asyncio

import pytest

from drivers.buttons import BUTTONS
from drivers.reader_frames import BUTTON_CODES
from engine import events as ev
from engine import tiles
from firmware.display import ActionRefused
from firmware.display.actions import ACTIONS
from tests.support.servicekit import act


def device_rows(desk):
    """The device rows of the desk's actions, less the RefereeActed that follows each (who
    acted, issue 16: tests/firmware/desk/test_referee_sessions.py)."""
    rows = [r.data() for r in desk.service.journal.rows() if r.kind == "device"]
    return [row for row in rows if row["type"] != "RefereeActed"]


def test_pause_and_resume_are_journaled_engine_inputs(desk):
    """RULES.md 3.12 (暫停): the referee stops every clock, and starts them again."""
    act(desk, "pause")
    assert desk.service.status().table.clocks.paused_at is not None
    act(desk, "resume")
    assert desk.service.status().table.clocks.paused_at is None
    inputs = [r.data()["type"] for r in desk.service.journal.rows() if r.kind == "input"]
    assert inputs[-2:] == ["ClocksPaused", "ClocksResumed"]


def test_resume_when_running_is_refused_with_the_engines_reason(desk):
    with pytest.raises(ActionRefused, match="already running"):
        act(desk, "resume")


def test_a_ruling_applies_the_proposed_penalty(desk):
    """RULES.md 3.6: an early draw waits for the referee; his ruling applies it."""
    service = desk.service
    service.hands.apply(ev.TileDrawn(service.clock(), 2))  # West draws while East plays
    alert = next(a for a in desk.alerts.values() if a["needs_ruling"])
    assert alert["state"] == "open"
    result = act(
        desk, "rule", {"reason": "seen by the referee", "alert": alert["id"], "apply": True}
    )
    assert any(e["type"] == "PenaltyApplied" for e in result["events"])
    assert desk.alerts[alert["id"]]["state"] == "applied"
    with pytest.raises(ActionRefused):
        act(
            desk, "rule", {"reason": "seen by the referee", "alert": alert["id"], "apply": False}
        )  # ruled already


def test_acknowledging_a_fault_marks_it_and_is_journaled(desk):
    service = desk.service
    service.faults.report(service.clock(), "shuffler", "jam", "the North lane jammed", "clear")
    fault_id = service.status().faults[-1].id
    act(desk, "ack", {"fault": fault_id})
    assert device_rows(desk)[-1] == {
        "type": "Acknowledged",
        "t": service.clock(),
        "seat": None,
        "fault": fault_id,
        "alert": None,
    }
    shown = next(f for f in desk.snapshot(True)["faults"] if f["id"] == fault_id)
    assert shown["seen"] and not shown["cleared"]  # issue 16: seen is not fixed
    with pytest.raises(ActionRefused, match="no fault 999"):
        act(desk, "ack", {"fault": 999})


def test_correcting_the_tracking_moves_the_tile_and_is_journaled(desk):
    tile = desk.service.status().table.hands[0][0]
    act(desk, "correct", {"tile": tile, "zone": "river_E"})
    assert desk.service.hands.tracker.where(tile) == "river_E"
    assert device_rows(desk)[-1]["type"] == "TrackingCorrected"
    with pytest.raises(ActionRefused, match="zones"):
        act(desk, "correct", {"tile": tile, "zone": "pocket"})
    flower = len(tiles.physical_set(False))  # WSOM plays without flowers
    with pytest.raises(ActionRefused, match="not on the table"):
        act(desk, "correct", {"tile": flower, "zone": "river_E"})
    assert device_rows(desk)[-1]["tile"] == tile  # a refused correction is not journaled


def test_voiding_a_hand_gives_the_redeal_the_same_number(desk):
    """A void hand does not count: the same dealer deals again (VENUE.md disputes)."""
    service = desk.service
    number = service.status().hand_number
    why = {"reason": "the wall was knocked over"}
    assert act(desk, "void_hand", why) == {"voided": number}
    status = service.status()
    assert status.table is None and status.hand_number == number - 1
    [voided] = [row for row in device_rows(desk) if row["type"] == "HandVoided"]
    assert voided["reason"] == why["reason"]  # issue 14
    with pytest.raises(ActionRefused):
        act(desk, "void_hand", why)


def test_score_confirmation_and_signature_need_hands_on_the_sheet(desk):
    with pytest.raises(ActionRefused, match="not on the score sheet"):
        act(desk, "confirm_score", {"hand": 1})
    with pytest.raises(ActionRefused, match="no hand to sign"):
        act(desk, "sign_sheet", {"hand": 1, "referee": "Ref A"})


def test_every_action_the_display_takes_has_its_handler_at_the_desk_and_no_other(desk):
    """Issue 29 (../shared/LAYOUT.md §4.2): display/actions.py's ACTIONS, the actions the page
    may post, and the desk's handlers are one list: an action added to one and not the other
    is either refused as unknown after the display accepted it, or never reachable."""
    assert set(desk.handlers()) == set(ACTIONS)


def test_buttons_agree_with_the_frame_codes():
    assert BUTTON_CODES == BUTTONS


def test_updates_reach_every_open_page_and_the_public_one_hides_the_hands(desk):
    async def scenario():
        public, referee = desk.subscribe(False), desk.subscribe(True)
        service = desk.service
        tile = service.status().table.hands[0][-1]
        service.hands.apply(ev.TileDiscarded(service.clock(), 0, tile))
        return public.get_nowait(), referee.get_nowait()

    public, referee = asyncio.run(scenario())
    assert [e["type"] for e in public["events"]] == ["Discarded"]
    assert all("hand" not in seat for seat in public["state"]["seats"])
    assert all("hand" in seat for seat in referee["state"]["seats"])


def test_a_full_page_queue_drops_the_oldest_update(desk):
    async def scenario():
        queue = desk.subscribe(False)
        for _ in range(150):
            desk.publish([])
        return queue

    queue = asyncio.run(scenario())
    assert queue.qsize() == 100
    assert queue.get_nowait()["seq"] == 51
