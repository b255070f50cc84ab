"""Issue 29: one composition for simulated and real devices. `mjtable run` builds the table
from its profile's device kinds (firmware/run/table.py); the simulated world is attached where
the simulated kinds are named. So systemd's notification and watchdog, the shuffler's retry,
the buttons and the faults are one code path: tried here on the simulated profile and on the
reference table's profile with its device sections switched to the simulated kinds (its
buttons still on the zone reader's board, as SeatButton frames).

systemd is stood in for by a datagram socket (the sd_notify protocol, SOFTWARE.md §7.2); the
run is stopped, as systemd stops it, by SIGTERM once a ping has said a hand is in play: the
table's progress, never a time, decides when.
"""

import asyncio
import json
import os
import re
import shutil
import signal
import socket
import threading
from pathlib import Path

import pytest

from drivers.reader_frames import SeatButton
from drivers.sim.clock import SimClock
from drivers.sim.pins import SimulatedGPIO
from firmware.cli import main
from firmware.desk.desk import Desk
from firmware.display import ActionRefused
from firmware.journal.store import Journal
from firmware.resources import load_ruleset
from firmware.table.profile import TABLES_DIR, load_profile
from firmware.table.service import assemble

# reference-pi.toml's lines switched to the simulated kinds (pattern, replacement, how many)
TO_SIM_KINDS = [
    (r"^simulated = false", "simulated = true", 1),
    (r'^kind = "rpi"', 'kind = "sim"', 1),
    (r'^kind = "serial"\npath = .*$', 'kind = "sim"', 2),  # both readers, on the world's ptys
    (r'^kind = "electronic"', 'kind = "physical"', 1),  # the dice the simulated players throw
    (r"^device_key = .*$", 'device_key = ""', 1),  # beside the test's journal
]
WAIT = 120  # seconds at most for systemd's next datagram: a bound on a hung run, no pacing


def reference_on_sim_kinds(folder: Path, retry_button: bool = True) -> Path:
    """config/tables/reference-pi.toml, its device sections' kinds switched to the simulated
    ones; without its retry button if not `retry_button`."""
    text = (TABLES_DIR / "reference-pi.toml").read_text()
    for pattern, replacement, count in TO_SIM_KINDS:
        text, made = re.subn(pattern, replacement, text, flags=re.MULTILINE)
        assert made == count, f"reference-pi.toml no longer has {pattern!r} {count} times"
    if not retry_button:
        text, made = re.subn(r"^shuffler_retry = .*$", "", text, flags=re.MULTILINE)
        assert made == 1
    shutil.copy(TABLES_DIR / "sim-tags.csv", folder)
    path = folder / "reference-sim.toml"
    path.write_text(text)
    profile = load_profile(path)
    assert profile.kinds["buttons"] == "zone_reader" and profile.ruleset == "ccm2012"
    return path


def notified_run(tmp_path: Path, monkeypatch, profile: str) -> tuple[int, list[bytes]]:
    """`mjtable run --profile P` under a stand-in for systemd with a watchdog of 20 ms (a ping
    every 10 ms of real time); stopped by SIGTERM once a ping says a hand is in play.
    (exit status, the datagrams in order)."""
    address = tmp_path / "notify"
    systemd = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    systemd.bind(str(address))
    systemd.settimeout(WAIT)
    monkeypatch.setenv("NOTIFY_SOCKET", str(address))
    monkeypatch.setenv("WATCHDOG_USEC", "20000")
    received: list[bytes] = []

    def listen() -> None:
        stopped = False
        while True:
            try:
                message = systemd.recv(4096)
            except TimeoutError:
                return
            received.append(message)
            if message.startswith(b"STOPPING=1"):
                return
            if not stopped and re.match(rb"WATCHDOG=1\nSTATUS=hand \d+: ", message):
                stopped = True  # as `systemctl stop`: the run's own handler takes it
                os.kill(os.getpid(), signal.SIGTERM)

    listener = threading.Thread(target=listen)
    listener.start()
    journal = tmp_path / "journal.sqlite"
    try:
        status = main(
            ["run", "--profile", profile, "--port", "0", "--journal", str(journal)]
            + ["--speed", "10000", "--json-summary"]
        )
    finally:
        listener.join(WAIT + 1)
        systemd.close()
    return status, received


@pytest.mark.slow  # a whole table over ptys, each
@pytest.mark.parametrize("name", ["sim", "reference on the simulated kinds"])
def test_systemd_is_told_ready_and_alive_by_either_composition(name, tmp_path, monkeypatch):
    """Issue 29: installed under systemd with the simulated profile, the service never said
    READY=1 and was killed every 90 s. Now either profile's composition says READY=1 once its
    devices are up, WATCHDOG=1 while it referees a hand, and STOPPING=1 when stopped."""
    profile = "sim" if name == "sim" else str(reference_on_sim_kinds(tmp_path))
    status, received = notified_run(tmp_path, monkeypatch, profile)
    assert status == 0
    assert received[0].startswith(b"READY=1\nSTATUS="), received[:1]
    pings = [m for m in received if m.startswith(b"WATCHDOG=1\nSTATUS=")]
    assert any(re.match(rb"WATCHDOG=1\nSTATUS=hand 1: ", ping) for ping in pings)
    assert received[-1].startswith(b"STOPPING=1\nSTATUS=")
    assert not any(m.startswith(b"READY=1") for m in received[1:])


def journal_rows(path: Path) -> list[dict]:
    with Journal(path, create=False) as journal:
        return [row.data() for row in journal.rows() if row.kind == "device"]


