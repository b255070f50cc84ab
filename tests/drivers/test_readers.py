"""Tile reader protocol and port (drivers/reader_frames.py, reader_parser.py, readers.py)
against its contract, drivers/README.md.

Pty tests drive the real pyserial code path: frames are written to a pty master and the
`Reader` opens the slave by a symlink, as it would open /dev/serial/by-id/... on the table.
Waits poll with a bounded deadline; no test asserts a duration.
"""

from __future__ import annotations

import contextlib
import os
import tty

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.reader_frames import (
    BUTTON_CODES,
    ERR_STACKER_MISSED,
    MAX_BODY,
    SYNC,
    Heartbeat,
    Inventory,
    ReaderError,
    SeatButton,
    Stacked,
    crc16,
    encode,
    encode_button,
    encode_error,
    encode_heartbeat,
    encode_inventory,
    encode_stacked,
)
from drivers.reader_parser import FrameParser
from drivers.readers import Reader, ReaderBack, ReaderLost
from tests.support.readerkit import Collected, wait_for

UID8 = [bytes([0xE0, 0x04, 0x01, 0x50, 0, 0, 0, i]) for i in range(40)]  # ISO 15693 style
UID4 = [bytes([0x11, 0x22, 0x33, i]) for i in range(4)]
UID7 = [bytes([0x04, 1, 2, 3, 4, 5, i]) for i in range(4)]

SAMPLES = [
    Inventory(0, ()),
    Inventory(3, tuple(UID8[:5])),
    Inventory(255, tuple(UID4)),
    Inventory(12, tuple(UID7)),
    Inventory(1, tuple(UID8[:36])),  # a whole 18-stack wall under one antenna
    Stacked(0, UID8[0]),
    Stacked(143, UID4[1]),
    Stacked(65535, UID7[2]),
    Heartbeat(0),
    Heartbeat(255),
    ReaderError(ERR_STACKER_MISSED),
    ReaderError(0x01, 7),
]

# --- drivers/README.md: frame layout and CRC ---------------------------------------------------


def test_crc_is_ccitt_false_with_its_check_value():
    """drivers/README.md: CRC-16/CCITT-FALSE, check value of '123456789' is 0x29B1."""
    assert crc16(b"123456789") == 0x29B1


def test_frame_layout_matches_the_examples_in_the_readme():
    """drivers/README.md: SYNC, LEN, CMD, PAYLOAD, CRC over LEN..PAYLOAD, worked examples."""
    assert encode_heartbeat(7) == bytes.fromhex("a55a00020307cf14")
    assert encode_stacked(5, b"abcd") == bytes.fromhex("a55a000802000504616263642551")
    assert encode_error(2, 1) == bytes.fromhex("a55a00030402012053")
    frame = encode_inventory(3, UID8[:2])
    assert frame[:2] == SYNC
    assert int.from_bytes(frame[2:4], "big") == len(frame) - 6 == 4 + 2 * 8
    assert frame[4:8] == bytes([0x01, 3, 8, 2])
    assert int.from_bytes(frame[-2:], "big") == crc16(frame[2:-2])


def test_encoders_refuse_what_the_contract_forbids():
    """drivers/README.md: UIDs are 4, 7 or 8 bytes, one size per frame, no repeated tag."""
    with pytest.raises(ValueError):
        encode_inventory(0, [b"\x01\x02\x03"])
    with pytest.raises(ValueError):
        encode_inventory(0, [UID4[0], UID8[0]])
    with pytest.raises(ValueError):
        encode_inventory(0, [UID4[0], UID4[0]])
    with pytest.raises(ValueError):
        encode_stacked(0, b"\x00" * 9)


