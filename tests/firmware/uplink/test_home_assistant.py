"""Issue 34, "Home Assistant discovery": with `[uplink] home_assistant = true` a table
publishes Home Assistant's MQTT discovery configs, retained, so that a venue's Home Assistant
shows every table, one device each, with no YAML (firmware/uplink/discovery.py).

The configs are read back through a real Mosquitto as deploy/mosquitto/ ships it (its config
and ACL, tests/support/shipped.py) as Home Assistant's own broker user, and held to Home
Assistant's documented schema (MQTT discovery, the MQTT sensor and binary sensor pages): the
discovery topic's form, the keys each component takes and requires, a unique_id each, one
device, and each template's fields found on the topic it reads. Killed, the table's last will
makes its entities unavailable.
"""

import hashlib
import json
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    PublicFormat,
    load_pem_private_key,
)

from engine.schema import ConfigError
from firmware.bus.contract import PHASES, STATUSES
from firmware.table.profile import TABLES_DIR, load_profile
from tests.support.shipped import shipped
from tests.support.uplinkkit import TABLE
from tests.support.venuekit import VENUE

REPO = Path(__file__).resolve().parents[3]
UPLINK = f"""
[uplink]
host = "127.0.0.1"
port = {{port}}
tls = false
ca_file = ""
user = "{{user}}"
password_file = "{{password_file}}"
venue = "{VENUE}"
key_file = ""
keepalive_seconds = 1
"""

# Home Assistant's MQTT discovery (home-assistant.io/integrations/mqtt, "Discovery topic"):
# <discovery_prefix>/<component>/[<node_id>/]<object_id>/config, ids of these characters.
DISCOVERY_TOPIC = re.compile(
    r"homeassistant/(?P<component>\w+)/(?P<node>[a-zA-Z0-9_-]+)/(?P<object>[a-zA-Z0-9_-]+)/config"
)
# The keys each component documents (integrations/sensor.mqtt, binary_sensor.mqtt), and
# those it requires; the device's, the origin's and an availability entry's.
COMMON = {
    "availability",
    "availability_mode",
    "availability_template",
    "availability_topic",
    "default_entity_id",
    "device",
    "device_class",
    "enabled_by_default",
    "encoding",
    "entity_category",
    "entity_picture",
    "expire_after",
    "force_update",
    "icon",
    "json_attributes_template",
    "json_attributes_topic",
    "name",
    "origin",
    "payload_available",
    "payload_not_available",
    "platform",
    "qos",
    "state_topic",
    "unique_id",
    "value_template",
}
DOCUMENTED = {
    "sensor": COMMON
    | {
        "last_reset_value_template",
        "options",
        "state_class",
        "suggested_display_precision",
        "unit_of_measurement",
    },
    "binary_sensor": COMMON | {"off_delay", "payload_off", "payload_on"},
}
REQUIRED = {"sensor": {"state_topic"}, "binary_sensor": {"state_topic"}}
DEVICE_KEYS = {
    "configuration_url",
    "connections",
    "hw_version",
    "identifiers",
    "manufacturer",
    "model",
    "model_id",
    "name",
    "serial_number",
    "suggested_area",
    "sw_version",
    "via_device",
}
ORIGIN_KEYS = {"name", "sw_version", "support_url"}
AVAILABILITY_KEYS = {"topic", "payload_available", "payload_not_available", "value_template"}
FIELD = re.compile(r"value_json\.(\w+)")
BARE = re.compile(r"\{\{ value_json\.(\w+) \}\}")  # a template that is the field as it is

ENTITIES = {"online", "state", "hand", "players", "scores", "alerts_waiting", "shuffler"}


def profile_with(folder: Path, port: int, extra: str = "", name: str = TABLE) -> Path:
    """sim.toml named `name`, with an [uplink] as user `name` (password "tp") and `extra`."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sim-tags.csv").write_text((TABLES_DIR / "sim-tags.csv").read_text())
    (folder / "table.password").write_text("tp\n")
    uplink = UPLINK.format(port=port, user=name, password_file="table.password") + extra
    shipped = (TABLES_DIR / "sim.toml").read_text()
    path = folder / "table.toml"
    path.write_text(shipped.replace(f'name = "{TABLE}"', f'name = "{name}"', 1) + uplink)
    return path


# -- the option ---------------------------------------------------------------------------


def test_issue_34_discovery_is_an_option_of_the_uplink_with_homeassistants_prefix(tmp_path):
    """Issue 34: no discovery unless asked; `home_assistant = true` publishes under Home
    Assistant's default prefix, `discovery_prefix` under another."""
    plain = load_profile(str(profile_with(tmp_path / "a", 1883)))
    asked = load_profile(str(profile_with(tmp_path / "b", 1883, "home_assistant = true\n")))
    other = 'home_assistant = true\ndiscovery_prefix = "hass"\n'
    moved = load_profile(str(profile_with(tmp_path / "c", 1883, other)))
    assert plain.uplink is not None and plain.uplink.discovery_prefix is None
    assert asked.uplink is not None and asked.uplink.discovery_prefix == "homeassistant"
    assert moved.uplink is not None and moved.uplink.discovery_prefix == "hass"


