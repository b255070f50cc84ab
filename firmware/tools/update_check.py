"""The check of a release `mjtable update` installed, before it is switched to (issue 32 item 7):
its own selftest (the devices), then a trial start of its service.

A selftest checks the devices and never builds the service: a release whose `mjtable run`
cannot start (a module missing, a profile key it no longer reads) passed it. So the new
release also starts its service as the unit would, from the installed profile, on a journal
in a scratch folder (the table's sessions untouched), its display and uplink off (no venue
sees the trial): on a simulated table it plays one hand and stops; on a real one it takes
the devices (the service is stopped for an update), tells systemd's notify socket it is
ready, and is stopped by SIGTERM as systemd stops it. Either way it must say ready and end
with status 0.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

SELFTEST_SECONDS = 900  # the shuffler's dry cycle and each reader's inventory fit well within
TRIAL_SECONDS = 600  # a simulated hand at full speed, or a real table's devices coming up, on a Pi
READY = b"READY=1"
POLL_SECONDS = 0.2  # between two looks at whether the service ended before it was ready


def checks(release: Path, profile: str, simulated: bool) -> list[str]:
    """The failed checks' lines of the release at `release` ([] when it may be switched to)."""
    return selftest(release, profile) or trial(release, profile, simulated)


def selftest(release: Path, profile: str) -> list[str]:
    """The new release's own selftest: the failed checks' lines ([] when every one passed)."""
    command = [str(release / "bin" / "mjtable"), "selftest", "--json", "--no-buttons"]
    try:
        done = subprocess.run(
            [*command, "--profile", profile],
            capture_output=True,
            text=True,
            timeout=SELFTEST_SECONDS,
        )
        found = json.loads(done.stdout)
        failed = [f"{c['name']}: {c['detail']}" for c in found if not c["ok"]]
    except (OSError, subprocess.TimeoutExpired) as err:
        return [f"the selftest could not run: {err}"]
    except (ValueError, TypeError, KeyError):
        return [f"the selftest said no checks (status {done.returncode}): {done.stderr[-500:]}"]
    if done.returncode != 0 and not failed:
        failed = [f"the selftest ended with status {done.returncode}: {done.stderr[-500:]}"]
    return failed


def trial(release: Path, profile: str, simulated: bool) -> list[str]:
    """The new release's service started from `profile` in a scratch folder (module
    docstring): [] when it said ready and ended with status 0 (after one hand, simulated)."""
    with tempfile.TemporaryDirectory(prefix="mjtable-trial-") as folder:
        scratch = Path(folder)
        command = [str(release / "bin" / "mjtable"), "run", "--profile", profile]
        command += ["--port", "0", "--no-uplink", "--journal", str(scratch / "trial.sqlite")]
        if simulated:
            command += ["--hands", "1", "--speed", "10000", "--json-summary"]
        with (
            socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as notify,
            open(scratch / "out", "w+") as out,
            open(scratch / "err", "w+") as err,
        ):
            notify.bind(str(scratch / "notify"))
            try:
                service = subprocess.Popen(
                    command,
                    cwd=scratch,
                    env={**os.environ, "NOTIFY_SOCKET": str(scratch / "notify")},
                    stdout=out,
                    stderr=err,
                )
            except OSError as problem:
                return [f"the service could not start: {problem}"]
            ready = _ready(notify, service)
            if not simulated and service.poll() is None:
                service.send_signal(signal.SIGTERM)  # as systemctl stop does
            try:
                status = service.wait(timeout=TRIAL_SECONDS)
            except subprocess.TimeoutExpired:
                service.kill()
                service.wait()
                return [f"the service did not stop within {TRIAL_SECONDS} s"]
            out.seek(0)
            err.seek(0)
            said, why = out.read(), err.read().strip()[-500:]
    if not ready:
        return [f"the service never said it was ready (status {status}): {why}"]
    if status != 0:
        return [f"the service ended with status {status}: {why}"]
    if simulated and _hands(said) != 1:
        return [f"the service did not play its one simulated hand: {said.strip()[-500:]}"]
    return []


def _ready(notify: socket.socket, service: subprocess.Popen) -> bool:
    """Whether the service sent READY=1 before it ended or TRIAL_SECONDS passed."""
    deadline = time.monotonic() + TRIAL_SECONDS
    notify.settimeout(POLL_SECONDS)
    while time.monotonic() < deadline:
        ended = service.poll() is not None  # before the read: what it sent is queued by then
        try:
            if READY in notify.recv(4096).split(b"\n"):
                return True
        except TimeoutError:
            if ended:
                return False
    return False


def _hands(said: str) -> int | None:
    """The hands the summary line (`--json-summary`, the last line) counts."""
    try:
        return json.loads(said.strip().splitlines()[-1])["hands"]
    except (ValueError, IndexError, KeyError, TypeError):
        return None
