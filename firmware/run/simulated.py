"""The simulated table `mjtable run` attaches where a profile names the simulated device kinds
(firmware/run/table.py, issue 29): simulated pins and machine, reader emulators on ptys read by
the production serial code, four simulated players and the panel they use; and the summary
comparing what the tracking inferred with what the players truly did."""

import argparse
import asyncio
import sys
import time
from collections import Counter
from pathlib import Path

from drivers.sim.clock import SimClock
from drivers.sim.pins import SimulatedGPIO
from drivers.sim.reader import SimReader
from firmware.journal.store import Journal
from firmware.run.rig import Rig
from firmware.run.sim_panel import SimPanel
from firmware.sim.tracking_score import TrackingScore
from firmware.sim.world import SimTable
from firmware.table.actor import TICK
from firmware.table.profile import ProfileError

# The kinds the simulated world drives: its pins, its readers' ptys, the dice its players throw.
TICKS_AHEAD = 10  # of the world's ticks at most not yet taken by the service (half a second)
SIM_KINDS = {"gpio": "sim", "readers.zones": "sim", "readers.stacker": "sim", "dice": "physical"}


async def _play(
    world: SimTable,
    panel: SimPanel,
    rig: Rig,
    zones_path: str,
    zone_sim: SimReader,
    speed: float,
    follow=None,
):
    """Tick the simulated world until the service is done, no faster than `speed` times
    real time and never ahead of what the service has read, nor more than TICKS_AHEAD of
    its ticks (the shuffler's motors switch on the service's turn: a world far ahead of it
    would see a lane stall that never was); `follow(world, status)` after each tick."""
    actor, service = rig.service.actor, rig.service
    began, start = time.monotonic(), world.t
    while not actor.done.is_set():
        world.tick(TICK)
        panel.release(world.t)  # the buttons the people let go of
        actor.tick()
        ahead = began + (world.t - start) / speed - time.monotonic()
        await asyncio.sleep(max(ahead, 0))
        while not actor.done.is_set() and (
            actor.backlog > 200
            or world.t - service.last_tick > TICKS_AHEAD * TICK
            or _reads_behind(service.status(), zones_path, zone_sim)
        ):
            await asyncio.sleep(0.001)  # the service reads behind: let it catch up
        if follow is not None:
            follow(world, service.status())


class Simulation:
    """The simulated devices a profile names and the world attached to them (issue 29): the
    pins, the readers' emulators on ptys in `folder`, table time (`clock`), the machine and
    the players. `each_tick(status)` is called after every tick of the play."""

    def __init__(self, args, profile, ruleset, folder: Path, each_tick=None):
        wrong = [
            f"[{section}] kind = {profile.kinds[section]!r}"
            for section, kind in SIM_KINDS.items()
            if profile.kinds[section] != kind
        ]
        if wrong:
            raise ProfileError(
                f"{profile.path}: a simulated table ([table] simulated = true) is played on "
                f"{', '.join(f'[{s}] kind = {k!r}' for s, k in SIM_KINDS.items())}, "
                f"not {', '.join(wrong)}"
            )
        self.args, self.profile, self.ruleset = args, profile, ruleset
        self.folder, self.each_tick = folder, each_tick
        self.clock = SimClock()
        self.gpio = SimulatedGPIO()
        self.readers = (SimReader(folder / "zones"), SimReader(folder / "stacker"))
        self.links = tuple(str(reader.link) for reader in self.readers)
        self.world: SimTable | None = None
        self.panel: SimPanel | None = None  # the world's, wired to the table's service
        self.score = TrackingScore()

    async def rederive(self, journal: Journal) -> None:
        """On a journal cut short (`args.history`), the world as it lay (`_rederive`)."""
        history = self.args.history
        if history is not None and not _session_over(self.args):
            self.world = await _rederive(self, journal)

    def attach(self, rig) -> None:
        """The world to the table `rig` built: a new one, or the re-derived one taken up."""
        if self.world is None or self.panel is None:
            self.world = self.new_world(rig)
            return
        self.panel.service, self.panel.shuffler = rig.service, rig.shuffler
        if self.args.faults.moved:
            self.world.move_off_table()

    def play(self, rig, speed: float):
        """The world's play, paced at `speed` times real time, until the service is done."""
        assert self.world is not None and self.panel is not None, "attach the world first"
        world, panel = self.world, self.panel
        return _play(world, panel, rig, self.links[0], self.readers[0], speed, self._follow)

    def new_world(self, rig) -> SimTable:
        profile, args = self.profile, self.args
        panel = self.panel = SimPanel(
            rig.service, rig.shuffler, self.gpio, profile, self.readers[0]
        )
        return SimTable(
            self.ruleset,
            {owner: tag for tag, owner in profile.tags.items()},
            self.gpio,
            rig.shuffler.pins,
            *self.readers,
            profile.zones,
            panel,
            args.seed,
            args.faults,
            profile.zones_reader.sweep_seconds,
            profile.claim_window_seconds,
            self.clock,
        )

    def summary(self, status, seconds: float) -> dict:
        """What the tracking got right against the simulated truth, and the faults."""
        assert self.world is not None
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
            "tracking": self.score.summary(status.counts["hands"]),
            "faults_injected": dict(sorted(self.world.faults.injected.items())),
            "faults_detected": detected,
            "table_seconds": round(self.world.t, 1),
            "wall_seconds": round(seconds, 1),
        }

    def close(self) -> None:
        for reader in self.readers:
            reader.close()

    def _follow(self, world: SimTable, status) -> None:  # after every tick of the play
        self.score.follow(status.tracked, world.true_moves)
        if self.each_tick is not None:
            self.each_tick(status)


