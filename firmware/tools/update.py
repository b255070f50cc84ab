"""`mjtable update` and `mjtable rollback` (issue 19): a new version installed beside the running
one, checked, switched to, and the old one kept to go back to.

The install prefix (/opt/mjtable; `--prefix`) holds one venv per release and two symlinks:

    releases/<version>-<when>/   a venv with the wheel (bin/mjtable)
    current -> releases/...      what the unit runs (/opt/mjtable/current/bin/mjtable)
    previous -> releases/...     the release before it, for `mjtable rollback`

`update` installs into a new release folder (the running one is never touched), the wheel's
dependencies from the lock it carries with every file's hash checked (issue 31: pinned to the
hash; from a folder of wheels and no index with `--wheelhouse`), and checks it
there (firmware/tools/update_check.py: its own `mjtable selftest --json --no-buttons`, then its
service started from the installed profile on a scratch journal, one simulated hand played
or the devices taken and let go); only a release that passed both is switched to: `previous`
at the current release and `current` at the new one (each symlink replaced by a rename:
atomic, never missing). A failed check or install removes the new release, nothing switched.
`previous` is never a release that failed (issue 32 item 7): `rollback` goes back from a
release that did not do, so it is no one's to go back to again and `previous` is removed.
Other releases than current and previous are removed after each update.

Between hands only, the service stopped: no process writing the table's current session (the
selftest needs the readers, the pins and the port the service holds) and its last hand ended
or void, since the new version would take that hand up after the restart; each refusal names
what blocks and how to end it (firmware/table/maintenance.py). So: systemctl stop mjtable,
mjtable update, systemctl start mjtable. `rollback` is never refused (it goes back to the
version that ran before). docs/updates.md says how this sits beside image-based updaters (RAUC,
Mender).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from datetime import datetime
from importlib import metadata
from pathlib import Path

from firmware import cli_args
from firmware.table import maintenance
from firmware.table.profile import ProfileError, load_profile
from firmware.table.sessions import add_table_options, current_session, data_dir
from firmware.tools.update_check import checks

PREFIX = Path("/opt/mjtable")
RELEASES, CURRENT, PREVIOUS = "releases", "current", "previous"
WHEEL = re.compile(r"mjtable-([^-]+)-.+\.whl")  # a wheel's file name: name-version-tags.whl
LOCKS = ("requirements.lock", "requirements-pi.lock")  # package data of firmware.tools
Installer = Callable[[Path, list[str]], None]  # (release folder, pip's arguments)


class UpdateError(Exception):
    """An update or a rollback that cannot be done: said, nothing switched."""


def pip_install(release: Path, wanted: list[str]) -> None:
    """A venv at `release`, seeing the system's packages as install.sh's does (python3-lgpio
    from apt), with `wanted` (pip's options for where to look, then a wheel file or the
    package): the dependencies first, every file's hash checked against the lock the new
    wheel carries (firmware/tools/requirements.lock, deploy/pi/lock.sh), then the wheel
    itself, and on a Pi (the running release has rpi-lgpio) rpi-lgpio by its own lock."""
    *where, what = wanted
    python = str(release / "bin" / "python")
    pip = [python, "-m", "pip", "--quiet", "--no-input", "--disable-pip-version-check"]
    with tempfile.TemporaryDirectory(prefix="mjtable-update-") as folder:
        wheel = Path(what)
        # a wheel file without its locks is refused before the venv is made (a Pi's minute)
        locks = carried_locks(wheel, Path(folder)) if wheel.is_file() else None
        subprocess.run(
            [sys.executable, "-m", "venv", "--system-site-packages", str(release)], check=True
        )
        if locks is None:  # from the index: the wheel alone, to read its locks
            subprocess.run([*pip, "wheel", "--no-deps", "-w", folder, *where, what], check=True)
            wheel = next(Path(folder).glob("mjtable-*.whl"))
            locks = carried_locks(wheel, Path(folder))
        install = [*pip, "install", *where]
        subprocess.run([*install, "--require-hashes", "-r", str(locks[0])], check=True)
        subprocess.run([*install, "--no-deps", str(wheel)], check=True)
        with contextlib.suppress(metadata.PackageNotFoundError):
            metadata.version("rpi-lgpio")  # a Pi's release
            subprocess.run(
                [*install, "--no-deps", "--require-hashes", "-r", str(locks[1])], check=True
            )


def carried_locks(wheel: Path, into: Path) -> tuple[Path, Path]:
    """The wheel's requirements.lock and requirements-pi.lock, copied into `into`."""
    found = []
    try:
        with zipfile.ZipFile(wheel) as archive:
            for name in LOCKS:
                found.append(into / name)
                found[-1].write_bytes(archive.read(f"firmware/tools/{name}"))
    except (OSError, KeyError, zipfile.BadZipFile) as err:
        raise UpdateError(f"{wheel.name} carries no lock of its dependencies: {err}") from None
    return found[0], found[1]


def _target(link: Path) -> str | None:
    return os.readlink(link) if link.is_symlink() else None


def _point(prefix: Path, name: str, target: str) -> None:
    """`prefix/name` -> `target`, by a rename over the old link: never missing."""
    temporary = prefix / f".{name}.new"
    temporary.unlink(missing_ok=True)
    temporary.symlink_to(target)
    os.replace(temporary, prefix / name)


def rollback(prefix: Path) -> str:
    """Switch `current` to the previous release: its name. The release left did not do (why
    one goes back), so it is no one's to go back to: no `previous` after a rollback."""
    back = _target(prefix / PREVIOUS)
    if back is None or not (prefix / back).is_dir():
        raise UpdateError(f"no previous release to go back to in {prefix}")
    _point(prefix, CURRENT, back)
    (prefix / PREVIOUS).unlink()
    return Path(back).name


