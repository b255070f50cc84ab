"""`mjtable bench` runs and reports what README quotes (figures are never asserted)."""

import json
import subprocess
import sys

from tests.conftest import REPO


def bench(*args) -> dict:
    out = subprocess.run(
        [sys.executable, "-m", "firmware.cli", "bench", *args, "--json"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(out)


def test_bench_score_reports_medians_and_ratios():
    """Issue 2: median and p99 of the scorer and the win check, and the ratios to mahjong."""
    result = bench("score", "--hands", "50")
    assert result["hands"] == 50
    for name in ("score", "win_check", "mahjong_hand_calculator", "mahjong_agari"):
        assert result[name]["median_us"] > 0 and result[name]["p99_us"] >= result[name]["median_us"]
    assert result["score_speedup"] > 0 and result["win_check_speedup"] > 0


def test_bench_frames_reports_rate_against_the_link():
    """Issue 4: frames parsed per second against the capacity of a 115200-baud link."""
    result = bench("frames", "--hands", "50")
    assert set(result) == {"inventory of 36 tags", "stacker record", "heartbeat"}
    assert result["inventory of 36 tags"]["link_per_second"] == round(11520 / 298, 1)
