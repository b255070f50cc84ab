"""Sessions on disk (issue 19): one journal file per session under the table's data directory,
`<table>-<date>-<n>.sqlite` (the profile's table name, the local date, n counting up that day),
and a `current` symlink beside them naming the session `mjtable run` goes on with.

`mjtable session new` begins the next session (an empty journal, made current; the old ones
are kept), and so does the desk's `new_session` between hands (firmware/desk/sessions.py):
the service then stops with NEXT_SESSION, which systemd restarts (deploy/pi/mjtable.service)
onto the new session.
`mjtable session list` lists them, each opened read-only (firmware/journal/store.py), so listing
never writes to a journal, not even the one the service is writing. `mjtable run` without
`--journal` opens the current session, and begins one if there is none yet.

The data directory is the profile's `[journal] data_dir`, or `--data-dir`; by default
/var/lib/mjtable/journal on a table's own profile (deploy/pi: the service's state directory)
and ./journal for the simulated table.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

from firmware import cli_args
from firmware.journal.failures import JournalError
from firmware.journal.schema import left_open
from firmware.journal.store import Journal, last_written
from firmware.table import maintenance
from firmware.table.profile import Profile, ProfileError, load_profile

PI_DATA_DIR = Path("/var/lib/mjtable/journal")
SIM_DATA_DIR = Path("journal")
CURRENT = "current"  # the symlink naming the current session's file
NEXT_SESSION = 75  # `mjtable run`'s exit status once the desk began the next session


def data_dir(profile: Profile, override: str | None = None) -> Path:
    """The folder of the table's sessions: `--data-dir`, the profile's, or the default."""
    if override:
        return Path(override)
    if profile.data_dir is not None:
        return profile.data_dir
    return SIM_DATA_DIR if profile.simulated else PI_DATA_DIR


def session_name(table: str, day: date, n: int) -> str:
    return f"{table}-{day:%Y-%m-%d}-{n}.sqlite"


def _number(table: str, day: date, name: str) -> int | None:
    """n of a session file of this table and day, None for any other file."""
    match = re.fullmatch(re.escape(session_name(table, day, 0)[:-8]) + r"(\d+)\.sqlite", name)
    return int(match[1]) if match else None


def new_session(folder: Path, table: str, day: date) -> Path:
    """Begin the next session of the day: its empty journal, made current."""
    folder.mkdir(parents=True, exist_ok=True)
    taken = [_number(table, day, p.name) for p in folder.iterdir()]
    n = max((k for k in taken if k is not None), default=0) + 1
    path = folder / session_name(table, day, n)
    Journal(path).close()
    link = folder / f".{CURRENT}.new"
    link.unlink(missing_ok=True)
    link.symlink_to(path.name)
    os.replace(link, folder / CURRENT)  # atomic: the service never sees no current session
    return path


def current_session(folder: Path) -> Path | None:
    """The current session's journal, None if no session was begun in `folder`."""
    link = folder / CURRENT
    return folder / os.readlink(link) if link.is_symlink() else None


def current_journal(profile: Profile) -> Path:
    """The journal `mjtable run` opens without `--journal`: the current session's, or a new
    session's if there is none yet (its first run at this table)."""
    folder = data_dir(profile)
    try:
        return current_session(folder) or new_session(folder, profile.name, date.today())
    except (OSError, JournalError) as err:  # no permission, a read-only medium, a file
        raise ProfileError(
            f"cannot begin a session in {folder}: {getattr(err, 'strerror', None) or err} "
            "(the data directory: [journal] data_dir in the profile, or give --journal)"
        ) from None


@dataclass(frozen=True)
class SessionSummary:
    """One session as `session list` shows it; `problem` for a file it could not read."""

    name: str
    hands: int = 0
    first: float | None = None  # table time (seconds) of the session's first and last rows
    last: float | None = None
    written: float | None = None  # when the file was last written (wall clock)
    rule_books: tuple[str, ...] = ()
    open: bool = False  # a table is writing it (or was, until a crash)
    current: bool = False
    problem: str = ""


