"""Issue 29 ("Restart state depends on what is attached"): the table takes up everything it
owns after a restart itself (firmware/table/resume.py), so a table restarted with or without
its display (the desk) and with or without its venue uplink has the same status: the players
entered, the venue's notes, the hand voided since the last deal."""

import json
import random

import pytest

from drivers.reader_frames import Stacked
from drivers.shuffler import WallsRaised, WallsReady
from engine import tiles
from firmware.bus.signing import sign
from firmware.desk.desk import Desk
from firmware.journal.replay import replay
from firmware.journal.store import Journal
from firmware.resources import load_ruleset
from firmware.table.actor import Actor
from firmware.table.profile import load_profile
from firmware.table.service import Service
from firmware.table.walls import STACKER_WAIT
from firmware.uplink.commands import VenueCommands
from tests.support.servicekit import Clock, StillShuffler, act, dealt_service, play_out, take_queued
from tests.support.venuekeys import VENUE_KEY as KEY
from tests.support.venuekeys import VENUE_PUBLIC as PUBLIC

WALL = 1_750_000_000.0  # the table's wall clock, Unix seconds
SEATED = [{"name": f"Venue {n}", "federation_id": None} for n in range(4)]  # the venue's
PLAYERS = [  # entered at the desk afterwards: the latest stands
    {"name": "Li Wei", "federation_id": "CN-0042"},
    {"name": "Ana Souza", "federation_id": None},
    {"name": "山田 花子", "federation_id": "JP-7"},
    {"name": "Tom Berg", "federation_id": "SE-19"},
]


def _send(service, commands, n: int, name: str, args: dict | None = None) -> None:
    """A signed venue command as the uplink hands it over, on the actor's turn."""
    unsigned = {
        "v": 1,
        "id": f"cmd-{n}",
        "issued": WALL - 2,
        "venue": "hall",
        "table": "T07",
        "command": name,
        "args": args or {},
    }
    commands.receive(service.clock(), json.dumps(sign(unsigned, KEY)).encode())


def _raise_walls(service, clock: Clock, tile_set: str) -> None:
    """The stacker reads the walls of `tile_set`, they are judged and raised."""
    tag = {owner: tag for tag, owner in service.profile.tags.items()}
    order = tiles.physical_set(False)
    random.Random(7).shuffle(order)
    for position, tile in enumerate(order):
        service.actor.record(Stacked(position, tag[(tile_set, tile)]))
    service.actor.record(WallsReady(clock.t, tile_set, (34, 34, 34, 34), 60.0))
    clock.t += STACKER_WAIT
    service.actor.tick()
    service.actor.record(WallsRaised(clock.t, tile_set))
    take_queued(service)


@pytest.fixture
def cut_journal(tmp_path):
    """The path of a journal that a fully attached table left: the venue's sitting of 60
    minutes with its seating and a message, hand 1 played, the players entered at the desk,
    hand 2 voided by the referee, the players asked to sign hand 1 (one has), the venue's
    pause between hands; and the status of that table's venue notes and voided hand."""
    path, clock = tmp_path / "table.sqlite", Clock()
    journal = Journal(path)
    service = dealt_service(journal, clock)
    desk = Desk(service, "T07")
    commands = VenueCommands(service, PUBLIC, "hall", "T07", wall_clock=lambda: WALL)
    _send(service, commands, 1, "start_session", {"players": SEATED, "minutes": 60})
    _send(service, commands, 2, "message", {"text": "Round 2 at 3"})
    play_out(service.hands, clock.t)
    act(desk, "players", {"players": PLAYERS})
    _raise_walls(service, clock, "B")
    act(desk, "void_hand", {"reason": "a tile dropped off the table"})
    act(desk, "ask_signatures", {"hand": 1})
    act(desk, "player_signs", {"person": 0})
    _send(service, commands, 3, "pause")
    before = service.status()
    assert before.venue.players == tuple(PLAYERS) and before.venue.paused
    assert before.voided == {"hand": 2, "reason": "a tile dropped off the table"}
    journal.close()
    return path, before


def _restarted(path, display: bool, uplink: bool):
    """`mjtable run` again on the journal (firmware/run/rig.py's order): the desk if there
    is a display, the venue's commands if there is an uplink, then the session resumed."""
    with Journal(path, readonly=True) as journal:
        replayed = replay(journal)
    journal = Journal(path)
    profile, ruleset = load_profile("sim"), load_ruleset("wsom2006")
    clock = Clock(replayed.last_t)
    service = Service(profile, ruleset, journal, Actor(clock), StillShuffler(), out=lambda _: None)
    desk = Desk(service, "T07") if display else None
    if uplink:
        VenueCommands(service, PUBLIC, "hall", "T07").recall(service.commands.rows())
    service.resume(clock.t, replayed, cut=None)
    status = service.status()
    journal.close()
    return status, desk


def _owned(status) -> dict:
    """What the table owns of its status, comparable between two tables."""
    return {
        "venue": status.venue,
        "voided": status.voided,
        "hand_number": status.hand_number,
        "state": status.state,
        "in_play": status.in_play,
        "scores": status.scores,
        "sheet": [row.to_json() for row in status.session.sheet],
        "time_left": status.time_left,
        "seal": status.seal,
        "set_in_play": status.set_in_play,
        "interruption": status.interruption,
    }


def test_issue_29_a_restart_takes_up_the_same_state_with_or_without_display_and_uplink(
    cut_journal,
):
    """Issue 29, Done when: the four compositions (display or none, uplink or none) restart
    to one status, the players entered, the venue's notes and the voided hand included."""
    path, before = cut_journal
    statuses = {
        (display, uplink): _restarted(path, display, uplink)[0]
        for display in (True, False)
        for uplink in (True, False)
    }
    bare = statuses[False, False]
    assert bare.venue.players == tuple(PLAYERS)  # the desk's entry, not the venue's seating
    assert bare.venue == before.venue  # the message, the sitting's time, the pause
    assert bare.voided == before.voided
    for composition, status in statuses.items():
        assert _owned(status) == _owned(bare), f"display, uplink = {composition}"


def test_issue_16_the_asking_is_not_taken_up_but_the_signature_is(cut_journal):
    """Issue 16: after a restart the referee asks the players again (the asking is not
    journaled); the signature made stands on the sheet at the desk."""
    path, _ = cut_journal
    _, desk = _restarted(path, display=True, uplink=False)
    document = desk.sheet.document(desk.service.status().session, PLAYERS)
    assert document["asking"] is None
    assert [(s["person"], s["hand"]) for s in document["player_signatures"]] == [(0, 1)]
