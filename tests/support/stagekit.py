"""A CCM desk whose games end fast (seed 004 stages): East's self-drawn 清一色 七對 twice, the
second doubled, leaves the three others without chips (two chipless: 局結)."""

import copy

from engine import events as ev
from engine.rulesets import build
from firmware.desk.desk import Desk
from firmware.resources import load_ruleset
from firmware.table.actor import Actor
from firmware.table.profile import load_profile
from firmware.table.service import Service
from tests.support.servicekit import StillShuffler
from tests.support.tablekit import stacked_walls

EAST_WINS = ("11223344556677m", "", "", "")  # dealt East's 14: seven pairs, one suit


def ruleset(**stage):
    """The shipped CCM rule book, its [stage] changed as named."""
    config = copy.deepcopy(load_ruleset("ccm2012").config)
    config["stage"].update(stage)
    return build(config)


def ccm_desk(journal, clock, rules=None) -> Desk:
    service = Service(
        load_profile("sim"),
        rules or load_ruleset("ccm2012"),
        journal,
        Actor(clock),
        StillShuffler(),
        out=lambda line: None,
    )
    return Desk(service, "T1")


def play_hand(desk, clock) -> None:
    """One hand East wins on his dealt tiles, through the service (journaled)."""
    hands = desk.service.hands
    clock.t += 10
    walls = stacked_walls(hands.ruleset, (3, 4), EAST_WINS, seed=hands.session.hand_number)
    dealer = hands.session.player_at(0)
    hands.walls.ready = [walls[(side - dealer) % 4] for side in range(4)]
    hands.raise_walls(clock.t, "A")
    hands.apply(ev.DiceRolled(clock.t, 0, (3, 4)))
    hands.apply(ev.WinDeclared(clock.t + 1, 0))
    assert hands.table.ended


def play_game(desk, clock) -> None:
    games = len(desk.service.hands.session.games)
    while len(desk.service.hands.session.games) == games:
        play_hand(desk, clock)
