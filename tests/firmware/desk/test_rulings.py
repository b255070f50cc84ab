"""Rulings that cannot go wrong (issue 16): a ruling needs the referee's written reason; a
penalty applied can be revoked later with a reason, its own journaled input, and the
settlement follows (in the hand in play, and for the last hand finished, whose score sheet
row is settled again); a fault is "seen" once acknowledged and "cleared" only when the
device says so."""

from functools import partial

import pytest

from engine import events as ev
from engine.session import Session
from firmware.desk.desk import Desk
from firmware.display import ActionRefused
from firmware.display.app import create_app
from firmware.journal.replay import replay
from firmware.journal.store import Journal
from tests.support.chromium import NEEDED
from tests.support.deskkit import START, DeskGame
from tests.support.displaykit import PIN, open_tab, referee_page
from tests.support.followkit import (
    FOLLOWED,
    FOLLOWED_DRAWS,
    FOLLOWED_HANDS,
    UNCLAIMED,
    ServedGame,
    assert_replays_to,
    north_wins_on_south,
)
from tests.support.servicekit import ServedDesk, act
from tests.support.tablekit import WSOM_DICE, E, Game, S, of, stacked_walls

REASON = "the player named his discard aloud"
PHONE = 10  # WSOM's phone that sounds (config/rules/wsom2006.toml), deducted at settlement


def inputs(journal: Journal, kind: type) -> list[dict]:
    rows = [row.data() for row in journal.rows() if row.kind == "input"]
    return [row for row in rows if row["type"] == kind.__name__]


def outputs(journal: Journal, kind: type) -> list[dict]:
    rows = [row.data() for row in journal.rows() if row.kind == "output"]
    return [row for row in rows if row["type"] == kind.__name__]


def early_draw(desk: Desk) -> int:
    """RULES.md 3.6: West draws while East plays; the alert awaiting a ruling."""
    service = desk.service
    service.hands.apply(ev.TileDrawn(service.clock(), 2))
    return next(a["id"] for a in desk.alerts.values() if a["needs_ruling"])


@pytest.mark.parametrize("reason", [None, "", "   "])
def test_issue_16_a_ruling_without_a_written_reason_is_refused(desk, reason):
    """Issue 16: a ruling needs a written reason; without one it is refused naming the field,
    nothing is journaled and the penalty still awaits the ruling."""
    alert = early_draw(desk)
    body = {"alert": alert, "apply": True} | ({} if reason is None else {"reason": reason})
    with pytest.raises(ActionRefused, match="a ruling needs a written reason"):
        act(desk, "rule", body)
    assert inputs(desk.service.journal, ev.Ruling) == []
    assert desk.alerts[alert]["state"] == "open"


def test_issue_16_the_reason_is_journaled_with_the_ruling_and_shown(desk):
    """Issue 16: the referee's reason goes into the journal's Ruling row and onto the alert
    the referee view shows."""
    alert = early_draw(desk)
    act(desk, "rule", {"alert": alert, "apply": False, "reason": "  he was told to draw "})
    (row,) = inputs(desk.service.journal, ev.Ruling)
    assert (row["alert"], row["apply"], row["reason"]) == (alert, False, "he was told to draw")
    shown = next(a for a in desk.snapshot(True)["alerts"] if a["id"] == alert)
    assert (shown["state"], shown["reason"]) == ("waived", "he was told to draw")


def test_a_journal_written_before_reasons_still_reads():
    """docs/events.md: a Ruling row of an older journal, without `reason`, reads with ""."""
    old = {"type": "Ruling", "t": 1.0, "seat": None, "alert": 2, "apply": True}
    assert ev.from_json(old) == ev.Ruling(1.0, None, 2, True)


def test_issue_16_revoking_lifts_the_dead_hand_and_the_penalty_tiles(desk):
    """Issue 16, RULES.md 3.9 / 3.11: revoked, a penalty's effects are lifted: South's empty
    pung call made two penalty tiles; revoked, they are ordinary tiles again (he may call
    with them), and the hand of a dead-hand penalty may win again."""
    hands = desk.service.hands
    hands.apply(ev.TileDiscarded(desk.service.clock(), E, hands.table.hands[E][0]))
    hands.apply(ev.ClaimDeclared(desk.service.clock(), S, "pung", ()))
    alert = next(a["id"] for a in desk.alerts.values() if a["needs_ruling"])
    (applied,) = act(desk, "rule", {"alert": alert, "apply": True, "reason": REASON})["events"]
    assert applied["type"] == "PenaltyApplied" and len(applied["penalty_tiles"]) == 2
    referee = hands.table.referee
    assert referee.in_call(S, applied["penalty_tiles"])
    (lifted,) = act(desk, "revoke", {"alert": alert, "reason": "the call was not made"})["events"]
    assert lifted["type"] == "PenaltyLifted" and lifted["freed"] == applied["penalty_tiles"]
    assert not referee.in_call(S, applied["penalty_tiles"]) and referee.applied == []
    shown = desk.alerts[alert]
    assert (shown["state"], shown["revoked"]) == ("revoked", "the call was not made")