@pytest.mark.parametrize(
    ("extra", "name", "says"),
    [
        ('discovery_prefix = "hass"\n', TABLE, "discovery_prefix: a discovery prefix is for"),
        ('home_assistant = true\ndiscovery_prefix = "a/b"\n', TABLE, "a/b"),
        ('home_assistant = "yes"\n', TABLE, "home_assistant: expected"),
        ("home_assistant = true\n", "hall.t1", "takes no '.' in a table's name"),
    ],
)
def test_issue_34_a_discovery_home_assistant_cannot_take_is_refused(tmp_path, extra, name, says):
    """Issue 34: a prefix without discovery, a prefix or a table's name Home Assistant's
    discovery topic cannot hold, a switch that is no boolean: refused at start-up, named."""
    with pytest.raises(ConfigError, match=re.escape(says)):
        load_profile(str(profile_with(tmp_path, 1883, extra, name)))


# -- through the broker ------------------------------------------------------------------


class HomeAssistant:
    """Home Assistant's side: its broker user subscribed to the discovery prefix and to the
    tables' topics (the ACL gives it their status and state), the latest message by topic."""

    def __init__(self, port: int):
        self.latest: dict[str, dict] = {}
        self.lock, self.subscribed = threading.Lock(), threading.Event()
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="homeassistant")
        client.username_pw_set("homeassistant", "hp")
        client.on_connect = lambda c, *_: c.subscribe(
            [("homeassistant/#", 1), (f"mjtable/{VENUE}/table/+/#", 1)]
        )
        client.on_subscribe = lambda *_: self.subscribed.set()
        client.on_message = self._take
        client.connect("127.0.0.1", port, keepalive=5)
        client.loop_start()
        assert self.subscribed.wait(10)
        self.client = client

    def _take(self, client, userdata, message) -> None:
        with self.lock:
            self.latest[message.topic] = json.loads(message.payload)

    def configs(self) -> dict[str, dict]:
        with self.lock:
            return {t: b for t, b in self.latest.items() if t.endswith("/config")}

    def body(self, topic: str) -> dict | None:
        with self.lock:
            return self.latest.get(topic)

    def wait(self, done, seconds: float = 60) -> None:
        """Until `done()`; the bound only ends a wait for what never comes."""
        deadline = time.monotonic() + seconds
        while not done() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert done()

    def available(self, config: dict) -> bool | None:
        """The entity's availability as Home Assistant derives it from its availability
        list (the latest message on each topic, its template's field against the payloads);
        None: no availability (always available)."""
        if "availability" not in config:
            return None
        for entry in config["availability"]:
            body = self.body(entry["topic"])
            value = None if body is None else body[BARE.fullmatch(entry["value_template"])[1]]
            if value != entry["payload_available"]:
                return False
        return True

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def start_table(profile: Path, journal: Path) -> subprocess.Popen:
    """`mjtable run` as its own process, so that it can be killed: one hand, slowly."""
    cmd = [sys.executable, "-m", "firmware.cli", "run", "--profile", str(profile)]
    cmd += ["--port", "0", "--journal", str(journal), "--seed", "1"]
    cmd += ["--hands", "1", "--speed", "5"]
    return subprocess.Popen(
        cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )


def check_documented(topic: str, config: dict, ha: HomeAssistant) -> None:
    """One config against Home Assistant's documented schema, its templates' fields found
    on the retained message of the topic each reads."""
    found = DISCOVERY_TOPIC.fullmatch(topic)
    assert found, topic
    component = found["component"]
    assert found["node"] == TABLE and component in DOCUMENTED, topic
    assert REQUIRED[component] <= set(config) <= DOCUMENTED[component], topic
    assert set(config["device"]) <= DEVICE_KEYS and config["device"]["identifiers"]
    assert set(config["origin"]) <= ORIGIN_KEYS and config["origin"]["name"]
    if config.get("device_class") == "enum":  # an enum sensor: its options, no unit or class
        assert config["options"] and not {"state_class", "unit_of_measurement"} & set(config)
    read = [(config["state_topic"], config["value_template"])]
    if "json_attributes_topic" in config:
        read.append((config["json_attributes_topic"], config["json_attributes_template"]))
    for entry in config.get("availability", []):
        assert {"topic"} <= set(entry) <= AVAILABILITY_KEYS
        assert {entry["payload_available"], entry["payload_not_available"]} == set(STATUSES)
        read.append((entry["topic"], entry["value_template"]))
    for read_topic, template in read:
        body = ha.body(read_topic)
        assert body is not None, f"{topic}: nothing retained on {read_topic}"
        fields = FIELD.findall(template)
        assert fields and all(field in body for field in fields), (topic, template, body)
    bare = BARE.fullmatch(config["value_template"])
    if bare is not None:  # the value as Home Assistant takes it
        value = str(ha.body(config["state_topic"])[bare[1]])
        if component == "binary_sensor":
            assert value in (config["payload_on"], config["payload_off"])
        if "options" in config:
            assert value in config["options"]


