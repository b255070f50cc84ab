"""`mjtable bench resume`: from process start to refereeing again after a power cut.

A session of `--hands` hands is played on the simulated table at top speed and killed with
SIGKILL in the middle of the next hand. Then, on a fresh copy of that journal each time, a
new process does what `mjtable run` does before the table referees again: it loads the
profile and the rule book, opens the journal, replays it, builds the service and takes the
hand up (firmware/table/resume.py), and its actor carries out a first action. The time from
starting that process to that first action is reported, with the journal's size. The
simulated world's own re-derivation (firmware/run/simulated.py) is the simulation's cost, not
the table's, and is not in the figure.
"""

import asyncio
import json
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROUNDS = 5


def run(args) -> int:
    hands = args.hands
    with tempfile.TemporaryDirectory(prefix="mjtable-bench-resume-") as folder:
        cut = Path(folder) / "cut.sqlite"
        if not _cut_session(cut, hands, args.seed):
            print(f"mjtable bench resume: hand {hands + 1} never started", file=sys.stderr)
            return 1
        size = sum(p.stat().st_size for p in Path(folder).glob("cut.sqlite*"))
        seconds, answer = [], {}
        for n in range(ROUNDS):
            copy = Path(folder) / f"copy{n}.sqlite"
            for suffix in ("", "-wal"):
                if Path(f"{cut}{suffix}").exists():
                    shutil.copyfile(f"{cut}{suffix}", f"{copy}{suffix}")
            began = time.monotonic()
            done = subprocess.run(
                [sys.executable, "-m", "firmware.bench.resume", str(copy)],
                capture_output=True,
                text=True,
                timeout=120,
            )
            if done.returncode != 0:
                print(f"mjtable bench resume: {done.stderr.strip()}", file=sys.stderr)
                return 1
            answer = json.loads(done.stdout)
            seconds.append(answer.pop("refereeing") - began)
    result = {
        "hands_in_journal": hands,
        "journal_bytes": size,
        "journal_rows": answer["rows"],
        "taken_up": answer["taken_up"],
        "seconds_median": round(statistics.median(seconds), 3),
        "seconds_max": round(max(seconds), 3),
        "rounds": ROUNDS,
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"resume after a power cut: journal of {hands} hands + one cut short, "
            f"{size / 1e6:.2f} MB, {answer['rows']} rows; process start to refereeing "
            f"again: median {result['seconds_median']:.2f} s, max {result['seconds_max']:.2f} s "
            f"over {ROUNDS} starts; hand taken up: {answer['taken_up']}"
        )
    return 0


def _cut_session(journal: Path, hands: int, seed: int) -> bool:
    """Play `hands` hands, then SIGKILL the table at the fourth discard of the next one."""
    cmd = [sys.executable, "-m", "firmware.cli", "run", "--hands", str(hands + 1)]
    cmd += ["--speed", "10000", "--port", "0", "--seed", str(seed), "--journal", str(journal)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    started, discards = re.compile(rf"hand {hands + 1}: East sits"), 0
    in_hand = False
    assert proc.stdout is not None
    for line in proc.stdout:
        in_hand = in_hand or bool(started.search(line))
        discards += in_hand and " discards " in line
        if discards >= 4:
            proc.send_signal(signal.SIGKILL)
            break
    proc.wait()
    return discards >= 4


def _take_up(path: str) -> dict:
    """What `mjtable run` does before it referees again, on the simulated profile."""
    from drivers.sim.pins import SimulatedGPIO
    from firmware.journal.replay import replay
    from firmware.journal.store import Journal, last_written
    from firmware.resources import load_ruleset
    from firmware.table.profile import load_profile
    from firmware.table.service import assemble

    profile = load_profile("sim")
    ruleset = load_ruleset(profile.ruleset)
    cut = last_written(path)
    journal = Journal(path)
    replayed = replay(journal)

    async def referee() -> dict:
        began = time.monotonic() - replayed.last_t
        loop = asyncio.get_running_loop()
        paths = ("/dev/null/zones", "/dev/null/stacker")  # built, never started
        service, _ = assemble(
            profile,
            ruleset,
            journal,
            lambda: time.monotonic() - began,
            loop,
            lambda line: None,
            None,
            SimulatedGPIO(),
            paths,
        )
        service.resume(replayed.last_t, replayed, cut)
        worker = asyncio.create_task(service.run())
        await service.actor.submit(lambda t: None)  # the actor takes items: refereeing
        refereeing = time.monotonic()
        worker.cancel()
        return {
            "refereeing": refereeing,
            "rows": journal.seq,
            "taken_up": service.status().interruption is not None,
        }

    try:
        return asyncio.run(referee())
    finally:
        journal.close()


if __name__ == "__main__":
    print(json.dumps(_take_up(sys.argv[1])))
