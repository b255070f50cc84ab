"""Tile readers over a serial line: the frame protocol and a self-healing port reader.

The protocol is specified in drivers/README.md ("Tile reader serial protocol"). This module has:

- records: `Inventory`, `Stacked`, `Heartbeat`, `ReaderError` (from the reader) and
  `ReaderLost`, `ReaderBack` (about the link, made by the host);
- `encode_inventory`, `encode_stacked`, `encode_heartbeat`, `encode_error`: build frames
  (for the tests and the simulated reader);
- `FrameParser`: pure bytes -> records, never raises, counts rejected frames and garbage bytes;
- `Reader`: reads one serial port through pyserial and reconnects after an unplug.

A driver speaks hardware: tag ids are raw bytes, antennas are numbers. Mapping antennas to zones
and tags to tiles is the firmware's job (table profile). Nothing outside drivers/ is imported.
"""

from __future__ import annotations

import binascii
import contextlib
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import serial

from drivers.buttons import BUTTONS

log = logging.getLogger(__name__)

SYNC = b"\xa5\x5a"
MAX_BODY = 2048  # LEN upper bound: CMD + PAYLOAD bytes
UID_SIZES = (4, 7, 8)
NO_ANTENNA = 0xFF

CMD_INVENTORY = 0x01
CMD_STACKED = 0x02
CMD_HEARTBEAT = 0x03
CMD_ERROR = 0x04
CMD_BUTTON = 0x05

# SeatButton's BUTTON code on the wire is the button's index: 0 dice/raise, 1 claim, 2 win,
# 3 call the referee (drivers/buttons.py's buttons, when a panel is wired to the reader's board).
BUTTON_CODES = BUTTONS

# ReaderError codes (drivers/README.md); other codes are passed on unchanged.
ERR_ANTENNA = 0x01
ERR_ANTICOLLISION = 0x02
ERR_RF_FRONT_END = 0x03
ERR_OVERFLOW = 0x04
ERR_STACKER_MISSED = 0x05
# Each code's meaning, as the referee is told it (a code not listed here by its number only).
ERROR_NAMES = {
    ERR_ANTENNA: "an antenna open or short",
    ERR_ANTICOLLISION: "anticollision failed (too many tags)",
    ERR_RF_FRONT_END: "an RF front-end fault",
    ERR_OVERFLOW: "its transmit buffer overflowed (frames were dropped)",
    ERR_STACKER_MISSED: "the stacker missed a tile (a tile passed unread)",
}


# --- records -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Inventory:
    """Every tag one antenna sees now (an empty tuple: it sees nothing)."""

    antenna: int
    tags: tuple[bytes, ...]


@dataclass(frozen=True, slots=True)
class Stacked:
    """The stacker read `tag` as the tile at `position` in wall order (0 starts a new wall)."""

    position: int
    tag: bytes


@dataclass(frozen=True, slots=True)
class Heartbeat:
    """The reader is alive; `seq` increments by one per heartbeat, wrapping at 256."""

    seq: int = 0


@dataclass(frozen=True, slots=True)
class ReaderError:
    """The reader reports a fault; `antenna` is NO_ANTENNA (0xFF) for the reader as a whole."""

    code: int
    antenna: int = NO_ANTENNA

    @property
    def name(self) -> str:
        """What the code means (drivers/README.md) and its number: "an antenna open or short
        (error 1)"; "error N" alone for a code not listed there."""
        meaning = ERROR_NAMES.get(self.code)
        return f"{meaning} (error {self.code})" if meaning else f"error {self.code}"


@dataclass(frozen=True, slots=True)
class SeatButton:
    """A player pressed a button wired to the reader's board (debounced there): `side` 0..3
    is the table side E S W N, `button` one of BUTTON_CODES."""

    side: int
    button: str


@dataclass(frozen=True, slots=True)
class ReaderLost:
    """Host side: the reader on `path` went away (unplugged, unopenable or silent)."""

    path: str
    reason: str


@dataclass(frozen=True, slots=True)
class ReaderBack:
    """Host side: the reader on `path` is open again and has sent a valid frame."""

    path: str


