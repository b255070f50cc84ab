"""Issue 36, "Rulings outlive their hand", on the bus (docs/uplink.md): the engine numbers its
alerts afresh each hand, so a ruling made after the next deal names the hand it belongs to
(`hand` on `ruling`, `ruled` and `revoked` alerts), a late Waive names its offence from that
hand's proposal, and the venue closes the alert of that hand, not the next hand's alert that
has the same id.

WSOM's 3.6 wrong_draw_win (10 points, the referee confirms it) reported against South in hand 1
and against West in hand 2, both alert 1, at the desk of a real service on a journal
(tests/support/deskkit.py's DeskedTable); the journal's rows made into the uplink's messages
(firmware/uplink/client.py's order) and fed to the venue's board.
"""

from firmware.bus.contract import Envelope
from firmware.journal.store import Journal
from firmware.uplink.messages import alert_message, event_row, events_message
from firmware.uplink.rulings import Rulings
from firmware.venue.board import VenueBoard
from tests.support.deskkit import DeskedTable
from tests.support.servicekit import Clock, act
from tests.support.tablekit import S, W
from tests.support.venuekit import VENUE, feed

TABLE = "T07"
WAIVED = {"alert": 1, "apply": False, "reason": "he had not seen the tile", "hand": 1}


def both_waiting(journal) -> DeskedTable:
    """Hand 1's alert 1 (South) waits, played out; hand 2 dealt, its alert 1 (West) waits."""
    table = DeskedTable(journal, Clock())
    table.new_hand("A")
    act(table.desk, "report", {"seat": S, "offence": "wrong_draw_win"})
    table.play_out()
    table.new_hand("B")
    act(table.desk, "report", {"seat": W, "offence": "wrong_draw_win"})
    return table


def uplinked(journal) -> list[dict]:
    """The alerts messages the uplink makes of the journal's rows, in order."""
    envelope, rulings, rows = Envelope(VENUE, TABLE, "s"), Rulings(), list(journal.rows())
    out = []
    for n, row in enumerate(rows):
        rulings.follow(row)
        alert = alert_message(row, envelope, rulings.hand) or rulings.message(
            row, rows[n + 1 :], envelope
        )
        if alert is not None:
            out.append(alert)
    return out


def waiting_at_the_venue(journal, alerts: list[dict]) -> list[tuple]:
    """(hand, id, seat) of the rulings the venue's board shows waiting, fed every row then
    every alert (the bus may bring either topic first)."""
    board = VenueBoard(VENUE)
    rows = [event_row(row) for row in journal.rows()]
    feed(board, TABLE, "events", events_message(rows, Envelope(VENUE, TABLE, "s")))
    for alert in alerts:
        feed(board, TABLE, "alerts", alert)
    table = board.tables[TABLE]
    return sorted((a["hand"], a["id"], a["seat"]) for a in table.waiting() if a["of"] == "ruling")


def test_issue_36_a_late_waive_names_its_hand_and_offence_on_the_bus(tmp_path):
    """Both alerts go up with their hand; waived during hand 2, hand 1's `ruled` alert names
    hand 1 and South's offence (from hand 1's proposal), and the venue closes hand 1's alert
    while hand 2's alert 1 still waits."""
    with Journal(tmp_path / "j.sqlite") as journal:
        act(both_waiting(journal).desk, "rule", WAIVED)
        alerts = uplinked(journal)
        raised = [(a["hand"], a["id"], a["seat"]) for a in alerts if a["kind"] == "ruling"]
        assert raised == [(1, 1, S), (2, 1, W)]
        (ruled,) = [a for a in alerts if a["kind"] == "ruled"]
        assert (ruled["hand"], ruled["id"], ruled["seat"]) == (1, 1, S)
        assert (ruled["offence"], ruled["applied"]) == ("wrong_draw_win", False)
        assert ruled["reason"] == WAIVED["reason"]
        assert waiting_at_the_venue(journal, alerts) == [(2, 1, W)]


def test_issue_36_a_ruling_in_its_own_hand_names_it_and_leaves_the_late_one_waiting(tmp_path):
    """Hand 2's alert 1 applied in hand 2 (no `hand` in the ruling: the hand on the table):
    its `ruled` alert names hand 2, and the venue still shows hand 1's alert 1 waiting."""
    with Journal(tmp_path / "j.sqlite") as journal:
        table = both_waiting(journal)
        act(table.desk, "rule", {"alert": 1, "apply": True, "reason": "seen"})
        alerts = uplinked(journal)
        (ruled,) = [a for a in alerts if a["kind"] == "ruled"]
        assert (ruled["hand"], ruled["seat"], ruled["applied"]) == (2, W, True)
        assert waiting_at_the_venue(journal, alerts) == [(1, 1, S)]


def test_issue_36_a_late_waive_undone_goes_up_reopened_and_the_venue_waits_again(tmp_path):
    """Hand 1's alert 1 waived during hand 2, then the waive undone naming hand 1: a
    `reopened` alert names hand 1, South and the offence from hand 1's proposal, with the
    undo's reason; the venue waits for hand 1's ruling again whichever topic comes first
    (the rows carry the waive after which the ruling reopened)."""
    undone = {"alert": 1, "hand": 1, "reason": "waived the wrong alert"}
    with Journal(tmp_path / "j.sqlite") as journal:
        table = both_waiting(journal)
        act(table.desk, "rule", WAIVED)
        act(table.desk, "undo_waive", undone)
        alerts = uplinked(journal)
        (reopened,) = [a for a in alerts if a["kind"] == "reopened"]
        assert (reopened["hand"], reopened["id"], reopened["seat"]) == (1, 1, S)
        assert (reopened["offence"], reopened["points"]) == ("wrong_draw_win", 10)
        assert (reopened["applied"], reopened["reason"]) == (False, undone["reason"])
        assert waiting_at_the_venue(journal, alerts) == [(1, 1, S), (2, 1, W)]
        board = VenueBoard(VENUE)
        for alert in alerts:  # the alerts first, then the rows
            feed(board, TABLE, "alerts", alert)
        rows = [event_row(row) for row in journal.rows()]
        feed(board, TABLE, "events", events_message(rows, Envelope(VENUE, TABLE, "s")))
        waiting = board.tables[TABLE].waiting()
        assert sorted((a["hand"], a["id"]) for a in waiting if a["of"] == "ruling") == [
            (1, 1),
            (2, 1),
        ]