@pytest.mark.slow  # a table started as `mjtable run`, over the broker
def test_issue_34_home_assistant_discovers_the_table_then_sees_it_unavailable(reachable):
    """Issue 34: through deploy/mosquitto as shipped (its config and ACL; the table over TLS
    with add-table.sh's [uplink] section), Home Assistant's user reads the table's discovery
    configs, one device with its seven entities, each as the documented schema has it and
    each template's field on the topic it reads; another table cannot write them; killed
    (SIGKILL), the table's last will makes its entities unavailable and its online sensor
    off; started again, it is born again (its birth one up) and its entities available.
    The status names the profile's digest and the device key's fingerprint."""
    kit = shipped(reachable, TABLE, {"homeassistant": "hp", "sim-2": "tp2"})
    (reachable / "sim-tags.csv").write_text((TABLES_DIR / "sim-tags.csv").read_text())
    assert "keepalive_seconds = 30\n" in kit.uplink
    uplink = kit.uplink.replace("keepalive_seconds = 30\n", "keepalive_seconds = 1\n")
    profile = reachable / "table.toml"  # beside the files add-table.sh's section names
    profile.write_text((TABLES_DIR / "sim.toml").read_text() + uplink + "home_assistant = true\n")
    broker = kit.broker.start()
    ha = HomeAssistant(broker.port)  # on the venue's loopback listener
    journal = reachable / "j.sqlite"
    table = start_table(profile, journal)
    try:
        state_topic = f"mjtable/{VENUE}/table/{TABLE}/state"
        ha.wait(lambda: len(ha.configs()) == len(ENTITIES) and ha.body(state_topic))
        configs = ha.configs()
        assert {topic.split("/")[3] for topic in configs} == ENTITIES
        for topic, config in configs.items():
            check_documented(topic, config, ha)
        assert len({c["unique_id"] for c in configs.values()}) == len(ENTITIES)
        devices = {json.dumps(c["device"], sort_keys=True) for c in configs.values()}
        assert len(devices) == 1
        device = configs[f"homeassistant/sensor/{TABLE}/state/config"]["device"]
        status = ha.body(f"mjtable/{VENUE}/table/{TABLE}/status")
        assert status is not None and status["status"] == "online"
        assert (device["sw_version"], device["model"]) == (status["firmware"], status["model"])
        assert configs[f"homeassistant/sensor/{TABLE}/state/config"]["options"] == list(PHASES)
        assert all(ha.available(c) in (None, True) for c in configs.values())

        intruder = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="sim-2")
        intruder.username_pw_set("sim-2", "tp2")
        intruder.connect("127.0.0.1", broker.port)
        intruder.loop_start()
        forged = f"homeassistant/sensor/{TABLE}/state/config"
        intruder.publish(forged, b'{"name": "forged"}', qos=1, retain=True).wait_for_publish(5)
        intruder.loop_stop()
        intruder.disconnect()

        table.send_signal(signal.SIGKILL)
        table.wait(10)
        ha.wait(lambda: ha.body(f"mjtable/{VENUE}/table/{TABLE}/status")["status"] == "offline")
        assert ha.configs()[forged]["name"] == "State"  # the ACL dropped the other table's
        online = configs[f"homeassistant/binary_sensor/{TABLE}/online/config"]
        assert ha.available(online) is None
        assert ha.body(online["state_topic"])["status"] == online["payload_off"]
        others = [c for c in configs.values() if c is not online]
        assert others and all(ha.available(c) is False for c in others)

        table = start_table(profile, journal)  # back, born again
        ha.wait(lambda: ha.body(f"mjtable/{VENUE}/table/{TABLE}/status")["status"] == "online")
        again = ha.body(f"mjtable/{VENUE}/table/{TABLE}/status")
        assert again is not None and again["birth"] == status["birth"] + 1
        assert all(ha.available(c) is True for c in others)
        public = load_pem_private_key((reachable / "device.key").read_bytes(), None).public_key()
        raw = public.public_bytes(Encoding.Raw, PublicFormat.Raw)
        assert again["key_fingerprint"] == "SHA256:" + hashlib.sha256(raw).hexdigest()
        assert again["profile_sha256"] == hashlib.sha256(profile.read_bytes()).hexdigest()
    finally:
        table.kill()
        table.wait(10)
        ha.close()
        broker.stop()
