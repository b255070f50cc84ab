"""`mjtable run`: the table's main job. It builds the table its profile names (firmware/run/
table.py, one composition for real and simulated devices): with the simulated profile (the
default) the simulated players play hands until stopped or `--hands N` are done; with a
table's own profile it runs the table's devices. Either way the journal's session goes on
where it stopped.

Time runs `--speed` times faster than real time (a maximum: the simulation waits for the
service rather than outrun it). `--json-summary` ends with one JSON line comparing what the
tracking inferred with what the simulated players truly did.
"""

import argparse
import asyncio
import json
import sys
import tempfile
from pathlib import Path

from drivers.gpio import GPIOUnavailable
from drivers.sim.mechanism import LEVELS, Rigging
from engine.schema import ConfigError
from engine.seats import LETTERS
from firmware import cli_args
from firmware.bus.settings import with_venue
from firmware.desk.referees import RefereeError, Referees, referees_file
from firmware.journal.failures import JournalError, StorageFailure
from firmware.journal.replay import ReplayError, replay
from firmware.journal.store import Journal, last_written
from firmware.resources import load_ruleset
from firmware.run.table import run_table
from firmware.sim.world import Faults
from firmware.table import not_running
from firmware.table.profile import ProfileError, check_listener, load_profile
from firmware.table.sessions import NEXT_SESSION, current_journal
from firmware.table.storage import EXIT_STATUS
from firmware.web.server import port_problem

MAX_FAULTS = 100  # of each mechanical fault in one run: more is a typing mistake


def add_parser(commands) -> None:
    p = commands.add_parser("run")
    cli_args.profile_option(p)
    p.add_argument("--ruleset", type=cli_args.path, help="rule book (default: the profile's)")
    p.add_argument(
        "--hands", type=cli_args.hands, help="stop after N hands (default: until Ctrl-C)"
    )
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
        help="inject faults, e.g. drop=0.05,ghost=0.01,jam=1,lost=1,foreign=1,unplug=1,slow=S,"
        "wrong_break=1,rigged=S:medium",
    )
    p.add_argument(
        "--seed", type=cli_args.seed, default=1, help="seed of the simulated table (default 1)"
    )
    p.add_argument(
        "--journal",
        type=cli_args.path,
        metavar="PATH",
        help="the journal file (default: the current session, firmware/table/sessions.py)",
    )
    p.add_argument(
        "--port",
        type=int,
        help="serve the referee display on this port (default: the profile's; 0 for none)",
    )
    p.add_argument(
        "--venue", help="the venue's id on its bus (default: the profile's [uplink] venue)"
    )
    p.add_argument(
        "--no-uplink",
        action="store_true",
        help="report to no venue, whatever the profile's [uplink] (mjtable update's trial)",
    )
    p.add_argument(
        "--json-summary", action="store_true", help="print one JSON summary line at the end"
    )
    p.set_defaults(run=run)


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
        elif name in ("jam", "lost", "foreign", "unplug", "moved", "wrong_break"):
            if not value:
                count = 1
            elif value.isascii() and value.isdigit() and len(value) <= 4:
                count = int(value)
            else:
                count = -1
            if not 0 <= count <= MAX_FAULTS:
                raise ValueError(
                    f"{name} is a whole number of times from 0 to {MAX_FAULTS}, not {value}"
                )
            setattr(faults, name, count)
        elif name == "slow" and value in ("E", "S", "W", "N"):
            faults.slow = value
        elif name == "rigged":
            faults.rigged = _rigging(value)
        else:
            raise ValueError(
                f"unknown fault {item!r} (drop=RATE, ghost=RATE, jam=N, lost=N, "
                "foreign=N, unplug=N, slow=E|S|W|N, moved=N, wrong_break=N, "
                "rigged=E|S|W|N:STRENGTH)"
            )
    return faults


def _rigging(value: str) -> Rigging:
    """`S:medium` or `S:0.3`: the side the machine favours and how often (issue 17)."""
    side, _, strength = value.partition(":")
    if side not in ("E", "S", "W", "N"):
        raise ValueError(f"rigged favours a side E, S, W or N, not {side!r}")
    share = LEVELS.get(strength)
    if share is None:
        try:
            share = float(strength)
        except ValueError:
            share = 0.0
        if not 0 < share <= 1:  # nan too
            raise ValueError(
                f"rigged's strength is {', '.join(LEVELS)} or a share of hands above 0 and "
                f"at most 1, not {strength!r}"
            )
    return Rigging(LETTERS.index(side), share)