def test_issue_16_the_dead_hand_of_an_early_draw_is_lifted_when_revoked(desk):
    """RULES.md 3.6: an early draw's dead hand (no win, no calls) is given back when revoked."""
    alert = early_draw(desk)
    act(desk, "rule", {"alert": alert, "apply": True, "reason": REASON})
    referee = desk.service.hands.table.referee
    assert referee.no_win[2] and referee.no_calls[2]
    act(desk, "revoke", {"alert": alert, "reason": "East had discarded"})
    assert not (referee.no_win[2] or referee.no_calls[2])


def test_issue_16_a_penalty_not_in_force_cannot_be_revoked(desk):
    """Only a penalty in force is revoked: one still waiting, one waived, one revoked
    already, or no alert at all, is refused saying so; a revocation needs a reason."""
    alert = early_draw(desk)
    refused = f"no penalty applied under alert {alert} is in force in this hand"
    with pytest.raises(ActionRefused, match=refused):
        act(desk, "revoke", {"alert": alert, "reason": "not yet ruled"})
    with pytest.raises(ActionRefused, match="revoking needs a written reason"):
        act(desk, "revoke", {"alert": alert, "reason": " "})
    act(desk, "rule", {"alert": alert, "apply": True, "reason": REASON})
    act(desk, "revoke", {"alert": alert, "reason": "East had discarded"})
    with pytest.raises(ActionRefused, match=refused):
        act(desk, "revoke", {"alert": alert, "reason": "twice"})


def test_seed_004_a_ccm_penalty_revoked_gives_the_chips_back(ccm_desk, ccm):
    """Seed 004 第三章 第一條 二(二) 當場扣除, issue 16: South's 出牌報牌名 (10 to each) is paid on
    the spot; revoked, the chips are as before it, the sheet settles the hand without it,
    and the journal holds both the ruling and the revocation, replaying without mismatch."""
    game, desk = ccm_desk, ccm_desk.desk
    answer = act(desk, "report", {"seat": S, "offence": "naming_discard"})
    (alert,) = [e["id"] for e in answer["events"] if e["type"] == "Alert"]
    act(desk, "rule", {"alert": alert, "apply": True, "reason": REASON})
    assert ccm.chips_now(game.table.outcome()) == (10, 70, 160, 160)
    act(desk, "revoke", {"alert": alert, "reason": "it was West who spoke"})
    assert ccm.chips_now(game.table.outcome()) == tuple(START)
    journal = game.service.journal
    assert [r["reason"] for r in inputs(journal, ev.Ruling)] == [REASON]
    assert [r["reason"] for r in inputs(journal, ev.PenaltyRevoked)] == ["it was West who spoke"]
    assert [r["alert"] for r in outputs(journal, ev.PenaltyLifted)] == [alert]
    game.play_through()
    assert game.hands.session.sheet[-1].penalties == (0, 0, 0, 0)
    assert replay(journal).mismatches == 0


def test_seed_004_a_penalty_of_a_hand_that_ended_its_game_stands(ccm_desk, ccm):
    """RULES.md 4.13, issue 16: once the hand has ended its game (the game's chips are
    counted, the next begins afresh) its row is settled for good: revoking its penalty is
    refused saying why, and nothing is journaled."""
    game, desk = ccm_desk, ccm_desk.desk
    answer = act(desk, "report", {"seat": S, "offence": "naming_discard"})
    (alert,) = [e["id"] for e in answer["events"] if e["type"] == "Alert"]
    act(desk, "rule", {"alert": alert, "apply": True, "reason": REASON})
    session = game.hands.session
    session.passes = 4 * ccm.config["game"]["rounds"] - 1  # this deal is the game's last
    game.play_through()
    assert len(session.games) == 1
    with pytest.raises(ActionRefused, match=r"hand 1's row can no longer be settled again"):
        act(desk, "revoke", {"alert": alert, "reason": "too late"})
    assert inputs(game.service.journal, ev.PenaltyRevoked) == []


