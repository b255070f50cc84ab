"""What the venue keeps of each table (issue 35 items "the key published and pinned", "anchors at
the venue", "no unrevealed seal"): the key pins and their alarm, fed through a real Mosquitto
as the venue's other tests are; the anchors on disk and their export; the count of walls
sealed and never raised and hands voided."""

import asyncio
import contextlib
import json
import time

import aiomqtt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from firmware.cli import main
from firmware.journal.device_key import fingerprint
from firmware.venue.board import VenueBoard
from firmware.venue.bus import VenueBus
from firmware.venue.pins import EnrolmentError, read_enrolment
from firmware.venue.rebuilds import UNUSUAL
from firmware.venue.records import VenueRecords
from firmware.venue.view import tile
from tests.support.venuekit import VENUE, feed, row, state, status, topic


def public_key() -> str:
    raw = Ed25519PrivateKey.generate().public_key()
    return raw.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw).hex()


def head(hand: int, key: str, value: str) -> dict:
    return {
        "type": "HeadSigned",
        "t": 1.0,
        "seat": None,
        "hand": hand,
        "head": value,
        "signature": "00" * 64,
        "public_key": key,
    }


def sealed(digest: str) -> dict:
    return {"type": "WallSealed", "t": 1.0, "seat": None, "digest": digest, "tile_set": "A"}


def key_alarms(board: VenueBoard, table: str) -> list[str]:
    alerts = tile(board.tables[table], time.time())["alerts"]
    return [a["text"] for a in alerts if "device key changed" in a["text"]]


async def until(check, seconds: float = 20.0):
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, f"waited {seconds} s for the venue to catch up"
        await asyncio.sleep(0.01)


def test_issue_35_a_tables_key_changed_mid_day_raises_the_venues_alarm(broker, tmp_path):
    """Issue 35 "done when": T1's status names key A (pinned on first sight), it signs hands
    with A; mid-day its status and its signatures name key B. The organiser's dashboard shows
    the alarm, once, naming both keys; T2, whose key never changes, has none."""
    key_a, key_b, key_t2 = public_key(), public_key(), public_key()

    async def play():
        board = VenueBoard(VENUE, records=VenueRecords(tmp_path / "records.sqlite"))
        bus = VenueBus(board, "127.0.0.1", broker.port)
        task = asyncio.create_task(bus.run())
        try:
            await until(lambda: board.connected)
            async with aiomqtt.Client("127.0.0.1", broker.port) as tables:

                async def say(table, leaf, body):
                    await tables.publish(topic(table, leaf), json.dumps(body), qos=1)

                for name, key in (("T1", key_a), ("T2", key_t2)):
                    await say(
                        name,
                        "status",
                        status(name, birth=1) | {"key_fingerprint": fingerprint(key)},
                    )
                    await say(name, "events", row(name, 5, "device", head(1, key, "a1" * 32)))
                await until(lambda: board.counts()["events"] == 2)
                assert not key_alarms(board, "T1")
                await say(
                    "T1", "status", status("T1", birth=2) | {"key_fingerprint": fingerprint(key_b)}
                )
                await say("T1", "events", row("T1", 9, "device", head(2, key_b, "b2" * 32)))
                await say("T2", "events", row("T2", 9, "device", head(2, key_t2, "c2" * 32)))
                await until(lambda: board.counts()["events"] == 4)
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        return board

    board = asyncio.run(play())
    alarms = key_alarms(board, "T1")
    assert len(alarms) == 1, alarms
    assert fingerprint(key_a)[:23] in alarms[0] and fingerprint(key_b)[:23] in alarms[0]
    assert not key_alarms(board, "T2")