def run(args) -> int:
    """The table, started as its profile says; a start it cannot make as configured (status 2)
    or a stop of refereeing (status 3) is said on the table's screen too (not_running.py)."""
    not_running.clear()
    try:
        return _run(args)
    except ConfigError as err:  # the rule book, the device key
        return not_running.refuse(f"mjtable run: config: {err}")


def _run(args) -> int:
    try:
        profile = load_profile(args.profile)
    except ProfileError as err:
        return not_running.refuse(f"mjtable run: --profile: {err}")
    ruleset = load_ruleset(args.ruleset or profile.ruleset)
    port = profile.port if args.port is None else args.port
    if port:
        problem = port_problem(profile.host, port)
        try:
            # the shipped PIN (unless referees have their own) or plain HTTP beyond this machine
            check_listener(profile, bool(Referees(referees_file(profile)).load()))
        except (ProfileError, RefereeError) as err:
            problem = str(err)
        if problem:
            return not_running.refuse(f"mjtable run: {problem}")
    args.port = port
    try:
        args.uplink = None if args.no_uplink else with_venue(profile.uplink, args.venue)
    except ValueError as err:
        return not_running.refuse(f"mjtable run: --venue: {profile.path}: {err}")
    path = (
        Path(args.journal)
        if args.journal
        else current_journal(profile)  # the current session on disk (firmware/table/sessions.py)
    )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError) as err:
        return not_running.refuse(
            f"mjtable run: --journal {path}: {err.filename} is a file, not a folder",
        )
    except OSError as err:  # no permission, a read-only medium
        return not_running.refuse(
            f"mjtable run: --journal {path}: cannot make the folder {path.parent}: {err.strerror}",
        )
    args.cut = last_written(path)  # before opening it, which writes to it
    try:
        journal = Journal(path)
    except JournalError as err:
        return not_running.refuse(f"mjtable run: --journal: {err}")
    try:
        args.history = _history(journal)
    except ReplayError as err:
        journal.close()
        return not_running.refuse(f"mjtable run: --journal: {err}")
    played = args.history.played if args.history else []
    books = {hand.table.ruleset.name for hand in played}
    if books - {ruleset.name}:
        journal.close()
        return not_running.refuse(
            f"mjtable run: {path} holds a session under {', '.join(sorted(books))}: go on "
            f"with --ruleset {sorted(books)[0]}, or begin a new session (mjtable session new, "
            "or --journal)"
        )
    try:
        with journal, tempfile.TemporaryDirectory(prefix="mjtable-sim-") as folder:
            summary = asyncio.run(run_table(args, profile, ruleset, journal, Path(folder)))
    except GPIOUnavailable as err:
        return not_running.refuse(f"mjtable run: {err}")
    except StorageFailure as err:  # before the service took its first turn: resuming
        return _not_refereeing(str(err), path)
    summary["journal"] = str(path)
    if args.json_summary:
        print(json.dumps(summary))
    if summary["not_refereeing"]:
        return _not_refereeing(summary["not_refereeing"], path)
    if summary["next_session"]:  # begun at the desk: systemd starts the table again on it
        print(f"mjtable run: the next session is {summary['next_session']}", file=sys.stderr)
        return NEXT_SESSION
    return 0


def _not_refereeing(why: str, path: Path) -> int:
    """The journal's disk is full or failing (firmware/table/storage.py): said, and a status of
    its own, which systemd does not restart (deploy/pi/mjtable.service)."""
    message = (
        f"mjtable run: NOT REFEREEING: {why}; call the technician (the journal {path} "
        "holds the session up to the failure)"
    )
    print(message, file=sys.stderr)
    not_running.say(message)
    return EXIT_STATUS


def _history(journal):
    """An existing journal replayed (firmware/journal/replay.py's result), for the session to go on
    from; None for a new one."""
    if not journal.seq:
        return None
    result = replay(journal)
    if result.mismatches:
        print(
            f"mjtable run: {journal.path}: {result.mismatches} outputs differ on replay "
            "(another engine version?); the session goes on from the replayed hands",
            file=sys.stderr,
        )
    return result