FrameRecord = Inventory | Stacked | Heartbeat | ReaderError | SeatButton
Record = FrameRecord | ReaderLost | ReaderBack


# --- encoding ----------------------------------------------------------------------------------


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, xorout 0 (check 0x29B1)."""
    return binascii.crc_hqx(data, 0xFFFF)


def _frame(cmd: int, payload: bytes) -> bytes:
    body_len = 1 + len(payload)
    if body_len > MAX_BODY:
        raise ValueError(f"frame body of {body_len} bytes exceeds {MAX_BODY}")
    covered = body_len.to_bytes(2, "big") + bytes([cmd]) + payload
    return SYNC + covered + crc16(covered).to_bytes(2, "big")


def _uid_size(tags: tuple[bytes, ...] | list[bytes], default: int = 8) -> int:
    sizes = {len(t) for t in tags}
    if not sizes:
        return default
    if len(sizes) != 1 or next(iter(sizes)) not in UID_SIZES:
        raise ValueError(f"tag ids must all be one of {UID_SIZES} bytes long, got {sorted(sizes)}")
    return sizes.pop()


def encode_inventory(antenna: int, tags) -> bytes:
    """An inventory frame: every tag `antenna` sees now (all tag ids of one size, no repeats)."""
    tags = [bytes(t) for t in tags]
    if len(set(tags)) != len(tags):
        raise ValueError("a tag appears twice in one inventory")
    if len(tags) > 255:
        raise ValueError("at most 255 tags per inventory")
    size = _uid_size(tags)
    return _frame(CMD_INVENTORY, bytes([antenna, size, len(tags)]) + b"".join(tags))


def encode_stacked(position: int, tag: bytes) -> bytes:
    """A stacker frame: `tag` is the tile at `position` (0..65535) in wall order."""
    tag = bytes(tag)
    size = _uid_size([tag])
    return _frame(CMD_STACKED, position.to_bytes(2, "big") + bytes([size]) + tag)


def encode_heartbeat(seq: int = 0) -> bytes:
    return _frame(CMD_HEARTBEAT, bytes([seq & 0xFF]))


def encode_error(code: int, antenna: int = NO_ANTENNA) -> bytes:
    return _frame(CMD_ERROR, bytes([code, antenna]))


def encode_button(side: int, button: str) -> bytes:
    if side not in range(4) or button not in BUTTON_CODES:
        raise ValueError(
            f"a seat button is side 0..3 and one of {BUTTON_CODES}, not {side}, {button!r}"
        )
    return _frame(CMD_BUTTON, bytes([side, BUTTON_CODES.index(button)]))


def encode(record: FrameRecord) -> bytes:
    """The frame of any reader record (the inverse of `FrameParser`)."""
    if isinstance(record, Inventory):
        return encode_inventory(record.antenna, record.tags)
    if isinstance(record, Stacked):
        return encode_stacked(record.position, record.tag)
    if isinstance(record, Heartbeat):
        return encode_heartbeat(record.seq)
    if isinstance(record, ReaderError):
        return encode_error(record.code, record.antenna)
    if isinstance(record, SeatButton):
        return encode_button(record.side, record.button)
    raise TypeError(f"not a reader record: {record!r}")


# --- parsing -----------------------------------------------------------------------------------

_BAD = -1  # _expected_len: the fields seen so far cannot be a valid frame


def _expected_len(body_len: int, cmd_and_fields: bytes) -> int | None:
    """LEN implied by CMD and its fixed fields: None while they have not all arrived, _BAD if
    they cannot be a frame."""
    cmd = cmd_and_fields[0]
    if cmd == CMD_INVENTORY:
        if len(cmd_and_fields) < 4:
            return None
        size, count = cmd_and_fields[2], cmd_and_fields[3]
        if size not in UID_SIZES:
            return _BAD
        return 4 + count * size
    if cmd == CMD_STACKED:
        if len(cmd_and_fields) < 4:
            return None
        size = cmd_and_fields[3]
        return 4 + size if size in UID_SIZES else _BAD
    if cmd == CMD_HEARTBEAT:
        return 2
    if cmd in (CMD_ERROR, CMD_BUTTON):
        return 3
    return _BAD


def _decode(body: bytes) -> FrameRecord | None:
    """The record of a CRC-checked body (CMD + PAYLOAD) whose length is already validated."""
    cmd = body[0]
    if cmd == CMD_INVENTORY:
        antenna, size, count = body[1], body[2], body[3]
        tags = tuple(body[4 + i * size : 4 + (i + 1) * size] for i in range(count))
        if len(set(tags)) != len(tags):
            return None
        return Inventory(antenna, tags)
    if cmd == CMD_STACKED:
        return Stacked(int.from_bytes(body[1:3], "big"), bytes(body[4:]))
    if cmd == CMD_HEARTBEAT:
        return Heartbeat(body[1])
    if cmd == CMD_ERROR:
        return ReaderError(body[1], body[2])
    if cmd == CMD_BUTTON and body[1] < 4 and body[2] < len(BUTTON_CODES):
        return SeatButton(body[1], BUTTON_CODES[body[2]])
    return None


class FrameParser:
    """Bytes in, records out; pure, incremental, and it never raises on any bytes.

    Counters (see drivers/README.md "Validity and resynchronisation"):
    `frames` accepted frames, `rejected` candidate frames that failed a check, `garbage` bytes
    that were not part of an accepted frame. At any moment
    `garbage + accepted_bytes + pending == bytes fed`.
    """

    __slots__ = ("_buf", "accepted_bytes", "frames", "garbage", "rejected")

    def __init__(self) -> None:
        self._buf = bytearray()
        self.frames = 0
        self.rejected = 0
        self.garbage = 0
        self.accepted_bytes = 0

    @property
    def pending(self) -> int:
        """Bytes held back as the possible start of a frame."""
        return len(self._buf)

    def reset(self) -> None:
        """Forget a partial frame (e.g. after a reconnect); its bytes count as garbage."""
        self.garbage += len(self._buf)
        self._buf.clear()

    def _drop(self, n: int) -> None:
        self.garbage += n
        del self._buf[:n]

    def feed(self, data: bytes) -> list[FrameRecord]:
        """Append `data` and return every record completed by it, in stream order."""
        buf = self._buf
        buf += data
        out: list[FrameRecord] = []
        while buf:
            start = buf.find(SYNC)
            if start < 0:
                # keep a trailing first SYNC byte: it may be completed by the next feed
                keep = 1 if buf[-1] == SYNC[0] else 0
                self._drop(len(buf) - keep)
                break
            if start:
                self._drop(start)
            if len(buf) < 5:
                break
            body_len = int.from_bytes(buf[2:4], "big")
            if not 1 <= body_len <= MAX_BODY:
                self._reject()
                continue
            expected = _expected_len(body_len, bytes(buf[4:8]))
            if expected is None:
                break
            if expected != body_len:
                self._reject()
                continue
            total = 4 + body_len + 2
            if len(buf) < total:
                break
            covered = bytes(buf[2 : 4 + body_len])
            record = None
            if crc16(covered) == int.from_bytes(buf[4 + body_len : total], "big"):
                record = _decode(covered[2:])
            if record is None:
                self._reject()
                continue
            del buf[:total]
            self.frames += 1
            self.accepted_bytes += total
            out.append(record)
        return out

    def _reject(self) -> None:
        self.rejected += 1
        self._drop(1)  # only the first SYNC byte: a good frame may start inside this one


# --- the port ----------------------------------------------------------------------------------


class Reader:
    """One tile reader on a serial port, read by a thread; records go to `on_record`.

    Why a thread and not pyserial-asyncio-fast: the reader only talks and the host only
    listens, so a single blocking `read()` with a short timeout is the whole job, and the same
    code path serves the CLI, the tests and the service without an event loop. The unplug,
    close and reopen cycle stays in one place with plain pyserial calls (open and close never
    block the service's loop, which was the point of the -fast wrapper). The cost is one thread
    per reader; `on_record` is called on that thread, so the asyncio service passes
    `lambda r: loop.call_soon_threadsafe(queue.put_nowait, r)`.

    `path` is opened again by name after every loss: give it a stable name
    (the udev links of deploy/pi/99-mjtable.rules, or `/dev/serial/by-id/...`); pyserial URLs
    (`socket://`, `rfc2217://`) work too. Records: the frame records of `FrameParser`, plus
    `ReaderLost(path, reason)` once when the link goes (port error, cannot open, or
    `silence_timeout` seconds without a valid frame, on `clock`, which a simulation sets to
    the table time it runs, so that a busy machine's stall is no silence of its reader) and
    `ReaderBack(path)` at the first valid frame after it comes back. `close()` stops the
    thread within about `read_timeout` plus the time `on_record` takes.
    """

    def __init__(
        self,
        path: str,
        on_record: Callable[[Record], object],
        *,
        baudrate: int = 115200,
        silence_timeout: float | None = 3.0,
        read_timeout: float = 0.05,
        backoff_initial: float = 0.05,
        backoff_max: float = 2.0,
    ) -> None:
        self.path = path
        self.parser = FrameParser()
        self.reconnects = 0
        self._on_record = on_record
        self._baudrate = baudrate
        self._silence_timeout = silence_timeout
        self._read_timeout = read_timeout
        self._backoff_initial = backoff_initial
        self._backoff_max = backoff_max
        self.clock: Callable[[], float] = time.monotonic  # what silence is judged on
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._online = True  # optimistic until the first failure
        self.opened = threading.Event()  # set while the port is open (tests wait on it)

    # lifecycle

    def start(self) -> Reader:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._run, name=f"reader {self.path}", daemon=True
            )
            self._thread.start()
        return self

    def close(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def __enter__(self) -> Reader:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def online(self) -> bool:
        return self._online

    # the thread

    def _emit(self, record: Record) -> None:
        try:
            self._on_record(record)
        except Exception:  # a faulty consumer must not kill the reader
            log.exception("reader %s: on_record failed on %r", self.path, record)

    def _lost(self, reason: str) -> None:
        self.opened.clear()  # before the loss is told: whoever hears of it finds it clear
        if self._online:
            self._online = False
            log.warning("reader %s lost: %s", self.path, reason)
            self._emit(ReaderLost(self.path, reason))

    def _open(self) -> serial.SerialBase:
        return serial.serial_for_url(
            self.path, baudrate=self._baudrate, timeout=self._read_timeout, exclusive=True
        )

    def _run(self) -> None:
        backoff = self._backoff_initial
        while not self._stop.is_set():
            try:
                port = self._open()
            except (serial.SerialException, OSError, ValueError) as exc:
                self._lost(f"cannot open: {exc}")
                self._stop.wait(backoff)
                backoff = min(backoff * 2, self._backoff_max)
                continue
            self.opened.set()
            try:
                if self._pump(port):
                    backoff = self._backoff_initial
            finally:
                self.opened.clear()
                with contextlib.suppress(Exception):  # closing a vanished device may fail too
                    port.close()
                self.parser.reset()
            if not self._stop.is_set():
                self.reconnects += 1
                self._stop.wait(backoff)
                backoff = min(backoff * 2, self._backoff_max)

    def _pump(self, port: serial.SerialBase) -> bool:
        """Read until stop, error or silence; True if a valid frame arrived on this opening."""
        spoke = False
        last_frame = self.clock()
        while not self._stop.is_set():
            try:
                data = port.read(max(1, port.in_waiting))
            except (serial.SerialException, OSError) as exc:
                self._lost(f"port error: {exc}")
                return spoke
            now = self.clock()
            records = self.parser.feed(data) if data else []
            if records:
                last_frame = now
                spoke = True
                if not self._online:
                    self._online = True
                    log.info("reader %s back", self.path)
                    self._emit(ReaderBack(self.path))
                for record in records:
                    self._emit(record)
            elif self._silence_timeout is not None and now - last_frame > self._silence_timeout:
                self._lost(f"silent for {self._silence_timeout:g} s")
                return spoke
        return spoke
