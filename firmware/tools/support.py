"""`mjtable logs export`: one .tar.gz for a support ticket (issue 19; SOFTWARE.md §8).

The bundle holds, in a folder named as the file:
- service.log: the service's log (`journalctl -u mjtable`), or a line saying why there is none;
- journals/: a safe copy of each journal of the journals' folder, made and checked as `mjtable
  journal backup` makes it (never a raw copy of a live SQLite file, which loses the rows
  still in its -wal), and journals.txt saying what was copied or why not;
- selftest.json: `mjtable selftest --json --no-buttons` of the table (stop the service first,
  or its devices are busy and their lines say so; a busy pin is never driven);
- profile.toml: the table's profile with the referee's secret and the broadcast token masked;
- version.txt: the package's version, Python's and the machine's.
The secrets are masked wherever they appear in a text of the bundle. Exit status: 0 written,
1 it could not be written (no file is left), 2 a bad argument or profile (the file is never
overwritten). The bundle is the user's alone (0600): it holds every concealed hand.
"""

from __future__ import annotations

import io
import json
import os
import platform
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import asdict
from datetime import datetime
from importlib import metadata
from pathlib import Path

from firmware import cli_args
from firmware.journal.cli import CopyMismatch, backup
from firmware.journal.failures import JournalError
from firmware.table.profile import Profile, load_profile
from firmware.table.sessions import add_table_options, data_dir
from firmware.tools.selftest import run_checks

LOG_LINES = 20_000  # of the service's log: some days of a table's play
LOG_SECONDS = 60.0  # journalctl gets this long at most
MASK = "********"


def add_parser(commands) -> None:
    p = commands.add_parser("logs")
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    e = actions.add_parser(
        "export", help="write the logs, journals, selftest and profile as one .tar.gz"
    )
    e.add_argument(
        "-o",
        "--output",
        type=cli_args.path,
        metavar="FILE",
        help="the bundle, a new file (default mjtable-logs-TABLE-TIME.tar.gz here)",
    )
    add_table_options(e)
    e.set_defaults(run=run)


def run(args) -> int:
    profile = load_profile(args.profile)  # refused by firmware/cli.py, exit 2
    dest = Path(args.output or f"mjtable-logs-{profile.name}-{datetime.now():%Y%m%d-%H%M%S}.tar.gz")
    problem = _new_file_problem(dest)
    if problem:
        print(f"mjtable logs export: {dest}: {problem}", file=sys.stderr)
        return 2
    try:
        members = export(profile, data_dir(profile, args.data_dir), dest)
    except OSError as err:  # the disk filled up, the folder went away
        if not isinstance(err, FileExistsError):  # made meanwhile: not ours to remove
            dest.unlink(missing_ok=True)
        print(f"mjtable logs export: {dest}: cannot write the bundle: {err}", file=sys.stderr)
        return 1
    print(
        f"{dest.absolute()}: {len(members)} files, readable by you only (every concealed hand "
        "is in it); attach it to the support ticket"
    )
    return 0


def export(profile: Profile, journal_dir: Path, dest: Path) -> list[str]:
    """Write the bundle to the new file `dest`; the names of its files."""
    secrets = [s for s in (profile.referee_pin, profile.broadcast_token) if s]
    top = dest.name.removesuffix(".tar.gz").removesuffix(".tgz")
    names = []
    with tempfile.TemporaryDirectory(prefix="mjtable-logs-") as work:
        journals = Path(work)
        copied = _journals(journal_dir, journals)
        checks = run_checks(profile, journal_dir, told=lambda line: None)
        texts = {
            "service.log": service_log(),
            "journals/journals.txt": copied,
            "selftest.json": json.dumps([asdict(check) for check in checks], indent=1) + "\n",
            "profile.toml": profile.path.read_text(encoding="utf-8"),
            "version.txt": _versions(),
        }
        # made 0600 before a byte is in it, whatever the umask: the journals hold every
        # concealed hand, the profile the table's settings (issue 31)
        fd = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as file, tarfile.open(fileobj=file, mode="w:gz") as tar:
            for name, text in texts.items():
                data = mask(text, secrets).encode("utf-8")
                info = tarfile.TarInfo(f"{top}/{name}")
                info.size, info.mtime = len(data), int(datetime.now().timestamp())
                tar.addfile(info, io.BytesIO(data))
                names.append(name)
            for copy in sorted(journals.glob("*.sqlite")):
                tar.add(copy, arcname=f"{top}/journals/{copy.name}")
                names.append(f"journals/{copy.name}")
    return names


def mask(text: str, secrets: list[str]) -> str:
    """`text` with every secret replaced by MASK."""
    for secret in secrets:
        text = text.replace(secret, MASK)
    return text


def service_log() -> str:
    """The service's log through journalctl, or a line saying why there is none."""
    journalctl = shutil.which("journalctl")
    if journalctl is None:
        return "journalctl is not available on this machine: no service log\n"
    command = [journalctl, "-u", "mjtable", "--no-pager", "-o", "short-iso", "-n", str(LOG_LINES)]
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=LOG_SECONDS, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"{' '.join(command)}: failed: {err}\n"
    told = f"$ {' '.join(command)}  (exit status {done.returncode})\n"
    return told + done.stdout + done.stderr


def _journals(folder: Path, into: Path) -> str:
    """A checked copy of each journal of `folder` in `into`: what was copied, or why not."""
    if not folder.is_dir():
        return f"{folder}: no such folder: no journal copied\n"
    lines = []
    for source in sorted(folder.glob("*.sqlite")):
        try:
            rows = backup(source, into / source.name)
            lines.append(f"{source}: {rows} rows, hash chain intact")
        except (JournalError, CopyMismatch) as err:
            lines.append(f"{source}: not copied: {err}")
    return "\n".join(lines or [f"{folder}: no journal"]) + "\n"


def _versions() -> str:
    try:
        version = metadata.version("mjtable")
    except metadata.PackageNotFoundError:
        version = "not installed as a package (a checkout?)"
    return (
        f"mjtable {version}\npython {platform.python_version()}\n"
        f"machine {platform.platform()} {platform.machine()}\n"
    )


def _new_file_problem(dest: Path) -> str | None:
    """Why the bundle cannot be written as the new file `dest`, or None."""
    if dest.is_dir():
        return "is a directory: give the path of the new file"
    if os.path.lexists(dest):
        return "exists: the bundle never overwrites a file, name a new one"
    if not dest.parent.is_dir():
        return f"{dest.parent} is not a folder"
    if not dest.name.endswith((".tar.gz", ".tgz")):
        return "a bundle is a .tar.gz file"
    return None
