"""An image prepared as a technician prepares an SD card, booted (issue 31, "images that boot"
and "the booted test installs from such a folder"): deploy/pi/wheelhouse.sh fills a folder
with the wheels for the container's machine (x86_64 here: a Pi's is aarch64), install.sh
--root lays the table down from outside into a Debian Bookworm root (the cached root of
tests/support/bootedkit.py, under an overlay) with that folder, the simulated table's profile
is put in, and the root is booted with systemd as PID 1 and no network at all: the first
boot installs the release from the folder, then the table starts by itself. Skipped, with
the reason, only where no container can boot."""

import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support import bootedkit
from tests.support.bootedkit import dealt, log, show, until

pytestmark = pytest.mark.slow
TIMINGS: dict[str, float] = {}


@pytest.fixture(scope="module", autouse=True)
def times():
    yield
    bootedkit.report("booted-image", TIMINGS, {})


def host(*cmd: str) -> str:
    """`cmd` on the machine preparing the image, its Python the checkout's venv's (any
    Python 3 with pip does); its output."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800)
    assert done.returncode == 0, f"{' '.join(cmd)}: {done.stdout[-2000:]}{done.stderr[-3000:]}"
    return done.stdout


def test_issue_31_an_image_made_with_install_sh_root_and_a_wheelhouse_boots_into_the_table(
    tmp_path,
):
    """Issue 31: the image's first boot installs the release offline (mjtable-firstboot),
    every file's hash checked; mjtable.service then reaches active (running) by itself, said
    ready (Type=notify), not restarted, a hand dealt; the release's commands name their
    place in the image, not the folder it was prepared in; the bundle is gone."""
    image = bootedkit.bootable_image(TIMINGS)
    case = time.monotonic()
    checkout = bootedkit.checkout_copy(tmp_path / "mjtable")
    wheelhouse = tmp_path / "wheelhouse"
    began = time.monotonic()
    host(
        "bash",
        f"{checkout}/deploy/pi/wheelhouse.sh",
        "--platform",
        platform.machine(),
        str(wheelhouse),
    )
    TIMINGS["wheelhouse"] = time.monotonic() - began
    with bootedkit.writable(image, tmp_path) as root:
        host(
            "bash",
            f"{checkout}/deploy/pi/install.sh",
            "--root",
            str(root),
            "--wheelhouse",
            str(wheelhouse),
        )
        profile = root / bootedkit.PROFILE.lstrip("/")
        profile.write_text((checkout / "table.toml").read_text())  # README section 3
        began = time.monotonic()
        booted = bootedkit.Booted(root, tmp_path, ["--private-network"])
        try:
            state = booted.wait_booted()
            TIMINGS["first boot, the install in it"] = time.monotonic() - began
            first = booted.run("journalctl", "-u", "mjtable-firstboot", "-o", "cat").stdout
            assert state in ("running", "degraded"), first[-3000:]
            said = booted.run("systemctl", "show", "mjtable-firstboot", "-pResult").stdout
            assert said == "Result=success\n", first[-3000:]
            assert (
                "every file's hash checked" in first
                and "/opt/mjtable/firstboot/wheelhouse" in first
            )
            seen = show(booted, "Type", "ActiveState", "SubState", "NRestarts")
            assert seen == {
                "Type": "notify",
                "ActiveState": "active",
                "SubState": "running",
                "NRestarts": "0",
            }, log(booted)[-3000:]
            until(lambda: dealt(booted), "a hand dealt")
            shebang = booted.run("head", "-n1", "/opt/mjtable/current/bin/mjtable").stdout
            assert shebang.startswith("#!/opt/mjtable/releases/") and str(root) not in shebang
            assert booted.run("test", "-e", "/opt/mjtable/firstboot", check=False).returncode == 1
        finally:
            booted.close()
            TIMINGS["the case in all"] = time.monotonic() - case
