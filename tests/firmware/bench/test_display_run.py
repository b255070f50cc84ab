"""`mjtable bench display` runs and reports what README quotes (issue 6); its times are
figures for README, never asserted."""

import subprocess
import sys

import pytest

from tests.conftest import REPO
from tests.support.runkit import bench


@pytest.mark.slow  # a second and more: CI's full run
def test_bench_display_reports_latency_percentiles_and_target():
    """Issue 6: the discards timed from reader frame to the referee stream's client, with
    p50, p99 and max in ms and the 20 ms target for p99."""
    result = bench("display", "--hands", "3", "--seed", "2")
    assert set(result) == {"discards", "seed", "p50_ms", "p99_ms", "max_ms", "target_p99_ms"}
    assert result["discards"] == 3 and result["seed"] == 2
    assert 0 < result["p50_ms"] <= result["p99_ms"] <= result["max_ms"]
    assert result["target_p99_ms"] == 20


def test_bench_refuses_to_time_nothing():
    """Bad input gets a message naming it: --hands must be at least one."""
    done = subprocess.run(
        [sys.executable, "-m", "firmware.cli", "bench", "display", "--hands", "0"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and "--hands 0" in done.stderr
