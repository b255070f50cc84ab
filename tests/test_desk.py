"""The referee's desk over the service: each action of /api/referee/ does what the referee
expects and leaves its trace in the journal (issue 6: "Referee actions, each an engine input
that is journaled"). The service runs here without devices: a fake shuffler, walls handed
over as the stacker would, inputs applied by the test."""

import asyncio
import random

import pytest

from drivers.buttons import BUTTONS
from drivers.readers import BUTTON_CODES, SeatButton
from engine import events as ev
from engine import tiles
from engine.wall import build_walls, wsom_break
from firmware.config import load_ruleset
from firmware.desk import Desk
from firmware.display import ActionRefused
from firmware.journal import Journal
from firmware.profile import load_profile
from firmware.service import Service


class StillShuffler:
    """A shuffler standing ready: the desk only reads it."""

    state, set_in_play, set_ready, counts, fault = "ready", "A", "B", (34, 34, 34, 34), None

    def poll(self, t):
        pass


class Clock:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


@pytest.fixture
def desk(tmp_path):
    profile = load_profile("sim")
    ruleset = load_ruleset("wsom2006")
    journal = Journal(tmp_path / "j.sqlite")
    clock = Clock()
    service = Service(
        profile, ruleset, profile.tags, journal, clock, StillShuffler(), out=lambda line: None
    )
    order = tiles.physical_set(False)
    random.Random(5).shuffle(order)
    service.walls_ready = build_walls(order, 17)
    service._new_hand(clock.t, "A")
    service.apply(ev.DiceRolled(clock.t, 0, (3, 4)))  # RULES.md 3.4: two rolls
    service.apply(ev.DiceRolled(clock.t, wsom_break(7, 2).seat, (2, 5)))
    assert service.table.state == "discard"
    yield Desk(service, "test table")
    journal.close()


def act(desk, action, body=None):
    return asyncio.run(desk.act(action, body or {}))


def device_rows(desk):
    return [r.data() for r in desk.service.journal.rows() if r.kind == "device"]


def test_pause_and_resume_are_journaled_engine_inputs(desk):
    """RULES.md 3.12 (暫停): the referee stops every clock, and starts them again."""
    act(desk, "pause")
    assert desk.service.table.clocks.paused_at is not None
    act(desk, "resume")
    assert desk.service.table.clocks.paused_at is None
    inputs = [r.data()["type"] for r in desk.service.journal.rows() if r.kind == "input"]
    assert inputs[-2:] == ["ClocksPaused", "ClocksResumed"]


def test_resume_when_running_is_refused_with_the_engines_reason(desk):
    with pytest.raises(ActionRefused, match="already running"):
        act(desk, "resume")


def test_a_ruling_applies_the_proposed_penalty(desk):
    """RULES.md 3.6: an early draw waits for the referee; his ruling applies it."""
    service = desk.service
    service.apply(ev.TileDrawn(service.clock(), 2))  # West draws while East plays
    alert = next(a for a in desk.alerts.values() if a["needs_ruling"])
    assert alert["state"] == "open"
    result = act(desk, "rule", {"alert": alert["id"], "apply": True})
    assert any(e["type"] == "PenaltyApplied" for e in result["events"])
    assert desk.alerts[alert["id"]]["state"] == "applied"
    with pytest.raises(ActionRefused):
        act(desk, "rule", {"alert": alert["id"], "apply": False})  # ruled already


def test_acknowledging_a_fault_marks_it_and_is_journaled(desk):
    service = desk.service
    service.fault(service.clock(), "shuffler", "jam", "the North lane jammed", "clear it")
    fault_id = service.faults[-1].id
    act(desk, "ack", {"fault": fault_id})
    assert device_rows(desk)[-1] == {"type": "Acknowledged", "t": 100.0, "fault": fault_id}
    assert next(f for f in desk.snapshot(True)["faults"] if f["id"] == fault_id)["cleared"]
    with pytest.raises(ActionRefused, match="no fault 999"):
        act(desk, "ack", {"fault": 999})


def test_correcting_the_tracking_moves_the_tile_and_is_journaled(desk):
    tile = desk.service.table.hands[0][0]
    act(desk, "correct", {"tile": tile, "zone": "river_E"})
    assert desk.service.tracker.where(tile) == "river_E"
    assert device_rows(desk)[-1]["type"] == "TrackingCorrected"
    with pytest.raises(ActionRefused, match="zones"):
        act(desk, "correct", {"tile": tile, "zone": "pocket"})


def test_voiding_a_hand_gives_the_redeal_the_same_number(desk):
    """A void hand does not count: the same dealer deals again (VENUE.md disputes)."""
    service = desk.service
    number = service.session.hand_number
    act(desk, "void_hand")
    assert service.table is None and service.session.hand_number == number - 1
    assert device_rows(desk)[-1]["type"] == "HandVoided"
    with pytest.raises(ActionRefused):
        act(desk, "void_hand")


def test_score_confirmation_and_signature_need_hands_on_the_sheet(desk):
    with pytest.raises(ActionRefused, match="not on the score sheet"):
        act(desk, "confirm_score", {"hand": 1})
    with pytest.raises(ActionRefused, match="no hand to sign"):
        act(desk, "sign_sheet", {"hand": 1, "referee": "Ref A"})


def test_a_seat_button_from_the_zone_reader_is_a_press(desk):
    """reference-pi.toml wires the seat panels to the zone reader's board: its SeatButton
    frame is the same press as a pin's (drivers/README.md)."""
    service = desk.service
    service.handle(service.clock(), SeatButton(2, "referee"))
    assert service.faults[-1].kind == "referee" and "W player" in service.faults[-1].message


def test_buttons_agree_with_the_frame_codes():
    assert BUTTON_CODES == BUTTONS


def test_updates_reach_every_open_page_and_the_public_one_hides_the_hands(desk):
    async def scenario():
        public, referee = desk.subscribe(False), desk.subscribe(True)
        service = desk.service
        tile = service.table.hands[0][-1]
        service.apply(ev.TileDiscarded(service.clock(), 0, tile))
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
