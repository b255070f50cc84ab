"""Issue 15: what the table does with a command from the venue's bus (docs/uplink.md,
"Commands the venue sends"; firmware/uplink/commands.py). A command is taken only when the
venue key signed it, for this venue and table, lately and once; every command, taken or
refused, is a journaled `VenueCommand`; a refusal tells the referee and changes nothing."""

import json

import pytest

from engine import events as ev
from firmware.bus.contract import canonical
from firmware.bus.signing import sign
from firmware.cli import main
from firmware.journal.store import Journal
from firmware.table.resume import recall
from firmware.table.venue_notes import VenueNotes
from firmware.uplink.commands import MESSAGE_LENGTH, WINDOW, VenueCommands
from tests.support.hall import KEY, PLAYERS, PUBLIC, WALL, command
from tests.support.scenes import leaks
from tests.support.servicekit import Clock, act, dealt_service
from tests.support.venuekeys import OTHER_KEY


@pytest.fixture
def table(tmp_path):
    """(service, commands): a dealt hand waiting for East's discard, taking the venue's
    commands for table T07 of venue "hall"."""
    journal = Journal(tmp_path / "j.sqlite")
    service = dealt_service(journal, Clock())
    yield service, VenueCommands(service, PUBLIC, "hall", "T07", wall_clock=lambda: WALL)
    journal.close()


def send(table, sent) -> None:
    """`sent` (a command, or the payload's bytes) as the uplink hands it over, on the actor."""
    service, commands = table
    payload = sent if isinstance(sent, bytes) else json.dumps(sent).encode()
    commands.receive(service.clock(), payload)


def journaled(service, kind: str = "device", type_: str = "VenueCommand") -> list[dict]:
    return [
        row.data()
        for row in service.journal.rows()
        if row.kind == kind and row.data()["type"] == type_
    ]


def venue_faults(service) -> list[ev.Fault]:
    return [f for f in service.status().faults if f.device == "venue"]


def test_issue_15_a_signed_start_session_shows_the_seating_and_is_journaled(table):
    """Issue 15: a signed start_session for this table is taken: the four names are the
    service's venue notes (Status.venue, for the uplink); the journal keeps the command, its
    args and no signature; nothing is told the referee."""
    service, _ = table
    sent = command("start_session", {"players": PLAYERS})
    send(table, sent)
    assert service.status().venue.players == tuple(PLAYERS)
    (row,) = journaled(service)
    assert (row["id"], row["command"], row["refused"]) == (sent["id"], "start_session", None)
    assert row["args"] == {"players": PLAYERS} and "signature" not in json.dumps(row)
    assert venue_faults(service) == []


def test_issue_15_a_command_for_every_table_is_taken(table):
    """Issue 15: table "*" is every table of the venue (the topic mjtable/<venue>/cmd)."""
    service, _ = table
    send(table, command("message", {"text": "Round 2 starts at 14:00"}, table="*"))
    assert service.venue.message == "Round 2 starts at 14:00"
    send(table, command("message", {"text": ""}))  # an empty message takes it off the screen
    assert service.venue.message is None and len(journaled(service)) == 2


def tampered() -> dict:
    sent = command("message", {"text": "the venue said this"})
    return sent | {"args": {"text": "someone else said this"}}


