"""Issue 15, RULES.md 4.3: the sitting's time limit (firmware/table/sitting.py). The venue's
`start_session` gives the sitting its minutes; the time left counts down on table time from
that command, survives a restart, is published to the venue and shown on both views; the
head referee's notice comes five minutes before time; once time is up the hand in play is
finished and no new hand begins. The venue's pause between hands holds the next hand the same
way. Every clock here is a fake one, set by the test."""

import json

import pytest

from drivers.readers import ReaderBack, ReaderLost
from firmware.cli import main
from firmware.desk.desk import Desk
from firmware.display import ActionRefused
from firmware.journal.store import Journal
from firmware.table.actor import Tick
from firmware.table.resume import recall
from firmware.table.sitting import FIVE_MINUTES, TIME_UP
from firmware.table.walls import STACKER_WAIT
from tests.support.hall import PLAYERS, Hall, journaled
from tests.support.servicekit import Clock, act


@pytest.fixture
def hall(tmp_path):
    journal = Journal(tmp_path / "j.sqlite")
    yield Hall(journal, Clock())
    journal.close()


def test_rules_4_3_the_time_left_counts_down_on_table_time_on_every_screen(hall):
    """RULES.md 4.3, issue 15 session time left: a sitting of 120 minutes (CCM's 局 of four
    圈) has 7200 s left when the venue starts it; 10 minutes of table time later 6600 s, in
    the venue's state and on the referee's and the public view alike; never below 0."""
    hall.send("start_session", {"players": PLAYERS, "minutes": 120})
    assert hall.left() == 7200
    hall.clock.t += 600
    desk = Desk(hall.service, "T07")
    assert hall.left() == 6600
    for referee in (True, False):
        state = desk.snapshot(referee)
        assert (state["session_seconds_left"], state["session_notice"]) == (6600, None)
    hall.clock.t += 7200
    assert hall.left() == 0 and desk.snapshot(False)["session_seconds_left"] == 0


def test_issue_15_a_sitting_without_minutes_has_no_limit_and_plays_on(hall):
    """Issue 15 session time left: no minutes, no limit: null to the venue and the screens,
    and the walls rise for the next hand whenever it is pressed, as before."""
    hall.send("start_session", {"players": PLAYERS})
    hall.clock.t += 100_000
    assert (
        hall.left() is None and Desk(hall.service, "T07").snapshot(True)["session_notice"] is None
    )
    hall.play_out()
    hall.walls_ready("B")
    hall.press_raise()
    assert hall.lift.raised == [hall.clock.t] and hall.faults("time up") == []


def test_issue_15_the_time_left_survives_a_restart(hall, tmp_path):
    """Issue 15 session time left, RULES.md 4.3: after a restart the journal's start_session
    gives back the sitting's minutes and when it began, on table time (which goes on from the
    journal's last row: the outage does not count)."""
    hall.send("start_session", {"players": PLAYERS, "minutes": 60})
    hall.clock.t += 1000
    with Journal(tmp_path / "again.sqlite") as journal:
        again = Hall(journal, Clock(hall.clock.t))  # its first walls take STACKER_WAIT
        again.service.venue, _ = recall(hall.service.journal.rows())  # as Service.resume
        assert again.left() == 3600 - 1000 - STACKER_WAIT
        again.clock.t += 2600
        assert again.left() == 0


def test_rules_4_3_the_five_minutes_notice_is_told_once(hall):
    """RULES.md 4.3: "The head referee announces 5 minutes before time": from 300 s left both
    views carry the notice; the console says it once, however many ticks follow."""
    hall.send("start_session", {"players": PLAYERS, "minutes": 10})
    desk = Desk(hall.service, "T07")
    hall.clock.t += 299
    hall.handle(Tick())
    assert desk.snapshot(False)["session_notice"] is None
    for _ in range(3):
        hall.clock.t += 1
        hall.handle(Tick())
    for referee in (True, False):
        assert desk.snapshot(referee)["session_notice"] == FIVE_MINUTES
    assert [line for line in hall.printed if FIVE_MINUTES in line] == [
        f"{405.0:9.1f}  {FIVE_MINUTES}"
    ]


def test_rules_4_3_once_time_is_up_the_hand_in_play_finishes_and_no_new_hand_begins(hall):
    """RULES.md 4.3: "after time is up, the hand in progress is finished (win or draw) and
    the 局 ends": time runs out during the hand: it plays on to its end and is settled; a
    raise pressed then is refused with a fault saying why (journaled), the walls stay down;
    the venue's next start_session begins a new sitting and the walls rise."""
    hall.send("start_session", {"players": PLAYERS, "minutes": 1})
    hall.clock.t += 61
    hall.handle(Tick())
    assert hall.left() == 0 and [line for line in hall.printed if TIME_UP in line]
    hall.play_out()
    assert len(hall.service.hands.session.sheet) == 1  # the hand in play was finished
    hall.walls_ready("B")
    hall.press_raise()
    (fault,) = hall.faults("time up")
    assert "time is up" in fault.message and hall.lift.raised == []
    assert any(row["kind"] == "time up" for row in journaled(hall.service.journal, "Fault"))
    assert Desk(hall.service, "T07").snapshot(False)["session_notice"] == TIME_UP
    hall.send("start_session", {"players": PLAYERS, "minutes": 60})
    hall.press_raise()
    assert hall.lift.raised == [hall.clock.t] and hall.left() == 3600


