"""docs/schema/ as a consumer reads it (issue 34): every file registered under its own name, so
that one file's `$ref` to another resolves, and a validator per file (jsonschema, Draft
2020-12); and the MQTT side of a session: every message on the venue's topics as it came
(topic, bytes, QoS, retain), and the retained ones a client subscribing afterwards is given."""

import json
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import paho.mqtt.client as mqtt
from jsonschema import Draft202012Validator
from referencing import Registry
from referencing.jsonschema import DRAFT202012

from firmware.bus.contract import DISCOVERY_PREFIX
from firmware.tools.schemas import FOLDER
from tests.support.uplinkkit import table_profile
from tests.support.venuekit import VENUE

PROBE = "schema-probe"  # a topic of the test's own, outside the bus's


def registry(folder: Path = FOLDER) -> Registry:
    """Every file of `folder` (the AsyncAPI document too, for its refs) under its file's URI,
    so that a relative ref resolves as it does for a consumer reading the folder."""
    resources = []
    for path in sorted(folder.glob("*.json")):
        contents = json.loads(path.read_text(encoding="utf-8"))
        resources.append((path.as_uri(), DRAFT202012.create_resource(contents)))
    return Registry().with_resources(resources)


class Schemas:
    """A validator for each file of docs/schema/ by its name."""

    def __init__(self, folder: Path = FOLDER):
        self.folder, self.registry = folder, registry(folder)
        self.validators: dict[str, Draft202012Validator] = {}
        self.counts: dict[str, int] = {}

    def validator(self, name: str) -> Draft202012Validator:
        if name not in self.validators:
            uri = (self.folder / name).as_uri()
            schema = self.registry.contents(uri) | {"$id": uri}  # the base of its refs
            self.validators[name] = Draft202012Validator(schema, registry=self.registry)
        return self.validators[name]

    def check(self, name: str, instance, where: str) -> None:
        """AssertionError naming `where` and every way `instance` breaks schema `name`."""
        errors = sorted(self.validator(name).iter_errors(instance), key=lambda e: list(e.path))
        problems = [f"{list(e.absolute_path)}: {e.message[:300]}" for e in errors[:5]]
        assert not problems, f"{where} against {name}:\n" + "\n".join(problems)
        self.counts[name] = self.counts.get(name, 0) + 1


def channels(asyncapi: dict) -> list[tuple[re.Pattern, dict]]:
    """Each channel's address as a pattern of topics, with its operation (QoS, retain), the
    schema file of its messages and its name."""
    out = []
    for name, channel in asyncapi["channels"].items():
        pattern = re.sub(r"\\\{[a-z]+\\\}", "[^/]+", re.escape(channel["address"]))
        operations = asyncapi["operations"].values()
        (operation,) = [o for o in operations if o["channel"]["$ref"] == f"#/channels/{name}"]
        (message,) = channel["messages"].values()
        key = message["$ref"].rsplit("/", 1)[1]
        schema = asyncapi["components"]["messages"][key]["payload"]["schema"]["$ref"]
        out.append((re.compile(f"^{pattern}$"), operation | {"schema": schema, "name": name}))
    return out


class Wire:
    """A client on every topic of the venue and of Home Assistant's discovery (QoS 2, so a
    message comes with the QoS it was published with), keeping (topic, payload, qos, retain)
    of each."""

    def __init__(self, port: int, name: str):
        self.messages: list[tuple[str, bytes, int, bool]] = []
        self.lock, self.subscribed = threading.Lock(), threading.Event()
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=name)
        topics = [(f"mjtable/{VENUE}/#", 2), (f"{DISCOVERY_PREFIX}/#", 2)]
        client.on_connect = lambda c, *_: c.subscribe(topics)
        client.on_subscribe = lambda *_: self.subscribed.set()
        client.on_message = self._take
        client.connect("127.0.0.1", port, keepalive=5)
        client.loop_start()
        assert self.subscribed.wait(5)
        self.client = client

    def _take(self, client, userdata, message) -> None:
        with self.lock:
            self.messages.append((message.topic, message.payload, message.qos, message.retain))

    def taken(self) -> list[tuple[str, bytes, int, bool]]:
        with self.lock:
            return list(self.messages)

    def retained(self) -> list[tuple[str, bytes, int, bool]]:
        """What the broker gave this client as it subscribed: the retained messages come
        before a message it publishes after (MQTT keeps one client's messages in order)."""
        marker = f"mjtable/{VENUE}/{PROBE}"
        self.client.publish(marker, b"{}", 1)
        deadline = time.monotonic() + 30  # ends only a wait for what never comes
        while not any(m[0] == marker for m in self.taken()):
            assert time.monotonic() < deadline, "the probe never came back"
            time.sleep(0.02)
        taken = self.taken()
        return taken[: [m[0] for m in taken].index(marker)]

    def close(self) -> None:
        self.client.disconnect()  # first: it wakes the network thread, which then ends
        self.client.loop_stop()


def run_table(folder: Path, broker_port: int, key: bytes, *options: str) -> subprocess.Popen:
    """`mjtable run` on the simulated profile with an [uplink] to the broker (Home Assistant's
    discovery on), the venue `key` to check commands with, as its own process (stderr kept)."""
    profile = table_profile(folder, broker_port, key=key, home_assistant=True)
    command = [sys.executable, "-m", "firmware.cli", "run", "--profile", str(profile), *options]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def finished(table: subprocess.Popen, seconds: float) -> None:
    """The table's run ended well (within `seconds`, which only ends a wait for a hang)."""
    _, err = table.communicate(timeout=seconds)
    assert table.returncode == 0 and "Traceback" not in err, err
