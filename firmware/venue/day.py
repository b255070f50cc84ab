"""A demo day (issue 36 item 4): `mjtable venue --simulate N --rounds R` seats a hall of N
simulated tables from the seating plan (`--seating FILE`, else a draw with no two players
meeting twice where it can be made), plays R rounds, and ranks the event.

Each round the venue sends its signed start_session to every table of the plan, as the
organiser's "Seat round N" does (firmware/venue/organiser.py); each simulated table (a
firmware/venue/demo.py FleetTable with its own journal for the round, as a table's referee
starts a session for it) takes it only when the venue key signed it, journals it, shows the
names in its state, plays its hands (its players sometimes break a rule: the engine's alerts
and the referee's rulings go up the bus; now and then the floor referee, called, rules after
the hand, at his first call undoing a waive first: firmware/venue/day_referee.py), seals its
walls and signs its journal's head with its device key (kept in the day's folder, the same
every round) as a real table does, so the venue anchors them, and its referee signs the
sheet after the last hand. Once the venue holds every row and every table has finished, the
round's standings are kept; after the last round the event's results file is written.
"""

import asyncio
import json
import logging
import random
import signal
import sys
import tempfile
import time
from pathlib import Path

from firmware import cli_args
from firmware.journal import device_key
from firmware.resources import load_ruleset
from firmware.venue.day_table import REFEREE, DayTable
from firmware.venue.demo import MAX_TABLES, connect, play, sheet_workers, stop
from firmware.venue.demo_truth import FleetBoard
from firmware.venue.event import Event
from firmware.venue.organiser import seat_round
from firmware.venue.seating import Plan, SeatingError, draw, player

log = logging.getLogger("mjtable.venue")

SEATED_SECONDS = 60.0  # for every table to take its start_session
ROUND_SECONDS = 600.0  # after the last commit, for the venue to hold the round whole
MISTAKES = 0.01  # the simulated players' rate of mistakes: a ruling now and then


def day_plan(tables: int, rounds: int, rng: random.Random) -> Plan:
    """Without a plan: 4 x `tables` players drawn for `rounds` rounds, no two meeting twice
    where such a draw is found, else at random."""
    players = [player(f"Player {n:03d}", f"SIM-{n:04d}", "") for n in range(1, 4 * tables + 1)]
    names = [f"t{n:03d}" for n in range(1, tables + 1)]
    try:
        return draw(players, names, rounds, meet_once=True, rng=rng)
    except SeatingError:
        return draw(players, names, rounds, rng=rng)


async def play_day(
    args, board: FleetBoard, event: Event, bus, folder: Path, settings_of=None
) -> dict:
    """Play the day of `args` (--simulate, --rounds, --hands, --speed, --ruleset) through
    `bus` (the dashboard's, with the venue key `bus.key`); the summary. `settings_of(table)`
    gives a table its broker user and TLS (None: anonymous, to --broker)."""
    if event.plan is None:
        event.seat(day_plan(args.simulate, args.rounds, random.Random(1)))
    plan = event.plan
    assert plan is not None
    missing = [n for n in range(1, args.rounds + 1) if len(plan.rounds.get(n, {})) != args.simulate]
    if missing:
        raise ValueError(
            f"the seating plan seats {args.simulate} tables in rounds 1 to {args.rounds}? "
            f"not round {missing[0]} ({len(plan.rounds.get(missing[0], {}))} tables)"
        )
    await _until(lambda: board.connected, SEATED_SECONDS)
    sheets = sheet_workers()
    summary = {"hands": 0, "sheets": 0, "late": 0, "undone": 0, "behind_s": 0.0}
    try:
        for number in range(1, args.rounds + 1):
            await _round(args, board, event, bus, folder, number, sheets, summary, settings_of)
    finally:
        sheets.shutdown(cancel_futures=True)
    counts = board.counts()
    results = event.write(Path(args.results_dir))
    return {
        "tables": args.simulate,
        "rounds": args.rounds,
        "hands": summary["hands"],
        "sheets": summary["sheets"],
        "unnamed": unnamed(board, event),
        "late_rulings": summary["late"],
        "waives_undone": summary["undone"],
        "gaps": counts["gaps"],
        "duplicates": counts["duplicates"],
        "malformed": counts["malformed"],
        "concealed_leaks": board.leaks,
        "complete": len(event.closed) == args.rounds,
        "results": str(results),
        "behind_s": summary["behind_s"],
    }


