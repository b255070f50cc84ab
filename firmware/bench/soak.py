"""`mjtable bench soak`: memory over a long day (issue 20: a hall's table runs for days).

The simulated table plays `--hands` hands at top speed in this process, as `mjtable run
--speed 10000 --port 0` does (the readers on ptys read by the production serial code, the
journal on disk), and the process's resident memory is read at each hand's end. The figure
is its least-squares slope per hand over the last half of the hands, once start-up's
allocations have settled (target: under 5 KiB a hand). Figures for README, never asserted
by tests.
"""

import argparse
import asyncio
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from firmware.journal.store import Journal
from firmware.resources import load_ruleset
from firmware.run import cli as run_command
from firmware.run.table import run_table
from firmware.table.profile import load_profile

SOAK_TARGET_KIB = 5.0
MIB = 1 << 20


def resident_bytes() -> int:
    """The process's resident memory now (Linux's /proc/self/statm: pages)."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def last_half_slope(samples: list[int]) -> float | None:
    """Bytes per hand: the least-squares slope of one sample per hand over the last half of
    the hands (the last 500 of 1000); None if that half holds fewer than two."""
    half = samples[len(samples) // 2 :]
    if len(half) < 2:
        return None
    return statistics.linear_regression(range(len(half)), half).slope


def run(args) -> int:
    result = asyncio.run(_soak(args.hands, args.seed, args.ruleset))
    if args.json:
        print(json.dumps(result))
        return 0
    print(
        f"{result['hands']} hands on the simulated table at top speed (seed {args.seed}, "
        f"{args.ruleset}) in {result['seconds']:.1f} s"
    )
    print(
        f"  resident memory {result['rss_start_mib']:.1f} MiB at the start, "
        f"{result['rss_end_mib']:.1f} MiB after the last hand"
    )
    kib = result["slope_kib_per_hand"]
    over = f"over the last {result['slope_hands']} hands"
    print(
        f"  slope {over}: {kib:.2f} KiB per hand (target: under {SOAK_TARGET_KIB:g})"
        if kib is not None
        else f"  slope {over}: too few hands to tell (play at least 3)"
    )
    return 0


async def _soak(hands: int, seed: int, ruleset_name: str) -> dict:
    profile = load_profile("sim")
    ruleset = load_ruleset(ruleset_name)
    samples: list[int] = []

    def each_tick(status) -> None:
        while status.counts["hands"] > len(samples):
            samples.append(resident_bytes())

    with (
        tempfile.TemporaryDirectory(prefix="mjtable-soak-") as folder,
        Journal(Path(folder) / "journal.sqlite") as journal,
    ):
        start, began = resident_bytes(), time.monotonic()
        await run_table(_run_args(hands, seed), profile, ruleset, journal, Path(folder), each_tick)
        seconds = time.monotonic() - began
    slope = last_half_slope(samples)
    return {
        "hands": len(samples),
        "seed": seed,
        "ruleset": ruleset.name,
        "seconds": round(seconds, 1),
        "rss_start_mib": round(start / MIB, 2),
        "rss_end_mib": round(samples[-1] / MIB, 2) if samples else None,
        "slope_hands": len(samples) - len(samples) // 2,
        "slope_kib_per_hand": None if slope is None else round(slope / 1024, 3),
        "target_kib_per_hand": SOAK_TARGET_KIB,
    }


def _run_args(hands: int, seed: int) -> argparse.Namespace:
    """`mjtable run --hands N --seed S --speed 10000 --port 0 --json-summary` on a new
    journal, as `mjtable run` reads its command line."""
    parser = argparse.ArgumentParser()
    run_command.add_parser(parser.add_subparsers())
    options = ["--hands", str(hands), "--seed", str(seed), "--speed", "10000", "--port", "0"]
    args = parser.parse_args(["run", *options, "--json-summary"])
    args.history = args.cut = args.uplink = None  # no session to go on with, no venue
    return args
