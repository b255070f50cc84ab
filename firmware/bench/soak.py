"""`mjtable bench soak`: memory over a long day (issue 20: a hall's table runs for days).

The simulated table plays `--hands` hands at top speed in this process, as `mjtable run
--speed 10000 --port P` does (the readers on ptys read by the production serial code, the
journal on disk), with its display served on loopback as every real table serves it, and
two pages reading it all along (issue 32 item 4): the referee's stream, logged in with the
profile's PIN, and the public one, each a real HTTP client in a thread of its own. The
process's resident memory is read at each hand's end. The figure is its least-squares slope
per hand over the last half of the hands, once start-up's allocations have settled (target:
under 5 KiB a hand). Figures for README, never asserted by tests.
"""

import argparse
import asyncio
import http.client
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path

from firmware.journal.store import Journal
from firmware.ports import free_port
from firmware.resources import load_ruleset
from firmware.run import cli as run_command
from firmware.run.table import run_table
from firmware.table.profile import load_profile

SOAK_TARGET_KIB = 5.0
MIB = 1 << 20
READ_PIECE = 1 << 14  # bytes a page reads at a time
READ_TIMEOUT = 60.0  # seconds a page waits for a line: the display pings every 15


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
    try:
        result = asyncio.run(_soak(args.hands, args.seed, args.ruleset))
    except SoakFailed as err:
        print(f"mjtable bench soak: {err}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(result))
        return 0
    print(
        f"{result['hands']} hands on the simulated table at top speed (seed {args.seed}, "
        f"{args.ruleset}) in {result['seconds']:.1f} s"
    )
    reads = ", ".join(f"{n} updates on {path}" for path, n in result["updates_read"].items())
    print(f"  the display served, its pages read {reads}")
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
    ruleset = load_ruleset(ruleset_name)
    samples: list[int] = []

    def each_tick(status) -> None:
        while status.counts["hands"] > len(samples):
            samples.append(resident_bytes())

    with (
        tempfile.TemporaryDirectory(prefix="mjtable-soak-") as folder,
        Journal(Path(folder) / "journal.sqlite") as journal,
    ):
        # the referees' session key in the scratch folder, not in the simulated table's own
        profile = replace(load_profile("sim"), data_dir=Path(folder))
        port = free_port(profile.host)  # the Rig's port 0 means no display
        played = threading.Event()
        pages = [
            Page(profile.host, port, "/api/referee/stream", profile.referee_pin, played),
            Page(profile.host, port, "/api/stream", None, played),
        ]
        for page in pages:
            page.start()
        start, began = resident_bytes(), time.monotonic()
        try:
            args = _run_args(hands, seed, port)
            await run_table(args, profile, ruleset, journal, Path(folder), each_tick)
        finally:
            played.set()
            seconds = time.monotonic() - began
            for page in pages:
                page.join(READ_TIMEOUT)
    for page in pages:
        if page.refused is not None or not page.updates:
            raise SoakFailed(f"{page.path}: {page.refused or 'no update read'}")
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
        "updates_read": {page.path: page.updates for page in pages},
    }


class SoakFailed(Exception):
    """The soak could not measure what it says (a page's stream refused); the message says why."""


class Page(threading.Thread):
    """One page reading an event stream of the display at host:port until the table has
    `played`: `pin` logs it in as the referee (a bearer, as a script does). It counts the
    updates it reads; `refused` says why the display would not serve it, or why the stream
    broke before the end."""

    def __init__(self, host: str, port: int, path: str, pin: str | None, played):
        super().__init__(daemon=True, name=f"soak page {path}")
        self.host, self.port, self.path, self.played = host, port, path, played
        self.headers = {"Accept": "text/event-stream"}
        if pin is not None:
            self.headers["Authorization"] = f"Bearer {pin}"
        self.updates = 0
        self.refused: str | None = None

    def run(self) -> None:
        while not self.played.is_set():  # until the display listens
            link = http.client.HTTPConnection(self.host, self.port, timeout=READ_TIMEOUT)
            try:
                link.request("GET", self.path, headers=self.headers)
            except ConnectionRefusedError:
                link.close()
                self.played.wait(0.05)
                continue
            try:
                self._read(link.getresponse())
            except (OSError, http.client.HTTPException) as err:
                self.refused = f"the stream broke after {self.updates} updates: {err!r}"
            finally:
                link.close()
            return

    def _read(self, stream: http.client.HTTPResponse) -> None:
        if stream.status != 200:
            self.refused = f"HTTP {stream.status}: {stream.read(500).decode(errors='replace')}"
            return
        # Read in pieces, not lines: a page is another device's memory, and a line (the
        # score sheet, a row a hand) read whole would grow this process's heap with the day.
        tail = b"\n"  # the stream's first line starts a line
        while piece := stream.read1(READ_PIECE):  # until the display stops its streams
            seen = tail + piece
            self.updates += seen.count(b"\ndata:")
            tail = seen[-5:]  # an event's start cut between two pieces is counted once


def _run_args(hands: int, seed: int, port: int) -> argparse.Namespace:
    """`mjtable run --hands N --seed S --speed 10000 --port P --json-summary` on a new
    journal, as `mjtable run` reads its command line."""
    parser = argparse.ArgumentParser()
    run_command.add_parser(parser.add_subparsers())
    options = ["--hands", str(hands), "--seed", str(seed), "--speed", "10000", "--port", str(port)]
    args = parser.parse_args(["run", *options, "--json-summary"])
    args.history = args.cut = args.uplink = None  # no session to go on with, no venue
    return args