@pytest.mark.parametrize("minutes", [0, 601, -5, 90.5, "60", True, [60]])
def test_issue_15_bad_minutes_are_refused_and_journaled(hall, minutes):
    """Issue 15: a sitting's minutes are a whole number from 1 to 600: anything else refuses
    the whole start_session, journaled saying why, the referee told; no limit is set."""
    hall.send("start_session", {"players": PLAYERS, "minutes": minutes})
    (row,) = journaled(hall.service.journal, "VenueCommand")
    assert "minutes" in row["refused"] and "1 to 600" in row["refused"]
    assert [f.kind for f in hall.service.status().faults if f.device == "venue"] == ["refused"]
    assert hall.service.venue.players is None and hall.left() is None


def test_issue_15_the_venues_pause_between_hands_holds_the_next_hand(hall):
    """Issue 15 (a round's end): while the venue's pause is in force a raise between hands
    is refused with a fault saying so, and the walls stay down; after its resume they rise."""
    hall.play_out()
    hall.walls_ready("B")
    hall.send("pause")
    hall.press_raise()
    (fault,) = hall.faults("hall paused")
    assert "the venue has paused the hall" in fault.message and hall.lift.raised == []
    hall.send("resume")
    hall.press_raise()
    assert hall.lift.raised == [hall.clock.t]


def test_issue_15_a_hand_raised_during_the_pause_starts_paused_until_the_referee_resumes(
    hall, tmp_path, capsys
):
    """Issue 15: the walls were rising when the venue paused the hall: the hand starts with
    its clocks paused (its own ClocksPaused, journaled; replay holds). The table's referee
    resumes them there: the venue's pause is over, also for the journal after a restart."""
    hall.play_out()
    hall.walls_ready("B")
    hall.press_raise()
    hall.send("pause")
    hall.clock.t += 20
    hall.walls_up("B")
    table = hall.service.hands.table
    assert hall.service.hands.session.hand_number == 2
    assert table.clocks.paused_at == hall.clock.t and table.state == "dice"
    rows = [(row.kind, row.data().get("type")) for row in hall.service.journal.rows()]
    assert rows[-2:] == [("hand", None), ("input", "ClocksPaused")]
    hall.clock.t += 30
    act(Desk(hall.service, "T07"), "resume")
    assert table.clocks.paused_at is None and not hall.service.venue.paused
    with Journal(tmp_path / "again.sqlite") as journal:
        again = Hall(journal, Clock(hall.clock.t))
        again.service.venue, _ = recall(hall.service.journal.rows())  # as Service.resume
        assert not again.service.venue.paused
    hall.service.journal.close()
    assert main(["replay", "--json", str(hall.service.journal.path)]) == 0
    assert json.loads(capsys.readouterr().out)["mismatches"] == 0


def test_issue_15_the_zone_reader_back_does_not_end_the_venues_pause(hall):
    """Issue 15: the venue paused the hall mid-hand and a reader went and came back: the
    clocks stay paused until the venue (or the table's referee) resumes."""
    hall.send("pause")
    hall.handle(ReaderLost(hall.service.zones_path, "unplugged"))
    hall.handle(ReaderBack(hall.service.zones_path))
    assert hall.service.hands.table.clocks.paused_at is not None
    hall.send("resume")
    assert hall.service.hands.table.clocks.paused_at is None


def test_issue_15_a_restart_keeps_the_venues_pause_as_the_table_had_it(hall, tmp_path):
    """Issue 15: after a restart the venue's pause is in force exactly when it was before:
    the table's referee resumed the hand's clocks (play went on after it): over; paused
    again between hands, it holds the next hand until the referee lifts it there too (a
    HallResumed record: no table waits on a venue it cannot hear)."""

    def recalled() -> bool:
        with Journal(tmp_path / f"again-{hall.clock.t}.sqlite") as journal:
            again = Hall(journal, Clock(hall.clock.t))
            again.service.venue, _ = recall(hall.service.journal.rows())  # as Service.resume
            return again.service.venue.paused

    desk = Desk(hall.service, "T07")
    hall.send("pause")
    act(desk, "resume")
    hall.clock.t += 1
    hall.play_out()
    assert not hall.service.venue.paused and not recalled()
    hall.send("pause")
    assert recalled()
    act(desk, "resume")
    assert not hall.service.venue.paused and not recalled()
    signed = ("RefereeActed", "HeadSigned")  # who acted, and the head signed at once (issue 35)
    last = [r for r in hall.service.journal.rows() if r.data().get("type") not in signed][-1]
    assert (last.kind, last.data()["type"]) == ("device", "HallResumed")
    with pytest.raises(ActionRefused):  # nothing left to resume: no hand, no pause
        act(desk, "resume")


def test_issue_15_a_call_for_the_referee_names_the_callers_seat(hall):
    """Issue 15 (the referee pager): a player's call for the referee during a hand is his
    seat's, so the venue's alert says who calls."""
    dealer_side = hall.service.hands.session.player_at(0)
    across = (dealer_side + 2) % 4
    hall.service.hands.button(hall.clock.t, across, "referee")
    fault = hall.service.status().faults[-1]
    assert (fault.kind, fault.seat) == ("referee", 2)
