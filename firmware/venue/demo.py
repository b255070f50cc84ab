"""A fleet of simulated tables on the venue's bus, in one process (issue 15): `mjtable venue
--simulate N` and `mjtable bench venue`.

Each table is firmware/sim/simulate.py's Game (the engine and four simulated players) with its own
journal and the real uplink (firmware/uplink/client.py) publishing it; no pty, no service. So that
500 tables run on two cores, a table costs little between its rows: it plays each hand ahead,
in memory (a few milliseconds), and one scheduler on the event loop commits each row to its
journal when the table's clock, `speed` times real time, reaches the row's time, and wakes
its uplink. The uplink reads only the journal, so it sees what a real table's would, at a
real table's pace. The fleet's journals run with synchronous=NORMAL, since this is a
simulation: FULL's fsync of each commit (1.8 ms here, against 0.1 ms) would hold the one
event loop up for 3 s of every second at 500 tables x 3.4 rows/s. A real table's journal
stays FULL (its power cuts are tested elsewhere).

The simulation knows every concealed tile: each table keeps the truth of its rows, and the
venue's board checks each message against it (firmware/venue/demo_truth.py).
"""

import asyncio
import heapq
import multiprocessing
import signal
import time
from array import array
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from pathlib import Path

from engine import events as ev
from engine.seats import LETTERS as SEATS
from firmware.bus.settings import UplinkSettings
from firmware.journal.store import Journal
from firmware.percentiles import percentiles
from firmware.resources import load_ruleset, ruleset_path
from firmware.sim.simulate import Game
from firmware.uplink.client import Uplink
from firmware.uplink.identity import Identity
from firmware.uplink.messages import public_state
from firmware.venue.board import VenueBoard
from firmware.venue.bus import VenueBus
from firmware.venue.demo_truth import FleetBoard, Truth

MAX_TABLES = 2000  # the venue's board takes no more (firmware/venue/board.py)
STAGGER = 5.0  # seconds of table time over which the tables' first hands start
STOP_SECONDS = 5.0  # for the uplinks to say offline, then for a cancel to be taken
SHEET_WORKERS = 1  # processes building the fleet's score sheets: the machine's other core
DRAIN_SECONDS = 120.0  # after the last commit, how long the venue may take to hold every row