async def _round(args, board, event, bus, folder, number, sheets, summary, settings_of) -> None:
    """One round: its tables made and connected, seated, played, signed, held whole."""
    names = sorted(event.plan.rounds[number])
    (folder / f"round{number}").mkdir()
    rules = load_ruleset(args.ruleset)
    fleet = [
        DayTable(
            name,
            1000 * number + i,
            rules,
            args.hands,
            folder / f"round{number}",
            5.0 * i / len(names),
            bus.key.public_key(),  # the tables hold the venue's public key only
            MISTAKES,
            device_key.load(folder / f"{name}.key"),  # a table's own, the same every round
        )
        for i, name in enumerate(names, 1)
    ]
    board.follow(fleet)
    tasks = connect(fleet, args.broker, board.venue, sheets, [t.take for t in fleet], settings_of)
    try:
        online = all_online(board, fleet)
        if not await _until(online, SEATED_SECONDS):
            raise RuntimeError(f"round {number}: not every table came online")
        _, not_sent = await seat_round(event, bus, number)
        if not_sent:
            raise RuntimeError(f"round {number}: start_session not sent: {not_sent}")
        if not await _until(lambda: all(t.players for t in fleet), SEATED_SECONDS):
            raise RuntimeError(f"round {number}: a table did not take its start_session")
        for table in fleet:
            table.due()
        summary["behind_s"] = max(summary["behind_s"], round(await play(fleet, args.speed), 3))
        if not await _until(lambda: board.holds_all() and event.close(), ROUND_SECONDS):
            raise RuntimeError(f"round {number}: the venue did not hold every row and sheet")
    finally:
        await stop(fleet, tasks)
        for table in fleet:
            table.journal.close()
    summary["hands"] += sum(t.hands_done for t in fleet)
    summary["sheets"] += sum(_signed(board, t) for t in fleet)
    summary["late"] += sum(t.late_rulings for t in fleet)
    summary["undone"] += sum(t.waives_undone for t in fleet)
    ranked = event.closed[number]
    print(
        f"round {number}: {len(fleet)} tables, standings: "
        + ", ".join(f"{p['rank']}. {p['name']} {p['score']:g}" for p in ranked[:4])
        + (" ..." if len(ranked) > 4 else ""),
        flush=True,
    )


def _signed(board: FleetBoard, table: DayTable) -> bool:
    """Whether the venue received the table's signed sheet of the round."""
    known = board.tables.get(table.name)
    log_ = known.sessions.get(table.journal.session_id or "") if known else None
    return bool(log_ and log_.sheet and log_.sheet["referee"] == REFEREE)


def all_online(board: FleetBoard, fleet: list[DayTable]):
    def online() -> bool:
        return all(
            (t := board.tables.get(table.name)) is not None
            and t.status == "online"
            and t.session == table.journal.session_id
            for table in fleet
        )

    return online


def unnamed(board: FleetBoard, event: Event) -> int:
    """Seats shown without a player's name: on the grid and the board (each table's state)
    and in the round files (each round's standings)."""
    seats = [p for t in board.tables.values() if t.state for p in t.state["players"]]
    seats += [p for ranked in event.closed.values() for p in ranked]
    return sum(not p.get("name") for p in seats)


