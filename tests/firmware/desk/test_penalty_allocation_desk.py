"""The referee's choice of who is paid a penalty, at the desk (seed 004 §38 一 6: 罰分可以判給
明顯虧損方（翻開下一張牌確認是否下家自摸和牌），或處理成盤外的死分; RULES.md 4.15): the `rule`
action's `to` (the player disadvantaged) and `dead` (dead points), journaled with the
Ruling; a choice that cannot stand is refused naming why, and the penalty still waits. (What
the settlement makes of them is tests/engine/test_session.py's.)"""

import pytest
from starlette.testclient import TestClient

from engine.seats import LETTERS
from firmware.display import ActionRefused
from firmware.display.app import create_app
from tests.support.chromium import NEEDED
from tests.support.deskkit import DeskGame
from tests.support.displaykit import BASE, PIN, FakeSource, referee, referee_page
from tests.support.scenes import ccm_scene, view_of, wsom_scene
from tests.support.servicekit import act
from tests.support.tablekit import N, S, W


def proposed(game: DeskGame, seat: int = S, offence: str = "naming_discard") -> int:
    """The alert of a reported offence awaiting the referee (出牌報牌名: 10 to each)."""
    answer = act(game.desk, "report", {"seat": seat, "offence": offence})
    (alert,) = [e for e in answer["events"] if e["type"] == "Alert"]
    assert alert["needs_ruling"]
    return alert["id"]


def rulings(game: DeskGame) -> list[dict]:
    rows = [r.data() for r in game.service.journal.rows() if r.kind == "input"]
    return [row for row in rows if row["type"] == "Ruling"]


@pytest.mark.parametrize("to, seat", [("W", W), (N, N)])
def test_seed_004_38_1_6_points_given_to_the_player_disadvantaged(ccm_desk, to, seat):
    """Seed 004 §38 一 6 判給明顯虧損方: the ruling names the seat, as a letter or 0..3; the
    journal's Ruling holds it (and not dead), and the penalty is applied to that seat."""
    alert = proposed(ccm_desk)
    answer = act(
        ccm_desk.desk,
        "rule",
        {"reason": "seen by the referee", "alert": alert, "apply": True, "to": to},
    )
    (penalty,) = answer["events"]
    assert (penalty["type"], penalty["to"]) == ("PenaltyApplied", seat)
    (row,) = rulings(ccm_desk)
    assert (row["alert"], row["to"], row["dead"]) == (alert, seat, False)


def test_seed_004_38_1_6_points_made_dead_points(ccm_desk):
    """Seed 004 §38 一 6 處理成盤外的死分: `dead` is journaled with the Ruling, no seat paid."""
    alert = proposed(ccm_desk)
    act(
        ccm_desk.desk,
        "rule",
        {"reason": "seen by the referee", "alert": alert, "apply": True, "dead": True},
    )
    (row,) = rulings(ccm_desk)
    assert (row["to"], row["dead"]) == (None, True)


def test_a_plain_ruling_leaves_the_choice_to_the_rule_book(ccm_desk):
    """Neither given: the Ruling has no `to` and no `dead` (the config's default applies)."""
    alert = proposed(ccm_desk)
    act(ccm_desk.desk, "rule", {"reason": "seen by the referee", "alert": alert, "apply": True})
    (row,) = rulings(ccm_desk)
    assert (row["to"], row["dead"]) == (None, False)


@pytest.mark.parametrize(
    "choice, why",
    [
        ({"to": "S"}, "not the offender"),
        ({"to": S}, "not the offender"),
        ({"to": "W", "dead": True}, "not both"),
        ({"to": "X"}, "E S W N or 0..3, not 'X'"),
        ({"to": 4}, r"another player at the table \(E, S, W or N\)"),
        ({"to": "W", "apply": False}, "a waived penalty pays nobody"),
        ({"dead": True, "apply": False}, "a waived penalty pays nobody"),
    ],
)
def test_a_choice_of_payee_that_cannot_stand_is_refused_and_the_penalty_waits(
    ccm_desk, choice, why
):
    """Seed 004 §38 一 6 names a player the offence disadvantaged, or dead points: the offender,
    both at once, no seat, or a waived penalty are refused naming why, and the penalty can
    still be ruled on."""
    alert = proposed(ccm_desk)
    with pytest.raises(ActionRefused, match=why):
        act(
            ccm_desk.desk,
            "rule",
            {"reason": "seen by the referee", "alert": alert, "apply": True} | choice,
        )
    answer = act(
        ccm_desk.desk,
        "rule",
        {"reason": "seen by the referee", "alert": alert, "apply": True, "to": "E"},
    )
    (penalty,) = answer["events"]
    assert (penalty["type"], penalty["to"]) == ("PenaltyApplied", 0)
    assert rulings(ccm_desk)[-1]["to"] == 0


