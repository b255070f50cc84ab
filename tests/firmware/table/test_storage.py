"""Issue 20 item 7: a full or failing disk stops refereeing, loudly (firmware/table/storage.py).

Every input is journaled before it is applied (DESIGN.md); a table whose journal cannot be
written must stop taking inputs, say on its screens that it is not refereeing and why, tell
systemd, and exit with a status of its own, never advise to "play on". Disks are faked: a
journal connection whose COMMIT and ROLLBACK raise "disk I/O error", an os.statvfs stub for
the free space, the table's clock set by the test; no disk is ever filled.
"""

import asyncio
import os
import random
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest

import firmware.run.cli
from drivers.reader_frames import Inventory, Stacked
from drivers.shuffler import WallsRaised, WallsReady
from engine import tiles
from engine.seats import zone
from firmware.cli import main
from firmware.desk.desk import Desk
from firmware.display import ActionRefused
from firmware.journal.failures import StorageFailure
from firmware.journal.replay import replay
from firmware.journal.store import Journal
from firmware.ports import free_port
from firmware.resources import load_ruleset
from firmware.table.actor import Actor
from firmware.table.profile import TABLES_DIR, ProfileError, load_profile
from firmware.table.service import Service
from firmware.table.storage import CHECK_SECONDS, EXIT_STATUS, DiskWatch
from firmware.table.walls import STACKER_WAIT
from firmware.table.watchdog import Notifier
from firmware.texts.notices import NOT_REFEREEING, fault_advice, fault_text
from tests.support.servicekit import Clock, StillShuffler, dealt_service, take_queued

SIM_TEXT = (TABLES_DIR / "sim.toml").read_text()


class FailingDisk:
    """A journal's connection on a disk that fails once `failing`: COMMIT raises "disk I/O
    error" (SQLite has rolled the transaction back, as it does on an I/O error), and the
    ROLLBACK after it raises `rollback`. With `inputs`, it starts failing at the write of
    the input after that many."""

    def __init__(self, conn, rollback="disk I/O error", inputs: int | None = None):
        self.conn, self.rollback, self.inputs = conn, rollback, inputs
        self.failing = False

    def execute(self, sql, *args):
        if self.failing and sql == "COMMIT":
            self.conn.execute("ROLLBACK")
            raise sqlite3.OperationalError("disk I/O error")
        if self.failing and sql == "ROLLBACK":
            raise sqlite3.OperationalError(self.rollback)
        return self.conn.execute(sql, *args)

    def executemany(self, sql, rows):
        rows = list(rows)
        if self.inputs is not None and any(row[1] == "input" for row in rows):
            self.failing = self.failing or self.inputs == 0
            self.inputs -= 1
        return self.conn.executemany(sql, rows)

    def __getattr__(self, name):
        return getattr(self.conn, name)


class Disk:
    """os.statvfs of a disk with `free_mb` free; counts the looks."""

    def __init__(self, free_mb: float):
        self.free_mb, self.looks = free_mb, 0

    def __call__(self, folder):
        self.looks += 1
        return SimpleNamespace(f_bavail=int(self.free_mb * 256), f_frsize=4096)


@pytest.fixture
def dealt(tmp_path):
    """A dealt hand, its desk, its clock, and East's tile half-way to his river (as in
    tests/firmware/table/test_actor.py): the zone reader's next sweep of the river completes the
    discard."""
    journal = Journal(tmp_path / "j.sqlite")
    clock = Clock()
    service = dealt_service(journal, clock)
    desk = Desk(service, "test table")
    side = service.hands.interpreter.side(0)
    antenna = {name: antenna for antenna, name in service.profile.zones.items()}
    tile = service.status().table.hands[0][-1]
    tag = {owner: tag for tag, owner in service.profile.tags.items()}[("A", tile)]
    river = Inventory(antenna[zone("river", side)], (tag,))
    service.hands.correct(clock.t, tile, zone("hand", side))
    for _ in range(service.hands.tracker.confirm - 1):  # all the discard's sightings but one
        service.actor.record(river)
        service.actor.record(Inventory(antenna[zone("hand", side)], ()))
    # and the rack's second sweep without it: its absence as sure as its presence (issue 32 item 8)
    service.actor.record(Inventory(antenna[zone("hand", side)], ()))
    take_queued(service)
    yield service, desk, clock, river
    journal.close()


