"""Issue 36 item 2, "Undo until the sheet is signed": a player's signature tapped for the wrong
person is withdrawn with the referee's reason, journaled with who did it, kept over a restart
and left off the exported sheet; once the referee has signed the sheet after it, the
withdrawal is refused with a message saying why.
"""

import itertools

import pytest

from engine import events as ev
from firmware.audit import sheet as export_sheet
from firmware.display import ActionRefused
from firmware.journal.replay import replay
from firmware.journal.store import Journal
from tests.support.deskkit import DeskedTable
from tests.support.servicekit import Clock, act

WRONG = "tapped P3 for P2 by mistake"


def played_one(journal, clock) -> DeskedTable:
    table = DeskedTable(journal, clock)
    ticks = itertools.count()
    table.desk.wall = lambda: 1_790_000_000 + next(ticks)  # a second a reading: in order
    table.new_hand("A")
    table.play_out()
    return table


def signed(table) -> list[tuple[int, int]]:
    sheet = table.desk.snapshot(True)["sheet"]
    return [(s["person"], s["hand"]) for s in sheet["player_signatures"]]


def test_issue_36_item_2_a_signature_tapped_for_the_wrong_person_is_withdrawn(tmp_path):
    """P3's tap was meant for P2: withdrawn with a reason (a SignatureWithdrawn, its
    RefereeActed saying who and why), P2 signs, the sheet and its export list P2 alone, and
    a restart has it so."""
    path, clock = tmp_path / "j.sqlite", Clock()
    with Journal(path) as journal:
        table = played_one(journal, clock)
        act(table.desk, "ask_signatures", {"hand": 1})
        act(table.desk, "player_signs", {"person": 2})
        with pytest.raises(ActionRefused, match="needs a written reason"):
            act(table.desk, "withdraw_signature", {"person": 2, "reason": ""})
        act(table.desk, "withdraw_signature", {"person": 2, "reason": WRONG})
        assert signed(table) == []
        act(table.desk, "player_signs", {"person": 1})
        assert signed(table) == [(1, 1)]
        rows = [r.event() for r in journal.rows() if r.kind == "device"]
        at = next(n for n, r in enumerate(rows) if isinstance(r, ev.SignatureWithdrawn))
        assert (rows[at].person, rows[at].hand, rows[at].reason) == (2, 1, WRONG)
        acted = rows[at + 1]
        assert (acted.action, acted.reason) == ("withdraw_signature", WRONG)
        with pytest.raises(ActionRefused, match="P4 has no signature"):
            act(table.desk, "withdraw_signature", {"person": 3, "reason": WRONG})
    assert [s["person"] for s in export_sheet.sheet(path)["player_signatures"]] == [1]
    with Journal(path) as journal:
        again = DeskedTable(journal, clock, replay(journal))
        assert signed(again) == [(1, 1)]


def test_issue_36_item_2_after_the_referee_signs_a_signature_stands(tmp_path):
    """The referee signs the sheet after P2 signed: withdrawing P2's is refused, saying the
    referee has signed since; the signature stays."""
    with Journal(tmp_path / "j.sqlite") as journal:
        table = played_one(journal, Clock())
        act(table.desk, "ask_signatures", {"hand": 1})
        act(table.desk, "player_signs", {"person": 1})
        act(table.desk, "sign_sheet", {"hand": 1, "referee": "Li Wei"})
        with pytest.raises(ActionRefused, match="the referee has signed the sheet since P2"):
            act(table.desk, "withdraw_signature", {"person": 1, "reason": WRONG})
        assert signed(table) == [(1, 1)]