class FleetTable:
    """One simulated table. The Game journals to it (`hand`, `input`, `outputs`,
    `checkpoint`, as to a Journal): each call waits in `rows` with its table time until
    `commit_until` passes it on to the real journal and records the truth."""

    def __init__(self, name: str, seed: int, ruleset, hands: int, folder: Path, offset: float):
        self.name, self.hands_left, self.offset = name, hands, offset
        self.journal = Journal(Path(folder) / f"{name}.sqlite")
        self.journal.conn.execute("PRAGMA synchronous = NORMAL")  # see the module's docstring
        self.game = Game(ruleset, seed, 0.0, journal=self)
        self.rows: deque = deque()  # (table time, journal method, its arguments, public)
        self.truth = Truth()
        self.committed = array("d", [0.0])  # by seq: time.monotonic() of its commit
        self.hands_done = 0
        self.t, self._input_t = 0.0, 0.0
        self.public = self._public("between_hands")  # the public state's part that changes
        self.uplink: Uplink | None = None  # the table's Uplink, once run_fleet gives it one

    # -- the journal as the Game writes it -------------------------------------------------

    def hand(self, ruleset, hand_number, walls, t, *rest) -> None:
        args = (ruleset, hand_number, walls, t, *rest)
        self.rows.append((t, "hand", args, self._public("playing")))

    def input(self, event: ev.Event) -> None:
        self._input_t = event.t
        self.rows.append((event.t, "input", (event,), None))

    def outputs(self, events: list) -> None:
        if events:
            self.rows.append((self._input_t, "outputs", (events,), None))

    def checkpoint(self) -> None:
        self.rows.append((self._input_t, "checkpoint", (), self._public("between_hands")))

    def _public(self, phase: str) -> dict:
        """The session as the Game has it now: a hand's row carries it to the public state
        when it is committed, since the Game plays a hand ahead."""
        session = self.game.session
        return {
            "phase": phase,
            "hand_number": session.hand_number,
            "dealer": SEATS[session.dealer],
            "round_wind": SEATS[session.passes // 4 % 4],
            "scores": list(session.scores),
        }

    # -- the table's own clock ---------------------------------------------------------------

    def due(self) -> float | None:
        """The table time of its next row; None once its hands are all committed."""
        if not self.rows and self.hands_left:
            self.play_ahead(1)
        return self.rows[0][0] + self.offset if self.rows else None

    def play_ahead(self, hands: int | None = None) -> None:
        """Play `hands` more hands (None: all left) now, into `rows`."""
        for _ in range(self.hands_left if hands is None else min(hands, self.hands_left)):
            self.hands_left -= 1
            self.game.play_hand()

    def commit_until(self, now: float) -> float | None:
        """Commit the rows due by table time `now`, wake the uplink; the next row's time."""
        rows, woke = self.rows, False
        while rows and rows[0][0] + self.offset <= now:
            t, method, args, public = rows.popleft()
            self._commit(method, args)
            self.t, woke = t, woke or method != "checkpoint"
            self._learn(method, args)
            self.public = public or self.public
        if woke and self.uplink is not None:
            self.uplink.changed()
        return self.due()

    def _commit(self, method: str, args) -> None:
        """A row waiting in `rows` into the journal: `method` names the journal's."""
        getattr(self.journal, method)(*args)

    def _learn(self, method: str, args) -> None:
        """The truth of the rows just committed, and their commit time."""
        seq, stamp = self.journal.seq, time.monotonic()
        self.committed.extend([stamp] * (seq + 1 - len(self.committed)))
        if method == "hand":
            self.truth.hand(seq, args[2])
        elif method in ("input", "record"):
            self.truth.row(seq, args[0])
        elif method == "outputs":
            for back, event in enumerate(reversed(args[0])):
                self.truth.row(seq - back, event)
        elif method == "checkpoint":
            self.hands_done += 1

    def state(self) -> dict:
        """The public state for the uplink (firmware/uplink/messages.py), as of the latest
        row committed."""
        public = self.public
        return public_state(
            t=self.t + self.offset,
            phase=public["phase"],
            ruleset=self.game.ruleset.name,
            hand_number=public["hand_number"],
            round_wind=public["round_wind"],
            dealer=public["dealer"],
            scores=public["scores"],
            players=[{"seat": s, "name": None, "federation_id": None} for s in SEATS],
            session_seconds_left=None,
            alerts_waiting=0,
            referee_called=False,
            venue_message=None,
            referee_on_way=None,
            shuffler="idle",  # the fleet plays its walls with no shuffler
        )


def make_tables(n: int, hands: int, folder: Path, ruleset: str = "wsom2006") -> list[FleetTable]:
    """`n` tables t001..., each its own seed, their first hands spread over STAGGER s and
    played ahead already (so that their clocks start together)."""
    rules = load_ruleset(ruleset)
    tables = [
        FleetTable(f"t{i + 1:03d}", i + 1, rules, hands, folder, STAGGER * i / n) for i in range(n)
    ]
    for table in tables:
        table.due()
    return tables


async def play(tables: Sequence[FleetTable], speed: float) -> float:
    """Commit every table's rows on its clock, `speed` times real time; the most the
    scheduler fell behind a row's time (seconds of real time)."""
    heap = [(due, i) for i, table in enumerate(tables) if (due := table.due()) is not None]
    heapq.heapify(heap)
    loop = asyncio.get_running_loop()
    start, behind = loop.time(), 0.0
    while heap:
        wait = start + heap[0][0] / speed - loop.time()
        await asyncio.sleep(max(wait, 0.0))  # even when late: the uplinks get their turn
        behind = max(behind, -wait)
        now = (loop.time() - start) * speed
        while heap and heap[0][0] <= now:
            _, i = heapq.heappop(heap)
            due = tables[i].commit_until(now)
            if due is not None:
                heapq.heappush(heap, (due, i))
    return behind


async def run_fleet(
    broker: tuple[str, int],
    venue: str,
    tables: int,
    hands: int,
    speed: float,
    folder: Path,
    board: FleetBoard | None = None,
) -> dict:
    """Play `hands` hands on each of `tables` simulated tables, at `speed` times real time,
    reporting to the broker at (host, port) as venue `venue`, with their journals in
    `folder`, until the venue holds every row; the summary. The venue is `board`, fed by the
    caller (a dashboard's VenueBus), or else a FleetBoard and VenueBus of its own. The fleet
    and the venue in one process carry about 1000 rows a second (3.4 a table at speed 1);
    past that the venue falls behind, and a broker with Mosquitto's default queue (1000
    messages a subscriber, not the venue's deploy/mosquitto/) drops rows: gaps."""
    fleet = make_tables(tables, hands, folder)
    host, port = broker
    own = board is None
    if board is None:
        board = FleetBoard(venue)
    board.follow(fleet)
    bus = asyncio.create_task(VenueBus(board, host, port).run()) if own else None
    sheets = sheet_workers()
    tasks = connect(fleet, broker, venue, sheets)
    started = time.monotonic()
    try:
        await _until(lambda: all(_online(board, t.name) for t in fleet), DRAIN_SECONDS)
        behind = await play(fleet, speed)
        complete = await _until(board.holds_all, DRAIN_SECONDS)
    finally:
        await stop(fleet, tasks)
        sheets.shutdown(cancel_futures=True)
        if bus is not None:
            bus.cancel()
            await asyncio.wait([bus])
        for table in fleet:
            table.journal.close()
    counts = board.counts()
    latency = percentiles(board.latencies, 4) if board.latencies else (None, None, None)
    return {
        "tables": tables,
        "hands": sum(table.hands_done for table in fleet),
        "rows": sum(table.journal.seq for table in fleet),
        "messages": counts["messages"],
        "duplicates": counts["duplicates"],
        "gaps": counts["gaps"],
        "malformed": counts["malformed"],
        "concealed_leaks": board.leaks,
        "complete": complete,
        "latency_p50_ms": None if latency[0] is None else round(1000 * latency[0], 1),
        "latency_p99_ms": None if latency[1] is None else round(1000 * latency[1], 1),
        "behind_s": round(behind, 3),
        "seconds": round(time.monotonic() - started, 1),
    }


def sheet_workers() -> ProcessPoolExecutor:
    """A process of their own for the fleet's score sheets (firmware/uplink/sheet.py). Each
    build replays its table's journal, twice a hand: in threads of the fleet's one process,
    500 tables' builds held the GIL from the event loop that commits and publishes the rows
    (the bench's p99 from commit to venue went from 115 to 378 ms once the sheets went up
    the bus), where a real table builds on its own Pi. Spawned: the fleet runs threads. Deaf
    to Ctrl-C, which the fleet's process takes (it shuts them down) and they would only
    answer with a traceback."""
    return ProcessPoolExecutor(
        SHEET_WORKERS,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=signal.signal,
        initargs=(signal.SIGINT, signal.SIG_IGN),
    )


def connect(
    fleet: Sequence[FleetTable],
    broker: tuple[str, int],
    venue: str,
    sheets: Executor | None = None,
    commands: list | None = None,
    settings_of: Callable[[str], UplinkSettings] | None = None,
) -> list[asyncio.Task]:
    """Give each table its uplink to the broker at (host, port), anonymous and in plain MQTT
    (a test's or a bench's broker) unless `settings_of(table's name)` gives its own (a
    table's user, TLS: deploy/mosquitto's broker), running, its score sheets built by
    `sheets` (None: in threads), the venue's commands to it handed to `commands[i]` (None:
    it takes none); their tasks."""
    anonymous = UplinkSettings(*broker, venue, False, None, None, None, None, keepalive=30)
    tasks = []
    for i, table in enumerate(fleet):
        settings = settings_of(table.name) if settings_of else anonymous
        identity = Identity(
            profile=None,  # a fleet's table has none, and no device key
            rules=ruleset_path(table.game.ruleset.name),
            key_fingerprint=None,
            journal=table.journal.path,
            births=Path(table.journal.path).with_suffix(".birth"),
        )
        uplink = Uplink(
            settings,
            table.journal,
            table.name,
            table.state,
            identity,
            on_command=commands[i] if commands else None,
            sheet_executor=sheets,
        )
        table.uplink = uplink
        tasks.append(asyncio.create_task(uplink.run()))
    return tasks


async def stop(fleet: Sequence[FleetTable], tasks: list[asyncio.Task]) -> None:
    """Close the tables' uplinks (each says offline, and its run() returns), then cancel
    what still runs. Not a cancel first: under Python 3.11 a cancel that meets an uplink's
    wake-up is lost in asyncio.wait_for, and its task runs on."""
    for table in fleet:
        if table.uplink is not None:
            table.uplink.close()
    if not tasks:
        return
    _, running = await asyncio.wait(tasks, timeout=STOP_SECONDS)
    for task in running:
        task.cancel()
    if running:
        await asyncio.wait(running, timeout=STOP_SECONDS)


def _online(board: VenueBoard, name: str) -> bool:
    table = board.tables.get(name)
    return table is not None and table.status == "online"


async def _until(done, seconds: float) -> bool:
    """Wait, looking every 20 ms, until `done()` or `seconds` passed; whether it is done."""
    deadline = time.monotonic() + seconds
    while not done():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.02)
    return True
