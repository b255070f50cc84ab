"""mjtable's commands run as a user runs them, for tests: `mjtable run` in-process
(`run_table`) and the journal it wrote (`rows`), `mjtable bench` and `mjtable score` as
subprocesses, and a refused command line's one error line (`refused`)."""

import json
import subprocess
import sys
from pathlib import Path

from firmware.cli import main
from firmware.journal.store import Journal
from tests.conftest import REPO


def run_table(capsys, journal: Path, *options: str, summary=True) -> tuple[dict | None, str]:
    """`mjtable run --port 0 --journal J *options` in-process; (summary, stdout)."""
    argv = ["run", "--port", "0", "--journal", str(journal), *options]
    status = main(argv + (["--json-summary"] if summary else []))
    out, err = capsys.readouterr()
    assert status == 0, err
    assert "Traceback" not in err
    return (json.loads(out.strip().splitlines()[-1]) if summary else None), out


def rows(journal: Path) -> list[tuple[str, dict]]:
    """The journal's rows as (kind, data), in order."""
    with Journal(journal, create=False) as j:
        return [(r.kind, r.data()) for r in j.rows()]


def bench(*args) -> dict:
    """`mjtable bench *args --json` as a subprocess: its report."""
    done = subprocess.run(
        [sys.executable, "-m", "firmware.cli", "bench", *args, "--json"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, f"mjtable bench {' '.join(args)}: {done.stderr}"
    return json.loads(done.stdout)


def mjtable(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    """`mjtable *args` as a subprocess from the checkout, `stdin` typed in."""
    return subprocess.run(
        [sys.executable, "-m", "firmware.cli", *args],
        cwd=REPO,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def status_and_stderr(capsys, argv) -> tuple[int, str, str]:
    try:
        status = main(argv)
    except SystemExit as stop:  # argparse refuses the option itself
        status = stop.code
    out, err = capsys.readouterr()
    return status, out, err


def refused(capsys, *argv: str) -> str:
    """The one error line of a refused command line (argparse's usage lines apart)."""
    status, out, err = status_and_stderr(capsys, list(argv))
    assert status == 2, err
    assert "Traceback" not in err and out == ""
    messages = [line for line in err.splitlines() if not line.startswith(("usage:", " "))]
    assert len(messages) == 1, err
    return messages[0]