def test_a_seat_button_frame_round_trips_and_bad_codes_are_rejected():
    """drivers/README.md SeatButton: SIDE 0..3, BUTTON 0..3; anything else is not a press."""
    parser = FrameParser()
    frames = b"".join(encode_button(side, button) for side in range(4) for button in BUTTON_CODES)
    assert parser.feed(frames) == [
        SeatButton(side, button) for side in range(4) for button in BUTTON_CODES
    ]
    bad_side = bytes([0x05, 4, 0])
    bad_button = bytes([0x05, 0, 4])
    for body in (bad_side, bad_button):
        covered = len(body).to_bytes(2, "big") + body
        parser.feed(SYNC + covered + crc16(covered).to_bytes(2, "big"))
    assert parser.rejected == 2
    with pytest.raises(ValueError):
        encode_button(4, "win")
    with pytest.raises(ValueError):
        encode_button(0, "kong")


# --- parser: round trip, splitting, resync, rejection ------------------------------------------


@pytest.mark.parametrize("record", SAMPLES, ids=repr)
def test_round_trip_every_record_type(record):
    """drivers/README.md commands 0x01-0x04: encode then parse gives the same record."""
    parser = FrameParser()
    assert parser.feed(encode(record)) == [record]
    assert (parser.frames, parser.rejected, parser.garbage, parser.pending) == (1, 0, 0, 0)


def test_frames_split_byte_by_byte_parse_once_complete():
    """A frame arriving one byte per read (pyserial returns partial frames) parses when whole."""
    parser = FrameParser()
    stream = b"".join(encode(r) for r in SAMPLES)
    out = []
    for i in range(len(stream)):
        out += parser.feed(stream[i : i + 1])
    assert out == SAMPLES
    assert parser.rejected == parser.garbage == parser.pending == 0


def test_garbage_before_and_between_frames_resyncs_and_is_counted():
    """drivers/README.md resync: bytes outside frames are garbage; parsing resumes at next SYNC."""
    parser = FrameParser()
    noise = b"\x00\xff\x5a\xa5\x13\x37"  # includes a lone SYNC byte and a reversed SYNC
    stream = noise + encode(SAMPLES[1]) + noise + noise + encode(SAMPLES[5]) + b"\xa5"
    assert parser.feed(stream) == [SAMPLES[1], SAMPLES[5]]
    assert parser.garbage == 3 * len(noise)
    assert parser.pending == 1  # a trailing A5 may start the next frame
    assert (
        parser.feed(b"\x00") == [] and parser.pending == 0 and parser.garbage == 3 * len(noise) + 2
    )


def test_corrupt_crc_is_rejected_and_counted_next_frame_still_parses():
    """drivers/README.md validity: a CRC mismatch rejects the frame; the next good one parses."""
    parser = FrameParser()
    bad = bytearray(encode(SAMPLES[1]))
    bad[9] ^= 0x40  # one bit of a tag id
    assert parser.feed(bytes(bad) + encode(SAMPLES[8])) == [SAMPLES[8]]
    assert parser.rejected == 1
    assert parser.garbage == len(bad)


@pytest.mark.parametrize(
    "candidate",
    [
        b"\xa5\x5a\x00\x00\x03\x07",  # LEN 0
        (MAX_BODY + 1).to_bytes(2, "big").join([b"\xa5\x5a", b"\x03"]),  # LEN too big
        b"\xa5\x5a\x00\x02\x09\x07",  # unknown CMD
        b"\xa5\x5a\x00\x05\x03\x07",  # heartbeat with the wrong LEN
        b"\xa5\x5a\x00\x07\x01\x00\x05\x01",  # inventory with a 5-byte UID size
        b"\xa5\x5a\x00\x0c\x01\x00\x08\x02",  # inventory LEN disagrees with COUNT x UIDSIZE
    ],
)
def test_structurally_bad_header_is_rejected_before_its_claimed_length(candidate):
    """drivers/README.md validity: LEN is checked against CMD's fixed fields as they arrive,
    so a false SYNC does not hold back the good frame that follows it."""
    parser = FrameParser()
    assert parser.feed(candidate + encode(SAMPLES[8])) == [SAMPLES[8]]
    assert parser.rejected >= 1
    assert parser.garbage == len(candidate)