def rows(service) -> list[tuple[str, str | None]]:
    return [(r.kind, r.data().get("type")) for r in service.journal.rows()]


def the_disk_fails(service, rollback="disk I/O error") -> None:
    service.journal.conn = FailingDisk(service.journal.conn, rollback)
    service.journal.conn.failing = True


@pytest.mark.parametrize(
    "rollback", ["disk I/O error", "cannot rollback - no transaction is active"]
)
def test_issue_20_item_7_a_failed_write_stops_refereeing_and_the_input_is_not_applied(
    dealt, rollback
):
    """A disk I/O error on COMMIT, then on the ROLLBACK (or SQLite's "cannot rollback"): one
    StorageFailure naming the first error; the discard is neither journaled nor applied, the
    actor is done, no "internal" fault says to play on, and the referee's and the public
    documents say the table is not refereeing, and why."""
    service, desk, _, river = dealt
    before = rows(service)
    pages = desk.subscribe(True), desk.subscribe(False)
    the_disk_fails(service, rollback)
    service.actor.record(river)
    take_queued(service)
    status = service.status()
    assert rows(service) == before and service.journal.seq == len(before)
    assert status.state == "discard" and not status.table.discards  # not applied
    assert service.actor.done.is_set()
    assert not any(f.device == "service" for f in status.faults)
    stopped = status.not_refereeing
    assert stopped.kind == "write error"
    assert stopped.why.endswith("could not be written: disk I/O error")  # the COMMIT's
    assert status.line() == f"NOT REFEREEING: {stopped.why}"
    referee, public = (page.get_nowait()["state"]["not_refereeing"] for page in pages)
    assert referee["message"] == stopped.why and "call the technician" in referee["advice"]
    assert public["message"] == NOT_REFEREEING["write error"] and "technician" in public["advice"]
    assert str(service.journal.path) not in str(public)
    assert not any(
        "play on" in page[key] for page in (referee, public) for key in ("message", "advice")
    )


def test_issue_20_item_7_the_failure_of_a_write_leaves_the_chain_as_it_was(tmp_path):
    """The journal's seq and head stay those of its last committed row, and the file holds
    exactly the rows committed before the failure: its chain verifies."""
    path = tmp_path / "j.sqlite"
    with Journal(path) as journal:
        journal.hand("wsom2006", 1, [[0] * 34] * 4, 0.0)
        seq, head = journal.seq, journal.head
        journal.conn = FailingDisk(journal.conn)
        journal.conn.failing = True
        with pytest.raises(StorageFailure, match="could not be written: disk I/O error"):
            journal.hand("wsom2006", 2, [[0] * 34] * 4, 1.0)
        assert (journal.seq, journal.head) == (seq, head)
    with Journal(path, create=False, readonly=True) as journal:
        assert journal.verify() is None and journal.seq == seq


def test_issue_20_item_7_a_fault_that_cannot_be_journaled_stops_the_table_without_recursion(
    dealt,
):
    """A bug in an item is a fault on the board, journaled; when that write fails too, the
    table stops (once) instead of the failure handler raising out of the actor."""
    service, _, _, _ = dealt
    the_disk_fails(service)

    async def a_bug():
        failing = service.actor.submit(lambda t: 1 / 0)
        take_queued(service)
        with pytest.raises(ZeroDivisionError):
            await failing

    asyncio.run(a_bug())
    assert service.actor.done.is_set() and service.status().not_refereeing.kind == "write error"


def test_issue_20_item_7_a_referees_action_on_a_failing_disk_is_refused_not_done(dealt):
    """The referee's pause cannot be journaled: it is refused saying the table is not
    refereeing, and the clocks do not stop."""
    service, desk, _, _ = dealt
    the_disk_fails(service)

    async def pause():
        answer = asyncio.ensure_future(desk.act("pause", {}))
        await asyncio.sleep(0)
        take_queued(service)
        return await answer

    with pytest.raises(ActionRefused, match="not done: the table is not refereeing"):
        asyncio.run(pause())
    assert service.status().table.clocks.paused_at is None


def test_issue_20_item_7_an_actor_whose_failure_handler_raises_stops(tmp_path):
    """Whatever ends the actor's loop ends the run: the process never stays up with its
    worker gone and nothing refereed."""
    actor = Actor(Clock())
    actor.record("frame")

    def failed(t, what, err):
        raise RuntimeError("the handler failed")

    with pytest.raises(RuntimeError):
        asyncio.run(actor.run(lambda t, item: 1 / 0, failed))
    assert actor.done.is_set()


