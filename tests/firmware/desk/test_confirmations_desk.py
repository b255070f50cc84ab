"""Issue 36 item 3: Void and "Accept the table as it lies" on the referee's desk ask for a
reason and a confirmation; the reason is journaled with who acted (RefereeActed). A cancel,
or a blank reason, does nothing. Served to Debian's chromium as the other desk browser tests.
"""

import pytest

from engine import events as ev
from firmware.display.app import create_app
from firmware.journal.store import Journal
from tests.support.chromium import NEEDED
from tests.support.deskkit import DeskedTable
from tests.support.displaykit import PIN, open_tab, referee_page
from tests.support.servicekit import Clock, ServedDesk


def dealt(journal) -> DeskedTable:
    table = DeskedTable(journal, Clock())
    table.new_hand("A")
    return table


def acted(path) -> list[tuple[str, str]]:
    with Journal(path, readonly=True) as journal:
        rows = [r.event() for r in journal.rows() if r.kind == "device"]
    return [(r.action, r.reason) for r in rows if isinstance(r, ev.RefereeActed)]


@pytest.mark.slow  # a browser
@NEEDED
def test_issue_36_item_3_void_and_accept_ask_a_reason_and_a_confirmation_in_chromium(tmp_path):
    """The referee taps Accept: asked why, then asked to confirm; his reason is journaled
    with the action (here the engine refuses the table as it lies: the attempt is journaled).
    He taps Void, writes why and cancels at the confirmation: nothing is voided; a blank
    reason is not even confirmed; again, confirmed: the hand is voided with his reason."""
    path = tmp_path / "served.sqlite"
    source = ServedDesk(path, dealt)
    answers: list = []  # what the referee answers each dialog: text, True (OK), False
    asked: list[str] = []

    def answer(dialog) -> None:
        asked.append(dialog.type)
        reply = answers.pop(0)
        if reply is False:
            dialog.dismiss()
        elif reply is True:
            dialog.accept()
        else:
            dialog.accept(reply)

    with referee_page(create_app(source, PIN)) as page:
        page.on("dialog", answer)
        open_tab(page, "tools")  # the table's controls (issue 33's tabs)
        page.wait_for_selector("#accept-table")
        answers += ["the tiles are where the hand has them", True]
        page.locator("#accept-table").click()
        # refused by the engine (the tracking here has no hands), the attempt journaled
        page.wait_for_selector("#notice:text('accept table refused: the table as it lies')")
        answers += ["a tile fell off the table", False]
        page.locator("#void").click()
        answers += ["  "]  # a blank reason: not even asked to confirm
        page.locator("#void").click()
        answers += ["a tile fell off the table", True]
        page.locator("#void").click()
        page.wait_for_selector("#notice:text('void hand: done')")
        source.close()
    assert asked == ["prompt", "confirm", "prompt", "confirm", "prompt", "prompt", "confirm"]
    assert not answers
    assert acted(path) == [
        ("accept_table", "the tiles are where the hand has them"),
        ("void_hand", "a tile fell off the table"),
    ]
    with Journal(path, readonly=True) as journal:
        voided = [r.event() for r in journal.rows() if r.kind == "device"]
    assert [v.reason for v in voided if isinstance(v, ev.HandVoided)] == [
        "a tile fell off the table"
    ]


def played(journal) -> DeskedTable:
    table = DeskedTable(journal, Clock())
    table.new_hand("A")
    table.play_out()
    return table


@pytest.mark.slow  # a browser
@NEEDED
def test_issue_36_item_2_a_wrong_signature_is_withdrawn_on_the_desk_in_chromium(tmp_path):
    """A player's tap for the wrong person: the referee's Withdraw beside it asks why, and the
    signature leaves the sheet's list; the journal keeps the withdrawal with its reason."""
    path = tmp_path / "served.sqlite"
    source = ServedDesk(path, played)
    with referee_page(create_app(source, PIN)) as page:
        page.on("dialog", lambda dialog: dialog.accept("tapped for the wrong person"))
        open_tab(page, "sheet")
        page.wait_for_selector("#ask-signatures")
        page.locator("#ask-signatures").click()
        page.locator("#sign-call button.player-signs[data-person='2']").click()
        page.wait_for_selector("#sheet-signatures li:text('P3 signed up to hand 1')")
        page.locator("#sheet-signatures button.withdraw-signature[data-person='2']").click()
        page.wait_for_selector("#sheet-signatures li:text('Not signed yet.')")
        source.close()
    with Journal(path, readonly=True) as journal:
        rows = [r.event() for r in journal.rows() if r.kind == "device"]
    assert [(r.person, r.reason) for r in rows if isinstance(r, ev.SignatureWithdrawn)] == [
        (2, "tapped for the wrong person")
    ]
