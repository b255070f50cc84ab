"""Issue 36 item 2, "Waive ... can be undone until the sheet is signed": at the desk, a Waive
on the hand before (ruled after the next deal) is taken back with a reason, the alert awaits
a ruling again, as the journal has it after a power cut; applied then, South's 10 points of
WSOM's 3.6 wrong_draw_win (seed 000) are on hand 1's row. Once the sheet is signed over the
hand, the undo is refused with a message saying why.
"""

import pytest

from engine import events as ev
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
WAIVED = RULED | {"apply": False, "reason": "not seen"}
UNDONE = {"alert": 1, "hand": 1, "reason": "waived the wrong alert"}


def test_issue_36_item_2_a_waive_undone_then_ruled_after_a_power_cut(tmp_path):
    """Seed 000 (WSOM 3.6): waived, undone, the alert awaits again, after a restart too;
    applied then, hand 1's row has the offence's 10 points; the journal replays alike."""
    path, clock = tmp_path / "j.sqlite", Clock()
    with Journal(path) as journal:
        table = reported_then_dealt(journal, clock)
        act(table.desk, "rule", WAIVED)
        assert waiting(table) == [(1, 1, False)]
        answer = act(table.desk, "undo_waive", UNDONE)
        assert [e["type"] for e in answer["events"]] == ["PenaltyReopened"]
        assert waiting(table) == [(1, 1, True)]
        assert replay(journal).mismatches == 0
    with Journal(path) as journal:
        again = DeskedTable(journal, clock, replay(journal))
        assert waiting(again) == [(1, 1, True)]
        act(again.desk, "rule", RULED)
        assert again.service.hands.session.sheet[0].penalties == (0, -10, 0, 0)
        assert replay(journal).mismatches == 0


def test_issue_36_item_2_a_waive_stands_once_the_sheet_is_signed(tmp_path):
    """Signed up to hand 1, its waive can no longer be undone at the table: refused, saying
    why; the alert stays waived."""
    with Journal(tmp_path / "j.sqlite") as journal:
        table = reported_then_dealt(journal, Clock())
        act(table.desk, "rule", WAIVED)
        act(table.desk, "sign_sheet", {"hand": 1, "referee": "Li Wei"})
        with pytest.raises(ActionRefused, match="signed up to hand 1: hand 1's rulings"):
            act(table.desk, "undo_waive", UNDONE)
        assert waiting(table) == [(1, 1, False)]


@pytest.mark.slow  # a browser
@NEEDED
def test_issue_36_item_2_undo_waive_on_the_desk_in_chromium(tmp_path):
    """The Penalties tab lists the waived alert with "Undo waive…"; undone with a reason, the
    ruling panel asks for a ruling on it again."""

    def made(journal) -> DeskedTable:  # on the server's loop: reported and waived
        table = DeskedTable(journal, Clock())
        table.new_hand("A")
        table.service.hands.apply(ev.ViolationReported(table.clock.t, S, "wrong_draw_win", 0, ()))
        table.service.hands.apply(ev.Ruling(table.clock.t, None, 1, False, reason="not seen"))
        return table

    source = ServedDesk(tmp_path / "served.sqlite", made)
    with referee_page(create_app(source, PIN)) as page:
        open_tab(page, "penalties")
        item = page.locator("#penalties [data-alert-id='1'].waived")
        item.wait_for()
        item.locator("button.undo-waive").click()
        item.locator("input.reason-text").fill(UNDONE["reason"])
        item.locator("button.revoke-confirm").click()
        page.wait_for_selector("#ruling[data-key='1:1'] button.apply")
        source.close()
