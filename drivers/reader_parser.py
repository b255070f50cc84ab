"""Reading the tile reader's frames: `FrameParser`, pure bytes -> records, which never raises,
and counts rejected frames and garbage bytes (drivers/README.md, "Validity and
resynchronisation"). The inverse of the encoders of drivers/reader_frames.py.
"""

from drivers.reader_frames import (
    BUTTON_CODES,
    CMD_BUTTON,
    CMD_ERROR,
    CMD_HEARTBEAT,
    CMD_INVENTORY,
    CMD_STACKED,
    MAX_BODY,
    SYNC,
    UID_SIZES,
    FrameRecord,
    Heartbeat,
    Inventory,
    ReaderError,
    SeatButton,
    Stacked,
    crc16,
)

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
