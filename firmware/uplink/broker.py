"""The uplink's MQTT client (firmware/uplink/client.py): aiomqtt's, speaking MQTT 5 to the
venue's broker so that a publish the broker refuses comes back as a reason code (issue 36
item 5). Under MQTT 3.1.1 Mosquitto drops a publish its ACL denies and acknowledges it all
the same: the table never knew its sheet was lost. Under MQTT 5 its PUBACK says 0x87 Not
authorized: the publish raises `Refused`, the journal's cursor stays where it was, and the
uplink tells the table's fault (firmware/run/rig.py).

The session stays persistent as it was under 3.1.1's clean_session off: no clean start, and
a session expiry of SESSION_EXPIRY seconds, as deploy/mosquitto's persistent_client_expiration
keeps a client away (the broker keeps the commands sent while the table is away).
"""

import asyncio
import logging
from collections.abc import Callable
from typing import Any

import aiomqtt
import paho.mqtt.client as mqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

log = logging.getLogger("mjtable.uplink")

SESSION_EXPIRY = 7 * 24 * 3600  # seconds: deploy/mosquitto.conf's persistent_client_expiration
REFUSED_ADVICE = (  # the table's fault's (firmware/run/rig.py)
    "tell the venue's organiser: its broker's ACL (deploy/mosquitto/acl) must let this table "
    "publish it; the rows wait in the journal and go up once it does"
)
WORDS = {0x87: "not authorised", 0x97: "over its quota", 0x95: "too large", 0x90: "a bad topic"}


class Refused(aiomqtt.MqttError):
    """The broker refused a publish on `topic` (MQTT 5 PUBACK reason `code`)."""

    def __init__(self, topic: str, code: ReasonCode):
        self.topic, self.code = topic, code
        super().__init__(f"the broker refuses {topic}: {said(code)} (0x{code.value:02X})")


def said(code: ReasonCode) -> str:
    """The reason in words a referee reads ("not authorised")."""
    return WORDS.get(code.value, code.getName().lower())


class Refusals:
    """What the broker refused, each told once: the log and `tell(leaf, message)`, the table's
    fault ("sheet", "the venue's broker refuses my sheet: not authorised"; None: the log
    only); told again only once the broker has taken a publish on that topic since."""

    def __init__(self, tell: Callable[[str, str], None] | None):
        self.on_refused, self.told = tell, dict[str, str]()  # by topic

    def tell(self, err: Refused) -> None:
        leaf = err.topic.rsplit("/", 1)[-1]
        what = f"the venue's broker refuses my {leaf}: {said(err.code)}"
        if self.told.get(err.topic) == what:
            return
        self.told[err.topic] = what
        log.warning("uplink: %s (%s); the rows wait in the journal", what, err.topic)
        if self.on_refused is not None:
            self.on_refused(leaf, what)

    def accepted(self, topic: str) -> None:
        """The broker took a publish on `topic`: a refusal of it is news again."""
        if self.told.pop(topic, None) is not None:
            log.warning("uplink: the venue's broker takes %s again", topic)


def session_properties() -> Properties:
    """The CONNECT's properties: the session kept SESSION_EXPIRY seconds after a drop."""
    properties = Properties(PacketTypes.CONNECT)
    properties.SessionExpiryInterval = SESSION_EXPIRY
    return properties


class BrokerClient(aiomqtt.Client):
    """aiomqtt 2.5.1's client over MQTT 5, with a persistent session, whose `publish` raises
    Refused on a PUBACK that says the broker refused it (`refusals` told of each publish
    taken). Also, a socket's writer is watched
    only if the socket is still the client's when the loop comes to it: aiomqtt asks for it
    by descriptor number from paho's thread, and a connection dropped meanwhile leaves that
    number closed ("Bad file descriptor" on the loop) or, reused, another's."""

    def __init__(self, hostname: str, port: int, refusals: Refusals, **options: Any):
        super().__init__(
            hostname,
            port,
            protocol=aiomqtt.ProtocolVersion.V5,
            clean_start=False,
            properties=session_properties(),
            **options,
        )
        self._refusals: dict[int, ReasonCode] = {}  # by message id, until its publish reads it
        self.refusals = refusals

    async def publish(  # type: ignore[override]  # aiomqtt's, a refusal raised
        self, topic: str, payload: bytes, qos: int = 0, retain: bool = False
    ) -> None:
        """Publish and await the broker's acknowledgement (QoS 1); Refused if it refuses."""
        info = self._client.publish(topic, payload, qos, retain)
        if info.rc != mqtt.MQTT_ERR_SUCCESS:
            raise aiomqtt.MqttCodeError(info.rc, "Could not publish message")
        try:
            if not info.is_published():
                confirmation = asyncio.Event()
                with self._pending_call(info.mid, confirmation, self._pending_publishes):
                    await self._wait_for(confirmation.wait(), timeout=None)
        finally:
            refused = self._refusals.pop(info.mid, None)
        if refused is not None:
            raise Refused(topic, refused)
        self.refusals.accepted(topic)

    def _on_publish(self, client, userdata, mid, reason_code, properties) -> None:
        if reason_code.is_failure:
            self._refusals[mid] = reason_code
        super()._on_publish(client, userdata, mid, reason_code, properties)

    def _on_socket_register_write(self, client, userdata, sock) -> None:
        def write() -> None:
            try:
                client.loop_write()
            except Exception as err:  # the connection broke: the listener ends on it
                if not self._disconnected.done():
                    self._disconnected.set_exception(err)

        def watch() -> None:
            if client.socket() is sock:
                self._loop.add_writer(sock.fileno(), write)

        self._loop.call_soon_threadsafe(watch)
