"""No floods (issue 33 item 2): a slow player's mechanical overtime penalties are one entry per
seat in the alerts and the penalties (the count, the total, one Revoke with one reason for them
all), and a fault repeated forty times is one entry with its count and one Acknowledge."""

import time

import pytest

from firmware.display.app import create_app
from tests.support.chromium import NEEDED
from tests.support.displaykit import PIN, FakeSource, open_tab, referee_page
from tests.support.scenes import view_of, wsom_scene

pytestmark = [pytest.mark.slow, NEEDED]

SLOW_SEAT, OVERTIMES, JAMS = 2, 20, 40


def overtime(alert_id: int) -> dict:
    """A mechanical overtime penalty (RULES.md 3.12), applied by the table, still revocable."""
    return {
        "id": alert_id,
        "t": 10.0 + alert_id,
        "seat": SLOW_SEAT,
        "rule": "RULES.md 3.12",
        "message": "W discarded after the turn's time",
        "needs_ruling": False,
        "state": "applied",
        "revocable": True,
        "penalty": {
            "offence": "overtime_discard",
            "points": 5,
            "paid_to_others": False,
            "effect": "",
            "penalty_tiles": [],
            "rule": "RULES.md 3.12",
            "confirm": False,
        },
    }


def jam(fault_id: int) -> dict:
    return {
        "id": fault_id,
        "t": 20.0 + fault_id,
        "device": "shuffler",
        "kind": "jam",
        "message": "lane 2 stalled",
        "advice": "clear the lane",
        "cleared": False,
    }


def test_issue_33_overtime_penalties_and_a_fault_flood_grouped(wsom):
    view = view_of(wsom_scene(wsom))
    others = len(view.alerts)
    view.alerts += [overtime(100 + n) for n in range(OVERTIMES)]
    view.faults = [jam(n) for n in range(1, JAMS + 1)]
    source = FakeSource(view)
    with referee_page(create_app(source, PIN)) as page:
        page.wait_for_selector("#alerts li[data-count='20']")
        assert page.locator("#alerts li").count() == others + 1
        grouped = page.locator("#alerts li[data-count='20']")
        assert "×20" in grouped.inner_text() and "100 points in all" in grouped.inner_text()

        open_tab(page, "penalties")
        entry = page.locator(f"#penalties li[data-count='{OVERTIMES}']")
        assert page.locator("#penalties li").count() == 2  # West's empty call, and this
        assert "100 points in all" in entry.inner_text()
        entry.locator("button.revoke").click()
        entry.locator("select.reason-choice").select_option(
            "a fault of the table, not of the player"
        )
        entry.locator("button.revoke-confirm").click()
        revoked = until(lambda: acts(source, "revoke", OVERTIMES), "the 20 revokes")
        assert {b["alert"] for b in revoked} == {100 + n for n in range(OVERTIMES)}
        assert {b["reason"] for b in revoked} == {"a fault of the table, not of the player"}

        open_tab(page, "faults")
        flood = page.locator("#faults li")
        assert flood.count() == 1 and flood.get_attribute("data-count") == str(JAMS)
        assert "×40" in flood.inner_text()
        flood.locator("button.ack").click()
        acked = until(lambda: acts(source, "ack", JAMS), "the 40 acknowledgements")
        assert sorted(b["fault"] for b in acked) == list(range(1, JAMS + 1))


def acts(source: FakeSource, action: str, n: int) -> list[dict] | None:
    """The bodies of `action` the page sent, once there are `n` of them."""
    bodies = [body for done, body in source.acts if done == action]
    return bodies if len(bodies) >= n else None


def until(ready, what: str):
    """Wait on the page's requests (one per item of a group, sent in turn)."""
    deadline = time.monotonic() + 60  # a hang's bound on a busy machine, not a timing
    while not (result := ready()):
        assert time.monotonic() < deadline, f"the page did not send {what}"
        time.sleep(0.05)
    return result
