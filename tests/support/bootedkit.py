"""A Debian Bookworm booted with systemd as its PID 1, for the booted-system test (issue 31).

The root is made by debootstrap once per package list and kept under CACHE (a rerun on the
same machine boots in seconds); each boot runs it with `systemd-nspawn --volatile=overlay`, so
whatever a test does lands in a tmpfs over the cached root and is gone at the end. No systemd
runs on the host here: nspawn is started with `--register=no --keep-unit`, and commands inside
go through `nsenter -t <its PID 1> -a`, with a clean environment as a technician's root shell
has. The container shares the machine's network and reaches the package registries as the
machine does: its pip configuration (merged into the container's /etc/pip.conf), the local
folders that configuration names, and its certificate bundle are given to it read-only.
"""

from __future__ import annotations

import configparser
import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from firmware.ports import free_port
from tests.conftest import REPO

SUITE, MIRROR = "bookworm", "http://deb.debian.org/debian"
BASE = ("systemd", "systemd-sysv", "dbus", "python3", "python3-venv", "curl", "ca-certificates")
# install.sh's own apt line: installed once with the root (debootstrap's resolver cannot
# configure chromium's desktop dependencies), so its apt-get finds them and changes nothing
DESKTOP = ("chromium", "fonts-noto-cjk")
CACHE = Path(os.environ.get("MJTABLE_TEST_CACHE", "/var/cache/mjtable-tests"))
PIP_FILES = (  # pip's order: the later wins
    Path("/etc/pip.conf"),
    Path("/etc/xdg/pip/pip.conf"),
    Path.home() / ".pip/pip.conf",
    Path.home() / ".config/pip/pip.conf",
)
CERTS = Path("/etc/ssl/certs/ca-certificates.crt")
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
BOOT_SECONDS = 180  # a limit only: a boot takes seconds, more on a busy machine
PROFILE = "/etc/mjtable/table.toml"
DATA = "/var/lib/mjtable/journal"
LIMIT = 120  # seconds: a limit on each wait for the service, never a measure


def cannot_boot() -> str | None:
    """Why no container can be booted here, or None."""
    if os.geteuid() != 0:
        return "systemd-nspawn and debootstrap need root"
    missing = [t for t in ("debootstrap", "systemd-nspawn", "nsenter") if not shutil.which(t)]
    if missing:
        return f"not installed: {', '.join(missing)} (.ci/run installs them)"
    return None


def bootable_image(timings: dict[str, float]) -> Path:
    """root_image(), or the test skipped with the reason no container can boot here."""
    why = cannot_boot()
    if why:
        pytest.skip(f"no booted system here: {why}")
    return root_image(timings)


def report(name: str, timings: dict[str, float], scores: dict[str, float]) -> None:
    """The times of a booted test module's steps and cases, and its scores, printed
    (`pytest -s`) and written to CACHE/timings-<name>-<test process>.txt."""
    if not timings:
        return
    lines = [f"{step}: {seconds:.1f} s" for step, seconds in timings.items()]
    lines += [f"{what}: {score:g}" for what, score in scores.items()]
    print(f"\n{name} test times:\n  " + "\n  ".join(lines))
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")  # each its own boot
    (CACHE / f"timings-{name}-{worker}.txt").write_text("\n".join(lines) + "\n")


def root_image(timings: dict[str, float]) -> Path:
    """The cached Bookworm root of BASE and DESKTOP, made now if there is none (its time in
    `timings["debootstrap"]`); a lock keeps two test processes from making it twice."""
    key = hashlib.sha256(repr((SUITE, MIRROR, BASE, DESKTOP)).encode()).hexdigest()[:16]
    image = CACHE / f"{SUITE}-{key}"
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / f"{image.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if image.is_dir():
            return image
        began = time.monotonic()
        partial = image.with_name(image.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        include = ",".join(BASE)
        _run(["debootstrap", "--variant=minbase", f"--include={include}", SUITE, partial, MIRROR])
        _run(
            ["systemd-nspawn", "--quiet", "--register=no", "--keep-unit", "-D", partial]
            + ["env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "install", "-y", "-q"]
            + [*DESKTOP]
        )
        _run(
            ["systemd-nspawn", "--quiet", "--register=no", "--keep-unit", "-D", partial]
            + ["apt-get", "clean"]
        )
        partial.rename(image)
        timings["debootstrap"] = time.monotonic() - began
        return image


def _run(cmd: list) -> None:
    done = subprocess.run(list(map(str, cmd)), capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd[:3]))}: {done.stdout[-3000:]}{done.stderr}")


