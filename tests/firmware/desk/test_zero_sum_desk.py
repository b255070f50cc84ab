"""Issue 36 item 4: one zero-sum check, the rule book's (firmware/audit/zero_sum.py), for the
desk, the exports (JSON, CSV, PDF) and the venue. WSOM deducts a penalty from the offender
(seed 000 選手叫「暫停」: 罰扣5分), so its points leave the table by design and no row fails;
CCM's penalties add up to minus its dead points (seed 004 §38 一 6) and what a hand held
outside the table (seed 004 §32) adds up to nothing.
"""

import csv
import io
import json

from pypdf import PdfReader

from firmware.audit import cli as export
from firmware.audit import sheet as export_sheet
from firmware.audit import zero_sum
from firmware.audit.sheet_csv import as_csv
from firmware.journal.store import Journal
from firmware.resources import load_ruleset
from firmware.venue.board import VenueBoard
from firmware.venue.standings import zero_sum as venue_check
from tests.support.deskkit import DeskedTable
from tests.support.servicekit import Clock, act
from tests.support.tablekit import S
from tests.support.venuekit import VENUE, finish


def test_issue_36_item_4_a_wsom_penalty_is_no_zero_sum_failure_anywhere(tmp_path):
    """A WSOM hand with a timeout's 10 points deducted: its row is ok on the desk, in the
    JSON (`zero_sum: true`), the CSV ("ok") and the PDF (no "NOT ZERO"), and at the venue,
    which checks the signed rows with the same function."""
    path = tmp_path / "j.sqlite"
    with Journal(path) as journal:
        table = DeskedTable(journal, Clock())
        table.new_hand("A")
        act(table.desk, "report", {"seat": S, "offence": "timeout", "seconds": 45})
        table.play_out()
        session = table.service.hands.session
        assert sum(session.sheet[-1].penalties) == -10  # deducted: it leaves the table
        (row,) = table.desk.snapshot(True)["sheet"]["rows"]
        assert row["zero_sum"] == {"ok": True, "problems": []}
        rows = [r.to_json() for r in session.sheet]
        totals = list(session.sheet[-1].totals)
    document = export_sheet.sheet(path)
    assert document["zero_sum"] is True and document["hands"][0]["zero_sum"]["ok"]
    assert json.loads(export.rendered(document, "json"))["zero_sum"] is True
    (line,) = csv.DictReader(io.StringIO(as_csv(document).decode()))
    assert line["zero_sum"] == "ok"
    pdf = export.rendered(document, "pdf")
    text = "".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages)
    assert "NOT ZERO" not in text
    board = VenueBoard(VENUE)
    finish(board, "T1", rows, totals)
    assert venue_check(board.tables["T1"])["problems"] == []


def test_issue_36_item_4_ccm_dead_points_and_held_amounts_are_accounted():
    """CCM (seed 004 §38 一 6): penalties paid to the others add up to nothing, or to minus
    the dead points; one that vanished is a failure, as is a held amount (§32) that does not
    add up; WSOM's deduction is not (seed 000 罰扣)."""
    ccm, wsom = load_ruleset("ccm2012"), load_ruleset("wsom2006")
    kept = zero_sum.penalties_kept(ccm)
    assert kept and not zero_sum.penalties_kept(wsom)
    assert zero_sum.check((8, -8, 0, 0), (-30, 10, 10, 10), 0, kept)["ok"]
    assert zero_sum.check((0, 0, 0, 0), (-30, 0, 0, 0), 30, kept)["ok"]  # dead points
    assert zero_sum.check((0, 0, 0, 0), (-30, 0, 0, 0), 0, kept)["problems"] == [
        "the penalties add up to -30, not 0"
    ]
    assert zero_sum.check((0, 0, 0, 0), (0,) * 4, 0, kept, held=(16, -16, 0, 0))["ok"]
    assert zero_sum.check((0, 0, 0, 0), (0,) * 4, 0, kept, held=(16, 0, 0, 0))["problems"] == [
        "the amounts held outside the table add up to 16, not 0"
    ]
    assert zero_sum.check((0, 0, 0, 0), (-10, 0, 0, 0), 0, False)["ok"]  # WSOM deducts
    assert zero_sum.check((1, 0, 0, 0), (0,) * 4, 0, False)["problems"] == [
        "the payments add up to 1, not 0"
    ]
