"""The table's side of the venue bus (docs/uplink.md, issue 15): its journal's rows, its alerts
and its public state published to the venue's broker, and the venue's commands taken from it.

The journal is the outbox (DESIGN.md): the uplink publishes the rows after its cursor, in
order, at QoS 1 and awaited (the rows committed together in one message), and moves the cursor
only past a row the broker has acknowledged. The cursor is kept in the journal (meta
'uplink_seq'), written every BATCH rows or SAVE_SECONDS, so a power cut costs at most that many
rows sent twice, which the venue drops by (session, seq); nothing is lost. While the broker is
away the rows wait in the journal, and the uplink tries again, from RETRY_FIRST to RETRY_LAST
seconds apart, telling the log once per outage. It runs as a task on the service's loop and
never holds up the refereeing: its reads of the journal are short and never span an await, and
nothing it meets on the network leaves `run()`.

The venue asks for rows it never got (a `resend` command, issue 32 item 5: a broker that
crashed lost what it held for a venue away): they go out again from the journal, a batch at
a time between the new rows, as `events` only; the cursor, the alerts and the rulings stay
as the first sending left them.

The score sheet (issue 16) goes up retained whenever a row that changes it is published, and
on each connection, built in a thread (firmware/uplink/sheet.py) and published between the
rows' messages.

A publish the broker refuses (MQTT 5, firmware/uplink/broker.py: its ACL denies the topic) is
never a silent loss (issue 36 item 5): the table's fault is told once; a row refused leaves
the cursor where it was and the uplink tries again as after an outage; a sheet or a state
refused does not hold up the rows.
"""

import asyncio
import contextlib
import logging
import math
import ssl
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Executor
from typing import cast

import aiomqtt

from firmware.bus.contract import (
    EVENTS_BYTES,
    QOS,
    RETAINED,
    Envelope,
    Leaf,
    encode,
    table_subscribes,
    table_topic,
)
from firmware.bus.settings import UplinkSettings
from firmware.journal.chain import Row
from firmware.journal.store import Journal
from firmware.uplink.broker import BrokerClient, Refusals, Refused
from firmware.uplink.discovery import discovery_configs
from firmware.uplink.identity import Identity
from firmware.uplink.messages import (
    AlertBoard,
    alert_message,
    event_row,
    events_message,
    state_message,
    status_message,
)
from firmware.uplink.rulings import Rulings
from firmware.uplink.sheet import SheetBuilds, sheet_message

log = logging.getLogger("mjtable.uplink")

BATCH = 100  # rows read at a time, and rows acknowledged between two writes of the cursor
SAVE_SECONDS = 1.0  # at most this long between a row acknowledged and the cursor written
STATE_SECONDS = 0.25  # at most 4 states a second
STATUS_SECONDS = 60.0  # the status again, its uptime and free space as of now, this often
CLOCKS = ("t", "session_seconds_left")  # change alone, no new state: the venue counts them on
RETRY_FIRST, RETRY_LAST = 0.5, 5.0  # seconds between connection attempts, doubling


class _Quiet(logging.LoggerAdapter):
    """The MQTT client's own lines, at debug: the uplink tells an outage once, itself."""

    def log(self, level, msg, *args, **kwargs):
        super().log(logging.DEBUG, msg, *args, **kwargs)


MQTT_LOG = _Quiet(logging.getLogger("mjtable.uplink.mqtt"))


