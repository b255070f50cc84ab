"""Issue 32 item 9: `mjtable run --hands N` on a simulated journal cut in play after hand N. The
session already holds N hands, but the hand cut in play is the table's to take up: the world
must be re-derived as the journal left it (firmware/run/simulated.py), or the taken-up hand is
played on in a new world (its clock back at 0, its tiles not where the hand has them) and may
never end."""

import subprocess
import sys

import pytest

from firmware.cli import main
from firmware.journal.store import Journal
from firmware.run.simulated import game_rows
from tests.conftest import REPO
from tests.support.powercut import run_until

SEED = "1"


def run(journal, hands: str) -> list[str]:
    return [
        *("run", "--port", "0", "--seed", SEED, "--speed", "10000"),
        *("--hands", hands, "--journal", str(journal)),
    ]


@pytest.mark.slow
def test_issue_32_item_9_run_hands_n_on_a_journal_cut_after_hand_n_ends_its_hand(tmp_path):
    """Issue 32 item 9: a session cut 40 rows into hand 2, started again with `--hands 1`:
    it takes hand 2 up, plays it to its end as the uninterrupted game does, and stops."""
    whole = tmp_path / "whole.sqlite"
    assert main(run(whole, "2")) == 0
    with Journal(whole, readonly=True) as journal:
        game = game_rows(journal)
        second = [row.seq for row in journal.rows() if row.kind == "hand"][1]
    cut = tmp_path / "cut.sqlite"
    killed, out = run_until(
        [sys.executable, "-m", "firmware.cli", *run(cut, "3")], rows=second + 40
    )
    assert killed, out
    resumed = subprocess.run(
        [sys.executable, "-m", "firmware.cli", *run(cut, "1")],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,  # a bound on a run that never ends, not a measure
    )
    assert resumed.returncode == 0, resumed.stderr
    assert "hand 2 over" in resumed.stdout
    with Journal(cut, readonly=True) as journal:
        assert game_rows(journal) == game
