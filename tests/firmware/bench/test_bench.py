"""`mjtable bench` runs and reports what README quotes (figures are never asserted)."""

import pytest

from firmware.bench.soak import last_half_slope
from tests.support.runkit import bench


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


@pytest.mark.slow  # 3-4 s of play: the fast subset is at its minute
def test_bench_soak_reports_memory_per_hand_over_the_last_half():
    """Issue 20 item 11: `bench soak` plays the simulated table and reports the hands, the
    seconds, the resident memory at the start and after the last hand, and the slope per
    hand fitted over the last half of the hands (figures reported, never asserted); issue
    32 item 4: with the display served, the referee's stream and the public one read."""
    result = bench("soak", "--hands", "3", "--seed", "2")
    assert set(result["updates_read"]) == {"/api/referee/stream", "/api/stream"}
    assert all(updates > 0 for updates in result["updates_read"].values())
    assert result["hands"] == 3 and result["seed"] == 2 and result["ruleset"] == "wsom2006"
    assert result["slope_hands"] == 2 and isinstance(result["slope_kib_per_hand"], float)
    assert result["rss_start_mib"] > 0 and result["rss_end_mib"] > 0 and result["seconds"] > 0
    assert result["target_kib_per_hand"] == 5.0


def test_soak_slope_is_least_squares_over_the_last_half_of_the_hands():
    """Issue 20 item 11: one sample a hand; the start-up's first half is left out, the slope
    is the least-squares one of the rest (here 2048 B a hand plus alternating noise of
    +-300 B: 2048 + 120), and there is none under two samples in that half."""
    start_up = [10_000, 50_000, 90_000, 95_000]
    settled = [100_000 + 2048 * hand + (300 if hand % 2 else -300) for hand in range(4)]
    assert last_half_slope(start_up + settled) == pytest.approx(2168)
    assert last_half_slope([9, 9, 0, 2, 4]) == pytest.approx(2)  # the last 3 of 5
    assert last_half_slope([5, 7]) is None and last_half_slope([]) is None