def _prune(prefix: Path) -> None:
    """Remove the releases that are neither current nor previous."""
    kept = {
        (prefix / t).resolve()
        for t in (_target(prefix / CURRENT), _target(prefix / PREVIOUS))
        if t is not None
    }
    for release in (prefix / RELEASES).iterdir():
        if release.resolve() not in kept:
            shutil.rmtree(release)


def update(
    prefix: Path,
    version: str,
    wanted: list[str],
    profile: str,
    simulated: bool,
    install: Installer,
    say: Callable[[str], None] = print,
) -> bool:
    """Install, check, switch, each step said as it begins (the install and the checks take
    minutes on a Pi); False when a check failed and nothing was switched."""
    release = prefix / RELEASES / f"{version}-{datetime.now():%Y%m%dT%H%M%S.%f}"
    release.parent.mkdir(parents=True, exist_ok=True)
    say(f"1/3 installing mjtable {version} into {release} (pip: a minute or more on a Pi)")
    try:
        install(release, wanted)
    except (OSError, subprocess.CalledProcessError, UpdateError) as err:
        shutil.rmtree(release, ignore_errors=True)
        raise UpdateError(f"the install failed, nothing switched: {err}") from None
    say(
        f"2/3 checking {release.name}: its selftest, then its service started on a scratch "
        "journal (a hand played, or the devices taken and let go)"
    )
    failed = checks(release, profile, simulated)
    for line in failed:
        say(f"check FAILED: {line}")
    if failed:  # the failed release is no one's to go back to
        shutil.rmtree(release, ignore_errors=True)
        say(f"{release.name} removed, nothing switched")
        return False
    say(f"3/3 switching to {release.name}")
    before = _target(prefix / CURRENT)
    if before is not None:
        _point(prefix, PREVIOUS, before)
    _point(prefix, CURRENT, str(release.relative_to(prefix)))
    say(f"current -> {release.name}" + (f" (previous: {Path(before).name})" if before else ""))
    _prune(prefix)
    return True


def add_parser(commands) -> None:
    p = commands.add_parser("update")
    p.add_argument("wheel", nargs="?", type=cli_args.path, metavar="WHEEL", help="a wheel file")
    p.add_argument("--index", metavar="URL", help="the package index to install from instead")
    p.add_argument("--version", metavar="V", help="with --index: this version (default newest)")
    p.add_argument(
        "--wheelhouse",
        type=cli_args.path,
        metavar="DIR",
        help="with a wheel: its dependencies from DIR, no index asked (deploy/pi/wheelhouse.sh)",
    )
    add_table_options(p)
    _prefix(p)
    p.set_defaults(run=run)
    back = commands.add_parser("rollback")
    _prefix(back)
    back.set_defaults(run=run_rollback)


def _prefix(p) -> None:
    p.add_argument(
        "--prefix",
        type=cli_args.path,
        default=str(PREFIX),
        metavar="DIR",
        help=f"the install prefix holding releases/, current and previous (default {PREFIX})",
    )


def _wanted(args) -> tuple[str, list[str]]:
    """(the release's version, pip's arguments) from WHEEL or --index [--version]."""
    if (args.wheel is None) == (args.index is None):
        raise UpdateError("give a wheel file or --index URL (one of them)")
    if args.index is None:
        wheel = Path(args.wheel)
        match = WHEEL.fullmatch(wheel.name)
        if args.version or not match:
            raise UpdateError(
                f"{wheel.name} is not an mjtable wheel (mjtable-VERSION-...whl)"
                if not match
                else "--version goes with --index (a wheel file names its own version)"
            )
        if not wheel.is_file():
            raise UpdateError(f"no such file {wheel}")
        if args.wheelhouse and not Path(args.wheelhouse).is_dir():
            raise UpdateError(f"--wheelhouse {args.wheelhouse}: no such folder")
        offline = ["--no-index", "--find-links", args.wheelhouse] if args.wheelhouse else []
        return match[1], [*offline, str(wheel.resolve())]
    if args.wheelhouse:
        raise UpdateError("--wheelhouse goes with a wheel file (wheelhouse.sh puts one in it)")
    if not re.match(r"(https?|file)://", args.index):
        raise UpdateError(f"--index {args.index!r} is not a URL (https://..., file://...)")
    package = f"mjtable=={args.version}" if args.version else "mjtable"
    return args.version or "newest", ["--index-url", args.index, package]


def run(args) -> int:
    try:
        version, wanted = _wanted(args)
        profile = load_profile(args.profile)
        folder = data_dir(profile, args.data_dir)
        busy = maintenance.blocker(current_session(folder))
        if busy:
            return maintenance.refuse("update", busy, folder)
        ok = update(
            Path(args.prefix), version, wanted, args.profile, profile.simulated, pip_install
        )
    except (UpdateError, ProfileError, maintenance.MaintenanceError) as err:
        print(f"mjtable update: {err}", file=sys.stderr)
        return 2
    print(
        "updated, every check passed: restart the service (systemctl restart mjtable)"
        if ok
        else "not updated: the new release failed its checks"
    )
    return 0 if ok else 1


def run_rollback(args) -> int:
    try:
        name = rollback(Path(args.prefix))
    except UpdateError as err:
        print(f"mjtable rollback: {err}", file=sys.stderr)
        return 2
    print(
        f"current -> {name}: restart the service (systemctl restart mjtable); the release "
        "left is no longer kept to go back to"
    )
    return 0
