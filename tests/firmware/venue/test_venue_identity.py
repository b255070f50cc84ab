"""Issue 34, "Identity on the bus", at the venue: a last will older than the table's current
birth never says offline over a fresh online, and the organiser sees who each table says it
is (firmware/venue/board.py, messages.py, view.py)."""

from firmware.venue.board import VenueBoard
from tests.support.venuekit import ORGANISER, VENUE, feed, organiser_client, status


def test_issue_34_a_stale_last_will_never_says_offline_over_a_fresh_online():
    """Issue 34: the table was killed (its will, offline of birth 5, waits at the broker for
    the keepalive) and came back (online, birth 6) before the broker sent the will: the
    will comes last, and the venue keeps the table online. Its own offline, of birth 6,
    counts; so does an online of a later birth after it."""
    board = VenueBoard(VENUE)
    feed(board, "T1", "status", status("T1", online=True, birth=5))
    feed(board, "T1", "status", status("T1", online=True, birth=6))
    assert not feed(board, "T1", "status", status("T1", online=False, birth=5))
    assert board.tables["T1"].status == "online"
    assert feed(board, "T1", "status", status("T1", online=False, birth=6))
    assert board.tables["T1"].status == "offline"
    assert feed(board, "T1", "status", status("T1", online=True, birth=7))
    assert board.tables["T1"].status == "online"


def test_issue_34_a_venue_that_starts_late_takes_the_retained_will_then_the_birth():
    """Issue 34: the order the broker gives a venue subscribing late (the retained status,
    then the live ones) is taken as it comes when births go up: offline of birth 2 retained,
    then the table's online of birth 3."""
    board = VenueBoard(VENUE)
    feed(board, "T1", "status", status("T1", online=False, birth=2))
    assert board.tables["T1"].status == "offline"
    feed(board, "T1", "status", status("T1", online=True, birth=3))
    assert board.tables["T1"].status == "online"


def test_issue_34_a_table_before_births_is_taken_as_before():
    """Issue 34 keeps the contract's version: a status without a birth (a table not yet
    updated) is taken as it comes, whatever came before it."""
    board = VenueBoard(VENUE)
    feed(board, "T1", "status", status("T1", online=True, birth=4))
    feed(board, "T1", "status", status("T1", online=False))
    assert board.tables["T1"].status == "offline"


def test_issue_34_the_organiser_sees_who_each_table_says_it_is():
    """Issue 34: the table's drill-down carries its status's identity (the firmware's version,
    the rule book's digest, the key's fingerprint ...), cut to the contract's fields."""
    board = VenueBoard(VENUE)
    said = status("T1", birth=9) | {
        "firmware": "0.1.0",
        "model": "Raspberry Pi 4 Model B Rev 1.4",
        "profile_sha256": "ab" * 32,
        "rules_sha256": "cd" * 32,
        "key_fingerprint": "SHA256:" + "ef" * 32,
        "disk_free_bytes": 12_000_000_000,
        "uptime_seconds": 61.5,
        "dice": "electronic",  # issue 35: the venue's rule
        "password": "not the venue's business",
    }
    feed(board, "T1", "status", said)
    shown = organiser_client(board).get("/api/tables/T1", headers=ORGANISER).json()
    expected = {k: v for k, v in said.items() if k not in ("v", "venue", "table", "password")}
    assert shown["identity"] == expected
