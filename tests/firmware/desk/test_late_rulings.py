"""Issue 36 item 1, "Rulings outlive their hand": a floor referee called across the hall arrives
after the next hand's walls rose. The alert waiting for his ruling stays on the desk (with
its hand), his ruling applies to the hand it belongs to (the penalty on that hand's row, the
scores after it), play goes on, and the journal, the source of truth, gives the same after a
power cut and in the exported sheet.

WSOM's 3.6 wrong_draw_win (10 points, the referee confirms it) reported in hand 1 at the desk
(tests/support/deskkit.py's DeskedTable, a real service on a journal).
"""

import pytest

from engine import events as ev
from firmware.audit import sheet as export_sheet
from firmware.display import ActionRefused
from firmware.display.app import create_app
from firmware.journal.replay import replay
from firmware.journal.store import Journal
from tests.support.chromium import NEEDED
from tests.support.deskkit import DeskedTable, reported_then_dealt, waiting
from tests.support.displaykit import PIN, open_tab, referee_page
from tests.support.servicekit import Clock, ServedDesk, act
from tests.support.tablekit import S

RULED = {"alert": 1, "apply": True, "reason": "seen by the floor referee", "hand": 1}


def test_issue_36_item_1_a_ruling_after_the_next_deal_applies_to_its_hand(tmp_path):
    """The alert of hand 1 stays open during hand 2; ruled then, South's 10 points go on
    hand 1's row (not hand 2's), hand 2 goes on, and the journal replays alike."""
    path = tmp_path / "j.sqlite"
    with Journal(path) as journal:
        table = reported_then_dealt(journal, Clock())
        assert waiting(table) == [(1, 1, True)]
        answer = act(table.desk, "rule", RULED)
        assert [e["type"] for e in answer["events"]] == ["PenaltyApplied"]
        session = table.service.hands.session
        (row,) = session.sheet
        assert row.number == 1 and row.penalties == (0, -10, 0, 0) and row.totals[1] == -10
        assert table.service.status().in_play and table.service.status().hand_number == 2
        assert waiting(table) == [(1, 1, False)]  # ruled: revocable still, no longer waiting
        assert replay(journal).mismatches == 0
        table.play_out()
        assert [r.number for r in session.sheet] == [1, 2]
        assert session.sheet[1].penalties == (0, 0, 0, 0)
        live = [r.to_json() for r in session.sheet]
    document = export_sheet.sheet(path)
    assert [{k: h[k] for k in live[0]} for h in document["hands"]] == live
    (offence,) = document["hands"][0]["offences"]
    assert (offence["offence"], offence["reason"]) == ("wrong_draw_win", RULED["reason"])


def test_issue_36_item_1_the_waiting_alert_survives_a_power_cut_and_is_ruled_after(tmp_path):
    """A power cut during hand 2: the table resumed from its journal still shows hand 1's
    alert waiting; ruled then, the row of hand 1 has it, as a second restart has it too."""
    path, clock = tmp_path / "j.sqlite", Clock()
    with Journal(path) as journal:
        reported_then_dealt(journal, clock)
    with Journal(path) as journal:
        again = DeskedTable(journal, clock, replay(journal))
        assert waiting(again) == [(1, 1, True)]
        act(again.desk, "rule", RULED)
        rows = [r.to_json() for r in again.service.hands.session.sheet]
        assert rows[0]["penalties"] == [0, -10, 0, 0]
    with Journal(path) as journal:
        third = DeskedTable(journal, clock, replay(journal))
        assert [r.to_json() for r in third.service.hands.session.sheet] == rows
        assert waiting(third) == [(1, 1, False)]


def test_issue_36_item_1_a_late_revoke_and_a_hand_no_longer_open(tmp_path):
    """Issue 36 item 2: the penalty ruled late is revoked during hand 2 with a reason (hand
    1's row back to nothing); once hand 2 has ended too, hand 1 is refused, saying why."""
    with Journal(tmp_path / "j.sqlite") as journal:
        table = reported_then_dealt(journal, Clock())
        act(table.desk, "rule", RULED)
        act(table.desk, "revoke", {"alert": 1, "reason": "the wrong player", "hand": 1})
        session = table.service.hands.session
        assert session.sheet[0].penalties == (0, 0, 0, 0)
        assert replay(journal).mismatches == 0
        table.play_out()
        with pytest.raises(ActionRefused, match="hand 1 can no longer be ruled on"):
            act(table.desk, "rule", RULED)


def test_issue_36_item_2_once_the_sheet_is_signed_over_the_hand_its_rulings_stand(tmp_path):
    """After the referee signs the sheet up to hand 1, a ruling on it (or a revoke) is
    refused with a message saying why, not carried out."""
    with Journal(tmp_path / "j.sqlite") as journal:
        table = reported_then_dealt(journal, Clock())
        act(table.desk, "sign_sheet", {"hand": 1, "referee": "Li Wei"})
        with pytest.raises(ActionRefused, match="signed up to hand 1: hand 1's rulings"):
            act(table.desk, "rule", RULED)
        assert table.service.hands.session.sheet[0].penalties == (0, 0, 0, 0)
        assert waiting(table) == [(1, 1, True)]


@pytest.mark.slow  # a browser
@NEEDED
def test_issue_36_item_1_the_desk_rules_on_the_hand_before_in_chromium(tmp_path):
    """During hand 2 the desk's ruling panel still shows hand 1's alert; Apply with a reason
    puts the penalty on hand 1's row of the sheet."""

    def made(journal) -> DeskedTable:  # on the server's loop: the report applied, not acted
        table = DeskedTable(journal, Clock())
        table.new_hand("A")
        offence = ev.ViolationReported(table.clock.t, S, "wrong_draw_win", 0, ())
        table.service.hands.apply(offence)
        table.play_out()
        table.new_hand("B")
        return table

    source = ServedDesk(tmp_path / "served.sqlite", made)
    with referee_page(create_app(source, PIN)) as page:
        panel = page.locator("#ruling[data-key='1:1']")
        panel.wait_for()
        panel.locator("input.reason-text").fill(RULED["reason"])
        panel.locator("button.apply").click()
        page.wait_for_selector("#ruling .feedback:text('rule: done')")
        open_tab(page, "sheet")
        page.wait_for_selector("#sheet-table tr[data-hand='1'] .penalty")
        source.close()