def checkout_copy(into: Path) -> Path:
    """The checkout's files as git knows them (tracked and new, not ignored), as a technician
    copies a checkout: pip builds in it, so it is a copy, not the worktree. Its table.toml is
    README section 3's profile: the simulated table's devices, its display on a port free on
    the machine (a container shares its network), the journal in the data directory as on a
    table (README 4)."""
    listed = subprocess.run(
        ["git", "-C", REPO, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in filter(None, listed):
        source = Path(REPO) / os.fsdecode(name)
        if source.is_file():
            target = into / os.fsdecode(name)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    profile = (into / "config/tables/sim.toml").read_text()
    table = profile.replace("port = 8080", f"port = {free_port()}")
    (into / "table.toml").write_text(
        table.replace("[journal]", f'[journal]\ndata_dir = "{DATA}"', 1)
    )
    return into


def pip_setup(scratch: Path) -> list[str]:
    """nspawn's options giving the container the machine's pip configuration (one merged
    file), the local folders it names and the certificate bundle, all read-only."""
    merged = configparser.ConfigParser()
    merged.read([p for p in PIP_FILES if p.is_file()])
    conf = scratch / "pip.conf"
    with open(conf, "w") as out:
        merged.write(out)
    options = [f"--bind-ro={conf}:/etc/pip.conf", f"--bind-ro={CERTS}"]
    named = " ".join(v for s in merged.sections() for v in merged[s].values())
    for word in named.split():
        path = Path(word.removeprefix("file://"))  # file:///opt/pypi/simple, a constraint file
        if not path.is_absolute() or path == CERTS or not path.exists():
            continue
        top = Path(*path.parts[:3])  # an index's links may leave its simple/ folder
        shown = path if path.is_file() or path.parts[1] in ("etc", "usr") else top
        options.append(f"--bind-ro={shown}")
    return sorted(set(options))


@contextlib.contextmanager
def writable(image: Path, scratch: Path) -> Iterator[Path]:
    """The cached root as a folder a host's command may write into (an SD card's root being
    prepared): an overlay whose writes land in `scratch`, the cache untouched."""
    upper, work, merged = (scratch / name for name in ("upper", "work", "root"))
    for folder in (upper, work, merged):
        folder.mkdir()
    layers = f"lowerdir={image},upperdir={upper},workdir={work}"
    _run(["mount", "-t", "overlay", "overlay", "-o", layers, merged])
    try:
        yield merged
    finally:
        _run(["umount", merged])


class Booted:
    """The image booted: `run(...)` a command inside as root; `close()` powers it off.
    `options` are nspawn's (--volatile=overlay: the root's writes gone at the end)."""

    def __init__(self, image: Path, scratch: Path, options: list[str]):
        self.log = scratch / "console.log"
        self.name = f"mjt{os.getpid()}{int(time.monotonic() * 1000) % 100000}"
        with open(self.log, "w") as log:
            self.nspawn = subprocess.Popen(
                [
                    "systemd-nspawn",
                    "--boot",
                    "--register=no",
                    "--keep-unit",
                    "--quiet",
                    "--console=read-only",
                    "--resolv-conf=copy-host",
                    f"--machine={self.name}",
                    "-D",
                    str(image),
                    *options,
                ],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        self.pid1 = self._find_pid1()

    def _find_pid1(self) -> int:
        """The host's number of the container's PID 1 (nspawn's child whose own is 1)."""
        deadline = time.monotonic() + BOOT_SECONDS
        while time.monotonic() < deadline:
            if self.nspawn.poll() is not None:
                raise RuntimeError(f"systemd-nspawn ended: {self.log.read_text()[-3000:]}")
            for status in Path("/proc").glob("[0-9]*/status"):
                try:
                    fields = dict(line.split(":\t", 1) for line in status.read_text().splitlines())
                except (OSError, ValueError):
                    continue
                ours = fields.get("PPid") == str(self.nspawn.pid)
                if ours and fields.get("NSpid", "").split("\t")[-1] == "1":
                    return int(status.parent.name)
            time.sleep(0.1)
        raise RuntimeError(f"no PID 1 in {BOOT_SECONDS} s: {self.log.read_text()[-3000:]}")

    def run(self, *cmd: str, check: bool = True, timeout: float = 600, input: str = ""):
        """`cmd` inside, as root in a login's clean environment (`input` its stdin); its
        CompletedProcess."""
        done = subprocess.run(
            ["nsenter", "-t", str(self.pid1), "-a", "env", "-i", f"PATH={PATH}", "HOME=/root"]
            + ["LANG=C.UTF-8", *cmd],
            input=input,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if check and done.returncode != 0:
            raise AssertionError(f"{' '.join(cmd)}: {done.returncode}\n{done.stdout}{done.stderr}")
        return done

    def wait_booted(self) -> str:
        """systemd's own verdict once the boot is done: running, or degraded (a unit that
        needs the hardware a container lacks). Before its manager is up it answers offline."""
        deadline = time.monotonic() + BOOT_SECONDS
        state = "offline"
        while state in ("offline", "") and time.monotonic() < deadline:
            state = self.run(
                "systemctl", "is-system-running", "--wait", check=False, timeout=BOOT_SECONDS
            ).stdout.strip()
            time.sleep(0.2)  # between two asks while its manager starts
        return state

    def close(self) -> None:
        """Powered off as systemd does on SIGTERM to nspawn (SIGRTMIN+3 to its PID 1)."""
        if self.nspawn.poll() is None:
            self.nspawn.terminate()
            try:
                self.nspawn.wait(60)
            except subprocess.TimeoutExpired:
                self.nspawn.kill()
                self.nspawn.wait()


def show(machine, *props: str) -> dict[str, str]:
    """mjtable.service's properties, as `systemctl show` gives them."""
    out = machine.run("systemctl", "show", "mjtable", *(f"-p{p}" for p in props)).stdout
    return dict(line.split("=", 1) for line in out.splitlines())


def dealt(machine) -> bool:
    """Whether a hand is dealt in the service's current session."""
    if machine.run("test", "-e", f"{DATA}/current", check=False).returncode != 0:
        return False  # the session not begun yet
    return journal_rows(machine)["hands"] >= 1


def log(machine) -> str:
    """The service's log, its lines only."""
    return machine.run("journalctl", "-u", "mjtable", "--no-pager", "-o", "cat").stdout


def until(seen, what: str, limit: float = LIMIT) -> bool:
    """Whether `seen()` came true within `limit` seconds (a limit only: asked every 0.2 s)."""
    deadline = time.monotonic() + limit
    while not seen():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {limit:g} s: {what}")
        time.sleep(0.2)
    return True


def journal_rows(machine) -> dict:
    """`mjtable replay --json` of the current session, as the service's user (its files)."""
    path = machine.run("readlink", "-f", f"{DATA}/current").stdout.strip()
    done = machine.run("runuser", "-u", "mjtable", "--", "mjtable", "replay", "--json", path)
    return json.loads(done.stdout)
