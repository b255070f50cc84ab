"""The referee's desk over a real service, for the desk's tests: a CCM hand whose dealer has no
chips left played at the desk (`DeskGame`, seed 004 §35), a WSOM table raising walls hand after
hand (`DeskedTable`), and a reported offence with the penalty applied (`report`, `applied`);
issue 36's hand 1 with its offence waiting, hand 2 dealt (`reported_then_dealt`, `waiting`)."""

import random

from drivers.reader_frames import Stacked
from drivers.shuffler import WallsRaised, WallsReady
from engine import events as ev
from engine import tiles
from engine.wall import wsom_break
from firmware.desk.desk import Desk
from firmware.journal.store import Journal
from firmware.resources import load_ruleset
from firmware.table.actor import Actor, Tick
from firmware.table.profile import load_profile
from firmware.table.service import Service
from firmware.table.walls import STACKER_WAIT
from tests.support.servicekit import Clock, StillShuffler, act, play_out
from tests.support.tablekit import CCM_DICE, Game, S, of, stacked_walls


def report(game: Game, seat: int, offence: str, seconds: int = 0, tiles=()) -> list[ev.Event]:
    return game.apply(ev.ViolationReported, seat, offence=offence, seconds=seconds, tiles=tiles)


def applied(out) -> ev.PenaltyApplied:
    (penalty,) = of(out, ev.PenaltyApplied)
    return penalty


class DeskedTable:
    """A WSOM service on a journal with a desk, raising walls and playing hands out."""

    def __init__(self, journal: Journal, clock: Clock, replayed=None):
        self.clock = clock
        profile, ruleset = load_profile("sim"), load_ruleset("wsom2006")
        self.service = Service(
            profile, ruleset, journal, Actor(clock), StillShuffler(), out=lambda line: None
        )
        self.desk = Desk(self.service, "T07")
        if replayed is not None:
            self.service.resume(clock.t, replayed)

    def new_hand(self, tile_set: str) -> None:
        """The stacker reads the walls, they are judged and raised, and the dice rolled."""
        handle = lambda record: self.service.handle(self.clock.t, record)  # noqa: E731
        tag = {owner: tag for tag, owner in self.service.profile.tags.items()}
        order = tiles.physical_set(False)
        random.Random(5).shuffle(order)
        for position, tile in enumerate(order):
            handle(Stacked(position, tag[(tile_set, tile)]))
        handle(WallsReady(self.clock.t, tile_set, (34, 34, 34, 34), 60.0))
        self.clock.t += STACKER_WAIT
        handle(Tick())
        handle(WallsRaised(self.clock.t, tile_set))
        hands = self.service.hands
        hands.apply(ev.DiceRolled(self.clock.t, 0, (3, 4)))
        hands.apply(ev.DiceRolled(self.clock.t, wsom_break(7, 2).seat, (2, 5)))

    def play_out(self) -> None:
        play_out(self.service.hands, self.clock.t)


SOUTH_WAITS_9P = "123m 456m 789m 123p 9p"  # 清龍 on a single wait


HANDS = ["9p", SOUTH_WAITS_9P, "", ""]


START = [0, 100, 150, 150]  # East, the dealer, has no chips left


class DeskGame(Game):
    """The hand played through firmware/table/hands.py, each input journaled, its players holding
    START; the referee rules at the desk (firmware/desk/desk.py)."""

    def __init__(self, journal: Journal, ccm):
        super().__init__(ccm, CCM_DICE)
        self.service = Service(
            load_profile("sim"), ccm, journal, Actor(Clock()), StillShuffler(), out=lambda _: None
        )
        walls = stacked_walls(ccm, CCM_DICE, HANDS)
        self.hands = self.service.hands
        self.hands.session.scores = list(START)
        self.hands.walls.take = lambda: walls
        self.hands.raise_walls(0.0, "A")
        self.table = self.hands.table
        self.desk = Desk(self.service, "test table")

    def apply(self, event_type, seat, **fields) -> list[ev.Event]:
        self.clock += 1.0
        out = self.hands.apply(event_type(self.clock, seat, **fields))
        self.log += out
        return out


def reported_then_dealt(journal, clock) -> DeskedTable:
    """Hand 1 with South's offence waiting for a ruling, played out; hand 2 dealt."""
    table = DeskedTable(journal, clock)
    table.new_hand("A")
    answer = act(table.desk, "report", {"seat": S, "offence": "wrong_draw_win"})
    assert [(e["type"], e["needs_ruling"]) for e in answer["events"]] == [("Alert", True)]
    table.play_out()
    table.new_hand("B")
    return table


def waiting(table) -> list[tuple]:
    """The hand before's alerts on the desk: (hand, id, awaiting a ruling)."""
    state = table.desk.snapshot(True)
    return [(a["hand"], a["id"], a["awaits_ruling"]) for a in state["alerts"] if a.get("late")]