class Uplink:
    """`table` is the table's name in the topics; `state()` its public state (uplink_messages
    `status_state`); `identity` says who the table is in its status; `on_command(payload)`
    takes each command the venue sends (None: the table takes none); `on_refused(leaf,
    message)` tells the table's fault when the broker refuses a publish (None: the log only);
    `sheet_executor` builds its score sheets (None: a thread). `changed()` wakes it: a row was
    committed or the state changed."""

    def __init__(
        self,
        settings: UplinkSettings,
        journal: Journal,
        table: str,
        state: Callable[[], dict],
        identity: Identity,
        on_command: Callable[[bytes], None] | None = None,
        on_refused: Callable[[str, str], None] | None = None,
        sheet_executor: Executor | None = None,
    ):
        self.settings, self.journal, self.state = settings, journal, state
        self.identity, self.status_at = identity, -math.inf
        self.on_command = on_command
        self.refusals = Refusals(on_refused)
        self.venue, self.table, self.session = settings.venue, table, journal.session_id
        self.envelope = Envelope(self.venue, table, self.session)
        self.alerts = AlertBoard()
        self.since = journal.seq  # rows after it are this run's: its alerts may be open
        self.sent = self.saved = journal.uplink_seq()  # acknowledged; written in the journal
        self.rulings = Rulings(journal.rows_after(0, self.sent))  # as the rows sent had them
        self.saved_at = time.monotonic()
        self.state_due, self.state_at = True, -math.inf
        self.shown: dict | None = None  # the last state published, but for its CLOCKS
        self.resending: tuple[int, int] | None = None  # rows (after, until] to send again
        self.wake, self.closing = asyncio.Event(), asyncio.Event()
        self.sheets = SheetBuilds(journal.path, lambda: journal.seq, self.wake.set, sheet_executor)
        self.tls = ssl.create_default_context(cafile=settings.ca_file) if settings.tls else None

    def changed(self) -> None:
        self.state_due = True
        self.wake.set()

    def resend(self, session: str | None, after: int, until: int | None) -> None:
        """Send the rows after `after` again, to `until` (None: to the last), as soon as the
        broker takes them; ValueError, saying why, when they are not this journal's."""
        if session != self.session:
            raise ValueError(f"session {session!r} is in another journal than {self.session!r}")
        if after >= self.journal.seq:
            raise ValueError(f"no row after {after}: the journal's last is {self.journal.seq}")
        until = self.journal.seq if until is None else min(until, self.journal.seq)
        if self.resending is not None:  # asked again before the last was done: both
            after, until = min(after, self.resending[0]), max(until, self.resending[1])
        self.resending = (after, until)
        self.wake.set()

    def close(self) -> None:
        """Publish what is left, say offline and stop (Rig.stop awaits run() a moment)."""
        self.closing.set()
        self.wake.set()

    async def run(self) -> None:
        """Publish until closed or cancelled, reconnecting whenever the broker goes away."""
        delay, down = RETRY_FIRST, False
        try:
            while not self.closing.is_set():
                up_at = None
                try:
                    async with self._client() as client:
                        up_at = time.monotonic()
                        if down:
                            log.warning(
                                "uplink: the venue broker %s is back: %d rows to publish",
                                self._where(),
                                self.journal.seq - self.sent,
                            )
                        down = False
                        await self._connected(client)
                    return
                except Exception as err:  # the broker away or refusing; a bug, told once
                    if not down:
                        self._tell_outage(err)
                    down = True
                    if up_at is not None and time.monotonic() - up_at > RETRY_LAST:
                        delay = RETRY_FIRST  # it was up a while: a new outage, not a flap
                self._save()
                with contextlib.suppress(TimeoutError):  # not wait_for: 3.11 loses a cancel
                    async with asyncio.timeout(delay):  # there when the event is set
                        await self.closing.wait()
                delay = min(2 * delay, RETRY_LAST)
        finally:
            self._save()

    # -- one connection --------------------------------------------------------------------

    def _client(self) -> aiomqtt.Client:
        settings = self.settings
        self.identity.born()  # this connection's: its last will says it
        offline = encode(status_message(self.envelope, self.identity.status(False)))
        return BrokerClient(
            settings.host,
            settings.port,
            self.refusals,
            username=settings.user,
            password=settings.password,
            identifier=f"mjtable-{self.venue}-{self.table}",
            will=aiomqtt.Will(self._topic(Leaf.STATUS), offline, QOS, retain=True),
            keepalive=settings.keepalive,
            timeout=max(settings.keepalive, 2.0),  # for an acknowledgement: then a new try
            tls_context=self.tls,
            logger=cast(logging.Logger, MQTT_LOG),  # aiomqtt only calls its log methods
        )

    async def _connected(self, client: aiomqtt.Client) -> None:
        """Say online, listen for commands and publish, until the connection fails (its
        MqttError raised) or the uplink is closed."""
        await self._status(client, online=True)
        await self._discovery(client)
        self.state_due, self.shown = True, None  # a new broker may not hold the last one
        self.sheets.due = True
        if self.on_command is not None:
            await client.subscribe([(t, QOS) for t in table_subscribes(self.venue, self.table)])
        try:
            async with asyncio.TaskGroup() as group:
                listener = group.create_task(self._listen(client))
                group.create_task(self._publish(client, listener))
        except* aiomqtt.MqttError as failed:
            raise failed.exceptions[0] from None

    async def _listen(self, client: aiomqtt.Client) -> None:
        """Hand each command on; the iteration raises MqttError when the connection drops."""
        async for message in client.messages:
            payload = message.payload
            if self.on_command is None or not isinstance(payload, bytes):
                continue
            try:
                self.on_command(payload)
            except Exception:
                log.exception("uplink: a venue command could not be handed on")

    async def _publish(self, client: aiomqtt.Client, listener: asyncio.Task) -> None:
        while True:
            self.wake.clear()
            await self._rows(client)
            await self._resend(client)
            await self._sheet(client, last=self.closing.is_set())
            wait = await self._state(client, last=self.closing.is_set())
            if self.closing.is_set():
                await self._status(client, online=False)
                listener.cancel()
                return
            wait = min(wait, await self._status(client, online=True, due=True))
            with contextlib.suppress(TimeoutError):  # not wait_for: 3.11 loses a cancel
                async with asyncio.timeout(wait):  # that meets a wake-up already set
                    await self.wake.wait()
            self._save(due=True)

    async def _rows(self, client: aiomqtt.Client) -> None:
        """Every row after the cursor, in order, each with its alert if it is one."""
        while rows := self.journal.rows_after(self.sent, BATCH):
            for chunk, payload in self._packed(rows):
                await client.publish(self._topic(Leaf.EVENTS), payload, QOS)
                for row in chunk:
                    self.rulings.follow(row)
                    self.sheets.follow(row)
                    alert = alert_message(
                        row, self.envelope, self.rulings.hand
                    ) or self.rulings.message(row, self._after(rows, row), self.envelope)
                    if alert is not None:
                        await self._send(client, Leaf.ALERTS, alert)
                    if row.seq > self.since:
                        self.alerts.follow(row, alert)
                self.sent = chunk[-1].seq
                self._save(due=True)

    async def _resend(self, client: aiomqtt.Client) -> None:
        """A batch of the rows asked for again, up to the cursor (the rows after it go out
        anyway); the loop comes back for the next batch at once."""
        if self.resending is None:
            return
        after, until = self.resending
        rows = [row for row in self.journal.rows_after(after, BATCH) if row.seq <= until]
        rows = [row for row in rows if row.seq <= self.sent]
        if not rows:
            self.resending = None
            return
        for chunk, payload in self._packed(rows):
            await client.publish(self._topic(Leaf.EVENTS), payload, QOS)
            if self.resending is not None and self.resending[0] == after:  # not asked lower
                after, until = chunk[-1].seq, self.resending[1]
                self.resending = (after, until) if after < until else None
        if self.resending is not None:
            self.wake.set()

    def _after(self, rows: list[Row], row: Row) -> Iterator[Row]:
        """The rows after `row` of the batch `rows`, then of the journal, read as needed."""
        yield from rows[rows.index(row) + 1 :]
        seq = rows[-1].seq
        while later := self.journal.rows_after(seq, 8):
            yield from later
            seq = later[-1].seq

    async def _sheet(self, client: aiomqtt.Client, last: bool = False) -> None:
        """Publish the sheets built, retained (`last`: the table's last, so all that are due)."""
        try:
            async for seq, document in self.sheets.built(last):
                await self._send(client, Leaf.SHEET, sheet_message(document, self.envelope, seq))
        except aiomqtt.MqttError:
            raise
        except Exception:  # a bug in the sheet's making: the rows go on all the same
            log.exception("uplink: the score sheet could not be made")

    def _packed(self, rows: list[Row]) -> Iterator[tuple[list[Row], bytes]]:
        """The rows in `events` messages of EVENTS_BYTES at most (a batch over it is halved;
        one row goes alone whatever its size)."""
        payload = encode(events_message(list(map(event_row, rows)), self.envelope))
        if len(payload) <= EVENTS_BYTES or len(rows) == 1:
            yield rows, payload
            return
        half = len(rows) // 2
        yield from self._packed(rows[:half])
        yield from self._packed(rows[half:])

    async def _state(self, client: aiomqtt.Client, last: bool = False) -> float:
        """Publish the state if what it shows changed and the last went out long enough ago
        (`last`: the table's last, however soon); how long to wait before the next look."""
        if not self.state_due:
            return SAVE_SECONDS
        early = self.state_at + STATE_SECONDS - time.monotonic()
        if early > 0 and not last:
            return early
        self.state_due, self.state_at = False, time.monotonic()
        try:
            state = self.state()
        except Exception:  # a bug in the state's making: the rows go on all the same
            log.exception("uplink: the table's state could not be made")
            return SAVE_SECONDS
        shown = {name: value for name, value in state.items() if name not in CLOCKS}
        if shown == self.shown and not last:
            return SAVE_SECONDS  # a move that changed nothing but the clocks: no news
        self.shown = shown
        message = state_message(state, self.envelope, self.journal.seq, time.time())
        await self._send(client, Leaf.STATE, message)
        return SAVE_SECONDS

    async def _status(self, client: aiomqtt.Client, online: bool, due: bool = False) -> float:
        """Publish the status (`due`: only once STATUS_SECONDS passed since the last, by the
        identity's clock); how long until the next is due."""
        left = self.status_at + STATUS_SECONDS - self.identity.clock()
        if due and left > 0:
            return left
        self.status_at = self.identity.clock()
        status = status_message(self.envelope, self.identity.status(online))
        await self._send(client, Leaf.STATUS, status)
        return STATUS_SECONDS

    async def _discovery(self, client: aiomqtt.Client) -> None:
        """Home Assistant's discovery configs of the table, retained, if the profile asks."""
        prefix = self.settings.discovery_prefix
        if prefix is None:
            return
        status = self.identity.status(True)
        for topic, config in discovery_configs(prefix, self.venue, self.table, status):
            await client.publish(topic, encode(config), QOS, retain=True)

    async def _send(self, client: aiomqtt.Client, leaf: Leaf, message: dict) -> None:
        """Publish `message` on the table's `leaf`, retained if the contract keeps it. A sheet
        or a state refused is told and the rows go on (the next is sent as it changes)."""
        try:
            await client.publish(self._topic(leaf), encode(message), QOS, retain=leaf in RETAINED)
        except Refused as err:
            if leaf not in (Leaf.SHEET, Leaf.STATE):
                raise
            self.refusals.tell(err)

    def _topic(self, leaf: Leaf) -> str:
        return table_topic(self.venue, self.table, leaf)

    # -- the cursor, the log -------------------------------------------------------------

    def _save(self, due: bool = False) -> None:
        """Write the cursor if it moved (`due`: only once BATCH rows or SAVE_SECONDS passed)."""
        if self.sent == self.saved:
            return
        recent = time.monotonic() - self.saved_at < SAVE_SECONDS
        if due and self.sent - self.saved < BATCH and recent:
            return
        try:
            self.journal.set_uplink_seq(self.sent)
        except Exception as err:  # the journal's disk: the table stops refereeing on its own
            log.warning("uplink: the cursor could not be written (%s)", err)
            return
        self.saved, self.saved_at = self.sent, time.monotonic()

    def _tell_outage(self, err: Exception) -> None:
        if isinstance(err, Refused):
            self.refusals.tell(err)
        elif isinstance(err, aiomqtt.MqttError | OSError):
            log.warning(
                "uplink: the venue broker %s is unreachable (%s); the rows wait in the journal",
                self._where(),
                err.__cause__ or err,  # "disconnected during message iteration": why
            )
        else:
            log.exception("uplink: failed; trying again")

    def _where(self) -> str:
        return f"{self.settings.host}:{self.settings.port}"