def summary(path: Path, current: bool) -> SessionSummary:
    """A session's journal read without writing to it."""
    written, still_open = last_written(path), left_open(str(path))
    try:
        journal = Journal(path, readonly=True)
    except JournalError as err:
        return SessionSummary(path.name, current=current, problem=str(err))
    hands, times, books = 0, [], set()
    with journal:
        try:
            for row in journal.rows():
                data = row.data()
                if row.kind == "hand":
                    hands += 1
                    books.add(data["ruleset"])
                if isinstance(data, dict) and isinstance(data.get("t"), int | float):
                    times.append(data["t"])
        except JournalError as err:
            return SessionSummary(path.name, current=current, problem=str(err))
    return SessionSummary(
        path.name,
        hands,
        min(times, default=None),
        max(times, default=None),
        written,
        tuple(sorted(books)),
        still_open,
        current,
    )


def sessions(folder: Path) -> list[SessionSummary]:
    """Every session journal in `folder`, oldest name first (n in number order)."""
    current = current_session(folder)
    paths = [p for p in folder.glob("*.sqlite") if p.is_file()] if folder.is_dir() else []

    def order(p: Path):
        stem, _, n = p.stem.rpartition("-")
        return (stem, int(n) if n.isdigit() else 0, p.name)

    return [
        summary(p, current is not None and p.name == current.name) for p in sorted(paths, key=order)
    ]


def _clock(seconds: float) -> str:
    whole = int(seconds)
    return f"{whole // 3600}:{whole // 60 % 60:02}:{whole % 60:02}"


def line(s: SessionSummary) -> str:
    mark = "*" if s.current else " "
    if s.problem:
        return f"{mark} {s.name}  unreadable: {s.problem}"
    written = f"{datetime.fromtimestamp(s.written):%Y-%m-%d %H:%M}" if s.written else "-"
    played = (
        "no rows yet"
        if s.first is None or s.last is None
        else f"table time {_clock(s.first)}-{_clock(s.last)}"
    )
    return (
        f"{mark} {s.name}  {s.hands} hand{'' if s.hands == 1 else 's'}  {played}  "
        f"written {written}  {','.join(s.rule_books) or '-'}  "
        f"{'open' if s.open else 'closed'}{'  current' if s.current else ''}"
    )


def add_parser(commands) -> None:
    p = commands.add_parser("session")
    verbs = p.add_subparsers(dest="verb", required=True, metavar="VERB")
    for verb, text in (
        ("new", "begin the next session (mjtable run goes on with it); old ones are kept"),
        ("list", "list the sessions: hands, table time, rule book, open or closed, current"),
    ):
        v = verbs.add_parser(verb, help=text)
        add_table_options(v)
        v.set_defaults(run=run)


def add_table_options(parser) -> None:
    """`--profile` and `--data-dir`, for the commands that work on a table's data directory
    (sessions, referees, selftest, logs, update); `--journal-dir` is its older name."""
    cli_args.profile_option(parser)
    parser.add_argument(
        "--data-dir",
        "--journal-dir",
        dest="data_dir",
        type=cli_args.path,
        metavar="DIR",
        help="the table's data directory (default: the profile's [journal] data_dir, else "
        f"{PI_DATA_DIR} on a table, ./{SIM_DATA_DIR} on the simulated table)",
    )


def run(args) -> int:
    profile = load_profile(args.profile)  # refused by firmware/cli.py, exit 2
    folder = data_dir(profile, args.data_dir)
    if folder.exists() and not folder.is_dir():
        print(f"mjtable session: {folder} is a file, not a folder", file=sys.stderr)
        return 2
    if args.verb == "list":
        found = sessions(folder)
        for s in found:
            print(line(s))
        if not found:
            print(f"no sessions in {folder} (mjtable session new begins one)")
        return 0
    try:
        busy = maintenance.blocker(current_session(folder))
    except maintenance.MaintenanceError as err:
        busy = str(err)
    if busy:  # the hand in play is never left behind in the old session
        return maintenance.refuse("session new", busy, folder)
    try:
        path = new_session(folder, profile.name, date.today())
    except (OSError, JournalError) as err:
        print(
            f"mjtable session new: {folder}: {getattr(err, 'strerror', None) or err}",
            file=sys.stderr,
        )
        return 2
    print(f"{path}: the current session (mjtable run goes on with it)")
    return 0
