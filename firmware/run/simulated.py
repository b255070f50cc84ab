"""`mjtable run` on the simulated table: simulated pins and machine, reader emulators on ptys
read by the production serial code, four simulated players and the panel they use; and the
summary comparing what the tracking inferred with what the players truly did."""

import argparse
import asyncio
import sys
import time
from collections import Counter
from pathlib import Path

from drivers.dice import DiceReport
from drivers.sim.clock import SimClock
from drivers.sim.pins import SimulatedGPIO
from drivers.sim.reader import SimReader
from engine.events import ClocksResumed
from engine.stage import standings_of
from firmware.journal.store import Journal
from firmware.run.rig import Rig
from firmware.sim.tracking_score import TrackingScore
from firmware.sim.world import SimTable
from firmware.table.actor import TICK


class SimPanel:
    """The lamps and buttons the simulated people use, wired to the service and the pins."""

    def __init__(self, service, shuffler, gpio, profile):
        self.service, self.shuffler, self.gpio = service, shuffler, gpio
        self.pins = {(side, name): pin for pin, (side, name) in profile.buttons.items()}
        self.held: list[tuple[float, int]] = []

    def walls_ready(self) -> bool:
        return self.service.status().walls_ready

    def machine_fault(self) -> bool:
        return self.shuffler.state == "fault"

    def readers_online(self) -> bool:
        return all(self.service.status().readers_online.values())

    def retry(self) -> None:
        self.shuffler.retry(self.service.clock())

    def press(self, side: int, button: str) -> None:
        pin, t = self.pins[(side, button)], self.service.clock()
        self.gpio.drive(pin, 0, t)
        self.held.append((t + 0.1, pin))

    def release(self, t: float) -> None:
        for due, pin in [h for h in self.held if h[0] <= t]:
            self.gpio.drive(pin, 1, t)
            self.held.remove((due, pin))

    def dice(self, side: int, values) -> None:
        self.service.actor.record(DiceReport(side, tuple(values)))

    def session(self):
        return self.service.status().session

    def hand_over(self) -> bool:
        return not self.service.status().in_play

    def void(self, reason: str) -> None:
        """The referee voids the hand: his action, queued like every other."""
        port = self.service.commands
        port.submit(lambda t: port.void(t, reason))

    def interrupted(self) -> list[int] | None:
        """The tiles the display lists as not where the hand has them, while a hand taken
        up after a power cut waits for the referee and once every zone has been read; else
        None."""
        status = self.service.status()
        if status.interruption is None or not status.fully_read:
            return None
        return [d["tile"] for d in status.displaced]

    def halted(self) -> bool:
        """A hand taken up after a power cut waits for the referee to resume the clocks."""
        return self.service.status().interruption is not None

    def resume_play(self) -> None:
        """The referee resumes the clocks: every tile lies where the hand has it."""
        port = self.service.commands
        port.submit(lambda t: port.apply(ClocksResumed(t, None)))

    def out_of_step(self) -> bool:
        """The display says the hand refused a move the table made (issue 20)."""
        table = self.service.status().table
        return table is not None and not table.ended and table.out_of_step

    def accept_table(self) -> None:
        """The referee accepts the table as it lies: his action, queued like every other."""
        port = self.service.commands
        port.submit(port.accept_table)


async def simulated_table(args, profile, ruleset, journal, folder: Path, each_tick=None) -> dict:
    """Build the simulated table around the service, play, and return the summary. On a
    journal cut short (`args.history`), the simulated world is first re-derived (below).
    `each_tick(status)` is called after every tick of the play (`mjtable bench soak`)."""
    loop = asyncio.get_running_loop()
    clock = SimClock()
    gpio = SimulatedGPIO()
    zone_sim, stacker_sim = SimReader(folder / "zones"), SimReader(folder / "stacker")
    paths = (str(folder / "zones"), str(folder / "stacker"))
    world = None
    score = TrackingScore()

    def follow(world: SimTable, status) -> None:  # after every tick of the table's own play
        score.follow(status.tracked, world.true_moves)
        if each_tick is not None:
            each_tick(status)

    began = time.monotonic()
    try:
        if args.history is not None and not _session_over(args):
            readers = (zone_sim, stacker_sim)
            world = await _rederive(
                args, profile, ruleset, journal, folder, clock, gpio, paths, readers
            )
        rig = Rig(args, profile, ruleset, journal, clock, loop, gpio, paths)
        if world is None:
            panel = SimPanel(rig.service, rig.shuffler, gpio, profile)
            world = _world(args, profile, ruleset, rig, panel, gpio, clock, zone_sim, stacker_sim)
        else:
            world.panel.service, world.panel.shuffler = rig.service, rig.shuffler
            if args.faults.moved:
                world.move_off_table()
        rig.shuffler.start(clock(), rig.service.status().set_in_play)
        try:
            await _play(world, rig, paths[0], zone_sim, args.speed, follow)
        finally:
            await rig.stop()
    finally:
        zone_sim.close()
        stacker_sim.close()
    return summarise(rig.service.status(), world, score, time.monotonic() - began)


def _world(args, profile, ruleset, rig, panel, gpio, clock, zone_sim, stacker_sim) -> SimTable:
    tags = {owner: tag for tag, owner in profile.tags.items()}
    return SimTable(
        ruleset,
        tags,
        gpio,
        rig.shuffler.pins,
        zone_sim,
        stacker_sim,
        profile.zones,
        panel,
        args.seed,
        args.faults,
        profile.zones_reader.sweep_seconds,
        profile.claim_window_seconds,
        clock,
    )


