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

from drivers.readers import Reader
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
SIM_KINDS = {"gpio": "sim", "readers.zones": "sim", "readers.stacker": "sim", "dice": "physical"}
STALLED = 60.0  # real seconds the world waits for the service at most: a hang is worse


async def _play(world: SimTable, panel: SimPanel, rig: Rig, speed: float, follow=None):
    """Tick the simulated world until the service is done, no faster than `speed` times
    real time, in lockstep with the service: the next tick waits until the service has
    taken everything of this one (`_in_step`), so every record is stamped with the table
    time it was made at and reaches the service in the same order, however busy the
    machine (issue 32 item 8: a seed plays one game), unless the service has taken
    nothing for STALLED seconds (then it is said, and the world no longer waits);
    `follow(world, status)` after each tick."""
    actor, service = rig.service.actor, rig.service
    readers = {service.zones_path: world.zone_reader, service.stacker_path: world.stacker_reader}
    hosts = {host.path: host for host in rig.readers}
    for host in hosts.values():  # silence is judged in table time, which stands while it waits
        host.clock = world.clock
    for reader in readers.values():  # this service's readers open the ports anew
        reader.awaited, reader.host_open = None, False
    began, start, in_step = time.monotonic(), world.t, True
    while not actor.done.is_set():
        world.tick(TICK)
        panel.release(world.t)  # the buttons the people let go of
        actor.tick()
        ahead = began + (world.t - start) / speed - time.monotonic()
        await asyncio.sleep(max(ahead, 0))
        waited = time.monotonic()
        while in_step and not actor.done.is_set() and not _in_step(service, readers, hosts):
            await asyncio.sleep(0.001)  # the service reads behind: let it catch up
            in_step = time.monotonic() - waited < STALLED
            if not in_step:
                print(
                    f"mjtable run: the simulated table waited {STALLED:g} s for the service to "
                    "read its readers; it goes on without waiting (the seed's game may differ)",
                    file=sys.stderr,
                )
                for reader in readers.values():
                    reader.host_open = True  # its frames flow, whoever reads them
        if follow is not None:
            follow(world, service.status())


def _in_step(service, readers: dict[str, SimReader], hosts: dict[str, Reader]) -> bool:
    """The service has taken every item queued and every frame the simulated readers sent:
    an unplugged reader's loss; a plugged one's port opened by its host (its frames flow
    from the next tick on: those of the tick it went in are lost whenever the host opens)
    and its frames up to its latest heartbeat (the readers' threads note it as they queue
    it)."""
    if service.actor.backlog:
        return False
    for path, reader in readers.items():
        online = service.readers_online.get(path, True)
        if not reader.plugged:
            if online:
                return False
        elif not reader.host_open:
            if not hosts[path].opened.is_set():
                return False
            reader.host_open = True
        elif reader.awaited is not None and not (
            online and service.heartbeats.get(path) == reader.awaited
        ):
            return False
    return True


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
        self.readers = (
            SimReader(folder / "zones", lockstep=True),
            SimReader(folder / "stacker", lockstep=True),
        )
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
        return _play(world, panel, rig, speed, self._follow)

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
        await _play(world, panel, rig, 10000.0)
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
