"""The tile reader's frames (drivers/README.md, "Tile reader serial protocol"): the wire's
constants, the records a frame carries, and their encoding.

- records: `Inventory`, `Stacked`, `Heartbeat`, `ReaderError`, `SeatButton`, each one frame;
- `encode_inventory`, `encode_stacked`, `encode_heartbeat`, `encode_error`, `encode_button`
  and `encode`: build frames (for the tests and the simulated reader).

Reading them back is drivers/reader_parser.py; the port that reads them, drivers/readers.py.
A driver speaks hardware: tag ids are raw bytes, antennas are numbers. Mapping antennas to zones
and tags to tiles is the firmware's job (table profile). Nothing outside drivers/ is imported.
"""

import binascii
from dataclasses import dataclass

from drivers.buttons import BUTTONS

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


FrameRecord = Inventory | Stacked | Heartbeat | ReaderError | SeatButton


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
