"""`mjtable run`: the table's main job. With the simulated profile (the default) it builds the
simulated table: simulated pins and machine, reader emulators on ptys read by the production
serial code, four simulated players, and plays hands until stopped or `--hands N` are done.

Time runs `--speed` times faster than real time (a maximum: the simulation waits for the
service rather than outrun it). `--json-summary` ends with one JSON line comparing what the
tracking inferred with what the simulated players truly did.
"""

import argparse
import asyncio
import json
import signal
import socket
import sys
import tempfile
import time
from collections import Counter
from datetime import datetime
from pathlib import Path

from drivers.dice import ElectronicDice, PhysicalDice
from drivers.gpio import GPIOUnavailable, open_pins
from drivers.readers import Reader
from drivers.sim.pins import SimulatedGPIO
from drivers.sim.reader import SimReader
from drivers.sim.table import Faults, SimClock, SimTable
from firmware.config import load_ruleset
from firmware.desk import Desk
from firmware.display.app import DisplayServer, create_app
from firmware.journal import Journal, JournalError
from firmware.profile import ProfileError, load_profile
from firmware.replay import ReplayError, replay
from firmware.service import TICK, DiceReport, build_service
from firmware.watchdog import Notifier, keep_alive


def add_parser(commands) -> None:
    p = commands.add_parser("run", help="run the table (by default the simulated table)")
    p.add_argument(
        "--profile",
        default="sim",
        help="table profile: a name in config/tables/ or a TOML file (default sim)",
    )
    p.add_argument("--ruleset", help="rule book (default: the profile's)")
    p.add_argument("--hands", type=_positive, help="stop after N hands (default: until Ctrl-C)")
    p.add_argument(
        "--speed",
        type=_speed,
        default=1.0,
        help="simulated time runs X times real time (default 1)",
    )
    p.add_argument(
        "--faults",
        type=parse_faults,
        default=Faults(),
        metavar="SPEC",
        help="inject faults, e.g. drop=0.05,ghost=0.01,jam=1,lost=1,foreign=1,unplug=1,slow=S",
    )
    p.add_argument("--seed", type=int, default=1, help="seed of the simulated table (default 1)")
    p.add_argument(
        "--journal", metavar="PATH", help="the journal file (default: a new file under ./journal/)"
    )
    p.add_argument(
        "--port",
        type=int,
        help="serve the referee display on this port (default: the profile's; 0 for none)",
    )
    p.add_argument(
        "--json-summary", action="store_true", help="print one JSON summary line at the end"
    )
    p.set_defaults(run=run)


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"a whole number of hands, 1 or more, not {text!r}")
    return int(text)


