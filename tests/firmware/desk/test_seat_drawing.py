"""Seed 000 執位 (RULES.md 3.2): at the start of each half-session the four players draw their
seats. The table draws the winds itself from the session's committed seat secret (issue 35),
or the referee enters the wind tiles drawn; either way it is journaled and shown, and it waits
for the half-session's start: never with a hand in play, never after its first hand."""

import pytest

from engine import events as ev
from firmware.desk.desk import Desk
from firmware.display import ActionRefused
from firmware.display.actions import body_problem
from firmware.journal.store import Journal
from firmware.resources import load_ruleset
from firmware.table.actor import Actor
from firmware.table.profile import load_profile
from firmware.table.service import Service
from tests.support.servicekit import Clock, StillShuffler, act, dealt_service, play_out


def drawings(journal) -> list[ev.SeatsDrawn]:
    return [r.event() for r in journal.rows() if r.kind == "device" and "SeatsDrawn" in r.json]


def fresh_desk(journal, clock) -> Desk:
    service = Service(
        load_profile("sim"),
        load_ruleset("wsom2006"),
        journal,
        Actor(clock),
        StillShuffler(),
        out=lambda line: None,
    )
    return Desk(service, "T1")


def test_seed_000_seats_drawn_by_the_table_at_the_session_start(tmp_path):
    """執位 by the table: each side's player gets a wind, each wind once, journaled and in the
    desk's log for both views."""
    clock = Clock()
    with Journal(tmp_path / "j.sqlite") as journal:
        desk = fresh_desk(journal, clock)
        answer = act(desk, "draw_seats")
        [drawn] = drawings(journal)
    assert sorted(drawn.winds) == [0, 1, 2, 3] and drawn.source == "electronic"
    assert answer["type"] == "SeatsDrawn" and answer["winds"] == list(drawn.winds)
    assert desk.log[-1]["type"] == "SeatsDrawn"


def test_seed_000_seats_drawn_from_the_wind_tiles_the_referee_entered(tmp_path):
    """執位 with the physical tiles: the referee enters the wind each side's player drew."""
    clock = Clock()
    with Journal(tmp_path / "j.sqlite") as journal:
        act(fresh_desk(journal, clock), "draw_seats", {"winds": [2, 0, 3, 1]})
        [drawn] = drawings(journal)
    assert drawn.winds == (2, 0, 3, 1) and drawn.source == "tiles"


def test_seed_000_seats_are_drawn_at_a_half_sessions_start_only(tmp_path):
    """Not with a hand in play; not once a hand of the half-session is on the sheet."""
    clock = Clock()
    with Journal(tmp_path / "j.sqlite") as journal:
        service = dealt_service(journal, clock)
        desk = Desk(service, "T1")
        with pytest.raises(ActionRefused, match="not with a hand in play"):
            act(desk, "draw_seats")
        play_out(service.hands, clock.t)
        with pytest.raises(ActionRefused, match="1 of its 8 hands are played"):
            act(desk, "draw_seats")
        assert drawings(journal) == []


@pytest.mark.parametrize("winds", [[0, 1, 2], [0, 0, 1, 2], [0, 1, 2, 4], "ESWN", [0, 1, 2, True]])
def test_a_drawing_that_cannot_be_is_refused_naming_the_field(winds):
    """Four sides, four winds, each once: anything else is refused with the field named."""
    assert body_problem("draw_seats", {"winds": winds})[0] == "winds"
