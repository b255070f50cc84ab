"""`mjtable run` on the simulated table: simulated pins and machine, reader emulators on ptys
read by the production serial code, four simulated players and the panel they use; and the
summary comparing what the tracking inferred with what the players truly did."""

import asyncio
import time
from collections import Counter
from pathlib import Path

from drivers.sim.pins import SimulatedGPIO
from drivers.sim.reader import SimReader
from drivers.sim.table import SimClock, SimTable
from firmware.actor import TICK
from firmware.rig import Rig
from firmware.service import DiceReport


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

    def void(self, reason: str) -> None:
        """The referee voids the hand: his action, queued like every other."""
        self.service.actor.submit(lambda t: self.service.hands.void(t, reason))


async def simulated_table(args, profile, ruleset, journal, folder: Path) -> dict:
    """Build the simulated table around the service, play, and return the summary."""
    loop = asyncio.get_running_loop()
    clock = SimClock()
    gpio = SimulatedGPIO()
    zone_sim, stacker_sim = SimReader(folder / "zones"), SimReader(folder / "stacker")
    paths = (str(folder / "zones"), str(folder / "stacker"))
    rig = Rig(args, profile, ruleset, journal, clock, loop, gpio, paths)
    service, actor = rig.service, rig.service.actor
    panel = SimPanel(service, rig.shuffler, gpio, profile)
    tags = {owner: tag for tag, owner in profile.tags.items()}
    table = SimTable(
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
    rig.shuffler.start(0.0)
    began = time.monotonic()
    try:
        while not actor.done.is_set():
            table.tick(TICK)
            panel.release(table.t)
            actor.tick()
            ahead = began + table.t / args.speed - time.monotonic()
            await asyncio.sleep(max(ahead, 0))
            while not actor.done.is_set() and (
                actor.backlog > 200 or _reads_behind(service.status(), paths[0], zone_sim)
            ):
                await asyncio.sleep(0.001)  # the service reads behind: let it catch up
    finally:
        await rig.stop()
        zone_sim.close()
        stacker_sim.close()
    return summarise(service.status(), table, time.monotonic() - began)


def _reads_behind(status, path: str, reader: SimReader) -> bool:
    """More than two heartbeats of the online zone reader are not yet seen by the service."""
    seen = status.heartbeats.get(path, 0)
    return bool(status.readers_online.get(path)) and (reader.heartbeat_seq - seen) % 256 > 2


def summarise(status, table, seconds: float) -> dict:
    """What the tracking got right against the simulated truth, and the faults."""
    hands = status.counts["hands"]
    truth = Counter(
        (hand, tile, src, dst) for hand, _, tile, src, dst in table.true_moves if hand <= hands
    )
    seen = Counter(
        (hand, m.tile, m.source, m.target)
        for hand, m in status.inferred
        if not m.flagged and hand <= hands
    )
    right = truth & seen
    wrong = seen - truth
    missed = truth - right
    flagged = sum(n for key, n in missed.items() if key[:2] in status.flagged_tiles)
    kinds = Counter(f.kind for f in status.faults if not f.cleared)
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
        "hands": hands,
        "events": status.counts["events"],
        "alerts": status.counts["alerts"],
        "tracking": {
            "true_moves": sum(truth.values()),
            "inferred_right": sum(right.values()),
            "flagged": flagged,
            "inferred_wrong": sum(wrong.values()),
            "missed": sum(missed.values()) - flagged,
        },
        "faults_injected": dict(sorted(table.faults.injected.items())),
        "faults_detected": detected,
        "table_seconds": round(table.t, 1),
        "wall_seconds": round(seconds, 1),
        "ruleset": status.ruleset,
        "scores": list(status.scores),
    }