class Phoned(Game):
    """South's phone sounds once the dice are thrown: 10 points, applied at once (seed 000
    行為守則 響鬧, an offence the table applies without a ruling)."""

    def start(self) -> list[ev.Event]:
        out = super().start()
        return out + self.apply(ev.ViolationReported, S, offence="phone")


class PhonedGame(Phoned, ServedGame):
    """Played through firmware/table/hands.py, journaled."""


def phoned_hand(journal: Journal, wsom) -> tuple[PhonedGame, Desk, int]:
    """Hand 1, WSOM: South's phone penalised, then North wins on South's 9p, on the sheet."""
    game = PhonedGame(journal, wsom)
    desk = Desk(game.service, "test table")
    north_wins_on_south(game, FOLLOWED)
    (applied,) = of(game.log, ev.PenaltyApplied)
    assert applied.points == PHONE
    return game, desk, applied.alert


def test_seed_000_a_wsom_penalty_of_the_last_hand_revoked_settles_its_row_again(tmp_path, wsom):
    """RULES.md 3.13 (deducted from the offender at settlement), issue 16: the penalty of the
    hand just finished, revoked, leaves its score sheet row (settled again, same number);
    the journal's replay and a resume give the same sheet."""
    path = tmp_path / "wsom.sqlite"
    with Journal(path) as journal:
        game, desk, alert = phoned_hand(journal, wsom)
        session = game.hands.session
        row = session.sheet[-1]
        assert row.penalties == (0, -PHONE, 0, 0) and row.changes == tuple(UNCLAIMED)
        act(desk, "revoke", {"alert": alert, "reason": "the phone was the organiser's"})
        again = session.sheet[-1]
        assert (again.number, again.penalties, again.totals) == (1, (0,) * 4, tuple(UNCLAIMED))
        assert len(session.sheet) == 1
        sheet = [r.to_json() for r in session.sheet]
    assert_replays_to(path, wsom, sheet)


def test_issue_16_an_older_hands_penalty_is_not_revoked(wsom):
    """Issue 16: once the next hand is dealt, the hand before is settled for good; a
    revocation naming its alert reaches the new hand's table, which refuses it saying why,
    and the sheet's row stays as it is."""
    session = Session(wsom)
    game = Phoned(wsom, WSOM_DICE)
    game.table = session.new_table(stacked_walls(wsom, WSOM_DICE, FOLLOWED_HANDS, FOLLOWED_DRAWS))
    north_wins_on_south(game, FOLLOWED)
    (alert,) = [a for a in of(game.log, ev.Alert) if a.penalty and a.penalty["points"]]
    row = session.record(game.table)
    assert row.penalties[S] == -PHONE
    second = Game(wsom, WSOM_DICE)
    second.table = session.new_table(stacked_walls(wsom, WSOM_DICE, ("", "", "", "")))
    second.start()
    (refused,) = second.apply(ev.PenaltyRevoked, None, alert=alert.id, reason="too late")
    assert "an earlier hand's penalty cannot be revoked" in refused.message
    assert session.sheet[0] == row


class TimedOut(Game):
    """South calls a 暫停 of 30 seconds once the dice are thrown: 5 points (seed 000 行為守則
    暫停 每30秒罰扣5分), counted towards the half-session's limit."""

    def start(self) -> list[ev.Event]:
        out = super().start()
        return out + self.apply(ev.ViolationReported, S, offence="timeout", seconds=30)


def test_seed_000_a_revoked_timeout_leaves_the_half_sessions_conduct_points(wsom):
    """seed 000 行為守則 (半場內因暫停或遲到而扣分超過150分者 ... 作棄權論), issue 16: a 暫停 of
    the last hand revoked no longer counts towards the half-session's limit."""
    session = Session(wsom)
    game = TimedOut(wsom, WSOM_DICE)
    game.table = session.new_table(stacked_walls(wsom, WSOM_DICE, FOLLOWED_HANDS, FOLLOWED_DRAWS))
    north_wins_on_south(game, FOLLOWED)
    (applied,) = of(game.log, ev.PenaltyApplied)
    session.record(game.table)
    assert session.conduct[S] == 5 and session.sheet[0].penalties[S] == -5
    game.ok(ev.PenaltyRevoked, None, alert=applied.alert, reason="the clock was stopped")
    row = session.settle_again(game.table)
    assert session.conduct == [0, 0, 0, 0] and row.penalties == (0, 0, 0, 0)


