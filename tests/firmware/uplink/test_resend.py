"""Issue 32 item 5: no venue row lost to a broker crash. The venue asks a table for the rows
after a seq (a signed `resend`, docs/uplink.md); the journal is the outbox, so the table's
uplink publishes them again (firmware/uplink/commands.py, firmware/uplink/client.py).

The end to end run (the shipped broker SIGKILLed while the venue is away) is
tests/firmware/venue/test_venue_resend.py."""

import asyncio
import json
from collections import Counter

import pytest

from firmware.bus.settings import UplinkSettings
from firmware.journal.store import Journal
from firmware.table.resume import recall
from firmware.uplink.client import Uplink
from firmware.uplink.commands import WINDOW, VenueCommands
from firmware.uplink.messages import AlertBoard, status_state
from tests.support.hall import PUBLIC, WALL, command
from tests.support.servicekit import Clock, dealt_service
from tests.support.uplinkkit import Venue, identity
from tests.support.venuekeys import OTHER_KEY
from tests.support.venuekit import VENUE


def settings(port: int = 1) -> UplinkSettings:
    """An [uplink] to an anonymous broker on loopback `port`."""
    return UplinkSettings("127.0.0.1", port, VENUE, False, None, None, None, PUBLIC, 2)


@pytest.fixture
def table(tmp_path):
    """(service, commands, uplink): a dealt hand, the venue's commands for table T07 of venue
    "hall", its uplink (not running) the resends go to."""
    journal = Journal(tmp_path / "j.sqlite")
    service = dealt_service(journal, Clock())
    uplink = Uplink(settings(), journal, "T07", lambda: {}, identity(journal.path))
    commands = VenueCommands(
        service, PUBLIC, "hall", "T07", wall_clock=lambda: WALL, resend=uplink.resend
    )
    yield service, commands, uplink
    journal.close()


def send(table, sent: dict) -> None:
    service, commands, _ = table
    commands.receive(service.clock(), json.dumps(sent).encode())


def resends(service) -> list[dict]:
    """The journal's VenueCommand records of a resend, taken or refused."""
    rows = [row.data() for row in service.journal.rows() if row.kind == "device"]
    return [r for r in rows if r["type"] == "VenueCommand" and r["command"] == "resend"]


def test_issue_32_a_signed_resend_is_journaled_and_sends_the_rows_again(table):
    """Issue 32 item 5: a signed resend for this table's session is taken: journaled (its id,
    its args), the uplink set to send the rows after `after` to `until` again, nothing told
    the referee and nothing the venue's notes show changed (the hall's pause stays)."""
    service, _, uplink = table
    send(table, command("pause"))
    session = service.journal.session_id
    sent = command("resend", {"session": session, "after": 3, "until": 9})
    send(table, sent)
    (row,) = resends(service)
    assert (row["id"], row["refused"]) == (sent["id"], None)
    assert row["args"] == {"session": session, "after": 3, "until": 9}
    assert uplink.resending == (3, 9)
    assert service.venue.paused, "a resend is not a resume"
    assert not [f for f in service.status().faults if f.device == "venue"]
    notes, _ = recall(service.journal.rows())  # a restart takes up the pause, not a resume
    assert notes.paused


def test_issue_32_a_resend_to_the_end_and_asked_again_covers_both(table):
    """Issue 32 item 5: without `until` the rows to the journal's last; a second resend
    before the first is done widens the rows to send again, never narrows them."""
    service, _, uplink = table
    session, last = service.journal.session_id, service.journal.seq
    send(table, command("resend", {"session": session, "after": 5}))
    assert uplink.resending == (5, last)
    send(table, command("resend", {"session": session, "after": 2, "until": 4}))
    assert uplink.resending == (2, last)


