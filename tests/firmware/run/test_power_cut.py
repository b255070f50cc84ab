"""Issue 14: a power cut loses nothing; the hand resumes where it lay.

`mjtable run` is killed with SIGKILL (a power cut: nothing is flushed, nothing is closed) at
each phase of a session and at random moments, and started again on the same journal; each
kill is scheduled by the run's progress (the console line of a phase, or a count of journal
rows committed: tests/support/powercut.py), never by seconds since its start, so a busy
machine moves no cut. Every
time the hand is taken up (never void), the journal replays with no mismatch, and at the end
the session is the game an uninterrupted run of the same seed plays: the same hands, inputs
and outputs in the same order (firmware/run/simulated.py `game_rows`: the clocks' pauses aside,
without table times) and the same totals. The simulated world is re-derived on each start by
playing the seed again up to the journal's last input (firmware/run/simulated.py `_rederive`).
"""

import http.cookiejar
import json
import random
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.session import Session
from firmware.cli import main
from firmware.journal.replay import replay
from firmware.journal.store import Journal
from firmware.ports import free_port
from firmware.run.simulated import game_rows
from tests.support.powercut import HANDS, command, finish, run_until

REPO = Path(__file__).resolve().parents[3]
# Each phase: a console line of the uninterrupted game that places it, and the line of a
# restarted run to kill it at (at once: a win's scoring and settlement follow its WINS line;
# a run started again after hand 1 is between hands until hand 2's walls rise).
PHASES = {
    "the shuffle of the other set and the dice": (r"hand \d: East sits", None),
    "the deal": (r"the deal$", None),
    "a turn": (r" draws$", None),
    "a claim window": (r" discards ", None),
    "a claim": (r" (chow|pung)s ", None),
    "a kong replacement": (r" kong", None),
    "a win's scoring and its settlement": (r" WINS ", None),
    "between hands": (r"hand 1 over", r"^resumed after hand 1:"),
}


def in_game_order(lines: list[str]) -> list[tuple[str, str]]:
    """The phases in the order the uninterrupted game meets them, each after the one
    before, with the line to kill each at: a restarted run prints only what comes after the
    cut, so each kill waits for the first such line of the new run."""
    order, at = [], -1
    pending = dict(PHASES)
    while pending:
        found = [
            (next((i for i in range(at + 1, len(lines)) if re.search(p, lines[i])), None), n)
            for n, (p, _) in pending.items()
        ]
        found = [(i, n) for i, n in found if i is not None]
        if not found:
            break
        at, name = min(found)
        placed, kill = pending.pop(name)
        order.append((name, kill or placed))
    return order


def uninterrupted(tmp_path: Path, seed: int, ruleset: str, capsys) -> tuple[list, list, list, int]:
    """The game, the totals, the console lines and the count of journal rows of the session
    played without a cut."""
    journal = tmp_path / f"whole-{ruleset}-{seed}.sqlite"
    options = ["run", "--port", "0", "--hands", HANDS, "--seed", str(seed), "--speed", "10000"]
    assert main([*options, "--ruleset", ruleset, "--journal", str(journal)]) == 0
    lines = capsys.readouterr().out.splitlines()
    with Journal(journal, readonly=True) as j:
        return game_rows(j), totals(replay(j)), lines, j.seq


def totals(result) -> list[int]:
    session = Session(result.played[0].table.ruleset)
    for hand in result.played:
        if not hand.voided:
            session.record(hand.table)
    return session.scores


def check_session(journal: Path, whole: list, scores: list, cuts: int) -> None:
    """The journal replays, no hand is void, the game and the totals are the whole run's."""
    with Journal(journal, readonly=True) as j:
        result = replay(j)
        rows = [(row.kind, row.data()) for row in j.rows()]
        game = game_rows(j)
    assert result.mismatches == 0, result.first and result.first.describe()
    voided = [d for kind, d in rows if kind == "device" and d["type"] == "HandVoided"]
    assert voided == [], voided  # issue 14: a hand is lost only by a referee's decision
    resumed = [d for kind, d in rows if kind == "device" and d.get("kind") == "interrupted"]
    assert cuts and [d for d in resumed if not d["cleared"]]  # hands were taken up
    assert game == whole  # nothing lost, nothing applied twice, the same game
    assert [p.number for p in result.played] == list(range(1, int(HANDS) + 1))
    assert totals(result) == scores


@pytest.mark.slow  # a session killed at every phase, both rule books, over ptys
# Seeds whose game meets every phase, a hand won just before the cut between hands (CCM's seed
# 3 no longer does since the simulated CCM players aim for fans, issue 13).
@pytest.mark.parametrize("ruleset,seed", [("wsom2006", 2), ("ccm2012", 6)])
def test_a_power_cut_at_each_phase_loses_nothing(ruleset, seed, tmp_path, capsys):
    """Issue 14: SIGKILL during the shuffle, the dice, the deal, a turn, a claim window, a
    kong replacement, a win's scoring, a settlement and between hands; each time the next
    start takes the hand up (not void), and the session ends as an uninterrupted one."""
    whole, scores, lines, _ = uninterrupted(tmp_path, seed, ruleset, capsys)
    phases = in_game_order(lines)
    assert len(phases) == len(PHASES), phases  # the seed's game has each phase
    journal = tmp_path / "cut.sqlite"
    cmd = command(journal, seed, ruleset)
    cuts, told = 0, []
    for phase, pattern in phases:
        killed, out = run_until(cmd, line=pattern)
        told.append(f"--- {phase}: {'killed' if killed else 'not met'}\n{out[-600:]}")
        cuts += killed
    finish(cmd)
    check_session(journal, whole, scores, cuts)
    assert cuts == len(PHASES), "\n".join(told)


