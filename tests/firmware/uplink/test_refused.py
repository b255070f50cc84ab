"""Issue 36 item 5, "Refusals are seen": the uplink speaks MQTT 5, so a publish the venue's
broker refuses comes back as a reason code (Mosquitto 2: PUBACK 0x87 Not authorized for a
QoS 1 publish its ACL denies) and the table raises a fault for the referee and the venue,
never a silent loss; the journal's cursor does not move past a refused row.

Through a real Mosquitto started with deploy/mosquitto's shipped config (TLS, per-table
users, tests/support/shipped.py), its ACL narrowed by one line of the shipped one.
"""

import asyncio
import json
import logging
import subprocess
import sys
import threading
import time

import paho.mqtt.client as mqtt
import pytest

from engine import events as ev
from firmware.journal.store import Journal
from firmware.uplink import client as uplink_client
from firmware.uplink.client import Uplink
from tests.support.shipped import MOSQUITTO, VENUE_PASSWORD, shipped, table_profile
from tests.support.uplinkkit import identity
from tests.support.venuekit import VENUE

TABLE = "T9"
REPO = MOSQUITTO.parents[1]


def narrowed(folder, leaf: str) -> None:
    """The shipped ACL without the line that lets a table write its `leaf`."""
    line = f"pattern write mjtable/+/table/%u/{leaf}\n"
    acl = (MOSQUITTO / "acl").read_text()
    assert line in acl
    (folder / "acl").write_text(acl.replace(line, ""))


class Events:
    """The venue's user on its loopback listener, keeping the table's journal rows."""

    def __init__(self, port: int):
        self.rows: list[dict] = []
        self.lock = threading.Lock()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="venue")
        self.client.username_pw_set("venue", VENUE_PASSWORD)
        self.client.on_message = self._take
        self.client.on_connect = lambda c, *_: c.subscribe(
            f"mjtable/{VENUE}/table/{TABLE}/events", 1
        )
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    def _take(self, client, userdata, message) -> None:
        with self.lock:
            self.rows += json.loads(message.payload)["rows"]

    def faults(self) -> list[dict]:
        """Each Fault row once (a row may come twice: the venue drops it by its seq)."""
        with self.lock:
            rows = {r["seq"]: r["event"] for r in self.rows}
        return [event for event in rows.values() if event.get("type") == "Fault"]

    def close(self) -> None:
        self.client.disconnect()  # first: it wakes the network thread, which then ends
        self.client.loop_stop()


@pytest.mark.slow  # a table started as `mjtable run`, over the broker
def test_issue_36_item_5_a_refused_sheet_raises_the_table_s_fault(reachable):
    """The venue's ACL lacks the table's `sheet`: a table run through the shipped broker is
    told so by the broker (MQTT 5) and says it, once, as a fault on its referee's board
    (journaled) that the venue receives with the rows; the rows themselves go up."""
    kit = shipped(reachable, TABLE)
    narrowed(reachable, "sheet")
    profile = table_profile(reachable, TABLE, kit.tls_port)
    broker = kit.broker.start()
    venue = Events(broker.port)
    journal = reachable / "j.sqlite"
    try:
        cmd = [sys.executable, "-m", "firmware.cli", "run", "--profile", str(profile)]
        cmd += [
            "--port",
            "0",
            "--journal",
            str(journal),
            "--seed",
            "1",
            "--hands",
            "1",
            "--speed",
            "1000",
        ]
        done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        deadline = time.monotonic() + 60  # the rows the table published before it ended
        while not venue.faults() and time.monotonic() < deadline:
            time.sleep(0.1)
        told = [(f["device"], f["kind"], f["message"]) for f in venue.faults()]
        assert told == [
            ("uplink", "refused sheet", "the venue's broker refuses the table's score sheet")
        ]
    finally:
        venue.close()
        broker.stop()
    said = ("uplink", "refused sheet", "the venue's broker refuses my sheet: not authorised")
    with Journal(journal, readonly=True) as read:
        faults = [r.event() for r in read.rows() if r.kind == "device"]
        last, cursor = read.seq, read.uplink_seq()
    faults = [f for f in faults if isinstance(f, ev.Fault) and f.device == "uplink"]
    assert [(f.device, f.kind, f.message) for f in faults] == [said]
    assert "deploy/mosquitto/acl" in faults[0].advice
    assert cursor == last  # the rows, not refused, all went up: the sheet held none back


def test_issue_36_item_5_a_refused_row_leaves_the_cursor_where_it_was(
    reachable, caplog, monkeypatch
):
    """The venue's ACL lacks the table's `events`: its rows are refused, the journal's
    cursor stays at 0 (they wait in the journal), and the refusal is told once though the
    uplink tries again (its log says the broker is back twice: the second after the first
    try again was refused too)."""
    kit = shipped(reachable, TABLE)
    narrowed(reachable, "events")
    broker = kit.broker.start()
    path = reachable / "j.sqlite"
    told: list[tuple[str, str]] = []
    caplog.set_level(logging.WARNING, "mjtable.uplink")
    monkeypatch.setattr(uplink_client, "RETRY_FIRST", 0.05)  # tries again, not 1.5 s apart

    async def uplink_until_told(journal: Journal) -> None:
        tell = lambda *refused: told.append(refused)  # noqa: E731
        uplink = Uplink(kit.settings, journal, TABLE, lambda: {}, identity(path), None, tell)
        running = asyncio.create_task(uplink.run())
        async with asyncio.timeout(120):  # the broker's refusal, then two tries again
            while caplog.text.count("is back") < 2:
                await asyncio.sleep(0.05)
        uplink.close()
        await asyncio.wait_for(running, 30)

    try:
        with Journal(path) as journal:
            journal.record(ev.PlayersEntered(0.0, None, ({"name": "A", "federation_id": None},)))
            asyncio.run(uplink_until_told(journal))
            assert journal.uplink_seq() == 0 < journal.seq
    finally:
        broker.stop()
    assert told == [("events", "the venue's broker refuses my events: not authorised")]
