"""`mjtable run`'s one composition of the table (issue 29), in Klipper's manner: the table is
built from its profile's device kinds by firmware/table/assembly.py's registry, whether the
kinds are simulated or real. Where the profile names simulated kinds ([table] simulated,
[gpio] kind = "sim", [readers.*] kind = "sim"), the simulated world (firmware/run/simulated.py:
its pins, its readers on ptys, the machine and four players) is attached to the devices and
drives table time; otherwise the table's clock is the machine's. Everything else is one code
path for both: systemd told the service is ready and lives (firmware/table/watchdog.py), the
shuffler's retry, the buttons, the faults, the summary.
"""

import asyncio
import time
from pathlib import Path

from engine.stage import standings_of
from firmware.run.rig import Rig
from firmware.run.simulated import Simulation
from firmware.table.actor import TICK
from firmware.table.watchdog import Notifier, keep_alive


async def run_table(args, profile, ruleset, journal, folder: Path, each_tick=None) -> dict:
    """Build the table `profile` names around the service, referee until it is done, and
    return the summary. `folder` holds what a simulation makes (its readers' links);
    `each_tick(status)` is called after every tick of a simulated table (`mjtable bench
    soak`)."""
    loop = asyncio.get_running_loop()
    simulation = None
    if profile.simulated:
        simulation = Simulation(args, profile, ruleset, folder, each_tick)
    clock = simulation.clock if simulation else _machine_clock(args.history)
    began = time.monotonic()
    try:
        if simulation is not None:
            await simulation.rederive(journal)  # the world as the journal left it, if cut
        rig = Rig(args, profile, ruleset, journal, clock, loop, simulation)
        service = rig.service
        if simulation is not None:
            simulation.attach(rig)
        rig.shuffler.start(clock(), service.status().set_in_play)
        try:
            ticking = simulation.play(rig, args.speed) if simulation else service.actor.ticker(TICK)
            await _notified(rig, ticking)
        finally:
            await rig.stop()
    finally:
        if simulation is not None:
            simulation.close()
    status = service.status()
    summary = {
        "not_refereeing": status.not_refereeing.why if status.not_refereeing else None,
        "next_session": status.next_session,
        "hands": status.counts["hands"],
        "events": status.counts["events"],
        "alerts": status.counts["alerts"],
        "faults": status.fault_records,
        "ruleset": ruleset.name,
        "scores": list(status.scores),
        "stage": standings_of(status.session, status.venue.players),  # seed 004 第十條
    }
    if simulation is not None:
        summary |= simulation.summary(status, time.monotonic() - began)
    return summary


def _machine_clock(history):
    """Seconds of table time, monotonic, going on from the journal's last input: a power cut
    never counts."""
    began = time.monotonic() - (history.last_t if history else 0.0)
    return lambda: time.monotonic() - began


async def _notified(rig: Rig, ticking) -> None:
    """Run `ticking` (the actor's ticker, or the simulated world's play: either ends once the
    actor is done) with systemd told (SOFTWARE.md §7.2): ready now that the devices are up,
    alive while the actor takes its ticks, stopping with why."""
    service = rig.service
    notifier = Notifier()
    notifier.ready(service.status().line())
    seen = service.last_tick

    def ticked() -> bool:
        """The actor took a tick since the last ping: counted in ticks, not in table time,
        which a simulation runs faster than the watchdog's."""
        nonlocal seen
        last, seen = seen, service.last_tick
        return seen != last

    pinger = asyncio.create_task(keep_alive(notifier, ticked, lambda: service.status().line()))
    try:
        await ticking
        notifier.stopping(service.status().line())
    finally:
        pinger.cancel()