def test_good_frame_starting_inside_a_bad_candidate_is_found():
    """drivers/README.md resync: a rejection drops only the first SYNC byte, then rescans."""
    parser = FrameParser()
    truncated = encode(SAMPLES[1])[:-5]  # the reader reset mid-frame
    assert parser.feed(truncated + encode(SAMPLES[3]) + b"\x00" * 40) == [SAMPLES[3]]
    assert parser.rejected == 1


def test_repeated_tag_in_inventory_is_rejected():
    """drivers/README.md Inventory: a tag appears at most once per frame."""
    body = bytes([0x01, 2, 4, 2]) + UID4[0] * 2
    covered = len(body).to_bytes(2, "big") + body
    frame = SYNC + covered + crc16(covered).to_bytes(2, "big")
    parser = FrameParser()
    assert parser.feed(frame) == [] and parser.rejected == 1


records = st.one_of(
    st.builds(
        Inventory,
        st.integers(0, 255),
        st.sampled_from([4, 7, 8]).flatmap(
            lambda n: st.lists(st.binary(min_size=n, max_size=n), max_size=20, unique=True).map(
                tuple
            )
        ),
    ),
    st.builds(
        Stacked,
        st.integers(0, 65535),
        st.sampled_from([4, 7, 8]).flatmap(lambda n: st.binary(min_size=n, max_size=n)),
    ),
    st.builds(Heartbeat, st.integers(0, 255)),
    st.builds(ReaderError, st.integers(0, 255), st.integers(0, 255)),
)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=600), st.lists(st.integers(1, 64), max_size=20))
def test_fuzz_random_bytes_never_raise_and_every_byte_is_accounted(data, cuts):
    """drivers/README.md validity: any bytes, cut anywhere: no exception, and every byte fed is
    garbage, part of an accepted frame, or pending as a possible frame start."""
    parser = FrameParser()
    got, pos = [], 0
    for n in cuts + [len(data)]:
        got += parser.feed(data[pos : pos + n])
        pos += n
    assert parser.garbage + parser.accepted_bytes + parser.pending == len(data)
    assert parser.frames == len(got)
    if not got:
        assert parser.accepted_bytes == 0 and parser.garbage + parser.pending == len(data)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.binary(max_size=30), records), max_size=8), st.integers(1, 50))
def test_fuzz_records_survive_arbitrary_garbage_between_them(items, chunk):
    """drivers/README.md resync: frames interleaved with any garbage (false SYNCs included) all
    come out, in order, once enough later bytes arrive to refute a false candidate."""
    stream = b"".join(noise + encode(r) for noise, r in items) + b"\x00" * (MAX_BODY + 8)
    parser = FrameParser()
    got = []
    for i in range(0, len(stream), chunk):
        got += parser.feed(stream[i : i + chunk])
    assert got == [r for _, r in items]
    assert parser.garbage + parser.accepted_bytes + parser.pending == len(stream)


# --- Reader over a real pty ---------------------------------------------------------------------


class FakeDevice:
    """A pty standing in for a USB reader; `link` is its stable /dev/serial/by-id style name."""

    def __init__(self, link: str):
        self.link = link
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        os.symlink(os.ttyname(self.slave), link)

    def write(self, data: bytes) -> None:
        os.write(self.master, data)

    def unplug(self) -> None:
        os.remove(self.link)
        os.close(self.master)
        os.close(self.slave)


@pytest.fixture
def device(tmp_path):
    dev = FakeDevice(str(tmp_path / "usb-mjtable_reader_0001-if00"))
    yield dev
    with contextlib.suppress(OSError):
        dev.unplug()


def test_reader_end_to_end_through_a_pty(device):
    """drivers/README.md over pyserial: frames written to the device reach the callback in order."""
    got = Collected()
    with Reader(device.link, got, silence_timeout=None) as reader:
        assert reader.opened.wait(5)
        for r in SAMPLES:
            device.write(encode(r))
        device.write(b"\x00garbage\xa5")
        device.write(encode(SAMPLES[0]))
        assert wait_for(lambda: len(got.snapshot()) == len(SAMPLES) + 1)
    assert got.snapshot() == SAMPLES + [SAMPLES[0]]
    assert reader.parser.garbage == 9
    assert not any(isinstance(r, (ReaderLost, ReaderBack)) for r in got.snapshot())