REFUSED = {
    "unsigned": (
        lambda s: {
            k: v
            for k, v in command("resend", {"session": s, "after": 1}).items()
            if k != "signature"
        },
        "signature",
    ),
    "signed with another key": (
        lambda s: command("resend", {"session": s, "after": 1}, key=OTHER_KEY),
        "signature",
    ),
    "expired": (
        lambda s: command("resend", {"session": s, "after": 1}, issued=WALL - WINDOW - 1),
        "ago",
    ),
    "another session": (
        lambda s: command("resend", {"session": "a-day-before", "after": 1}),
        "another journal",
    ),
    "after the journal's last row": (
        lambda s: command("resend", {"session": s, "after": 10_000}),
        "no row after 10000",
    ),
    "after not a seq": (lambda s: command("resend", {"session": s, "after": -1}), "after must"),
    "until before after": (
        lambda s: command("resend", {"session": s, "after": 5, "until": 5}),
        "until must",
    ),
    "no session": (lambda s: command("resend", {"after": 1}), "takes after, session"),
}


@pytest.mark.parametrize("case", REFUSED, ids=list(REFUSED))
def test_issue_32_a_bad_resend_is_refused_journaled_and_told_the_referee(table, case):
    """Issue 32 item 5: a resend unsigned, signed with another key, expired, for another
    session or rows the journal has not, is refused: journaled with why, a transient fault of
    device venue for the referee, and nothing sent again."""
    service, _, uplink = table
    make, why = REFUSED[case]
    send(table, make(service.journal.session_id))
    (row,) = [r for r in service.journal.rows() if r.kind == "device" and "VenueCommand" in r.json]
    refused = row.data()["refused"]
    assert refused is not None and why in refused, refused
    (fault,) = [f for f in service.status().faults if f.device == "venue"]
    assert fault.kind == "refused" and why in fault.message
    assert uplink.resending is None


def test_issue_32_a_table_without_an_uplink_refuses_a_resend(tmp_path):
    """Issue 32 item 5: a table taking commands with no uplink to send rows says so."""
    journal = Journal(tmp_path / "j.sqlite")
    service = dealt_service(journal, Clock())
    commands = VenueCommands(service, PUBLIC, "hall", "T07", wall_clock=lambda: WALL)
    sent = command("resend", {"session": journal.session_id, "after": 1})
    commands.receive(service.clock(), json.dumps(sent).encode())
    (row,) = resends(service)
    assert "no uplink" in row["refused"]
    journal.close()


def test_issue_32_the_uplink_sends_the_rows_asked_for_again_as_events_only(tmp_path, broker):
    """Issue 32 item 5: over a real broker, once every row went up, a resend of rows 3 to 5
    brings exactly those rows again, in order, in their public form as before; no alert goes
    again, and the cursor stays on the journal's last row."""
    journal = Journal(tmp_path / "j.sqlite")
    service = dealt_service(journal, Clock())
    service.commands.report_fault(service.clock(), "shuffler", "jam", "jammed", "clear it")
    venue = Venue(broker.port)
    uplink = Uplink(
        settings(broker.port),
        journal,
        "T07",
        lambda: status_state(service.status(), AlertBoard()),
        identity(journal.path),
    )
    last = journal.seq

    async def run() -> None:
        publishing = asyncio.create_task(uplink.run())
        try:
            await until(lambda: len(venue.bodies("events")) == last)
            await until(lambda: len(venue.bodies("alerts")) == 1)  # the jam's, after its row
            uplink.resend(journal.session_id, 2, 5)
            await until(lambda: len(venue.bodies("events")) == last + 3)
        finally:
            uplink.close()
            await asyncio.wait_for(publishing, 5)
        await until(venue.offline)  # its last word: what it published before has come

    try:
        asyncio.run(run())
    finally:
        venue.close()
    events = venue.bodies("events")
    assert len(venue.bodies("alerts")) == 1
    assert [e["seq"] for e in events] == [*range(1, last + 1), 3, 4, 5]
    assert events[last:] == events[2:5] and last > 5
    assert Counter(e["seq"] for e in events)[last] == 1
    assert uplink.resending is None and journal.uplink_seq() == last
    journal.close()


async def until(done, seconds: float = 10.0) -> None:
    """Until `done()`; the bound only ends a wait for what never comes."""
    for _ in range(int(seconds / 0.01)):
        if done():
            return
        await asyncio.sleep(0.01)
    assert done()
