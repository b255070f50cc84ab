"""The venue's side of the uplink's tests (issue 15): a paho client subscribed to every table's
topics, keeping each message as it arrives, and the payload fields that name tiles."""

import json
import threading
import time
from pathlib import Path

import paho.mqtt.client as mqtt

from firmware.resources import ruleset_path
from firmware.table.profile import TABLES_DIR
from firmware.uplink.identity import Identity
from tests.support.venuekit import VENUE

TABLE = "sim-1"


# Fields that name tiles, in any payload: the ids under them are checked against the truth.
TILE_FIELDS = {"tile", "tiles", "hand", "hands", "wall", "walls", "melds", "rivers"}
TILE_FIELDS |= {"win_tile", "claimed_tile", "penalty_tiles"}


def identity(journal: Path) -> Identity:
    """The identity of a table run in-process: no profile, no device key, the WSOM rule
    book, its birth count beside `journal`."""
    return Identity(
        profile=None,
        rules=ruleset_path("wsom2006"),
        key_fingerprint=None,
        journal=journal,
        births=Path(journal).with_suffix(".birth"),
    )


UPLINK = """
[uplink]
host = "127.0.0.1"
port = {port}
tls = false
ca_file = ""
user = ""
password_file = ""
venue = "{venue}"
key_file = ""
keepalive_seconds = {keepalive}
home_assistant = {home_assistant}
"""


def table_profile(
    folder: Path,
    port: int,
    keepalive: int = 2,
    key: bytes = b"",
    name: str = TABLE,
    home_assistant: bool = False,
) -> Path:
    """sim.toml, its table named `name`, with an [uplink] to the anonymous broker on `port`
    (and the venue's public `key` file's bytes, if any; Home Assistant's discovery if asked)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sim-tags.csv").write_text((TABLES_DIR / "sim-tags.csv").read_text())
    path = folder / "table.toml"
    uplink = UPLINK.format(
        port=port, venue=VENUE, keepalive=keepalive, home_assistant=str(home_assistant).lower()
    )
    if key:
        (folder / "venue.pub").write_bytes(key)
        uplink = uplink.replace('key_file = ""', 'key_file = "venue.pub"')
    shipped = (TABLES_DIR / "sim.toml").read_text()
    path.write_text(shipped.replace(f'name = "{TABLE}"', f'name = "{name}"', 1) + uplink)
    return path


class Venue:
    """The venue's side: a persistent paho session on every table's topics, keeping each
    message as it arrives (arrival time, topic, body, retained)."""

    def __init__(self, port: int):
        self.messages: list[tuple[float, str, dict, bool]] = []
        self.lock, self.subscribed = threading.Lock(), threading.Event()
        client = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2, client_id="the-venue", clean_session=False
        )
        client.on_connect = lambda c, *_: c.subscribe(f"mjtable/{VENUE}/table/+/#", 1)
        client.on_subscribe = lambda *_: self.subscribed.set()
        client.on_message = self._take
        client.reconnect_delay_set(0.05, 0.2)
        client.connect("127.0.0.1", port, keepalive=5)
        client.loop_start()
        assert self.subscribed.wait(5)
        self.client = client

    def _take(self, client, userdata, message) -> None:
        """Each message as it came; an `events` message as one body a row (its envelope with
        the row's seq, kind and event), as the venue takes them."""
        body = json.loads(message.payload)
        if message.topic.endswith("/events"):
            envelope = {k: v for k, v in body.items() if k != "rows"}
            bodies = [envelope | row for row in body["rows"]]
        else:
            bodies = [body]
        with self.lock:
            self.messages.extend(
                (time.monotonic(), message.topic, b, message.retain) for b in bodies
            )

    def bodies(self, leaf: str, since: int = 0) -> list[dict]:
        with self.lock:
            return [m[2] for m in self.messages[since:] if m[1].endswith(f"/{leaf}")]

    def seqs(self) -> set[int]:
        return {body["seq"] for body in self.bodies("events")}

    def offline(self) -> bool:
        """The table's latest status is offline: it stopped (or died), its last words out."""
        statuses = self.bodies("status")
        return bool(statuses) and statuses[-1]["status"] == "offline"

    def wait(self, done, seconds: float = 60) -> None:
        """Until `done()`; the bound only ends a wait for what never comes (a busy machine
        makes it later, never wrong), unless a test gives the seconds it checks."""
        deadline = time.monotonic() + seconds
        while not done() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert done()

    def close(self) -> None:
        self.client.disconnect()  # first: it wakes the network thread, which then ends
        self.client.loop_stop()
