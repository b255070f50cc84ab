"""The release's lock (issue 31, "Pinned to the hash"): firmware/tools/requirements.lock, made
by deploy/pi/lock.sh, pins every package a release installs, the transitive ones too, each with
its hashes, so that install.sh and `mjtable update` install with `--require-hashes`. These
tests fail as soon as pyproject.toml's dependencies and the lock disagree, so it cannot go
stale silently: run deploy/pi/lock.sh. deploy/dev.sh holds the checkout's venv at the lock's
versions, so the installed versions are the lock's whenever both are current."""

import re
from importlib import metadata
from pathlib import Path

import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from firmware.tools import update
from tests.conftest import REPO

LOCKS = Path(REPO) / "firmware" / "tools"
PIN = re.compile(r"^([A-Za-z0-9._-]+)==([^ ;]+)(?: ; (.+?))? \\$")


def pins(lock: str) -> dict[str, tuple[str, str | None, int]]:
    """Each package of the lock: (its version, its marker or None, how many hashes)."""
    found: dict[str, tuple[str, str | None, int]] = {}
    name = ""
    for line in (LOCKS / lock).read_text().splitlines():
        pinned = PIN.match(line)
        if pinned:
            name = canonicalize_name(pinned[1])
            found[name] = (pinned[2], pinned[3], 0)
        elif line.strip().startswith("--hash=sha256:"):
            version, marker, hashes = found[name]
            found[name] = (version, marker, hashes + 1)
        else:
            assert not line.strip() or line.startswith("#"), f"{lock}: not a pin: {line}"
    return found


def runtime_closure() -> dict[str, Requirement]:
    """Every distribution the installed mjtable needs here, transitively (no extras), each
    with the first requirement that asked for it."""
    needed: dict[str, Requirement] = {}
    todo = [Requirement(r) for r in metadata.requires("mjtable") or []]
    while todo:
        wanted = todo.pop()
        name = canonicalize_name(wanted.name)
        if name in needed or (wanted.marker and not wanted.marker.evaluate({"extra": ""})):
            continue
        needed[name] = wanted
        todo += [Requirement(r) for r in metadata.requires(name) or []]
    return needed


@pytest.mark.parametrize("lock", update.LOCKS)
def test_issue_31_every_locked_package_is_pinned_with_its_hashes(lock):
    """Issue 31: each package one version, with at least one sha256 (pip's --require-hashes
    refuses a file whose hash is not listed)."""
    found = pins(lock)
    assert found
    assert all(hashes >= 1 for _, _, hashes in found.values()), found


def test_issue_31_the_lock_covers_every_runtime_dependency_transitively():
    """Issue 31: every distribution the installed mjtable requires, directly or through
    another, is in the lock at the version installed here and allowed by the requirement;
    and the lock holds nothing else that applies to this platform (a leftover)."""
    locked = pins("requirements.lock")
    needed = runtime_closure()
    for name, wanted in needed.items():
        assert name in locked, f"{name} ({wanted}) is not in the lock: run deploy/pi/lock.sh"
        version = locked[name][0]
        assert wanted.specifier.contains(version, prereleases=True), (wanted, version)
        assert metadata.version(name) == version, f"{name}: installed {metadata.version(name)}"
    applies = {n for n, (_, marker, _) in locked.items() if not marker or Marker(marker).evaluate()}
    assert applies == set(needed), "the lock and the dependencies differ: run deploy/pi/lock.sh"


def test_issue_31_rpi_lgpio_is_locked_alone_for_a_pi():
    """Issue 31 with HARDWARE.md §5: a Pi's rpi-lgpio, installed without its dependencies
    (its lgpio is Debian's python3-lgpio, seen by the venv)."""
    assert list(pins("requirements-pi.lock")) == ["rpi-lgpio"]