@pytest.mark.slow
@pytest.mark.parametrize("ruleset,seed", [("wsom2006", 6), ("ccm2012", 8)])
def test_a_power_cut_at_random_moments_loses_nothing(ruleset, seed, tmp_path, capsys):
    """Issue 14: ten SIGKILLs at random moments (seeded) in each of two sessions, one per rule
    book: twenty in all; the session ends as an uninterrupted one. A moment is a count of
    journal rows committed, drawn from the first nine tenths of the uninterrupted session's
    (each start then commits one row at least before its cut)."""
    whole, scores, _, written = uninterrupted(tmp_path, seed, ruleset, capsys)
    journal = tmp_path / "cut.sqlite"
    cmd = command(journal, seed, ruleset)
    moments = random.Random(f"cuts-{ruleset}-{seed}")
    cuts = 0
    for rows in sorted(moments.sample(range(1, written * 9 // 10), 10)):
        killed, _ = run_until(cmd, rows=rows)
        cuts += killed
    assert cuts == 10  # every cut came before the session's end
    finish(cmd)
    check_session(journal, whole, scores, cuts)


@pytest.mark.slow
def test_the_referee_sees_the_resume_and_the_tile_moved_while_off(tmp_path, capsys):
    """Issue 14: started again with the display on, the referee's view says when the hand was
    cut and for how long, and lists the tile a player lifted while the table was off (its
    face, where the hand has it, that the readers do not see it) until it is put back; the
    public view says so without the tile. Play then goes on and the session is the same."""
    whole, scores, _, _ = uninterrupted(tmp_path, 2, "wsom2006", capsys)
    journal = tmp_path / "cut.sqlite"
    assert run_until(command(journal, 2, "wsom2006"), line=r" discards ", nth=3)[0]
    port = free_port()
    # At real time: the views are followed from the start, and the lifted tile is put back as
    # soon as it is listed, its listing a few sweeps long.
    cmd = command(journal, 2, "wsom2006", "1", "--faults", "moved=1")
    cmd[cmd.index("--port") + 1] = str(port)
    proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    referee: list = []
    public: list = []
    try:
        desk = Referee(port, proc)
        views = [
            threading.Thread(target=follow, args=(desk.states(stream), into))
            for stream, into in (("/api/referee/stream", referee), ("/api/stream", public))
        ]
        for view in views:
            view.start()
        for view in views:
            view.join()  # each update of both views until play goes on (or the table ended)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    shown = [r for r in referee if r]
    assert shown and re.fullmatch(
        r"hand 1 resumed after an interruption at \d\d:\d\d:\d\d \(\d+ s\)", shown[0]["line"]
    )
    listed = [r["displaced"] for r in shown if r["displaced"]]
    assert listed, shown
    assert listed[0][0]["seen"] == [] and listed[0][0]["expected"].startswith("hand_")
    assert listed[0][0]["face"]  # the referee is told which tile
    assert shown[-1]["displaced"] == [] and referee[-1] is None  # put back; play goes on
    told = [p for p in public if p]
    assert told and all(set(p) == {"line", "hand", "cut", "seconds", "out_of_place"} for p in told)
    assert any(p["out_of_place"] == 1 for p in told)
    finish(command(journal, 2, "wsom2006"))
    check_session(journal, whole, scores, 2)


def follow(states: Iterator[dict], into: list) -> None:
    """Each document's interruption into `into`, until one is shown and then cleared."""
    for state in states:
        into.append(state["interruption"])
        if into[-1] is None and any(into):
            return


class Referee:
    """The referee's browser: logged in with the shipped PIN, from the table's own origin."""

    def __init__(self, port: int, table: subprocess.Popen):
        """Logged in as soon as the starting `table` serves its display."""
        self.base = f"http://127.0.0.1:{port}"
        jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        while True:
            try:
                self.post("/api/referee/login", {"pin": "246810"})
                return
            except OSError:
                if table.poll() is not None:
                    raise  # it ended without serving
                time.sleep(0.05)  # between two tries: it is still starting

    def post(self, path: str, body: dict) -> dict:
        request = urllib.request.Request(
            self.base + path,
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json", "Origin": self.base},
        )
        with self.opener.open(request, timeout=5) as response:
            return json.loads(response.read())

    def states(self, stream: str) -> Iterator[dict]:
        """Each state document of the live `stream` as the table publishes it, the current one
        first (a page's view: every update, however busy the machine)."""
        with self.opener.open(self.base + stream) as response:
            for line in response:
                if line.startswith(b"data: "):
                    yield json.loads(line[len(b"data: ") :])["state"]


@pytest.mark.slow
def test_bench_resume_reports_the_start_up_time_and_the_journal_size():
    """Issue 14: `mjtable bench resume` times a start on a journal cut short in its last
    hand, from the process's start to refereeing again, with the journal's size, and the
    hand is taken up, not void (the figure is README's, never asserted)."""
    done = subprocess.run(
        [sys.executable, "-m", "firmware.cli", "bench", "resume", "--hands", "1", "--json"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["taken_up"] is True and result["hands_in_journal"] == 1
    assert result["journal_bytes"] > 0 and result["journal_rows"] > 0
    assert 0 < result["seconds_median"] <= result["seconds_max"]
