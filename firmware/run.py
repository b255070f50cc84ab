"""`mjtable run`: the table's main job. With the simulated profile (the default) it builds the
simulated table: simulated pins and machine, reader emulators on ptys read by the production
serial code, four simulated players, and plays hands until stopped or `--hands N` are done.

Time runs `--speed` times faster than real time (a maximum: the simulation waits for the
service rather than outrun it). `--json-summary` ends with one JSON line comparing what the
tracking inferred with what the simulated players truly did.
"""

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

from drivers.dice import PhysicalDice
from drivers.readers import Reader
from drivers.shuffler import Shuffler, ShufflerPins, ShufflerTiming
from drivers.sim.pins import SimulatedGPIO
from drivers.sim.reader import SimReader
from drivers.sim.table import Faults, SimClock, SimTable
from firmware.config import load_ruleset
from firmware.desk import Desk
from firmware.display.app import DisplayServer, create_app
from firmware.journal import Journal, JournalError
from firmware.profile import ProfileError, load_profile
from firmware.service import TICK, DiceReport, Service, make_buttons


def add_parser(commands) -> None:
    p = commands.add_parser("run", help="run the table (by default the simulated table)")
    p.add_argument("--profile", default="sim",
                   help="table profile: a name in config/tables/ or a TOML file (default sim)")
    p.add_argument("--ruleset", help="rule book (default: the profile's)")
    p.add_argument("--hands", type=_positive, help="stop after N hands (default: until Ctrl-C)")
    p.add_argument("--speed", type=_speed, default=1.0,
                   help="simulated time runs X times real time (default 1)")
    p.add_argument("--faults", type=parse_faults, default=Faults(), metavar="SPEC",
                   help="inject faults, e.g. drop=0.05,ghost=0.01,jam=1,lost=1,foreign=1,"
                   "unplug=1,slow=S")
    p.add_argument("--seed", type=int, default=1, help="seed of the simulated table (default 1)")
    p.add_argument("--journal", metavar="PATH", help="the journal file (default: a new file "
                   "under ./journal/)")
    p.add_argument("--port", type=int, help="serve the referee display on this port (default: "
                   "the profile's; 0 for none)")
    p.add_argument("--json-summary", action="store_true",
                   help="print one JSON summary line at the end")
    p.set_defaults(run=run)


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise ValueError(text)
    return value


def _speed(text: str) -> float:
    value = float(text)
    if not 0 < value <= 10000:
        raise ValueError(text)
    return value


def parse_faults(text: str) -> Faults:
    """`drop=0.05,ghost=0.01,jam=1,...` -> Faults; argparse reports a ValueError as bad input."""
    faults = Faults()
    for item in filter(None, text.split(",")):
        name, _, value = item.partition("=")
        if name in ("drop", "ghost"):
            rate = float(value)
            if not 0 <= rate < 1:
                raise ValueError(f"{name} is a rate from 0 to below 1, not {value}")
            setattr(faults, name, rate)
        elif name in ("jam", "lost", "foreign", "unplug"):
            setattr(faults, name, int(value or 1))
        elif name == "slow" and value in ("E", "S", "W", "N"):
            faults.slow = value
        else:
            raise ValueError(f"unknown fault {item!r}")
    return faults


parse_faults.__name__ = "fault list"        # argparse's message: "invalid fault list value"


def port_problem(host: str, port: int) -> str | None:
    """Why the display cannot listen on host:port, or None (checked before anything starts)."""
    if not 0 < port < 65536:
        return f"--port {port}: a port is 1..65535 (0: no display)"
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as err:
            return f"the display cannot listen on {host}:{port} ({err.strerror}): choose " \
                   "another with --port"
    return None


def run(args) -> int:
    try:
        profile = load_profile(args.profile)
    except ProfileError as err:
        print(f"mjtable run: {err}", file=sys.stderr)
        return 2
    ruleset = load_ruleset(args.ruleset or profile.ruleset)
    if not profile.simulated:
        print("mjtable run: this build drives the simulated table only; the hardware wiring "
              f"of {profile.path.name} is described but not yet started", file=sys.stderr)
        return 2
    port = profile.port if args.port is None else args.port
    if port:
        problem = port_problem(profile.host, port)
        if problem:
            print(f"mjtable run: {problem}", file=sys.stderr)
            return 2
    args.port = port
    path = Path(args.journal) if args.journal else Path("journal") / (
        f"{profile.name}-{datetime.now():%Y%m%d-%H%M%S}.sqlite")
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        journal = Journal(path)
    except JournalError as err:
        print(f"mjtable run: {err}", file=sys.stderr)
        return 2
    with journal, tempfile.TemporaryDirectory(prefix="mjtable-sim-") as folder:
        summary = asyncio.run(simulated_table(args, profile, ruleset, journal, Path(folder)))
    summary["journal"] = str(path)
    if args.json_summary:
        print(json.dumps(summary))
    return 0


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


