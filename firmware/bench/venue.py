"""`mjtable bench venue`: the venue bus at a hall's scale (issue 15), through a real broker.

`--tables` simulated tables (firmware/venue/demo.py) play at `--speed` times real time in this
process, each with its uplink, every hand played ahead before the clock starts (the
simulation's work, and its heap frozen out of the collector's way), so that the process does
what a hall's tables do, each on its own Pi: commit rows and publish them; the venue's consumer
(firmware/venue/bus.py feeding a VenueBoard) runs in a process of its own, as the venue server
is a machine of its own, so that its CPU share is its own (read from /proc; it includes the
bench's note of each row's arrival, a JSON parse). Measured: the latency from a row's commit in
a table's journal to the consumer's board holding it (p50, p99, over `--seconds` of table time
once every table is online), the consumer's and the broker's CPU; then the broker is stopped
for `--outage` seconds of table time while the tables play on, and started again: the time
until the consumer holds every row committed by then. Debian's mosquitto is started on a free
loopback port with the venue's settings (deploy/mosquitto/mosquitto.conf), unless `--broker`
names one (then there is no outage to play). Figures for README, never asserted.
"""

import argparse
import asyncio
import gc
import json
import logging
import math
import multiprocessing
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiomqtt

from firmware.percentiles import percentiles
from firmware.ports import free_port
from firmware.venue.board import TableBoard, VenueBoard
from firmware.venue.bus import VenueBus
from firmware.venue.demo import connect, make_tables, play, sheet_workers, stop

VENUE = "bench"
WARM_UP = 10.0  # seconds of table time after every table is online, before measuring
SETTLE = 2.0  # seconds after the timed rows, before the outage: they are all in by then
ANSWER_SECONDS = 60.0  # for the consumer's process to answer a question (the last: every row)
START_SECONDS = 60.0  # for mosquitto to listen: it loads its store first, on a busy machine
DRAIN_MOST = 300.0  # seconds after the broker's restart: a backlog not drained by then never is
# The queue, persistence and latency settings of deploy/mosquitto/mosquitto.conf.
VENUE_SETTINGS = (
    "persistence true",
    "autosave_interval 10",
    "max_queued_messages 500000",
    "max_queued_bytes 0",
    "max_inflight_messages 100",
    "max_packet_size 263168",
    "set_tcp_nodelay true",
)
TICKS = os.sysconf("SC_CLK_TCK")


class VenueBroker:
    """Debian's mosquitto as a plain process on a free loopback port, anonymous, with the
    venue's settings; stopped (SIGTERM: it saves its sessions and queues, as the venue's does)
    and started again on the same port, an outage."""

    def __init__(self, folder: Path):
        self.port = free_port()  # outside the ephemeral range: the tables reconnect all along
        store = folder / "store"
        store.mkdir(parents=True)
        os.chmod(folder, 0o755)  # started as root, mosquitto reads as user mosquitto
        os.chmod(store, 0o777)  # and writes its sessions there
        self.config = folder / "mosquitto.conf"
        listener = [f"listener {self.port} 127.0.0.1", "allow_anonymous true"]
        self.log = store / "mosquitto.log"
        files = [f"persistence_location {store}/", f"log_dest file {self.log}"]
        self.config.write_text("\n".join([*listener, *VENUE_SETTINGS, *files]) + "\n")
        os.chmod(self.config, 0o644)
        self.proc: subprocess.Popen | None = None

    def start(self) -> "VenueBroker":
        mosquitto = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
        self.proc = subprocess.Popen([mosquitto, "-c", str(self.config)])
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline and self.proc.poll() is None:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return self
            except OSError:
                time.sleep(0.05)
        said = self.proc.poll()
        raise RuntimeError(
            f"mosquitto did not listen on {self.port} "
            + (f"(it exited with {said})" if said is not None else f"in {START_SECONDS:g} s")
            + f"; its log ends: {self.log_tail()}"
        )

    def log_tail(self, lines: int = 5) -> str:
        try:
            text = self.log.read_text(errors="replace").splitlines()
        except OSError as err:
            return f"(no log: {err.strerror})"
        return " | ".join(text[-lines:]) or "(empty)"

    @property
    def pid(self) -> int:
        """The process id of the mosquitto that start() started last."""
        if self.proc is None:
            raise RuntimeError("the bench's broker was never started")
        return self.proc.pid

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=30)


def broker_address(text: str) -> tuple[str, int]:
    """--broker HOST:PORT."""
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise argparse.ArgumentTypeError(f"HOST:PORT, not {text[:60]!r}")
    return host.strip("[]"), int(port)