def _speed(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value <= 10000:
        raise argparse.ArgumentTypeError(
            f"a speed above 0 and at most 10000 (times real time), not {text!r}"
        )
    return value


def parse_faults(text: str) -> Faults:
    """`drop=0.05,ghost=0.01,jam=1,...` -> Faults; a bad item is named in the error."""
    try:
        return _faults(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"{text!r}: {err}") from None


def _faults(text: str) -> Faults:
    faults = Faults()
    for item in filter(None, text.split(",")):
        name, _, value = item.partition("=")
        if name in ("drop", "ghost"):
            try:
                rate = float(value)
            except ValueError:
                raise ValueError(f"{name} is a rate from 0 to below 1, not {value!r}") from None
            if not 0 <= rate < 1:
                raise ValueError(f"{name} is a rate from 0 to below 1, not {value}")
            setattr(faults, name, rate)
        elif name in ("jam", "lost", "foreign", "unplug"):
            if value and not value.isdigit():
                raise ValueError(f"{name} is a whole number of times (0 or more), not {value}")
            setattr(faults, name, int(value or 1))
        elif name == "slow" and value in ("E", "S", "W", "N"):
            faults.slow = value
        else:
            raise ValueError(
                f"unknown fault {item!r} (drop=RATE, ghost=RATE, jam=N, lost=N, "
                "foreign=N, unplug=N, slow=E|S|W|N)"
            )
    return faults


def port_problem(host: str, port: int) -> str | None:
    """Why the display cannot listen on host:port, or None (checked before anything starts)."""
    if not 0 < port < 65536:
        return f"--port {port}: a port is 1..65535 (0: no display)"
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as err:
            return (
                f"the display cannot listen on {host}:{port} ({err.strerror}): choose "
                "another with --port"
            )
    return None


def run(args) -> int:
    try:
        profile = load_profile(args.profile)
    except ProfileError as err:
        print(f"mjtable run: {err}", file=sys.stderr)
        return 2
    ruleset = load_ruleset(args.ruleset or profile.ruleset)
    port = profile.port if args.port is None else args.port
    if port:
        problem = port_problem(profile.host, port)
        if problem:
            print(f"mjtable run: {problem}", file=sys.stderr)
            return 2
    args.port = port
    path = (
        Path(args.journal)
        if args.journal
        else Path("journal") / (f"{profile.name}-{datetime.now():%Y%m%d-%H%M%S}.sqlite")
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        journal = Journal(path)
        args.history = _history(journal)
    except (JournalError, ReplayError) as err:
        print(f"mjtable run: {err}", file=sys.stderr)
        return 2
    books = {table.ruleset.name for _, table, _ in args.history}
    if books - {ruleset.name}:
        print(
            f"mjtable run: {path} holds a session under {', '.join(sorted(books))}: go on "
            f"with --ruleset {sorted(books)[0]}, or start a new --journal",
            file=sys.stderr,
        )
        journal.close()
        return 2
    try:
        with journal, tempfile.TemporaryDirectory(prefix="mjtable-sim-") as folder:
            summary = asyncio.run(
                simulated_table(args, profile, ruleset, journal, Path(folder))
                if profile.simulated
                else hardware_table(args, profile, ruleset, journal)
            )
    except GPIOUnavailable as err:
        print(f"mjtable run: {err}", file=sys.stderr)
        return 2
    summary["journal"] = str(path)
    if args.json_summary:
        print(json.dumps(summary))
    return 0


def _history(journal) -> list:
    """The hands an existing journal holds, replayed, for the session to go on from."""
    if not journal.seq:
        return []
    result = replay(journal)
    if result.mismatches:
        print(
            f"mjtable run: {journal.path}: {result.mismatches} outputs differ on replay "
            "(another engine version?); the session goes on from the replayed hands",
            file=sys.stderr,
        )
    return result.played


class SimPanel:
    """The lamps and buttons the simulated people use, wired to the service and the pins."""

    def __init__(self, service, shuffler, gpio, profile):
        self.service, self.shuffler, self.gpio = service, shuffler, gpio
        self.pins = {(seat, name): pin for pin, (seat, name) in profile.buttons.items()}
        self.held: list[tuple[float, int]] = []

    def walls_ready(self) -> bool:
        return self.service.walls_ready is not None

    def machine_fault(self) -> bool:
        return self.shuffler.state == "fault"

    def readers_online(self) -> bool:
        return all(self.service.readers_online.values())

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
        self.service.record(DiceReport(side, tuple(values)))

    def session(self):
        return self.service.session

    def void(self, reason: str) -> None:
        self.service.void_hand(self.service.clock(), reason)


class Rig:
    """The service and the devices the profile wires to it, as Klipper builds its objects
    from config sections. `gpio` is a pin module (simulated or rpi-lgpio), `clock` the
    table's clock, `paths` the two readers' device paths (zones, stacker)."""

    def __init__(self, args, profile, ruleset, journal, gpio, clock, dice, paths, loop):
        out = (lambda line: None) if args.json_summary else (lambda line: print(line, flush=True))
        self.service = service = build_service(
            profile, ruleset, journal, gpio, clock, dice, out, args.hands, loop
        )
        self.shuffler = service.shuffler
        service.resume(args.history)
        service.zones_path, service.stacker_path = paths
        self.readers = [
            Reader(path, service.from_thread(loop, path), backoff_max=0.2) for path in paths
        ]
        for reader in self.readers:
            service.readers_online[reader.path] = True
            reader.start()
        self.display = self.serving = None
        if args.port:
            self.display = DisplayServer(
                create_app(Desk(service, profile.name), profile.referee_pin),
                profile.host,
                args.port,
            )
            self.serving = asyncio.create_task(self.display.serve())
            print(
                f"referee display: http://{profile.host}:{args.port}/ (public view: /table)",
                file=sys.stderr if args.json_summary else sys.stdout,
                flush=True,
            )
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, service.done.set)
        self.worker = asyncio.create_task(service.run())

    async def stop(self) -> None:
        self.worker.cancel()
        if self.display is not None:
            self.display.should_exit = True
            await self.serving
        for reader in self.readers:
            reader.close()
        self.shuffler.close()


async def simulated_table(args, profile, ruleset, journal, folder: Path) -> dict:
    """Build the simulated table around the service, play, and return the summary."""
    loop = asyncio.get_running_loop()
    clock = SimClock()
    gpio = SimulatedGPIO()
    zone_sim, stacker_sim = SimReader(folder / "zones"), SimReader(folder / "stacker")
    paths = (str(folder / "zones"), str(folder / "stacker"))
    rig = Rig(args, profile, ruleset, journal, gpio, clock, PhysicalDice(), paths, loop)
    service = rig.service
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
        while not service.done.is_set():
            table.tick(TICK)
            panel.release(table.t)
            service.record(("tick",))
            ahead = began + table.t / args.speed - time.monotonic()
            await asyncio.sleep(max(ahead, 0))
            while not service.done.is_set() and (
                service.queue.qsize() > 200
                or (
                    service.readers_online.get(paths[0])
                    and (zone_sim.heartbeat_seq - service.heartbeats.get(paths[0], 0)) % 256 > 2
                )
            ):
                await asyncio.sleep(0.001)  # the service reads behind: let it catch up
    finally:
        await rig.stop()
        zone_sim.close()
        stacker_sim.close()
    return summarise(service, table, time.monotonic() - began)


async def hardware_table(args, profile, ruleset, journal) -> dict:
    """The table's own devices: pins from the profile's backend, readers at their device
    paths, electronic dice; the timers polled on the loop."""
    loop = asyncio.get_running_loop()
    began = time.monotonic()

    def clock() -> float:  # seconds since the service started: monotonic
        return time.monotonic() - began

    rig = Rig(
        args,
        profile,
        ruleset,
        journal,
        open_pins(profile.gpio_backend),
        clock,
        ElectronicDice(),
        (profile.zones_reader.path, profile.stacker_reader.path),
        loop,
    )
    rig.shuffler.start(clock())
    ticker = asyncio.create_task(rig.service.ticker(TICK))
    notifier = Notifier()
    notifier.ready(rig.service.status())
    pinger = asyncio.create_task(
        keep_alive(
            notifier,
            lambda: clock() - rig.service.last_tick < notifier.interval,
            rig.service.status,
        )
    )
    try:
        await rig.service.done.wait()
    finally:
        ticker.cancel()
        pinger.cancel()
        await rig.stop()
    service = rig.service
    return {
        "hands": service.counts["hands"],
        "events": service.counts["events"],
        "alerts": service.counts["alerts"],
        "faults": len(service.faults),
        "ruleset": ruleset.name,
        "scores": list(service.session.scores),
    }


def summarise(service, table, seconds: float) -> dict:
    """What the tracking got right against the simulated truth, and the faults."""
    hands = service.counts["hands"]
    truth = Counter(
        (hand, tile, src, dst) for hand, _, tile, src, dst in table.true_moves if hand <= hands
    )
    seen = Counter(
        (hand, m.tile, m.source, m.target)
        for hand, m in service.inferred
        if not m.flagged and hand <= hands
    )
    right = truth & seen
    wrong = seen - truth
    flagged_tiles = service.flagged_tiles
    missed = truth - right
    flagged = sum(n for key, n in missed.items() if key[:2] in flagged_tiles)
    kinds = Counter(f.kind for f in service.faults if not f.cleared)
    detected = {
        "drop": service.tracker.transient_absences,
        "ghost": service.tracker.transient_sightings,
        "jam": kinds["jam"],
        "lost": kinds["count"],
        "foreign": kinds["foreign"],
        "unplug": kinds["offline"],
        "slow": service.counts["overtime"],
    }
    return {
        "hands": hands,
        "events": service.counts["events"],
        "alerts": service.counts["alerts"],
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
        "ruleset": service.ruleset.name,
        "scores": list(service.session.scores),
    }