async def _play(
    world: SimTable, rig: Rig, zones_path: str, zone_sim: SimReader, speed: float, follow=None
):
    """Tick the simulated world until the service is done, no faster than `speed` times
    real time and never ahead of what the service has read; `follow(world, status)` after
    each tick."""
    actor, service = rig.service.actor, rig.service
    began, start = time.monotonic(), world.t
    while not actor.done.is_set():
        world.tick(TICK)
        world.panel.release(world.t)
        actor.tick()
        ahead = began + (world.t - start) / speed - time.monotonic()
        await asyncio.sleep(max(ahead, 0))
        while not actor.done.is_set() and (
            actor.backlog > 200 or _reads_behind(service.status(), zones_path, zone_sim)
        ):
            await asyncio.sleep(0.001)  # the service reads behind: let it catch up
        if follow is not None:
            follow(world, service.status())


def _session_over(args) -> bool:
    """The journal holds every hand `--hands` asks for: nothing is left to play."""
    over = sum(h.table.ended and not h.voided for h in args.history.played)
    return args.hands is not None and over >= args.hands


PAUSES = ("ClocksPaused", "ClocksResumed")  # a resumed hand's own: no re-derived run has them


def game_rows(journal: Journal) -> list[tuple[str, dict]]:
    """The game a journal holds: its hand rows, and its inputs but the clocks' pauses with
    their outputs, each without its table time (which differs from run to run)."""
    rows, pause = [], False
    for row in journal.rows():
        if row.kind not in ("hand", "input", "output"):
            continue
        data = dict(row.data())
        if row.kind != "output":
            pause = row.kind == "input" and data.get("type") in PAUSES
        if not pause:
            data.pop("t", None)
            rows.append((row.kind, data))
    return rows


class _Rederiving(Journal):
    """The journal of the run that re-derives the world: it stops that run once it holds
    `steps` hands and inputs (pauses not counted, see `game_rows`)."""

    def __init__(self, path, steps: int):
        super().__init__(path)
        self.steps, self.stop = steps, lambda: None
        self.counted = False  # the latest input counts as a step

    def hand(self, *args, **kwargs) -> None:
        super().hand(*args, **kwargs)
        self._step()

    def input(self, event) -> None:
        super().input(event)
        self.counted = type(event).__name__ not in PAUSES

    def outputs(self, events) -> None:
        super().outputs(events)
        if self.counted:
            self._step()

    def _step(self) -> None:
        self.steps -= 1
        if self.steps <= 0:
            self.stop()


async def _rederive(args, profile, ruleset, journal, folder, clock, gpio, paths, readers):
    """The simulated world as it lay when the journal was cut: its truth died with the
    process (the players' plans, the machine, the tiles), so it is played again from the
    start, seed for seed, against a service of its own, until that service has journaled
    the same hands and inputs; then the world stays as it lay, its clock at least at the
    journal's last input, and the table's own service takes it up. It is the same game only
    if the journal was played with this seed: the rows are compared, and told if not."""
    game = game_rows(journal)
    steps = sum(kind != "output" for kind, _ in game)
    if not steps:
        return None
    rederiving = _Rederiving(folder / "rederive.sqlite", steps)
    quiet = argparse.Namespace(
        hands=None, port=0, json_summary=True, history=None, cut=None, uplink=None
    )
    loop = asyncio.get_running_loop()
    rig = Rig(quiet, profile, ruleset, rederiving, clock, loop, gpio, paths)
    rederiving.stop = rig.service.actor.done.set
    panel = SimPanel(rig.service, rig.shuffler, gpio, profile)
    world = _world(args, profile, ruleset, rig, panel, gpio, clock, *readers)
    rig.shuffler.start(0.0)
    try:
        await _play(world, rig, paths[0], readers[0], 10000.0)
    finally:
        await rig.stop()
    if game_rows(rederiving)[: len(game)] != game:
        print(
            "mjtable run: the simulated world could not be played again as the journal has "
            "it (another --seed or --faults?): tiles may not lie where the hand has them",
            file=sys.stderr,
        )
    rederiving.close()
    clock.t = max(clock.t, args.history.last_t)
    return world


def _reads_behind(status, path: str, reader: SimReader) -> bool:
    """More than two heartbeats of the online zone reader are not yet seen by the service
    (a service that has seen none yet, taking the table up after a power cut, is not
    behind: the reader's count goes on from before)."""
    seen = status.heartbeats.get(path)
    if seen is None:
        return False
    return bool(status.readers_online.get(path)) and (reader.heartbeat_seq - seen) % 256 > 2


def summarise(status, table, score: TrackingScore, seconds: float) -> dict:
    """What the tracking got right against the simulated truth, and the faults."""
    hands = status.counts["hands"]
    kinds = Counter(status.fault_kinds)
    detected = {
        "drop": status.transient_absences,
        "ghost": status.transient_sightings,
        "jam": kinds["jam"],
        "lost": kinds["count"],
        "foreign": kinds["foreign"],
        "unplug": kinds["offline"],
        "slow": status.counts["overtime"],
    }
    return {
        "not_refereeing": status.not_refereeing.why if status.not_refereeing else None,
        "next_session": status.next_session,
        "hands": hands,
        "events": status.counts["events"],
        "alerts": status.counts["alerts"],
        "tracking": score.summary(hands),
        "faults_injected": dict(sorted(table.faults.injected.items())),
        "faults_detected": detected,
        "table_seconds": round(table.t, 1),
        "wall_seconds": round(seconds, 1),
        "ruleset": status.ruleset,
        "scores": list(status.scores),
        "stage": standings_of(status.session, status.venue.players),
    }
