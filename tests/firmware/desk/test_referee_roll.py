"""Seed 000 開門 6: before East, as the one who breaks the wall, throws the second roll, an
opponent may ask the referee to throw it for him. The referee's roll is an engine input like
any roll, journaled with its source; the engine takes it only for East's second roll."""

import json

import pytest

from drivers.shuffler import WallsRaised
from engine import events as ev
from engine.dealing import REFEREE_ROLL
from engine.table import Table
from engine.wall import build_walls
from firmware.desk.desk import Desk
from firmware.display import ActionRefused
from firmware.display.actions import body_problem
from firmware.journal.store import Journal
from tests.support.servicekit import Clock, act, service_of, stack, take_queued

EAST_BREAKS = (2, 3)  # 5: East counts himself (RULES.md 3.3), he breaks the wall
SOUTH_BREAKS = (1, 1)  # 2: the right neighbour


def table_at_second_roll(wsom, first) -> Table:
    table = Table(wsom, build_walls(list(range(136)), 17))
    assert table.apply(ev.DiceRolled(1.0, 0, first)) == []
    assert table.state == "second_roll"
    return table


def test_seed_000_kaimen_6_the_referee_throws_easts_second_roll(wsom):
    """The referee's throw for East breaks the wall and deals, the roll's source kept."""
    table = table_at_second_roll(wsom, EAST_BREAKS)
    out = table.apply(ev.DiceRolled(2.0, 0, (4, 6), REFEREE_ROLL))
    broken = next(o for o in out if isinstance(o, ev.WallBroken))
    assert broken.dice == EAST_BREAKS + (4, 6)
    assert any(isinstance(o, ev.Dealt) for o in out) and table.state == "discard"


def test_seed_000_kaimen_6_only_easts_second_roll(wsom):
    """The rule is for East's second roll: the referee does not throw another's second roll
    (South breaks the wall here) nor East's first; each is refused naming the rule."""
    table = table_at_second_roll(wsom, SOUTH_BREAKS)
    [alert] = table.apply(ev.DiceRolled(2.0, 0, (4, 6), REFEREE_ROLL))
    assert isinstance(alert, ev.Alert) and "開門 6" in alert.message and "S's" in alert.message
    assert table.state == "second_roll"
    fresh = Table(wsom, build_walls(list(range(136)), 17))
    [alert] = fresh.apply(ev.DiceRolled(1.0, 0, EAST_BREAKS, REFEREE_ROLL))
    assert "second roll only" in alert.message and fresh.state == "dice"


def test_seed_000_kaimen_6_from_the_desk_journaled_as_the_referees(tmp_path):
    """The desk's `roll`: with no dice named the table throws them from the OS's source; the
    input is journaled with source "referee"; asked at the wrong moment it is refused."""
    path, clock = tmp_path / "j.sqlite", Clock()
    with Journal(path) as journal:
        service = service_of(journal, clock)
        desk = Desk(service, "T1")
        stack(service, clock)
        service.actor.record(WallsRaised(clock.t, "A"))
        take_queued(service)
        hands = service.hands
        hands.apply(ev.DiceRolled(clock.t, 0, EAST_BREAKS))  # East's own first roll
        assert hands.table.state == "second_roll"
        answer = act(desk, "roll")
        assert any(e["type"] == "Dealt" for e in answer["events"])
        with pytest.raises(ActionRefused, match="配牌時的犯規 1"):
            act(desk, "roll", {"dice": [3, 3]})  # the hand is dealt: the dice stand
        rolls = [r.data() for r in journal.rows() if '"DiceRolled"' in json.dumps(r.data())]
    # every input is journaled (DESIGN.md: journaled before applied); the roll after the
    # break is answered by the desk, as no input (seed 000 配牌時的犯規 1: the dice stand)
    assert [r["source"] for r in rolls] == ["electronic", REFEREE_ROLL]


@pytest.mark.parametrize(
    "body",
    [{"dice": [7, 1]}, {"dice": [3]}, {"dice": "3 4"}, {"dice": [3, True]}, {"seat": 0}],
)
def test_a_roll_the_referee_cannot_have_thrown_is_refused_naming_the_field(body):
    """Issue 6's checks: a body naming impossible dice is refused with the field named."""
    problem = body_problem("roll", body)
    assert problem is not None and problem[0] in body