def test_reader_reports_unplug_then_reconnects_by_the_same_path(device, tmp_path):
    """drivers/README.md loss and return: unplug gives ReaderLost; when the path comes back
    (a new pty behind the same link) the reader reopens it, says ReaderBack and records resume."""
    got = Collected()
    with Reader(device.link, got, silence_timeout=None, backoff_max=0.2) as reader:
        assert reader.opened.wait(5)
        device.write(encode(Heartbeat(1)))
        assert wait_for(lambda: Heartbeat(1) in got.snapshot())

        device.unplug()
        assert wait_for(lambda: any(isinstance(r, ReaderLost) for r in got.snapshot()))
        assert not reader.online

        replugged = FakeDevice(device.link)  # like ttyUSB0 coming back as ttyUSB1
        try:
            assert wait_for(
                lambda: Stacked(0, UID8[0]) in got.snapshot(),
                poke=lambda: (
                    reader.opened.is_set() and replugged.write(encode(Stacked(0, UID8[0])))
                ),
            )
        finally:
            reader.close()
            replugged.unplug()

    records = got.snapshot()
    lost = next(i for i, r in enumerate(records) if isinstance(r, ReaderLost))
    back = next(i for i, r in enumerate(records) if isinstance(r, ReaderBack))
    assert records[0] == Heartbeat(1)
    assert lost < back and records[back + 1] == Stacked(0, UID8[0])
    assert sum(isinstance(r, ReaderLost) for r in records) == 1  # once, not per failed reopen
    assert records[lost].path == records[back].path == device.link
    assert reader.online and reader.reconnects >= 1


def test_silent_reader_is_lost_and_back_when_it_speaks(device):
    """drivers/README.md Heartbeat: no valid frame for silence_timeout means lost; a frame after
    the reopen brings it back."""
    got = Collected()
    with Reader(device.link, got, silence_timeout=0.2, backoff_max=0.1) as reader:
        assert wait_for(lambda: any(isinstance(r, ReaderLost) for r in got.snapshot()))
        assert "silent" in next(r for r in got.snapshot() if isinstance(r, ReaderLost)).reason
        assert wait_for(
            lambda: Heartbeat(9) in got.snapshot(),
            poke=lambda: reader.opened.is_set() and device.write(encode(Heartbeat(9))),
        )
    records = got.snapshot()
    assert isinstance(records[0], ReaderLost) and isinstance(records[1], ReaderBack)
    assert records[2] == Heartbeat(9)


def test_missing_device_at_start_is_lost_then_back_when_plugged(tmp_path):
    """drivers/README.md loss and return: a path that cannot be opened is a ReaderLost, retried."""
    link = str(tmp_path / "usb-late")
    got = Collected()
    with Reader(link, got, silence_timeout=None, backoff_max=0.1) as reader:
        assert wait_for(lambda: any(isinstance(r, ReaderLost) for r in got.snapshot()))
        dev = FakeDevice(link)
        try:
            assert wait_for(
                lambda: ReaderError(1, 2) in got.snapshot(),
                poke=lambda: reader.opened.is_set() and dev.write(encode(ReaderError(1, 2))),
            )
        finally:
            reader.close()
            dev.unplug()
    assert [type(r) for r in got.snapshot()[:2]] == [ReaderLost, ReaderBack]


def test_close_stops_the_thread_and_a_failing_callback_does_not_kill_it(device):
    """Reader.close(): the thread ends; an exception in on_record is logged, not fatal."""
    seen = []

    def flaky(record):
        seen.append(record)
        if len(seen) == 1:
            raise RuntimeError("consumer bug")

    reader = Reader(device.link, flaky, silence_timeout=None).start()
    assert reader.opened.wait(5)
    device.write(encode(Heartbeat(1)) + encode(Heartbeat(2)))
    assert wait_for(lambda: len(seen) == 2)
    reader.close()
    assert not reader._thread.is_alive()