# -- free space -----------------------------------------------------------------------------


def ticks(service, clock, seconds: float) -> None:
    clock.t += seconds
    service.actor.tick()
    take_queued(service)


def test_issue_20_item_7_low_space_is_a_fault_before_it_is_a_stop(dealt):
    """With [journal] min_free_mb = 100 (sim.toml): 150 MB free is a lasting fault on the
    referee's board, told once, cleared when there is room again; the table referees on. The
    disk is looked at every CHECK_SECONDS of table time on the actor's tick, not at every
    tick; under 100 MB the table stops: disk full, the free space and the key named."""
    service, _, clock, _ = dealt
    disk = service.disk.statvfs = Disk(150)
    ticks(service, clock, CHECK_SECONDS)
    ticks(service, clock, CHECK_SECONDS)
    low = [f for f in service.status().faults if f.device == "journal disk"]
    assert [(f.kind, f.cleared) for f in low] == [("low space", False)]
    assert "150 MB free" in low[0].message and "technician" in low[0].advice
    assert fault_text(low[0].to_json()) == "the table's disk is running out of space for its record"
    assert fault_advice(low[0].to_json()) == "the technician sees to the table's disk"
    disk.free_mb = 500
    ticks(service, clock, CHECK_SECONDS)
    assert service.status().faults[-1].cleared and service.status().not_refereeing is None
    disk.free_mb, looks = 40, disk.looks
    ticks(service, clock, CHECK_SECONDS / 2)
    assert disk.looks == looks and not service.actor.done.is_set()
    ticks(service, clock, CHECK_SECONDS / 2)
    stopped = service.status().not_refereeing
    assert stopped.kind == "disk full" and service.actor.done.is_set()
    assert "40 MB free" in stopped.why and "100 MB of [journal] min_free_mb" in stopped.why


def test_issue_20_item_7_a_full_disk_is_found_before_each_hand(tmp_path):
    """The walls rise on a full disk: the disk is looked at before the hand's row is
    journaled, so no hand begins; the table stops."""
    profile, ruleset = load_profile("sim"), load_ruleset("wsom2006")
    clock = Clock()
    with Journal(tmp_path / "j.sqlite") as journal:
        service = Service(profile, ruleset, journal, Actor(clock), StillShuffler(), out=print)
        disk = service.disk.statvfs = Disk(5000)
        tag = {owner: tag for tag, owner in profile.tags.items()}
        order = tiles.physical_set(False)
        random.Random(5).shuffle(order)
        for position, tile in enumerate(order):
            service.actor.record(Stacked(position, tag[("A", tile)]))
        service.actor.record(WallsReady(clock.t, "A", (34, 34, 34, 34), 60.0))
        ticks(service, clock, STACKER_WAIT)
        disk.free_mb = 20
        service.actor.record(WallsRaised(clock.t, "A"))
        take_queued(service)
        assert service.status().not_refereeing.kind == "disk full"
        assert service.status().table is None
        assert not any(row.kind == "hand" for row in journal.rows())  # no hand was begun


def test_issue_20_item_7_a_disk_that_cannot_be_looked_at_is_a_failing_disk(tmp_path):
    def broken(folder):
        raise OSError(5, "Input/output error")

    watch = DiskWatch(tmp_path / "j.sqlite", 100, None, broken)
    with pytest.raises(StorageFailure, match="cannot be read: Input/output error"):
        watch.check(0.0)