async def _until(done, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not done():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True


def printed(summary: dict, as_json: bool) -> str:
    if as_json:
        return json.dumps(summary, ensure_ascii=False)
    return ", ".join(f"{key} {value}" for key, value in summary.items())


def add_arguments(parser) -> None:
    """`mjtable venue --simulate N --rounds R [--ruleset NAME] --hands H --speed X
    --json-summary` (firmware/venue/cli.py)."""
    day = parser.add_argument_group("a simulated day in this process (firmware/venue/day.py)")
    day.add_argument(
        "--simulate",
        type=lambda text: cli_args.whole(text, 1, MAX_TABLES, "a number of tables"),
        metavar="N",
        help="N simulated tables report to --broker, which must take anonymous clients (a "
        "test's), seated by --seating or a draw; the dashboard shows them",
    )
    day.add_argument(
        "--rounds",
        type=lambda text: cli_args.whole(text, 1, 8, "a number of rounds"),
        default=1,
        help="rounds of the simulated day (default 1)",
    )
    day.add_argument(
        "--ruleset",
        default="wsom2006",
        help="the simulated tables' rule book (default wsom2006; ccm2012 for CCM's)",
    )
    day.add_argument(
        "--hands", type=cli_args.hands, default=4, help="hands per table a round (default 4)"
    )
    day.add_argument(
        "--speed",
        type=lambda text: cli_args.number(text, 0, 10_000, "a speed", low_open=True),
        default=1.0,
        help="the simulated tables' time per real second (default 1)",
    )
    day.add_argument(
        "--results-dir",
        type=cli_args.path,
        default=".",
        metavar="DIR",
        help="where the event's results go (<venue>-results.csv and .json; default here)",
    )
    day.add_argument(
        "--json-summary",
        action="store_true",
        help="with --simulate: the day's counts as one JSON line, then exit (without: the "
        "dashboard stays up once the day is over, until Ctrl-C)",
    )


def simulate(args, board: FleetBoard, event: Event, bus, dashboard) -> int:
    """`mjtable venue --simulate`: the day plays while `dashboard` (the coroutine of the
    venue's dashboard, `bus` feeding `board`) serves; 0 if every round was held whole and no
    message showed a concealed tile. Ctrl-C stops it, cleanly, at any moment."""

    async def playing(folder: Path) -> dict | None:
        """The day's summary; None when Ctrl-C stopped it (uvicorn takes the signal while
        it serves, stops, and raises it again: here it ends the day and the dashboard)."""
        stopping = asyncio.Event()
        asyncio.get_running_loop().add_signal_handler(signal.SIGINT, stopping.set)
        serving = asyncio.create_task(dashboard)
        stopped = asyncio.create_task(stopping.wait())
        playing = asyncio.create_task(play_day(args, board, event, bus, folder))
        try:
            await asyncio.wait((playing, serving, stopped), return_when=asyncio.FIRST_COMPLETED)
            if not playing.done():
                return None
            summary = playing.result()
            print(printed(summary, args.json_summary), flush=True)
            if not args.json_summary:
                print("the day is over; the dashboard stays up: Ctrl-C stops it", flush=True)
                await asyncio.wait((serving, stopped), return_when=asyncio.FIRST_COMPLETED)
            return summary
        finally:
            for task in (playing, serving, stopped):
                task.cancel()
            await asyncio.gather(playing, serving, stopped, return_exceptions=True)

    try:
        load_ruleset(args.ruleset)
    except Exception as err:  # ConfigError, or no such rule book
        print(f"mjtable venue: --ruleset {args.ruleset}: {err}", file=sys.stderr)
        return 2
    try:
        with tempfile.TemporaryDirectory(prefix="mjtable-day-") as folder:
            summary = asyncio.run(playing(Path(folder)))
    except (RuntimeError, ValueError, OSError) as err:
        print(f"mjtable venue: the simulated day stopped: {err}", file=sys.stderr)
        return 1
    if summary is None:
        print("mjtable venue: stopped", file=sys.stderr)
        return 0
    return 0 if summary["complete"] and not summary["concealed_leaks"] else 1
