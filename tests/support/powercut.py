"""A power cut, for tests (issue 14): `mjtable run` started as a process on a journal, killed
with SIGKILL (nothing flushed, nothing closed) at a point of its progress, and started again."""

import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from tests.conftest import REPO

HANDS = "2"  # hands a session plays


def command(journal: Path, seed: int, ruleset: str, speed: str = "40", *extra: str) -> list:
    return [
        sys.executable,
        "-m",
        "firmware.cli",
        "run",
        "--port",
        "0",
        "--hands",
        HANDS,
        "--seed",
        str(seed),
        "--ruleset",
        ruleset,
        "--speed",
        speed,
        "--journal",
        str(journal),
        *extra,
    ]


def run_until(cmd: list, pattern: str | None, nth: int, delay: float, seconds: float = 90):
    """Start the table; SIGKILL it `delay` s after the nth console line matching `pattern`
    (None: `delay` s after it started). Returns (killed, its output)."""
    proc = subprocess.Popen(
        cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    lines: list[str] = []
    seen = threading.Event()
    wanted = re.compile(pattern) if pattern else None

    def read():
        count = 0
        for line in proc.stdout:
            lines.append(line)
            if wanted and wanted.search(line.rstrip("\n")):
                count += 1
                if count == nth:
                    seen.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    if wanted is None:
        seen.set()
    deadline = time.monotonic() + seconds
    while not seen.is_set() and proc.poll() is None and time.monotonic() < deadline:
        seen.wait(0.05)
    killed = False
    if seen.is_set():
        time.sleep(delay)
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            killed = True
    proc.wait(timeout=seconds)
    reader.join(timeout=5)
    return killed, "".join(lines)


def finish(cmd: list) -> str:
    done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    return done.stdout + done.stderr
