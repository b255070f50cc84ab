"""The simulated table played in-process into a real service (as `mjtable bench display`
does): its readers hand their frames straight to the service's reader callback, and `play`
collects every public and referee update of the desk."""

import asyncio
import tempfile
from functools import partial
from pathlib import Path

from drivers.reader_frames import Heartbeat, Inventory, Stacked
from drivers.sim.clock import SimClock
from drivers.sim.pins import SimulatedGPIO
from engine import events as ev
from firmware.desk.desk import Desk
from firmware.journal.store import Journal
from firmware.resources import load_ruleset
from firmware.run.sim_panel import SimPanel
from firmware.sim.world import Faults, SimTable
from firmware.table.actor import TICK
from firmware.table.profile import load_profile
from firmware.table.service import assemble


class DirectReader:
    """The simulated table's readers handing their frames straight to the service's reader
    callback, as the reader thread does (the pty and the parser are not what is tested)."""

    def __init__(self, hand_in):
        self.hand_in, self.beats, self.unmarked = hand_in, 0, False

    def sweep(self, antennas, rng, drop=0.0, ghost=0.0) -> dict:
        """Each read lost at the rate `drop`, a neighbour's tag ghosted into a frame at the
        rate `ghost`, as drivers/sim/reader.py does (no draw from `rng` without them)."""
        for antenna in sorted(antennas):
            seen = [tag for tag in antennas[antenna] if not drop or rng.random() >= drop]
            near = [t for a in sorted(antennas) if a != antenna for t in antennas[a]]
            if ghost and rng.random() < ghost and set(near) - set(seen):
                seen.append(rng.choice([t for t in near if t not in seen]))
            self.hand_in(Inventory(antenna, tuple(seen)))
        self.unmarked = True
        return {}

    def stacked(self, position: int, tag: bytes) -> None:
        self.hand_in(Stacked(position, tag))
        self.unmarked = True

    def heartbeat(self) -> None:
        self.hand_in(Heartbeat(self.beats))
        self.beats, self.unmarked = (self.beats + 1) % 256, False

    def mark(self) -> None:
        """A heartbeat after the frames of the world's tick, as drivers/sim/reader.py's."""
        if self.unmarked:
            self.heartbeat()


def play(
    hands: int, seed: int, faults: Faults | None = None, watch=None
) -> tuple[list[dict], list[dict], Desk, list[list]]:
    """`hands` hands of the simulated table (with `faults` injected); every public and
    referee update of the desk, the desk, and the engine outputs of each update (in order).
    `watch(desk, events)` is called just after the desk has published each update."""

    async def playing():
        loop = asyncio.get_running_loop()
        profile = load_profile("sim")
        ruleset = load_ruleset(profile.ruleset)
        clock, gpio = SimClock(), SimulatedGPIO()
        with (
            tempfile.TemporaryDirectory(prefix="mjtable-test-") as folder,
            Journal(Path(folder) / "journal.sqlite") as journal,
        ):
            links = (str(Path(folder) / "zones"), str(Path(folder) / "stacker"))
            service, devices = assemble(
                profile, ruleset, journal, clock, loop, lambda line: None, None, gpio, links
            )
            desk = Desk(service, profile.name, profile.broadcast_delay_seconds)
            outputs: list[list] = []
            service.commands.subscribe(
                lambda events: outputs.append([e for e in events if not isinstance(e, ev.RECORDS)])
            )
            if watch is not None:
                service.commands.subscribe(partial(watch, desk))
            public, referee = desk.subscribe(False), desk.subscribe(True)
            reader = DirectReader(service.feed.callback(loop, service.stacker_path))
            table = SimTable(
                ruleset,
                {owner: tag for tag, owner in profile.tags.items()},
                gpio,
                devices.shuffler.pins,
                reader,
                reader,
                profile.zones,
                SimPanel(service, devices.shuffler, gpio, profile),
                seed,
                faults or Faults(),
                profile.zones_reader.sweep_seconds,
                profile.claim_window_seconds,
                clock,
            )
            worker = asyncio.create_task(service.run())
            seen: tuple[list, list] = ([], [])
            try:
                devices.shuffler.start(0.0)
                while service.status().counts["hands"] < hands:
                    table.tick(TICK)
                    table.panel.release(table.t)
                    service.actor.tick()
                    await asyncio.sleep(0)
                    while service.actor.backlog:
                        await asyncio.sleep(0)
                    for queue, into in ((public, seen[0]), (referee, seen[1])):
                        while not queue.empty():
                            into.append(queue.get_nowait())
            finally:
                worker.cancel()
                devices.shuffler.close()
            return seen[0], seen[1], desk, outputs

    return asyncio.run(playing())