def _session_over(args) -> bool:
    """The journal holds every hand `--hands` asks for and none cut in play, which the table
    takes up (issue 32 item 9: played on in a new world, it never ended): nothing is left
    to play."""
    played = args.history.played
    over = sum(h.table.ended and not h.voided for h in played)
    cut = bool(played) and not (played[-1].table.ended or played[-1].voided)
    return args.hands is not None and over >= args.hands and not cut


PAUSES = ("ClocksPaused", "ClocksResumed")  # a resumed hand's own: no re-derived run has them


def game_rows(journal: Journal) -> list[tuple[str, dict]]:
    """The game a journal holds: its hand rows, and its inputs but the clocks' pauses with
    their outputs, each without its table time or a hand's time of day (which differ from run
    to run)."""
    rows, pause = [], False
    for row in journal.rows():
        if row.kind not in ("hand", "input", "output"):
            continue
        data = dict(row.data())
        if row.kind != "output":
            pause = row.kind == "input" and data.get("type") in PAUSES
        if not pause:
            data.pop("t", None)
            data.pop("wall_time", None)
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


async def _rederive(simulation: Simulation, journal: Journal) -> SimTable | None:
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
    rederiving = _Rederiving(simulation.folder / "rederive.sqlite", steps)
    quiet = argparse.Namespace(
        hands=None, port=0, json_summary=True, history=None, cut=None, uplink=None
    )
    loop, clock = asyncio.get_running_loop(), simulation.clock
    profile, ruleset = simulation.profile, simulation.ruleset
    rig = Rig(quiet, profile, ruleset, rederiving, clock, loop, simulation)
    rederiving.stop = rig.service.actor.done.set
    world, panel = simulation.new_world(rig), simulation.panel
    assert panel is not None  # the new world's
    rig.shuffler.start(0.0)
    try:
        await _play(world, panel, rig, simulation.links[0], simulation.readers[0], 10000.0)
    finally:
        await rig.stop()
    if game_rows(rederiving)[: len(game)] != game:
        print(
            "mjtable run: the simulated world could not be played again as the journal has "
            "it (another --seed or --faults?): tiles may not lie where the hand has them",
            file=sys.stderr,
        )
    rederiving.close()
    clock.t = max(clock.t, simulation.args.history.last_t)
    return world


def _reads_behind(status, path: str, reader: SimReader) -> bool:
    """More than two heartbeats of the online zone reader are not yet seen by the service
    (a service that has seen none yet, taking the table up after a power cut, is not
    behind: the reader's count goes on from before)."""
    seen = status.heartbeats.get(path)
    if seen is None:
        return False
    return bool(status.readers_online.get(path)) and (reader.heartbeat_seq - seen) % 256 > 2
