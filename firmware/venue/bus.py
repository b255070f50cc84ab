"""The venue's client on the broker (docs/uplink.md): it subscribes to every table of the
venue and feeds the board, and sends the venue's commands, signed (firmware/bus/signing.py).

A broker that goes away (restarted, the hall's network down) is waited for, the wait
doubling up to BACKOFF_MAX, and the subscription taken up again: the retained states and
statuses come back at once, and the journal rows the tables send again are dropped by seq.
It speaks MQTT 5, as the tables' uplinks do (firmware/uplink/broker.py), with their
persistent session: a fixed client id, no clean start and the session kept 7 days after a
drop (their session_properties; MQTT 5's default would end it at once), so a broker that
stayed up keeps the QoS 1 rows of a venue that restarted; the rows a broker lost (a crash)
the venue asks the tables for again, every ASK_SECONDS (firmware/venue/resend.py).
"""

import asyncio
import logging
import secrets
import time
from collections.abc import Callable

import aiomqtt
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from firmware.bus.contract import (
    QOS,
    Command,
    command_topic,
    encode,
    venue_subscribes,
)
from firmware.bus.signing import sign
from firmware.uplink.broker import session_properties
from firmware.venue.board import VenueBoard
from firmware.venue.resend import Asks

log = logging.getLogger("mjtable.venue")

BACKOFF_FIRST = 0.5  # seconds before the first retry ...
BACKOFF_MAX = 30.0  # ... doubling up to this
KEEPALIVE = 15  # seconds: a broker gone silent is noticed within about 1.5 times this
PUBLISH_TIMEOUT = 5.0  # seconds for the broker to take a command
ASK_SECONDS = 1.0  # how often the venue looks for rows to ask the tables for again


class NotSent(Exception):
    """A command the venue could not send, and why (for the organiser)."""


def signed_command(
    venue: str, table: str, name: str, args: dict, key: Ed25519PrivateKey, now: float
) -> dict:
    """A command as docs/uplink.md has it: a unique id, the time issued, its signature."""
    command = Command(secrets.token_hex(16), int(now), venue, table, name, args)
    return sign(command.json(), key)


class VenueBus:
    """Keeps `board` fed from the broker at host:port while `run` runs."""

    def __init__(
        self,
        board: VenueBoard,
        host: str,
        port: int,
        username: str | None = None,
        password: str | None = None,
        key: Ed25519PrivateKey | None = None,
        clock: Callable[[], float] = time.time,
    ):
        self.board, self.host, self.port = board, host, port
        self.username, self.password, self.key, self.clock = username, password, key, clock
        self.identifier = f"mjtable-venue-{board.venue}"
        self._client: aiomqtt.Client | None = None
        self.asks = Asks()

    @property
    def topic(self) -> str:
        return venue_subscribes(self.board.venue)

    async def run(self) -> None:
        """Connect, subscribe, take messages; on a lost connection wait and do it again."""
        asking = asyncio.create_task(self._ask())
        try:
            await self._listen()
        finally:
            asking.cancel()

    async def _listen(self) -> None:
        wait = BACKOFF_FIRST
        while True:
            try:
                async with aiomqtt.Client(
                    self.host,
                    self.port,
                    username=self.username,
                    password=self.password,
                    identifier=self.identifier,
                    protocol=aiomqtt.ProtocolVersion.V5,
                    clean_start=False,
                    properties=session_properties(),
                    keepalive=KEEPALIVE,
                ) as client:
                    await client.subscribe(self.topic, qos=QOS)
                    self._client, wait = client, BACKOFF_FIRST
                    self.board.connection(True)
                    log.info("venue %s: connected to %s:%d", self.board.venue, self.host, self.port)
                    async for message in client.messages:
                        self.board.take(str(message.topic), _payload(message.payload))
            except aiomqtt.MqttError as err:
                log.warning(
                    "venue %s: broker %s:%d: %s; again in %.1f s",
                    self.board.venue,
                    self.host,
                    self.port,
                    err,
                    wait,
                )
            finally:
                if self._client is not None:
                    self._client = None
                    self.board.connection(False)
            await asyncio.sleep(wait)
            wait = min(wait * 2, BACKOFF_MAX)

    async def _ask(self) -> None:
        """Ask the tables for the rows the board misses, while connected (no venue key: the
        gaps are only counted, said once)."""
        if self.key is None:
            log.info(
                "venue %s: no venue key: rows lost on the bus are not asked for again",
                self.board.venue,
            )
            return
        while True:
            await asyncio.sleep(ASK_SECONDS)
            if self._client is None:
                continue
            for table, args in self.asks.due(self.board, time.monotonic()):
                log.warning(
                    "venue %s: table %s: rows %d to %d never came: asked again",
                    self.board.venue,
                    table,
                    args["after"] + 1,
                    args["until"],
                )
                try:
                    await self.send(table, "resend", args)
                except NotSent as err:
                    log.warning("venue %s: table %s: %s", self.board.venue, table, err)

    async def send(self, table: str, name: str, args: dict) -> dict:
        """Sign and publish a command to `table` ("*": every table); the command sent."""
        if self.key is None:
            raise NotSent("no venue key: start mjtable venue with --key-file")
        client = self._client
        if client is None:
            raise NotSent(f"the broker {self.host}:{self.port} is not connected: try again")
        venue = self.board.venue
        try:
            command = signed_command(venue, table, name, args, self.key, self.clock())
        except ValueError as err:  # no canonical form (contract.canonical): none to sign
            raise NotSent(f"the command cannot be signed: {err}") from None
        try:
            await client.publish(
                command_topic(venue, table), encode(command), qos=QOS, timeout=PUBLISH_TIMEOUT
            )
        except aiomqtt.MqttError as err:
            raise NotSent(f"the broker did not take the command: {err}") from None
        return command


def _payload(payload) -> bytes | str:
    return bytes(payload) if isinstance(payload, bytes | bytearray) else str(payload)