def test_issue_35_pins_outlive_the_venues_restart_and_the_enrolment_pins_first(tmp_path):
    """Issue 35: the pins are on the venue's disk: a venue restarted still knows T1's key and
    raises the alarm for another; a table on the organiser's enrolment list is pinned before
    it is ever seen, so a table that shows another key the first time is caught too."""
    path, key_a, key_b = tmp_path / "records.sqlite", public_key(), public_key()
    first = VenueBoard(VENUE, records=VenueRecords(path))
    feed(first, "T1", "status", status("T1", birth=1) | {"key_fingerprint": fingerprint(key_a)})
    first.records.close()
    again = VenueBoard(VENUE, records=VenueRecords(path))
    feed(again, "T1", "state", state("T1"))
    feed(again, "T1", "status", status("T1", birth=2) | {"key_fingerprint": fingerprint(key_b)})
    assert len(key_alarms(again, "T1")) == 1
    feed(again, "T1", "state", state("T1", session="s2"))  # a new session clears the grid
    assert not key_alarms(again, "T1")
    feed(again, "T1", "events", row("T1", 4, "device", head(1, key_b, "e1" * 32), "s2"))
    assert len(key_alarms(again, "T1")) == 1  # the pin stays: said again in the new session

    listed = tmp_path / "enrolment.csv"
    listed.write_text(f"table,key_fingerprint\nT7,{fingerprint(key_a)}\n")
    enrolled = VenueBoard(VENUE, records=VenueRecords(path, enrolment=read_enrolment(listed)))
    feed(enrolled, "T7", "events", row("T7", 3, "device", head(1, key_b, "d1" * 32)))
    assert len(key_alarms(enrolled, "T7")) == 1
    (tmp_path / "enrolment.json").write_text(json.dumps({"T8": fingerprint(key_a)}))
    assert read_enrolment(tmp_path / "enrolment.json") == {"T8": fingerprint(key_a)}
    listed.write_text("table,key_fingerprint\nT7,ab12\n")
    with contextlib.suppress(EnrolmentError):
        read_enrolment(listed)
        raise AssertionError("a fingerprint that is not SHA256: and 64 hex digits is refused")


def test_issue_35_the_venue_keeps_every_seal_and_signed_head_and_exports_them(tmp_path, capsys):
    """Issue 35 "anchors at the venue": each WallSealed digest and HeadSigned head received is
    on disk with the time received, a row sent twice kept once; `mjtable venue anchors
    export` writes them for `mjtable verify --anchors`; it never writes over a file."""
    path, key = tmp_path / "records.sqlite", public_key()
    board = VenueBoard(VENUE, records=VenueRecords(path, clock=lambda: 1_800_000_000.0))
    feed(board, "T1", "events", row("T1", 2, "device", sealed("5e" * 32)))
    feed(board, "T1", "events", row("T1", 3, "hand", {"type": "HandStarted", "t": 2.0}))
    feed(board, "T1", "events", row("T1", 9, "device", head(1, key, "a1" * 32)))
    feed(board, "T1", "events", row("T1", 9, "device", head(1, key, "a1" * 32)))  # again
    board.records.close()
    out = tmp_path / "anchors.json"
    argv = ["venue", "anchors", "export", "--records", str(path), "--venue", VENUE, "-o", str(out)]
    assert main(argv) == 0
    document = json.loads(out.read_text())
    assert document["anchors"] == "mjtable venue anchors 1" and document["venue"] == VENUE
    assert [(a["seq"], a["kind"], a["value"]) for a in document["rows"]] == [
        (2, "seal", "5e" * 32),
        (9, "head", "a1" * 32),
    ]
    assert document["rows"][1]["key_fingerprint"] == fingerprint(key)
    assert document["rows"][1]["received"] == 1_800_000_000.0
    assert main(argv) == 2 and "exists" in capsys.readouterr().err
    missing = ["venue", "anchors", "export", "--records", str(tmp_path / "no"), "-o", str(out)]
    assert main(missing) == 2


def test_issue_35_walls_sealed_and_not_raised_and_voids_are_counted_and_an_unusual_count_shown():
    """Issue 35 "the venue counts rebuilds and voids per table": a fair session (each seal
    followed by its hand, the last walls never raised) counts 0 and raises nothing; a table
    that seals walls again and again before a hand (seal shopping) and voids reaches UNUSUAL
    and the organiser sees it once."""
    board = VenueBoard(VENUE)
    seq = 0

    def send(table, kind, event):
        nonlocal seq
        seq += 1
        feed(board, table, "events", row(table, seq, kind, event))

    for n in range(6):
        send("T1", "device", sealed(f"{n:064x}"))
        send("T1", "hand", {"type": "HandStarted", "t": 2.0})
    send("T1", "device", sealed("f" * 64))  # the walls of a hand never played: the day is over
    for n in range(UNUSUAL):
        send("T2", "device", sealed(f"{n:064x}"))
    send("T2", "device", {"type": "HandVoided", "t": 3.0, "seat": None, "hand_number": 1})
    send("T2", "hand", {"type": "HandStarted", "t": 2.0})
    counts = board.counts()["records"]
    assert counts["T1"]["walls_not_raised"] == 0 and not counts["T1"]["unusual"]
    assert (counts["T2"]["walls_not_raised"], counts["T2"]["hands_voided"]) == (UNUSUAL - 1, 1)
    assert counts["T2"]["unusual"] and counts["T1"]["anchors"] == 7
    texts = [a["text"] for a in tile(board.tables["T2"], 0)["alerts"]]
    assert len([t for t in texts if "never raised" in t]) == 1
    assert not tile(board.tables["T1"], 0)["alerts"]
