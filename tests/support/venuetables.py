"""The hall's tables for the venue's browser tests: a paho client that publishes what the
tables say (tests/support/venuekit.py's messages) and collects the commands the venue sends
them."""

import json
import queue
import time

import paho.mqtt.client as mqtt

from tests.support.venuekit import VENUE, topic


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
        self.client.loop_stop()
        self.client.disconnect()
