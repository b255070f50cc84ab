"""The hall's tables for the venue's browser tests: a paho client that publishes what the
tables say (tests/support/venuekit.py's messages) and collects the commands the venue sends
them."""

import json
import queue
import re
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import httpx
import paho.mqtt.client as mqtt

from tests.conftest import REPO
from tests.support.venuekeys import private_pem
from tests.support.venuekit import KEY, PIN, VENUE, topic

START_SECONDS = 60  # for `mjtable venue` to serve and hear the hall, on a busy machine


class Tables:
    """The hall's tables on the broker (paho), and the commands the venue sends them."""

    def __init__(self, port: int):
        self.commands: queue.Queue = queue.Queue()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="test-tables")
        self.client.on_message = lambda _c, _u, m: self.commands.put((m.topic, m.payload))
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()
        for cmd in (f"mjtable/{VENUE}/table/+/cmd", f"mjtable/{VENUE}/cmd"):
            self.client.subscribe(cmd, qos=1)

    def send(self, table: str, leaf: str, body: dict, retain: bool = False) -> None:
        self.client.publish(topic(table, leaf), json.dumps(body), qos=1, retain=retain)

    def flush(self) -> None:
        """Waits until the broker has every message sent so far."""
        self.client.publish("mjtable/test/flush", b"", qos=1).wait_for_publish(10)

    def command(self, wanted: str, seconds: float = 5.0) -> tuple[str, dict]:
        """The next command named `wanted` the venue sent (topic, command). The others pass:
        the venue asks these tables for the rows their states name and they never sent
        (issue 32 item 5: `resend`)."""
        deadline = time.monotonic() + seconds
        while True:
            name, payload = self.commands.get(timeout=max(0.0, deadline - time.monotonic()))
            command = json.loads(payload)
            if command["command"] == wanted:
                return name, command

    def close(self) -> None:
        self.client.disconnect()  # first: it wakes the network thread, which then ends
        self.client.loop_stop()


@contextmanager
def dashboard(folder: Path, broker_address: str, tables: int, *options: str):
    """`mjtable venue` on the broker with the organiser's PIN and the venue's key written in
    `folder`, and `options`: yields its base URL once it serves and has heard `tables`
    tables; stopped after."""
    (folder / "pin").write_text(PIN + "\n")
    (folder / "key").write_bytes(private_pem(KEY))
    output = folder / "venue.txt"
    command = [sys.executable, "-m", "firmware.cli", "venue", "--broker", broker_address]
    command += ["--venue", VENUE, "--port", "0", "--organiser-pin-file", str(folder / "pin")]
    command += ["--key-file", str(folder / "key"), *options]
    with open(output, "w") as out:
        venue = subprocess.Popen(command, cwd=REPO, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + START_SECONDS
        while not (found := re.search(r"venue dashboard: (http://\S+)/ ", output.read_text())):
            assert venue.poll() is None, "mjtable venue ended:\n" + output.read_text()
            assert time.monotonic() < deadline, (
                "mjtable venue did not serve:\n" + output.read_text()
            )
            time.sleep(0.05)
        base = found[1]
        while len(httpx.get(f"{base}/api/board", timeout=5).json()["tables"]) < tables:
            assert time.monotonic() < deadline, "the venue did not hear every table"
            time.sleep(0.1)
        yield base
    finally:
        venue.terminate()
        venue.wait(10)