def test_a_penalty_without_points_has_no_payee_to_choose(ccm_desk):
    """The first 嫌疑動作 is a warning without points (seed 004 第三章 第一條 一): `to` is
    refused; the warning is still confirmed."""
    alert = proposed(ccm_desk, W, "suspicious_gestures")
    with pytest.raises(ActionRefused, match="has no points to give"):
        act(
            ccm_desk.desk,
            "rule",
            {"reason": "seen by the referee", "alert": alert, "apply": True, "to": "E"},
        )
    act(ccm_desk.desk, "rule", {"reason": "seen by the referee", "alert": alert, "apply": True})


def test_a_payee_for_an_alert_with_no_penalty_waiting_is_refused(ccm_desk):
    alert = proposed(ccm_desk)
    act(ccm_desk.desk, "rule", {"reason": "seen by the referee", "alert": alert, "apply": True})
    with pytest.raises(ActionRefused, match=f"no penalty awaits a ruling under alert {alert}"):
        act(
            ccm_desk.desk,
            "rule",
            {"reason": "seen by the referee", "alert": alert, "apply": True, "dead": True},
        )


@pytest.mark.parametrize("choice", [{"to": "E"}, {"dead": True}])
def test_seed_000_a_wsom_penalty_has_no_payee_to_choose(desk, choice):
    """Seed 000 行為守則 (RULES.md 3.13) deducts a penalty from the offender alone: `to` and
    `dead` are refused naming it, and the penalty still waits."""
    answer = act(desk, "report", {"seat": S, "offence": "naming_discard"})
    (alert,) = [e["id"] for e in answer["events"] if e["type"] == "Alert"]
    with pytest.raises(ActionRefused, match=r"no choice of who is paid a penalty \(seed 000 "):
        act(desk, "rule", {"reason": "seen by the referee", "alert": alert, "apply": True} | choice)
    act(desk, "rule", {"reason": "seen by the referee", "alert": alert, "apply": True})


@pytest.mark.parametrize(
    "choice, field", [({"to": "west"}, "to"), ({"to": True}, "to"), ({"dead": "yes"}, "dead")]
)
def test_a_malformed_payee_is_422_naming_the_field(desk, choice, field):
    """Issue 6's rule for every action: a `rule` body with a `to` that is no seat, or a `dead`
    that is not true or false, is 422 naming the field."""
    client = TestClient(create_app(desk, PIN), base_url=BASE)
    body = {"alert": 1, "apply": True, "reason": "seen by the referee"} | choice
    response = client.post("/api/referee/rule", json=body, headers=referee())
    assert response.status_code == 422 and response.json()["field"] == field


@pytest.mark.slow
@NEEDED
@pytest.mark.parametrize("scene, offered", [(ccm_scene, True), (wsom_scene, False)])
def test_the_referee_page_offers_the_payee_for_a_ccm_penalty_of_points(ccm, wsom, scene, offered):
    """Seed 004 §38 一 6 at the referee's page: a CCM alert proposing points has, beside Apply
    and Waive, under "Other ruling" (issue 16), a button for each player but the offender ("to
    the player disadvantaged") and "as dead points", which send `to` / `dead` with the ruling
    and its reason; a WSOM penalty (seed 000: deducted from the offender alone) has none."""
    game = scene(ccm if scene is ccm_scene else wsom)
    source = FakeSource(view_of(game))
    waiting = next(a for a in source.view.alerts if a["state"] == "open" and a["penalty"])
    waiting["awaits_ruling"] = (
        True  # as the desk says of a penalty it holds (firmware/desk/desk.py)
    )
    offender = LETTERS[waiting["penalty"]["seat"]]
    payee = next(s for s in LETTERS if s != offender)
    reason = "seen by the referee"
    with referee_page(create_app(source, PIN)) as page:
        item = page.locator(f"#ruling[data-alert-id='{waiting['id']}']")
        item.locator("button.waive").wait_for()
        item.locator("button.other").click()  # "Other ruling": the rule book's alternatives
        assert item.locator("button.to").count() == (3 if offered else 0)
        assert item.locator(f"button.to-{offender}").count() == 0
        if offered:
            item.locator("select.reason-choice").select_option(reason)
            item.locator(f"button.to-{payee}").click()
            page.wait_for_selector("#ruling .feedback:text('rule: done')")
            item.locator("button.close").click()  # the fake source's alert still awaits
            item.locator("select.reason-choice").select_option(reason)
            item.locator("button.other").click()
            item.locator("button.dead").click()
            page.wait_for_selector("#ruling .feedback:text('rule: done')")
    if offered:
        assert source.acts[:2] == [
            ("rule", {"alert": waiting["id"], "apply": True, "reason": reason, "to": payee}),
            ("rule", {"alert": waiting["id"], "apply": True, "reason": reason, "dead": True}),
        ]