REFUSED = {
    "wrong key": (command("message", {"text": "hi"}, key=OTHER_KEY), "signature"),
    "tampered after signing": (tampered(), "signature"),
    "no signature": ({k: v for k, v in command("pause").items() if k != "signature"}, "signature"),
    "a signature not hex": (command("pause") | {"signature": "签名"}, "signature"),
    "a number JSON's readers round": (
        b'{"v": 1, "issued": 9007199254740993, "signature": "00"}',
        "not JSON that RFC 8785 can sign",
    ),
    "another venue": (command("message", {"text": "hi"}, venue="other hall"), "venue"),
    "another table": (command("message", {"text": "hi"}, table="T08"), "table"),
    "issued too long ago": (command("pause", issued=WALL - WINDOW - 1), "ago"),
    "issued in the future": (command("pause", issued=WALL + WINDOW + 1), "ahead"),
    "issued not a number": (command("pause", issued="now"), "issued"),
    "version 2": (command("pause", v=2), "version 1"),
    "bad JSON": (b'{"v": 1, "id": ', "not JSON"),
    "not UTF-8": (b"\xff\xfe", "not JSON"),
    "NaN": (b'{"v": 1, "issued": NaN}', "not JSON"),
    "nested too deep": (b"[" * 3000 + b"]" * 3000, "bytes"),
    "deep within bounds": (b"[" * 2000 + b"]" * 2000, "not JSON"),
    "not an object": (b"[1, 2]", "not a JSON object"),
    "unknown command": (command("shutdown"), "unknown command"),
    "three players": (command("start_session", {"players": PLAYERS[:3]}), "four"),
    "a player without a name": (
        command("start_session", {"players": [{"federation_id": "X"}] + PLAYERS[1:]}),
        "takes federation_id, name;",
    ),
    "a name of control characters": (
        command("start_session", {"players": [{"name": "\x1b[2J", "federation_id": None}] * 4}),
        "printable",
    ),
    "a blank name": (
        command("start_session", {"players": [{"name": "  ", "federation_id": None}] * 4}),
        "empty",
    ),
    "a sitting of 0 minutes": (
        command("start_session", {"players": PLAYERS, "minutes": 0}),
        "1 to 600",
    ),
    "a sitting of 601 minutes": (
        command("start_session", {"players": PLAYERS, "minutes": 601}),
        "1 to 600",
    ),
    "minutes not whole": (command("start_session", {"players": PLAYERS, "minutes": 1.5}), "whole"),
    "minutes as text": (command("start_session", {"players": PLAYERS, "minutes": "60"}), "whole"),
    "an unknown start_session arg": (
        command("start_session", {"players": PLAYERS, "hours": 2}),
        "takes players (optional: minutes)",
    ),
    "an over-long message": (
        command("message", {"text": "x" * (MESSAGE_LENGTH + 1)}),
        f"at most {MESSAGE_LENGTH}",
    ),
    "a message of two lines": (command("message", {"text": "one\ntwo"}), "printable"),
    "a message not text": (command("message", {"text": 7}), "printable"),
    "pause with args": (command("pause", {"all": True}), "no args"),
    "acknowledge without a referee": (command("acknowledge", {"alert": 1}), "takes alert"),
    "acknowledge of no alert": (
        command("acknowledge", {"alert": 999, "referee": "Li Wei"}),
        "no fault or alert 999",
    ),
    "acknowledge of a true": (
        command("acknowledge", {"alert": True, "referee": "Li Wei"}),
        "alert must be",
    ),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_issue_15_a_bad_command_is_refused_journaled_and_told_the_referee(table, case):
    """Issue 15: a wrong HMAC, another venue or table, an `issued` out of the window, bad
    JSON, an unknown command, bad or over-long args: refused, never raised; journaled as a
    VenueCommand saying why; a transient fault for the referee (the public's own words);
    nothing applied: no note, no input to the hand."""
    service, _ = table
    sent, why = REFUSED[case]
    inputs = len(journaled(service, "input", "ClocksPaused"))
    send(table, sent)
    (row,) = journaled(service)
    assert row["refused"] and why in row["refused"], row
    assert "signature" not in row and "signature" not in row["args"]
    (fault,) = venue_faults(service)
    assert (fault.kind, fault.cleared) == ("refused", False) and row["refused"] in fault.message
    assert service.venue == VenueNotes() and service.status().venue == VenueNotes()
    assert len(journaled(service, "input", "ClocksPaused")) == inputs
    assert service.hands.table.clocks.paused_at is None


# A start_session with Chinese names as a venue's desk in JavaScript signs it (Node 20):
#   const sorted = (v) => Array.isArray(v) ? v.map(sorted) : v !== null && typeof v === "object"
#     ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted(v[k])])) : v;
#   crypto.sign(null, Buffer.from(JSON.stringify(sorted(command)), "utf8"), key).toString("hex")
# with `key` tests/support/venuekeys.py's VENUE_KEY (crypto.createPrivateKey of its PEM).
# JSON.stringify writes every character as itself, in UTF-8; Object.keys(...).sort() orders by
# UTF-16 code units, as RFC 8785 does.
BY_JAVASCRIPT = {
    "v": 1,
    "id": "desk-0001",
    "issued": 1749999998,
    "venue": "hall",
    "table": "T07",
    "command": "start_session",
    "args": {
        "players": [
            {"name": "张伟", "federation_id": "CN-0042"},
            {"name": "李娜", "federation_id": None},
            {"name": "王芳", "federation_id": "CN-0107"},
            {"name": "刘洋", "federation_id": "CN-0311"},
        ],
        "minutes": 120,
    },
    "signature": "6db87dcd703030e3040f3e109488e1497b88b9e9d9ee1de52b14f51ff0581424"
    "30403dbfe5433226e948a9f8be96b9c6c6aa34bd038d954068e9921f359c6f04",
}


def _stringified(command: dict) -> bytes:
    """JSON.stringify of the command with its keys sorted, as UTF-8 (its strings here hold
    no control character, its numbers are whole)."""
    return json.dumps(command, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def test_issue_29_a_command_with_chinese_names_signed_by_javascript_is_taken(table):
    """Issue 29: the signed form is RFC 8785, UTF-8 with every character as itself: a
    start_session with Chinese names that a JavaScript client signed (its Ed25519 signature
    computed by Node) and sent as JSON.stringify writes it is taken, its names shown as sent."""
    service, _ = table
    unsigned = {k: v for k, v in BY_JAVASCRIPT.items() if k != "signature"}
    assert canonical(unsigned) == _stringified(unsigned)
    send(table, _stringified(BY_JAVASCRIPT))
    (row,) = journaled(service)
    assert row["refused"] is None, row["refused"]
    assert [p["name"] for p in service.status().venue.players] == ["张伟", "李娜", "王芳", "刘洋"]
    assert venue_faults(service) == []


def test_issue_29_a_javascript_signature_over_other_names_is_refused(table):
    """Issue 29: the same command with one name changed after signing is refused as a wrong
    signature, and shows nothing."""
    service, _ = table
    forged = json.loads(json.dumps(BY_JAVASCRIPT))
    forged["args"]["players"][0]["name"] = "张为"
    send(table, _stringified(forged))
    (row,) = journaled(service)
    assert "wrong signature" in row["refused"]
    assert service.status().venue.players is None


def test_issue_15_a_replayed_id_is_refused(table):
    """Issue 15: the same command again (a capture replayed, within the `issued` window) is
    refused as a replay; the first stays as it was taken."""
    service, _ = table
    sent = command("message", {"text": "first"})
    send(table, sent)
    forged = sign(sent | {"args": {"text": "x"}}, KEY)["signature"]
    send(table, sent | {"signature": forged})  # another command's signature
    send(table, sent)
    rows = journaled(service)
    assert [r["refused"] is None for r in rows] == [True, False, False]
    assert "signature" in rows[1]["refused"] and "replay" in rows[2]["refused"]
    assert service.venue.message == "first" and len(venue_faults(service)) == 2


def test_issue_15_a_forged_command_does_not_use_up_its_id(table):
    """Issue 15: only a command taken takes its id: a forgery under the id of a command to
    come cannot keep the venue's own from being taken."""
    service, _ = table
    genuine = command("message", {"text": "the venue's"})
    send(table, command("message", {"text": "forged"}, key=OTHER_KEY, id=genuine["id"]))
    send(table, genuine)
    assert service.venue.message == "the venue's"


def test_issue_15_no_venue_key_refuses_every_command(table):
    """Issue 15: a table with no venue key configured takes no command at all."""
    service, _ = table
    table = (service, VenueCommands(service, None, "hall", "T07", wall_clock=lambda: WALL))
    send(table, command("message", {"text": "hi"}))
    (row,) = journaled(service)
    assert "no venue key" in row["refused"] and service.venue.message is None


def test_issue_35_the_ids_kept_are_bounded_by_their_window(table):
    """Issue 35: a hall's days of commands do not grow the table's memory: an id is kept until
    its `issued` window has closed, then dropped (a command that old is refused as expired)."""
    service, commands = table
    commands.taken.remember(["old"], WALL - 1, WALL - 10)
    commands.taken.remember(["new"], WALL + WINDOW, WALL)
    assert "old" not in commands.taken and "new" in commands.taken
    send(table, command("pause", id="old", issued=WALL - WINDOW - 60))
    assert "ago" in journaled(service)[0]["refused"]


def test_issue_35_a_command_replayed_after_a_new_session_is_refused(tmp_path):
    """Issue 35 "done when": a command the table took, captured on the hall's network and
    sent again within its window once the table has begun a new session (a new journal, a
    restart of the service), is refused as a replay and journaled in the new session: the
    ids taken are kept on disk beside the device key, not in the session's journal."""
    seen = tmp_path / "venue-commands-seen"
    sent = command("message", {"text": "Round 2 at 3"})
    first = Journal(tmp_path / "first.sqlite")
    service = dealt_service(first, Clock())
    commands = VenueCommands(service, PUBLIC, "hall", "T07", wall_clock=lambda: WALL, seen=seen)
    commands.receive(service.clock(), json.dumps(sent).encode())
    assert journaled(service)[0]["refused"] is None
    first.close()
    second = Journal(tmp_path / "second.sqlite")
    service = dealt_service(second, Clock())
    again = VenueCommands(service, PUBLIC, "hall", "T07", wall_clock=lambda: WALL, seen=seen)
    again.recall(service.commands.rows())  # the new journal holds none of the first's ids
    again.receive(service.clock(), json.dumps(sent).encode())
    (row,) = journaled(service)
    assert "replay" in row["refused"] and service.venue.message is None
    second.close()


def test_issue_15_pause_and_resume_reach_the_hands_clocks_and_replay_holds(tmp_path, capsys):
    """Issue 15: the venue's pause stops every clock of the hand in play through the hand's
    own ClocksPaused input, journaled after the command; resume starts them again. A pause
    already in force is only recorded. `mjtable replay` of the journal: 0 mismatches."""
    path = tmp_path / "j.sqlite"
    journal = Journal(path)
    clock = Clock()
    service = dealt_service(journal, clock)
    table = (service, VenueCommands(service, PUBLIC, "hall", "T07", wall_clock=lambda: WALL))
    send(table, command("pause"))
    assert service.hands.table.clocks.paused_at == clock.t and service.venue.paused
    send(table, command("pause"))  # already paused: taken, nothing more to apply
    clock.t += 30
    send(table, command("resume"))
    assert service.hands.table.clocks.paused_at is None and not service.venue.paused
    assert service.hands.table.clocks.pauses[-1] == (clock.t - 30, clock.t)
    kinds = [(row.kind, row.data().get("type")) for row in journal.rows()][-5:]
    assert kinds == [
        ("device", "VenueCommand"),
        ("input", "ClocksPaused"),
        ("device", "VenueCommand"),
        ("device", "VenueCommand"),
        ("input", "ClocksResumed"),
    ]
    assert all(r["refused"] is None for r in journaled(service))
    journal.close()
    assert main(["replay", "--json", str(path)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["mismatches"] == 0 and summary["device_records"] >= 3


def test_issue_15_between_hands_pause_and_resume_only_record(table):
    """Issue 15: with no hand in play there is no clock: the venue's pause is recorded and
    noted (the uplink's phase), and no input is journaled."""
    service, _ = table
    service.hands.void(service.clock(), "the test voids it")
    send(table, command("pause"))
    assert service.venue.paused and journaled(service, "input", "ClocksPaused") == []
    send(table, command("resume"))
    assert not service.venue.paused and [r["refused"] for r in journaled(service)] == [None] * 2


def test_issue_15_resume_is_refused_while_the_zone_reader_is_offline(table):
    """Issue 15: the clocks stopped because no reader sees the tiles stay stopped, whatever
    the venue says: its resume is refused, and the referee is told why."""
    service, _ = table
    service._reader(service.clock(), service.zones_path, False, "unplugged")
    send(table, command("resume"))
    (row,) = journaled(service)
    assert "zone reader is offline" in row["refused"]
    assert service.hands.table.clocks.paused_at is not None


def call_referee(service) -> int:
    """South presses the referee button: the call's fault id."""
    service.hands.button(service.clock(), 1, "referee")
    return service.status().faults[-1].id


def test_issue_15_acknowledge_shows_the_referee_on_the_way_until_he_is_there(desk):
    """Issue 15: the venue acknowledges South's call: both views show "<referee> is on the
    way" for that call (referee_on_way, with the wall clock's time); once the table's
    referee acknowledges the call there, it is gone."""
    service = desk.service
    table = (service, VenueCommands(service, PUBLIC, "hall", "T07", wall_clock=lambda: WALL))
    call = call_referee(service)
    send(table, command("acknowledge", {"alert": call, "referee": "Chen Jun"}))
    on_way = {"referee": "Chen Jun", "alert": call, "of": None, "at": WALL}
    assert service.status().venue.referee_on_way == on_way
    for referee in (True, False):
        assert desk.snapshot(referee)["referee_on_way"] == on_way
    act(desk, "ack", {"fault": call})
    assert service.venue.referee_on_way is None
    assert desk.snapshot(False)["referee_on_way"] is None


def test_issue_15_an_acknowledge_says_a_fault_or_a_ruling_as_they_number_apart(desk):
    """Issue 15 (docs/uplink.md `acknowledge`): faults and the hand's alerts number apart,
    so the venue says which it acknowledges: "ruling" for an id only a fault has is refused;
    the referee on the way to a fault is not taken as come when the table's referee
    acknowledges the hand's alert of the same number."""
    service = desk.service
    table = (service, VenueCommands(service, PUBLIC, "hall", "T07", wall_clock=lambda: WALL))
    call = call_referee(service)
    assert service.hands.table.referee.alerts < call  # no alert of the hand has its number
    send(table, command("acknowledge", {"alert": call, "of": "ruling", "referee": "Chen Jun"}))
    assert service.venue.referee_on_way is None
    assert journaled(service)[-1]["refused"].startswith("this table has no ruling")
    send(table, command("acknowledge", {"alert": call, "of": "fault", "referee": "Chen Jun"}))
    assert service.venue.referee_on_way["of"] == "fault"
    service.venue = service.venue.seen_at_table({("ruling", call)})
    assert service.venue.referee_on_way is not None
    service.venue = service.venue.seen_at_table({("fault", call)})
    assert service.venue.referee_on_way is None
    bad = command("acknowledge", {"alert": call, "of": "penalty", "referee": "Chen Jun"})
    send(table, bad)
    assert "of must be fault or ruling" in journaled(service)[-1]["refused"]


def test_issue_15_a_fault_cleared_needs_no_referee_on_the_way(table):
    """Issue 15: the venue's referee is on the way to a lasting fault (the zone reader
    offline); it clears before he comes: he is no longer shown coming."""
    service, _ = table
    service._reader(service.clock(), service.zones_path, False, "unplugged")
    fault = service.status().faults[-1].id  # the zone reader's
    send(table, command("acknowledge", {"alert": fault, "referee": "Chen Jun"}))
    assert service.venue.referee_on_way["alert"] == fault
    service._reader(service.clock(), service.zones_path, True, "")
    assert service.venue.referee_on_way is None


def test_issue_15_both_views_show_the_message_and_the_seating_and_nothing_concealed(desk):
    """Issue 15: the referee's and the public document carry the venue's message and each
    seat's name as the venue seated the players; the public one still no concealed tile."""
    service = desk.service
    table = (service, VenueCommands(service, PUBLIC, "hall", "T07", wall_clock=lambda: WALL))
    send(table, command("start_session", {"players": PLAYERS}))
    send(table, command("message", {"text": "Round 2 starts at 14:00"}))
    for referee in (True, False):
        state = desk.snapshot(referee)
        assert state["venue_message"] == "Round 2 starts at 14:00"
        names = {s["seat"]: s["name"] for s in state["seats"]}
        dealer = service.hands.session.dealer
        assert names["E"] == PLAYERS[dealer]["name"] and set(names.values()) == {
            p["name"] for p in PLAYERS
        }
    assert leaks(desk.snapshot(False), service.hands.table) == (set(), set())
    assert [e["type"] for e in desk.snapshot(False)["log"][-2:]] == ["VenueCommand"] * 2


def test_issue_15_a_restart_recalls_the_ids_taken_and_what_the_venue_left(table, tmp_path):
    """Issue 15: after a restart the journal's VenueCommands give back the ids taken (a
    command caught on the bus is not taken twice within its window) and the seating, the
    message, the pause and the sitting's time (RULES.md 4.3: its minutes, from the table time
    of the command); a referee on the way then is not shown coming still."""
    service, _ = table
    seating = command("start_session", {"players": PLAYERS, "minutes": 120})
    send(table, seating)
    started = service.clock()
    send(table, command("message", {"text": "Round 2"}))
    send(table, command("message", {"text": "x\ny"}))  # refused: recalls nothing
    send(table, command("pause"))
    send(table, command("acknowledge", {"alert": call_referee(service), "referee": "Chen"}))
    with Journal(tmp_path / "again.sqlite") as journal:
        again = dealt_service(journal, Clock())
        restarted = VenueCommands(again, PUBLIC, "hall", "T07", wall_clock=lambda: WALL)
        restarted.recall(service.journal.rows())
        notes, _ = recall(service.journal.rows())  # the table's own (firmware/table/resume.py)
        assert notes == VenueNotes(tuple(PLAYERS), "Round 2", None, True, 120, started)
        restarted.receive(again.clock(), json.dumps(seating).encode())
        (row,) = journaled(again)
        assert "replay" in row["refused"]
