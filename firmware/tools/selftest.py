"""`mjtable selftest`: every device of the table in turn, a PASS or FAIL line each with what
to do on a fail (issue 19; HARDWARE.md for the devices, SOFTWARE.md §8 for the serial links,
the pins and SQLite).

The devices are the service's, built from the profile as `mjtable run` builds them
(firmware/tools/selftest_rig.py), then checked one by one (firmware/tools/selftest_checks.py): the
GPIO lines, the zone reader and the stacker reader, the shuffler through one cycle, the
tiles the stacker read, the dice, the seat buttons (each pressed when told; on the simulated
table the simulation presses them); then the display's port and the journal's disk (free
space against [journal] min_free_mb, the time of an fsync). Every check has a time limit.
Stop the service first on a real table (systemctl stop mjtable): it holds the readers, the
pins and the port, and a check of a busy device fails saying so.

`--fault` injects one of the simulated table's faults, so a technician (and a test) can see
what a failing line looks like; a real table's profile refuses it. Exit status: 0 every check
passed, 1 one failed or more, 2 a bad argument or profile. `--json` prints one JSON list of
the checks (name, ok, detail, advice); `run_checks` gives them to a program (`mjtable
update`'s check after an update).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict
from pathlib import Path

from drivers.gpio import GPIOUnavailable
from firmware import cli_args
from firmware.journal.failures import StorageFailure
from firmware.resources import load_ruleset
from firmware.table.profile import Profile, ProfileError, check_listener, load_profile
from firmware.table.sessions import add_table_options, data_dir
from firmware.table.storage import DiskWatch
from firmware.tools.key import selftest_line
from firmware.tools.selftest_checks import NAMES, SUPPORT, Check, device_checks
from firmware.tools.selftest_rig import Bench, parse_fault
from firmware.web.server import port_problem

FSYNC_LIMIT = 0.5  # seconds: a journal commit slower than this holds up every input
FSYNC_TIMEOUT = 10.0  # seconds: a disk that has not answered by then is failing
__all__ = ["Check", "checks", "run_checks"]


def add_parser(commands) -> None:
    p = commands.add_parser("selftest")
    add_table_options(p)
    p.add_argument("--json", action="store_true", help="print the checks as one JSON list")
    p.add_argument(
        "--no-buttons", action="store_true", help="leave the seat buttons untried (no one there)"
    )
    p.add_argument(
        "--button-seconds",
        type=lambda text: cli_args.number(text, 1, 600, "--button-seconds"),
        default=15.0,
        metavar="S",
        help="wait this long for each button when told to press it (default 15)",
    )
    p.add_argument(
        "--fault",
        type=_fault,
        action="append",
        default=[],
        metavar="NAME[=WHERE]",
        help="simulated table only: inject jam[=SIDE] (a dead lane), lost[=SIDE] (a tile "
        "lost), unplug[=zones|stacker] (a reader unplugged)",
    )
    p.add_argument(
        "--port",
        type=lambda text: cli_args.whole(text, 1, 65535, "a port"),
        help="the display's port to try, as mjtable run --port (default: the profile's)",
    )
    p.set_defaults(run=run)


def _fault(text: str) -> tuple[str, str]:
    try:
        return parse_fault(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def run(args) -> int:
    profile = load_profile(args.profile)  # refused by firmware/cli.py, exit 2
    if args.fault and not profile.simulated:
        print(
            f"mjtable selftest: --fault: {profile.path} is a real table's profile; faults are "
            "injected only on the simulated table ([table] simulated = true)",
            file=sys.stderr,
        )
        return 2
    out = sys.stderr if args.json else sys.stdout
    if not args.json:
        kind = "simulated table" if profile.simulated else "table"
        print(f"mjtable selftest: {profile.name} ({kind}, {profile.path})", flush=True)
        print(selftest_line(profile, args.data_dir), flush=True)  # issue 35: the key published
    verdicts = []
    for check in checks(
        profile,
        data_dir(profile, args.data_dir),
        faults=args.fault,
        button_seconds=None if args.no_buttons else args.button_seconds,
        port=args.port,
        told=lambda line: print(f"  ... {line}", file=out, flush=True),
    ):
        verdicts.append(check)
        if not args.json:
            print(check.line(), flush=True)
    failed = [check.name for check in verdicts if not check.ok]
    if args.json:
        print(json.dumps([asdict(check) for check in verdicts], indent=1))
    else:
        print(f"{len(failed)} failed: {', '.join(failed)}" if failed else "every check passed")
    return 1 if failed else 0


def run_checks(profile: Profile, journal_dir: str | Path | None = None, **options) -> list[Check]:
    """Every check of `profile`'s table (as `checks`), for a program: the table passes when
    every one is `ok`. `mjtable update` calls `run_checks(profile)`: no buttons are tried
    unless `button_seconds` is given; the journals' folder is the sessions' (data_dir)."""
    return list(checks(profile, journal_dir, **options))


def checks(
    profile: Profile,
    journal_dir: str | Path | None = None,
    faults=(),
    button_seconds: float | None = None,
    port: int | None = None,
    told: Callable[[str], object] = print,
) -> Iterator[Check]:
    """Each check as it ends: the devices in turn (their names: `NAMES`), then the display's
    port and the journal's disk. `faults` are (name, where) pairs of the simulated table's
    (`parse_fault`); `told(line)` asks for a button."""
    try:
        bench = Bench(profile, load_ruleset(profile.ruleset), faults)
    except Exception as err:  # a pin library's or a driver's: each check then says so
        advice = (
            "install rpi-lgpio (deploy/pi/install.sh)"
            if isinstance(err, GPIOUnavailable)
            else "stop the service first (systemctl stop mjtable: it holds the pins and the "
            f"readers), and check the pins and readers of {profile.path}"
        )
        yield Check(NAMES[0], False, f"the devices cannot be built: {err}", advice)
        for name in NAMES[1:]:
            yield Check(name, False, "not tried: the devices could not be built", advice)
    else:
        try:
            yield from device_checks(bench, told, button_seconds)
        finally:
            bench.close()
    yield display_port(profile, profile.port if port is None else port)
    folder = data_dir(profile, None) if journal_dir is None else Path(journal_dir)
    yield journal_disk(folder, profile.journal_min_free_mb)


def display_port(profile: Profile, port: int) -> Check:
    """The display can be served as `mjtable run` would serve it: its port free, and not
    beyond this machine with the shipped PIN or plain HTTP."""
    problem = port_problem(profile.host, port)
    if problem:
        advice = "stop what holds the port (is mjtable running? systemctl stop mjtable)"
        return Check("display port", False, problem, f"{advice}, or choose another with --port")
    try:
        check_listener(profile)
    except ProfileError as err:
        return Check(
            "display port",
            False,
            str(err),
            "`mjtable run` refuses to serve it so: set [display] as the message says",
        )
    return Check("display port", True, f"{profile.host}:{port} free to serve the display")


class _Warnings:
    """The fault board's `report` and `clear`, for DiskWatch: its low-space warning kept."""

    def __init__(self) -> None:
        self.told: list[str] = []

    def report(self, t, device, kind, message, advice, **more) -> None:
        self.told.append(message)

    def clear(self, t, device, kind, key=None) -> None:
        """Room enough: nothing to keep."""


