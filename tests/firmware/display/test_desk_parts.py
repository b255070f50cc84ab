"""The desk's smaller parts (issue 33 item 5): controls only for the rule book in play, the
resume banner folded off the seats, names wherever they have been entered."""

import pytest

from firmware.display.app import create_app
from tests.support.chromium import NEEDED
from tests.support.deskscenes import ccm_won, source_for, taken_up
from tests.support.displaykit import PIN, open_tab, referee_page

pytestmark = [pytest.mark.slow, NEEDED]

SEED_000 = ["#referee-roll", "#wall-touched", "#remove-excess", "#redeal"]  # WSOM's book
STAGE = ["#change-seats", "#ask-scores"]  # 換位, 問分: seed 004's stage of games


@pytest.mark.parametrize("rules", ["wsom", "ccm"])
def test_issue_33_controls_only_for_the_rule_book_in_play(rules, request):
    ruleset = request.getfixturevalue(rules)
    source = source_for(ruleset) if rules == "wsom" else ccm_won(ruleset)
    with referee_page(create_app(source, PIN)) as page:
        page.wait_for_selector("#table .seat")
        open_tab(page, "tools")
        page.wait_for_selector("#pause")
        shown = {b: page.locator(b).is_visible() for b in SEED_000 + STAGE}
        assert shown == {b: (rules == "wsom") == (b in SEED_000) for b in SEED_000 + STAGE}


def test_issue_33_the_resume_banner_folds_off_the_south_seat(wsom):
    source = taken_up(source_for(wsom))
    with referee_page(create_app(source, PIN), viewport=(1024, 600)) as page:
        banner = page.locator("#interruption")
        banner.wait_for()
        south = page.locator(".seat.place-bottom").bounding_box()
        before = banner.bounding_box()
        assert before["y"] + before["height"] > south["y"]  # over the seat nearest the referee
        banner.locator("button.fold").click()
        folded = banner.bounding_box()
        assert folded["height"] < before["height"] and banner.locator(".advice").is_hidden()


def test_issue_33_item_4_the_english_desk_cites_the_rule_books_articles(wsom):
    """The alerts and the penalties name WSOM's part, not RULES.md."""
    with referee_page(create_app(source_for(wsom), PIN)) as page:
        page.wait_for_selector("#alerts .meta")
        shown = page.inner_text("#alerts")
        open_tab(page, "penalties")
        shown += page.inner_text("#penalties")
        assert "WSOM 2006 rules: claim priority" in shown  # RULES.md 3.7
        assert "WSOM 2006 rules: false claims" in shown  # RULES.md 3.11
        assert "RULES.md" not in shown