def test_issue_20_item_7_systemd_is_told_why_the_service_stops(tmp_path):
    """STOPPING=1 with the status line: `systemctl status` shows NOT REFEREEING and why."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as systemd:
        systemd.bind(str(tmp_path / "notify"))
        notifier = Notifier({"NOTIFY_SOCKET": str(tmp_path / "notify")})
        assert notifier.stopping("NOT REFEREEING: disk full: 40 MB free")
        assert systemd.recv(256) == b"STOPPING=1\nSTATUS=NOT REFEREEING: disk full: 40 MB free"


@pytest.mark.parametrize(
    "value, problem",
    [
        ("5", "expected a number from 10 to 1000000, got 5"),
        ('"lots"', "expected a number from 10 to 1000000, got 'lots'"),
    ],
)
def test_issue_20_item_7_min_free_mb_is_in_the_profile_with_its_range(tmp_path, value, problem):
    """[journal] min_free_mb is required (both shipped profiles have it) and in its range."""
    assert (
        load_profile("reference-pi").journal_min_free_mb >= load_profile("sim").journal_min_free_mb
    )
    path = tmp_path / "table.toml"
    (tmp_path / "sim-tags.csv").write_text((TABLES_DIR / "sim-tags.csv").read_text())
    path.write_text(SIM_TEXT.replace("min_free_mb = 100 ", f"min_free_mb = {value} ", 1))
    with pytest.raises(ProfileError, match=rf"\[journal\] min_free_mb: {problem}"):
        load_profile(path)


# -- end to end -----------------------------------------------------------------------------


def public_updates(port: int, into: list) -> None:
    """Every state document of the public stream, until the table's display stops."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with httpx.stream("GET", f"http://127.0.0.1:{port}/api/stream", timeout=30) as feed:
                for line in feed.iter_lines():
                    if line.startswith("data: "):
                        into.append(line)
                return
        except httpx.TransportError:
            time.sleep(0.02)


@pytest.mark.slow
def test_issue_20_item_7_mjtable_run_stops_mid_hand_on_a_failing_disk(
    capsys, tmp_path, monkeypatch
):
    """`mjtable run` on the simulated table, its journal's disk failing at the eighth input
    of the first hand: it exits with status 3 within seconds, saying NOT REFEREEING; its
    display told the public view so before it stopped; the journal holds the hand up to the
    failure, verifies and replays the same."""
    path, port, updates = tmp_path / "j.sqlite", free_port(), []

    class FailingMidHand(Journal):
        def __init__(self, journal_path):
            super().__init__(journal_path)
            self.conn = FailingDisk(self.conn, inputs=7)

    monkeypatch.setattr(firmware.run.cli, "Journal", FailingMidHand)
    reader = threading.Thread(target=public_updates, args=(port, updates), daemon=True)
    reader.start()
    began = time.monotonic()
    status = main(["run", "--port", str(port), "--speed", "20", "--journal", str(path)])
    took = time.monotonic() - began
    reader.join(timeout=10)
    out, err = capsys.readouterr()
    assert status == EXIT_STATUS == 3 and took < 20, err
    assert "Traceback" not in err and "NOT REFEREEING: the journal" in err
    assert "disk I/O error" in err and "NOT REFEREEING" in out
    last = httpx.Response(200, content=updates[-1][6:]).json()["state"]
    assert last["not_refereeing"]["message"] == NOT_REFEREEING["write error"]
    with Journal(path, create=False, readonly=True) as journal:
        assert journal.verify() is None
        kinds = [row.kind for row in journal.rows()]
        result = replay(journal)
    assert kinds.count("hand") == 1 and kinds.count("input") == 7
    assert result.mismatches == 0


@pytest.mark.slow
def test_issue_20_item_7_mjtable_run_on_a_full_disk_exits_3_before_any_hand(tmp_path):
    """A profile whose min_free_mb is more than the disk has free: the process (as systemd
    runs it) stops at its first look, before any hand, with status 3 and the reason."""
    folder = tmp_path / "table"
    folder.mkdir()
    (folder / "sim-tags.csv").write_text((TABLES_DIR / "sim-tags.csv").read_text())
    profile = folder / "table.toml"
    profile.write_text(SIM_TEXT.replace("min_free_mb = 100 ", "min_free_mb = 1000000 ", 1))
    stat = os.statvfs(tmp_path)
    if stat.f_bavail * stat.f_frsize >= 1_000_000 * 2**20:
        pytest.skip("this disk has a terabyte free")
    journal = tmp_path / "j.sqlite"
    argv = ["run", "--profile", str(profile), "--port", "0", "--journal", str(journal)]
    done = subprocess.run(
        [sys.executable, "-m", "firmware.cli", *argv],
        cwd=Path(__file__).resolve().parents[3],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == EXIT_STATUS, done.stderr
    assert "NOT REFEREEING: disk full" in done.stderr and "Traceback" not in done.stderr
    with Journal(journal, create=False, readonly=True) as j:
        assert not [row for row in j.rows() if row.kind == "hand"]
