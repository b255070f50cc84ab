"""Issue 34, "Identity on the bus": the table's retained `status` says who it is (the firmware's
version, the machine's model, the digests of its profile and rule book, its device key's
fingerprint, its journal disk's free space, its uptime) and the birth of its connection, a
count kept across restarts (firmware/uplink/identity.py)."""

import asyncio
import hashlib
import logging
import shutil
from importlib import metadata

from firmware.bus.contract import Envelope
from firmware.bus.settings import UplinkSettings
from firmware.journal import device_key
from firmware.journal.store import Journal
from firmware.resources import ruleset_path
from firmware.table.profile import TABLES_DIR
from firmware.uplink.client import STATUS_SECONDS, Uplink
from firmware.uplink.identity import Identity, next_birth
from firmware.uplink.messages import public_state, status_message
from tests.support.servicekit import Clock
from tests.support.uplinkkit import TABLE
from tests.support.venuekit import VENUE


def sha256_of(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_issue_34_the_status_says_the_firmware_profile_rules_key_disk_and_uptime(tmp_path):
    """Issue 34: an organiser lists the hall's firmware and rule books from the status alone;
    the digests are `sha256sum` of the files, the fingerprint the one a HeadSigned's public
    key gives, the uptime the table's clock since its start."""
    key = device_key.load(tmp_path / "device.key")
    clock = Clock(500.0)
    identity = Identity(
        profile=TABLES_DIR / "sim.toml",
        rules=ruleset_path("ccm2012"),
        key_fingerprint=key.fingerprint,
        journal=tmp_path / "j.sqlite",
        births=tmp_path / "uplink-birth",
        clock=clock,
    )
    identity.born()
    clock.t += 42.5
    body = status_message(Envelope(VENUE, TABLE, "s1"), identity.status(online=True))
    free = shutil.disk_usage(tmp_path).free
    assert body["status"] == "online" and body["birth"] == 1
    assert body["firmware"] == metadata.version("mjtable")
    assert body["model"]
    assert body["profile_sha256"] == sha256_of(TABLES_DIR / "sim.toml")
    assert body["rules_sha256"] == sha256_of(ruleset_path("ccm2012"))
    public = bytes.fromhex(key.sign_head(1.0, 1, "0" * 64).public_key)
    assert body["key_fingerprint"] == "SHA256:" + hashlib.sha256(public).hexdigest()
    assert abs(body["disk_free_bytes"] - free) < 64 * 2**20  # others write meanwhile
    assert body["uptime_seconds"] == 42.5
    assert identity.status(online=False).status == "offline"


def test_issue_34_the_birth_goes_up_at_each_start_and_survives_it(tmp_path, caplog):
    """Issue 34: the birth count is kept in its file, one up at each connection, so a table
    started again is born later than its last will; a garbled count starts again at 1, said."""
    births = tmp_path / "uplink-birth"
    assert [next_birth(births) for _ in range(3)] == [1, 2, 3]
    assert births.read_text() == "3\n"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no draft left
    births.write_text("garbled")
    with caplog.at_level(logging.WARNING, "mjtable.uplink"):
        assert next_birth(births) == 1
    assert "cannot be read" in caplog.text


def test_issue_34_a_connection_never_made_costs_no_birth(tmp_path):
    """Issue 34: attempts that never said online (the broker away) keep their birth, so an
    outage neither runs the count up nor writes its file at each try; the next connection
    after an online is born one up."""
    identity = Identity(
        profile=None,
        rules=ruleset_path("wsom2006"),
        key_fingerprint=None,
        journal=tmp_path / "j.sqlite",
        births=tmp_path / "uplink-birth",
    )
    assert [identity.born() for _ in range(3)] == [1, 1, 1]
    identity.status(online=False)  # a will made for an attempt: no online said
    assert identity.born() == 1
    identity.status(online=True)
    assert [identity.born(), identity.born()] == [2, 2]
    assert (tmp_path / "uplink-birth").read_text() == "2\n"


def test_issue_34_the_status_goes_out_again_with_its_uptime_as_it_runs(tmp_path, broker, venue):
    """Issue 34: the retained status is published again every STATUS_SECONDS of the table's
    clock, so its uptime and free space stay current (and a stale "offline" left retained is
    put right), under the same birth."""
    clock = Clock(0.0)
    with Journal(tmp_path / "j.sqlite") as journal:
        identity = Identity(
            profile=None,
            rules=ruleset_path("wsom2006"),
            key_fingerprint=None,
            journal=journal.path,
            births=tmp_path / "uplink-birth",
            clock=clock,
        )
        settings = UplinkSettings("127.0.0.1", broker.port, VENUE, False, None, None, None, None, 5)
        uplink = Uplink(settings, journal, TABLE, _still_state, identity)

        async def run() -> None:
            running = asyncio.create_task(uplink.run())
            await asyncio.to_thread(venue.wait, lambda: len(venue.bodies("status")) == 1)
            clock.t += STATUS_SECONDS
            uplink.changed()
            await asyncio.to_thread(venue.wait, lambda: len(venue.bodies("status")) == 2)
            uplink.close()
            await asyncio.wait_for(running, 10)

        asyncio.run(run())
    statuses = venue.bodies("status")
    assert [(s["status"], s["birth"], s["uptime_seconds"]) for s in statuses] == [
        ("online", 1, 0.0),
        ("online", 1, STATUS_SECONDS),
        ("offline", 1, STATUS_SECONDS),
    ]


def _still_state() -> dict:
    """A table between hands, with no players yet."""
    return public_state(
        t=0.0,
        phase="between_hands",
        ruleset="wsom2006",
        hand_number=0,
        round_wind="E",
        dealer="E",
        scores=[0, 0, 0, 0],
        players=None,
        session_seconds_left=None,
        alerts_waiting=0,
        referee_called=False,
        venue_message=None,
        referee_on_way=None,
        shuffler="idle",
    )


def test_issue_35_the_status_says_the_tables_dice_the_venues_rule(tmp_path):
    """Issue 35 item 4: whether the table rolls electronic dice is the venue's rule; the status
    says which the table has, as its signed session header does (`mjtable verify` holds each
    hand's rolls to it)."""
    identity = Identity(
        profile=TABLES_DIR / "sim.toml",
        rules=ruleset_path("wsom2006"),
        key_fingerprint=None,
        journal=tmp_path / "j.sqlite",
        births=tmp_path / "uplink-birth",
        dice="electronic",
    )
    identity.born()
    body = status_message(Envelope(VENUE, TABLE, "s1"), identity.status(online=True))
    assert body["dice"] == "electronic"