def test_issue_16_a_fault_is_seen_when_acknowledged_and_cleared_when_the_device_says(desk):
    """Issue 16: "seen" and "cleared" are two states: acknowledging a fault marks it seen,
    not cleared; it is cleared only by the device's own record, shown once per fault."""
    service = desk.service
    service.faults.report(service.clock(), "shuffler", "jam", "the North lane jammed", "clear")
    fault = service.status().faults[-1].id

    def shown() -> list[dict]:
        return [f for f in desk.snapshot(True)["faults"] if f["id"] == fault]

    assert [(f["seen"], f["cleared"]) for f in shown()] == [(False, False)]
    act(desk, "ack", {"fault": fault})
    assert [(f["seen"], f["cleared"]) for f in shown()] == [(True, False)]
    service.faults.clear(service.clock(), "shuffler", "jam")
    assert [(f["seen"], f["cleared"], f["message"]) for f in shown()] == [
        (True, True, "the North lane jammed")
    ]


def ccm_reported(journal, ccm):
    """A CCM hand at the desk, South's 出牌報牌名 reported."""
    game = DeskGame(journal, ccm)
    game.start()
    game.apply(ev.ViolationReported, S, offence="naming_discard")
    return game


@pytest.mark.slow
@NEEDED
def test_issue_16_an_alert_ruled_at_the_centre_with_a_reason_then_revoked(tmp_path, ccm):
    """Issue 16 ("Done when"): South's 出牌報牌名 (seed 004, 10 to each) awaits a ruling at the
    centre of the referee view; after Acknowledge its Apply, Waive and Other ruling stay;
    Apply without a reason is refused beside the buttons; with one it is applied (South's
    pending -30); revoked from the penalties list with a reason, the pending points go and the
    chips are as before; the journal holds the ruling and the revocation."""
    source = ServedDesk(tmp_path / "served.sqlite", partial(ccm_reported, ccm=ccm))
    with referee_page(create_app(source, PIN)) as page:
        panel = page.locator("#ruling")
        panel.wait_for()
        alert = int(panel.get_attribute("data-alert-id"))
        assert "naming discard" in panel.locator(".ruling-penalty").inner_text()
        page.locator(f"#alerts [data-alert-id='{alert}'] button.ack").click()
        page.wait_for_selector(f"#alerts [data-alert-id='{alert}'].acknowledged")
        for button in ("apply", "waive", "other"):
            assert panel.locator(f"button.{button}").is_visible()
        panel.locator("button.apply").click()
        assert panel.locator(".feedback").inner_text() == "choose or write the reason first"
        panel.locator("select.reason-choice").select_option("seen by the referee")
        panel.locator("input.reason-text").fill("he said 'five bamboo'")
        panel.locator("button.apply").click()
        page.wait_for_selector("#ruling .feedback:text('rule: done')")
        page.wait_for_selector("[data-seat='S'] .pending:text('-30')")
        page.locator("#ruling button.close").click()
        open_tab(page, "penalties")  # issue 33: the side column's Penalties tab
        item = page.locator(f"#penalties [data-alert-id='{alert}']")
        assert "seen by the referee: he said 'five bamboo'" in item.inner_text()
        item.locator("button.revoke").click()
        item.locator("input.reason-text").fill("it was West who spoke")
        item.locator("button.revoke-confirm").click()
        page.wait_for_selector(f"#penalties [data-alert-id='{alert}'].revoked")
        page.wait_for_selector(f"#penalties [data-alert-id='{alert}'] .feedback:text('done')")
        assert page.locator("[data-seat='S'] .pending").count() == 0
        assert page.locator("#ruling").count() == 0
        source.close()
    assert ccm.chips_now(source.made.table.outcome()) == tuple(START)
    with Journal(tmp_path / "served.sqlite", readonly=True) as journal:
        assert [r["reason"] for r in inputs(journal, ev.Ruling)] == [
            "seen by the referee: he said 'five bamboo'"
        ]
        revoked = inputs(journal, ev.PenaltyRevoked)
        assert [(r["alert"], r["reason"]) for r in revoked] == [(alert, "it was West who spoke")]
