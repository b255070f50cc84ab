"""A service with a hand dealt and no devices, for the desk's and the actor's tests: a fake
shuffler standing ready, a fake clock, the walls handed over as the stacker reader reads
them, the dice applied as inputs."""

import asyncio
import random

from drivers.dice import PhysicalDice
from drivers.reader_frames import Stacked
from drivers.shuffler import WallsRaised, WallsReady
from engine import events as ev
from engine import tiles
from engine.wall import wsom_break
from firmware.journal.store import Journal
from firmware.resources import load_ruleset
from firmware.table.actor import Actor
from firmware.table.profile import load_profile
from firmware.table.service import Service
from firmware.table.walls import STACKER_WAIT


class StillShuffler:
    """A shuffler standing ready: the service only reads it."""

    state, set_in_play, set_ready, counts, fault = "ready", "A", "B", (34, 34, 34, 34), None

    def poll(self, t):
        pass


class Clock:
    """The table's clock, set by the test."""

    def __init__(self, t: float = 100.0):
        self.t = t

    def __call__(self):
        return self.t


def take_queued(service) -> None:
    """The actor takes what is queued, in order, as its task would."""
    actor = service.actor
    while actor.backlog:
        actor.take(*actor.queue.get_nowait(), service.handle, service.failed)


def dealt_service(journal, clock: Clock, seed: int = 5) -> Service:
    """A WSOM service whose first hand is dealt and waits for East's discard; its dice are
    the sim profile's, physical, their rolls reported."""
    profile = load_profile("sim")
    ruleset = load_ruleset("wsom2006")
    service = Service(
        profile, ruleset, journal, Actor(clock), StillShuffler(), PhysicalDice(), out=_quiet
    )
    tag = {owner: tag for tag, owner in profile.tags.items()}
    order = tiles.physical_set(False)
    random.Random(seed).shuffle(order)
    for position, tile in enumerate(order):
        service.actor.record(Stacked(position, tag[("A", tile)]))
    service.actor.record(WallsReady(clock.t, "A", (34, 34, 34, 34), 60.0))
    clock.t += STACKER_WAIT  # the stacker has had its time: the walls are judged
    service.actor.tick()
    service.actor.record(WallsRaised(clock.t, "A"))
    take_queued(service)
    # RULES.md 3.4: two rolls, of the sim profile's physical dice (issue 35: verify holds it)
    service.hands.apply(ev.DiceRolled(clock.t, 0, (3, 4), "physical"))
    service.hands.apply(ev.DiceRolled(clock.t, wsom_break(7, 2).seat, (2, 5), "physical"))
    assert service.status().state == "discard"
    return service


def act(desk, action, body=None):
    """The referee's action through the actor's queue, as the display submits it."""

    async def acting():
        answer = asyncio.ensure_future(desk.act(action, body or {}))
        await asyncio.sleep(0)  # the desk submits it: stamped and queued
        take_queued(desk.service)
        return await answer

    return asyncio.run(acting())


class ServedDesk:
    """A desk behind the display's app, made by `make(journal)` (anything with a `.desk`) on
    the server's thread at its first request, SQLite's connection serving the thread that
    opened it; the actor's queue is taken as soon as an action is submitted."""

    table_name, broadcast = "test table", None

    def __init__(self, path, make):
        self.path, self.make, self.made = path, make, None
        self.loop: asyncio.AbstractEventLoop | None = None

    @property
    def desk(self):
        if self.made is None:
            self.loop = asyncio.get_running_loop()
            self.made = self.make(Journal(self.path))
        return self.made.desk

    def __getattr__(self, name):
        return getattr(self.desk, name)

    async def act(self, action: str, body: dict, who: str | None = None) -> dict:
        answer = asyncio.ensure_future(self.desk.act(action, body, who))
        await asyncio.sleep(0)
        take_queued(self.desk.service)
        return await answer

    def close(self) -> None:
        """Close the journal on the thread that opened it."""

        async def closing():
            self.desk.service.journal.close()

        assert self.loop is not None
        asyncio.run_coroutine_threadsafe(closing(), self.loop).result(5)


def _quiet(line: str) -> None:
    pass


def play_out(hands, t: float) -> None:
    """Seat after seat draws and discards the newest tile, nobody calls: the wall runs out
    (a draw), and the hand is settled."""
    table = hands.table
    while not table.ended:
        if table.state == "draw":
            hands.apply(ev.TileDrawn(t, table.turn))
        if not table.ended:
            hands.apply(ev.TileDiscarded(t, table.turn, table.hands[table.turn][-1]))
            hands.apply(ev.ClaimWindowClosed(t, None))


def service_of(journal, clock: Clock) -> Service:
    """A WSOM service with no hand yet: its walls are to be stacked (`stack`)."""
    profile = load_profile("sim")
    return Service(
        profile, load_ruleset("wsom2006"), journal, Actor(clock), StillShuffler(), out=_quiet
    )


def stack(service, clock: Clock, seed: int = 5, missing: int | None = None) -> list[bytes]:
    """The machine builds set A's walls and the stacker reads them (all but `missing`); the
    wall check judges them. Returns the tags in wall order."""
    tag = {owner: tag for tag, owner in service.profile.tags.items()}
    order = tiles.physical_set(False)
    random.Random(seed).shuffle(order)
    tags = [tag[("A", tile)] for tile in order]
    for position, read in enumerate(tags):
        if position != missing:
            service.actor.record(Stacked(position, read))
    service.actor.record(WallsReady(clock.t, "A", (34, 34, 34, 34), 60.0))
    take_queued(service)
    clock.t += STACKER_WAIT  # the stacker has had its time: the walls are judged
    service.actor.tick()
    take_queued(service)
    return tags