async def simulated_table(args, profile, ruleset, journal, folder: Path) -> dict:
    """Build the simulated table around the service, play, and return the summary."""
    loop = asyncio.get_running_loop()
    clock = SimClock()
    gpio = SimulatedGPIO()
    per_lane = (144 if ruleset.table_rules.flowers else 136) // 4
    service_ref = {}
    shuffler = Shuffler(gpio, ShufflerPins(**vars(profile.shuffler_pins)),
                        ShufflerTiming(**vars(profile.shuffler_timing)), per_lane,
                        lambda record: service_ref["s"].record(record, record.t), clock)
    out = (lambda line: None) if args.json_summary else (lambda line: print(line, flush=True))
    service = Service(profile, ruleset, profile.tags, journal, clock, shuffler, PhysicalDice(),
                      out, args.hands)
    service_ref["s"] = service
    make_buttons(gpio, profile, service, clock)
    zone_sim = SimReader(folder / "zones")
    stacker_sim = SimReader(folder / "stacker")
    service.zones_path = str(folder / "zones")
    on_record = service.from_thread(loop)
    readers = [Reader(str(folder / "zones"), on_record, backoff_max=0.2),
               Reader(str(folder / "stacker"), on_record, backoff_max=0.2)]
    for reader in readers:
        service.readers_online[reader.path] = True
        reader.start()
    panel = SimPanel(service, shuffler, gpio, profile)
    tags = {owner: tag for tag, owner in profile.tags.items()}
    table = SimTable(ruleset, tags, gpio, shuffler.pins, zone_sim, stacker_sim, profile.zones,
                     panel, args.seed, args.faults, profile.zones_reader.sweep_seconds,
                     profile.claim_window_seconds, clock)
    shuffler.start(0.0)
    display = None
    if args.port:
        display = DisplayServer(create_app(Desk(service, profile.name), profile.referee_pin),
                                profile.host, args.port)
        serving = asyncio.create_task(display.serve())
        print(f"referee display: http://{profile.host}:{args.port}/ (public view: /table)",
              file=sys.stderr if args.json_summary else sys.stdout, flush=True)
    stop = service.done
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    worker = asyncio.create_task(service.run())
    began = time.monotonic()
    try:
        while not stop.is_set():
            table.tick(TICK)
            panel.release(table.t)
            service.record(("tick",))
            ahead = began + table.t / args.speed - time.monotonic()
            await asyncio.sleep(max(ahead, 0))
            while service.queue.qsize() > 200 and not stop.is_set():
                await asyncio.sleep(0.001)         # let the service catch up
    finally:
        worker.cancel()
        if display is not None:
            display.should_exit = True
            await serving
        for reader in readers:
            reader.close()
        zone_sim.close()
        stacker_sim.close()
        shuffler.close()
    return summarise(service, table, time.monotonic() - began)


def summarise(service, table, seconds: float) -> dict:
    """What the tracking got right against the simulated truth, and the faults."""
    hands = service.counts["hands"]
    truth = Counter((hand, tile, src, dst) for hand, _, tile, src, dst in table.true_moves
                    if hand <= hands)
    seen = Counter((hand, m.tile, m.source, m.target) for hand, m in service.inferred
                   if not m.flagged and hand <= hands)
    right = truth & seen
    wrong = seen - truth
    flagged_tiles = service.flagged_tiles
    missed = truth - right
    flagged = sum(n for key, n in missed.items() if key[:2] in flagged_tiles)
    kinds = Counter(f.kind for f in service.faults if not f.cleared)
    detected = {"drop": service.tracker.transient_absences,
                "ghost": service.tracker.transient_sightings,
                "jam": kinds["jam"], "lost": kinds["count"], "foreign": kinds["foreign"],
                "unplug": kinds["offline"],
                "slow": service.counts["overtime"]}
    return {"hands": hands, "events": service.counts["events"],
            "alerts": service.counts["alerts"],
            "tracking": {"true_moves": sum(truth.values()), "inferred_right": sum(right.values()),
                         "flagged": flagged, "inferred_wrong": sum(wrong.values()),
                         "missed": sum(missed.values()) - flagged},
            "faults_injected": dict(sorted(table.faults.injected.items())),
            "faults_detected": detected,
            "table_seconds": round(table.t, 1), "wall_seconds": round(seconds, 1),
            "ruleset": service.ruleset.name, "scores": list(service.session.scores)}