def cpu_seconds(pid: int) -> float:
    """The process's user and system time so far (Linux's /proc/PID/stat)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


class TimedBoard(VenueBoard):
    """The consumer's board, noting when it took each row first (the monotonic clock is the
    machine's, so the bench compares it with the tables' commit times)."""

    def __init__(self, venue: str):
        super().__init__(venue)
        self.taken: list[tuple[str, int, float]] = []

    def _row(self, table: TableBoard, session_id: str, row: dict) -> bool:
        new = super()._row(table, session_id, row)
        if new:
            self.taken.append((table.name, row["seq"], time.monotonic()))
        return new

    def online(self) -> int:
        return sum(table.status == "online" for table in self.tables.values())

    def held(self) -> dict[str, int]:
        """By table: the last of the rows it holds without a gap from the first (its one
        session's)."""
        held = {}
        for name, table in self.tables.items():
            runs = [log.seqs.runs for log in table.sessions.values()]
            if runs and runs[0]:
                held[name] = runs[0][0][1]
        return held


def consumer(host: str, port: int, pipe) -> None:
    """The venue's consumer, in its own process: answers the bench's "online", "held" and
    (the last) "taken"."""

    async def serve() -> None:
        board = TimedBoard(VENUE)
        bus = asyncio.create_task(VenueBus(board, host, port).run())
        loop, done = asyncio.get_running_loop(), asyncio.Event()

        def answer() -> None:
            request = pipe.recv()
            pipe.send(getattr(board, request)() if request != "taken" else board.taken)
            if request == "taken":
                done.set()

        loop.add_reader(pipe.fileno(), answer)
        await done.wait()
        bus.cancel()

    _quiet()
    asyncio.run(serve())


def _quiet() -> None:
    """The uplinks' and the venue's warnings of the outage, times 500, are not the figures."""
    logging.getLogger("mjtable").setLevel(logging.ERROR)
    logging.getLogger("mqtt").setLevel(logging.CRITICAL)  # aiomqtt's: a socket reset


def run(args) -> int:
    if args.hands is None:  # a hand lasts a minute or two of table time: never run out
        args.hands = math.ceil((WARM_UP + args.seconds + args.outage) / 60) + 2
    if min(args.tables, args.hands, args.speed, args.seconds) <= 0 or args.outage < 0:
        print("mjtable bench venue: --tables, --hands, --speed, --seconds above 0", file=sys.stderr)
        return 2
    try:
        result = run_bench(args)
    except RuntimeError as err:  # mosquitto did not start, the consumer died
        print(f"mjtable bench venue: {err}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(result))
        return 0
    print(
        f"{result['tables']} simulated tables at {args.speed:g}x real time, "
        f"{result['rows_per_second']} rows a second; {result['measured_rows']} rows timed "
        f"over {args.seconds:g} s of table time"
    )
    print(
        f"  journal commit -> venue board: p50 {result['latency_p50_ms']} ms, "
        f"p99 {result['latency_p99_ms']} ms, max {result['latency_max_ms']} ms"
    )
    print(f"  CPU, as a share of one core: {_shown(result, '')}")
    if "backlog_rows" in result:
        print(f"  broker stopped {args.outage:g} s of table time: {result['backlog_rows']} rows")
        if result["drain_seconds"] is None:
            print(f"  NOT drained {DRAIN_MOST:g} s after its restart: {result['not_drained']} rows")
        else:
            print(
                f"  every row held {result['drain_seconds']} s after its restart; "
                f"CPU meanwhile: {_shown(result, 'drain_')}"
            )
    return 0


def _shown(result: dict, prefix: str) -> str:
    names = (("consumer", "consumer"), ("broker", "broker"), ("fleet", "tables' process"))
    return ", ".join(
        f"{who} {result[f'{prefix}{key}_cpu']:.0%}"
        for key, who in names
        if f"{prefix}{key}_cpu" in result
    )


def run_bench(args) -> dict:
    """The figures, in a folder of its own that goes with them."""
    _quiet()
    with tempfile.TemporaryDirectory(prefix="mjtable-bench-venue-") as folder:
        return asyncio.run(_bench(args, Path(folder)))


def _unanswered(loop, context: dict) -> None:
    """An uplink still sending when the bench stops it leaves aiomqtt's futures for its last
    acknowledgements unanswered: not a figure. Anything else is told as usual."""
    if not isinstance(context.get("exception"), aiomqtt.MqttError):
        loop.default_exception_handler(context)


async def _bench(args, folder: Path) -> dict:
    asyncio.get_running_loop().set_exception_handler(_unanswered)
    broker = None if args.broker else VenueBroker(folder).start()
    host, port = args.broker if broker is None else ("127.0.0.1", broker.port)
    ours, theirs = multiprocessing.Pipe()
    child = multiprocessing.get_context("spawn").Process(
        target=consumer, args=(host, port, theirs), daemon=True
    )
    child.start()
    fleet = make_tables(args.tables, args.hands, folder)
    for table in fleet:  # the simulation's work, done before: measured, the tables only
        table.play_ahead()  # commit and publish, as a hall's tables do, each on its Pi
    gc.collect()
    gc.freeze()  # the simulation's heap: a collection through it stalled the uplinks
    sheets = sheet_workers()
    tasks = connect(fleet, (host, port), VENUE, sheets)
    ask, playing = _Asker(ours), None
    try:
        while await ask("online") < len(fleet):
            await asyncio.sleep(0.2)
        playing = asyncio.create_task(play(fleet, args.speed))
        await asyncio.sleep(WARM_UP / args.speed)
        pids = {"consumer": child.pid, "broker": broker.pid if broker else None}
        before = _cpu(pids)
        first = [table.journal.seq for table in fleet]
        await asyncio.sleep(args.seconds / args.speed)
        last = [table.journal.seq for table in fleet]
        result = {"tables": len(fleet)} | _shares(before, after := _cpu(pids))
        result["rows_per_second"] = round((sum(last) - sum(first)) / (after["at"] - before["at"]))
        await asyncio.sleep(SETTLE)
        if broker is not None:
            pids["broker"] = None  # it starts again as another process
            result |= await _outage(broker, fleet, ask, args.outage / args.speed, pids)
        taken = await ask("taken")
    finally:
        if playing is not None:
            playing.cancel()
            await asyncio.wait([playing])
        await stop(fleet, tasks)
        sheets.shutdown(cancel_futures=True)
        child.join(timeout=10)
        if broker is not None:
            broker.stop()
    window = {t.name: (t.committed, a, b) for t, a, b in zip(fleet, first, last, strict=True)}
    samples = [
        1000 * (at - window[name][0][seq])
        for name, seq, at in taken
        if window[name][1] < seq <= window[name][2]
    ]
    p50, p99, worst = percentiles(samples, 1)
    rows = sum(table.journal.seq for table in fleet)
    for table in fleet:
        table.journal.close()
    return result | {
        "rows": rows,
        "measured_rows": len(samples),
        "latency_p50_ms": p50,
        "latency_p99_ms": p99,
        "latency_max_ms": worst,
    }


class _Asker:
    """Questions to the consumer's process, one at a time, answered without blocking the
    tables' event loop; RuntimeError if it does not answer (it died)."""

    def __init__(self, pipe):
        self.pipe, self.lock = pipe, asyncio.Lock()

    async def __call__(self, request: str):
        async with self.lock:
            self.pipe.send(request)
            return await asyncio.to_thread(self._answer)

    def _answer(self):
        if not self.pipe.poll(ANSWER_SECONDS):
            raise RuntimeError(f"the consumer's process did not answer in {ANSWER_SECONDS} s")
        return self.pipe.recv()


async def _outage(broker: VenueBroker, fleet, ask, seconds: float, pids: dict) -> dict:
    """Stop the broker `seconds`, start it again; the backlog, the time until the consumer
    holds every row committed by then, and the CPU shares meanwhile."""
    await asyncio.to_thread(broker.stop)
    await asyncio.sleep(seconds)
    await asyncio.to_thread(broker.start)
    before = _cpu(pids | {"broker": broker.pid})
    restarted = before["at"]
    targets = {table.name: table.journal.seq for table in fleet}
    held = await ask("held")
    backlog = sum(targets[n] - held.get(n, 0) for n in targets)
    while any(held.get(n, 0) < seq for n, seq in targets.items()):
        if time.monotonic() > restarted + DRAIN_MOST:
            missing = sum(max(0, seq - held.get(n, 0)) for n, seq in targets.items())
            return {"backlog_rows": backlog, "drain_seconds": None, "not_drained": missing}
        await asyncio.sleep(0.1)
        held = await ask("held")
    shares = _shares(before, after := _cpu(pids | {"broker": broker.pid}))
    drained = {"backlog_rows": backlog, "drain_seconds": round(after["at"] - restarted, 1)}
    return drained | {f"drain_{name}": share for name, share in shares.items()}


def _cpu(pids: dict) -> dict:
    """The CPU seconds so far of the consumer, the broker and the fleet: this process and
    its other children (the sheets' builder, demo.sheet_workers)."""
    seconds = {name: cpu_seconds(pid) for name, pid in pids.items() if pid is not None}
    others = set(_children()) - set(pids.values())
    fleet = time.process_time() + sum(cpu_seconds(pid) for pid in others)
    return seconds | {"fleet": fleet, "at": time.monotonic()}


def _children() -> list[int]:
    """This process's children now (Linux's /proc)."""
    found, me = [], os.getpid()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    ppid = int(stat.read().rpartition(")")[2].split()[1])
            except (OSError, ValueError, IndexError):
                continue  # gone meanwhile
            if ppid == me:
                found.append(int(entry))
    return found


def _shares(before: dict, after: dict) -> dict:
    wall = after["at"] - before["at"]
    return {
        f"{name}_cpu": round((after[name] - before[name]) / wall, 3)
        for name in ("consumer", "broker", "fleet")
        if name in before
    }