def journal_disk(
    folder: Path, min_free_mb: float, clock=time.perf_counter, statvfs=os.statvfs
) -> Check:
    """Free space as the service watches it (firmware/table/storage.py), and a file written and
    fsynced in the folder (or the folder that will hold it) within FSYNC_LIMIT."""
    where = folder
    while not where.is_dir() and where != where.parent:
        where = where.parent  # not made yet: `mjtable run` makes it on the same disk
    warnings = _Warnings()
    advice = f"free space on the journal's disk ({where}) or give the table a bigger card"
    try:
        watch = DiskWatch(where / "journal.sqlite", min_free_mb, warnings, statvfs)
        watch.check(0.0)
    except StorageFailure as err:
        return Check("journal disk", False, str(err), advice)
    seconds = _fsync_seconds(where, clock)
    if isinstance(seconds, str):
        return Check("journal disk", False, seconds, f"check the journal's disk: {SUPPORT}")
    if seconds > FSYNC_LIMIT:
        return Check(
            "journal disk",
            False,
            f"an fsync in {where} took {seconds:.2f} s (at most {FSYNC_LIMIT:g} s)",
            "the card is slow or failing: replace it with an endurance-rated one",
        )
    low = f"; {warnings.told[0]}" if warnings.told else ""
    return Check(
        "journal disk",
        True,
        f"{where}: {watch.free_mb:.0f} MB free (the table stops under {min_free_mb:g} MB), "
        f"an fsync in {seconds * 1000:.0f} ms{low}",
    )


def _fsync_seconds(folder: Path, clock) -> float | str:
    """The seconds to write and fsync a small file in `folder`, or why it could not be done
    within FSYNC_TIMEOUT (a thread: a dying disk may never answer)."""
    result: list[float | str] = []

    def probe() -> None:
        try:
            fd, name = tempfile.mkstemp(prefix=".mjtable-selftest-", dir=folder)
        except OSError as err:
            result.append(f"cannot write in {folder}: {err.strerror}")
            return
        try:
            os.write(fd, os.urandom(4096))
            began = clock()
            os.fsync(fd)
            result.append(clock() - began)
        except OSError as err:
            result.append(f"cannot fsync in {folder}: {err.strerror}")
        finally:
            os.close(fd)
            os.unlink(name)

    worker = threading.Thread(target=probe, daemon=True, name="selftest fsync")
    worker.start()
    worker.join(FSYNC_TIMEOUT)
    return result[0] if result else f"no fsync in {folder} within {FSYNC_TIMEOUT:g} s"
