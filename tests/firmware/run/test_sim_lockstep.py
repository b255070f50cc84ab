"""Issue 32 item 8: a seed plays one game, however busy the machine.

The fault campaign's figures (tests/firmware/desk/test_resync.py) changed from run to run on a
loaded machine: the simulated world ran ahead of the service by up to half a second, so each
reader frame was stamped with whatever table time it arrived at and the world's players, who
look at the table's display, acted on a table that was more or less behind. The world now
goes in lockstep with the service (firmware/run/simulated.py). Here the zone reader's thread
is slowed at random, as a busy machine slows it; the table must journal the same inputs and
outputs at the same table times as when it is not.
"""

import argparse
import asyncio
import random
import time
from pathlib import Path

import pytest

from drivers.readers import Reader
from firmware.resources import load_ruleset
from firmware.run.cli import add_parser
from firmware.run.rig import Rig
from firmware.run.simulated import Simulation, _Rederiving
from firmware.table.profile import load_profile

STEPS = 120  # hands and inputs journaled: the walls, the dice, the deal and the first turns
FAULTS = "drop=0.2,ghost=0.05"


def _args(seed: int) -> argparse.Namespace:
    """`mjtable run --seed S --faults FAULTS`, no display, no venue, no session before."""
    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers())
    args = parser.parse_args(["run", "--seed", str(seed), "--faults", FAULTS, "--json-summary"])
    args.port, args.history, args.cut, args.uplink = 0, None, None, None
    return args


async def _played(folder: Path, seed: int) -> list[tuple[str, dict]]:
    """The inputs and outputs, with their table times, of the first STEPS of a simulated
    session at --speed 10000."""
    args, profile = _args(seed), load_profile("sim")
    ruleset = load_ruleset(profile.ruleset)
    simulation = Simulation(args, profile, ruleset, folder)
    journal = _Rederiving(folder / "journal.sqlite", STEPS)
    loop = asyncio.get_running_loop()
    rig = Rig(args, profile, ruleset, journal, simulation.clock, loop, simulation)
    journal.stop = rig.service.actor.done.set
    try:
        simulation.attach(rig)
        rig.shuffler.start(0.0)
        await simulation.play(rig, 10000.0)
    finally:
        await rig.stop()
        simulation.close()
    rows = [(r.kind, r.data()) for r in journal.rows() if r.kind in ("input", "output")]
    journal.close()
    return rows


@pytest.fixture
def slowed(monkeypatch):
    """Slow the readers' threads at random (0 to 3 ms before each record is handed on), as a
    machine running other work does: `slowed(True)`."""
    emit = Reader._emit
    rng = random.Random(32)

    def jittered(self, record):
        time.sleep(rng.uniform(0, 0.003))  # a busy machine, not a timing under test
        emit(self, record)

    def slow(on: bool) -> None:
        if on:
            monkeypatch.setattr(Reader, "_emit", jittered)
        else:
            monkeypatch.setattr(Reader, "_emit", emit)

    return slow


@pytest.mark.slow  # two sessions over ptys, one's 9 000 reader records each really slept on: 15 s+
def test_issue_32_item_8_a_seed_plays_the_same_game_with_its_readers_slowed(tmp_path, slowed):
    """The same seed, its reads dropped and ghosted, once as it comes and once with the
    readers' threads slowed at random: every input and output alike, at the same table time
    (before, the frames were stamped when they arrived, the world half a second ahead)."""
    plain = asyncio.run(_played(tmp_path / "plain", 3))
    slowed(True)
    slow = asyncio.run(_played(tmp_path / "slow", 3))
    assert len(plain) >= STEPS
    assert slow == plain