@pytest.mark.slow  # a whole table over ptys
def test_a_jam_at_the_reference_table_is_retried_by_its_seat_button(tmp_path, capsys):
    """Issue 29: a real table's "press retry" had no input. On the reference table's
    composition the technician clears the jam and presses the button the profile names
    (East's referee button, a SeatButton frame from the zone reader's board): the cycle
    starts again, the retry is journaled with who asked, the jam clears, the hand is played
    and no call for the referee was made of the press (the technician presses once, and
    waits for the machine to take it)."""
    journal = tmp_path / "journal.sqlite"
    profile = str(reference_on_sim_kinds(tmp_path))
    options = ["--profile", profile, "--hands", "1", "--faults", "jam=1", "--seed", "2"]
    status = main(
        ["run", "--port", "0", "--journal", str(journal), "--speed", "10000", "--json-summary"]
        + options
    )
    out, err = capsys.readouterr()
    assert status == 0, err
    summary = json.loads(out.strip().splitlines()[-1])
    assert summary["hands"] == 1 and summary["faults_detected"]["jam"] == 1
    rows = journal_rows(journal)
    jam = next(r for r in rows if r["type"] == "Fault" and r["kind"] == "jam")
    retried = [r for r in rows if r["type"] == "ShufflerRetried"]
    # once a fault: a busy machine may see one more (a stacker read cut short: walls rejected)
    faults = [r for r in rows if r["type"] == "Fault" and r["device"] == "shuffler"]
    assert len(retried) == len([f for f in faults if not f["cleared"]]), retried
    (retry,) = [r for r in retried if r["fault"] == "jam"]  # pressed once
    cleared = next(r for r in faults if r["cleared"] and r["id"] == jam["id"])
    assert (retry["by"], retry["seat"]) == ("East referee", None)
    assert jam["t"] < retry["t"] < cleared["t"]
    assert not [r for r in rows if r["type"] == "Fault" and r["kind"] == "referee"]


async def _reference_table(tmp_path: Path):
    """The reference table's service and desk as `mjtable run` assembles them, on the
    simulated pins and a fake clock; its readers are built, never started."""
    path = reference_on_sim_kinds(tmp_path)
    profile = load_profile(path)
    clock = SimClock()
    journal = Journal(tmp_path / "journal.sqlite")
    links = (str(tmp_path / "zones"), str(tmp_path / "stacker"))
    service, devices = assemble(
        profile, load_ruleset(profile.ruleset), journal, clock, asyncio.get_running_loop(),
        lambda line: None,
        gpio=SimulatedGPIO(), reader_paths=links,
    )  # fmt: skip
    return service, devices.shuffler, Desk(service, profile.name), clock, journal


async def _fault(service, shuffler, clock) -> dict:
    """The centre never closes after the drop: past the drop timeout, a shuffler fault."""
    clock.t += shuffler.timing.drop_timeout + 1
    service.actor.tick()
    await service.actor.submit(lambda t: None)  # every record before it taken
    assert shuffler.state == "fault"
    return shuffler.fault


def test_the_desk_and_the_seat_button_retry_the_shuffler_journaled(tmp_path):
    """Issue 29: the referee's desk has a retry for a shuffler fault, and so has the side's
    button the reference profile names; each starts the cycle again and is journaled with
    who asked (the desk's followed by its RefereeActed). Without a fault the desk's retry is
    refused, saying why, and the button keeps its own meaning (a call for the referee)."""

    async def scenario() -> list[dict]:
        service, shuffler, desk, clock, journal = await _reference_table(tmp_path)
        worker = asyncio.create_task(service.run())
        shuffler.start(clock())
        with pytest.raises(ActionRefused, match="no fault to retry"):
            await desk.act("retry", {})
        fault = await _fault(service, shuffler, clock)
        assert await desk.act("retry", {}) == {"done": "retry"}
        assert shuffler.state == "dropping"
        await _fault(service, shuffler, clock)
        service.actor.record(SeatButton(0, "referee"))  # East's, from the reader's board
        await service.actor.submit(lambda t: None)
        assert shuffler.state == "dropping"
        service.actor.record(SeatButton(0, "referee"))  # no fault now: a call
        await service.actor.submit(lambda t: None)
        worker.cancel()  # as the run stops it
        rows = journal_rows(journal.path)
        journal.close()
        assert fault.kind == "timeout"
        return rows

    rows = asyncio.run(scenario())
    kept = [
        (r["type"], r.get("by") or r.get("action") or r.get("kind"))
        for r in rows
        if r["type"] in ("ShufflerRetried", "RefereeActed", "Fault")
    ]
    assert kept == [
        ("Fault", "timeout"),
        ("ShufflerRetried", "desk"),
        ("RefereeActed", "retry"),
        ("ShufflerRetried", "East referee"),  # the fault again: still the open one, told once
        ("Fault", "referee"),
    ]


@pytest.mark.parametrize(
    "old, new, named",
    [
        ('kind = "sim"                  # RPi', 'kind = "rpi"  # RPi', "[gpio] kind = 'rpi'"),
        ('kind = "physical"', 'kind = "electronic"', "[dice] kind = 'electronic'"),
    ],
)
def test_a_simulated_table_on_kinds_its_world_cannot_drive_is_refused(
    old, new, named, tmp_path, capsys
):
    """Issue 29: the simulated world is attached where the profile names the simulated kinds;
    a simulated table naming a real kind (pins it cannot drive, dice its players cannot
    throw) is refused at start, naming the section and the kind (it ran on simulated pins
    whatever [gpio] said)."""
    path = reference_on_sim_kinds(tmp_path)
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    journal = tmp_path / "journal.sqlite"
    assert main(["run", "--profile", str(path), "--port", "0", "--journal", str(journal)]) == 2
    err = capsys.readouterr().err
    assert f"{path}: a simulated table" in err and f"not {named}" in err
    assert "Traceback" not in err
