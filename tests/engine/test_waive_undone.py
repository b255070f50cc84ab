"""Issue 36 item 2, "Waive ... can be undone until the sheet is signed": a Waive taken back
(WaiveUndone) puts the penalty back to await a ruling under its alert; applied then, it is
the offence the report was. CCM's 違規摸牌 (seed 004 第三章 第二條, RULES.md 4.15: 10 points,
then 20): a waived report is no offence, so undone and applied it costs a first offence's
points, not the second's that reporting it again would."""

from engine import events as ev
from tests.support.tablekit import W, ccm_game, of

OFFENCE = "early_draw"  # 違規摸牌: 10 points, then 20 (config/rules/ccm2012.toml)


def reported(game) -> ev.Alert:
    return game.apply(ev.ViolationReported, W, offence=OFFENCE)[0]


def test_issue_36_item_2_a_waive_undone_then_applied_is_a_first_offence(ccm):
    """Seed 004 第三章 第二條 (RULES.md 4.15): the first naming_discard's points, once."""
    game = ccm_game(ccm)
    alert = reported(game)
    first = alert.penalty["points"]
    assert of(game.apply(ev.Ruling, None, alert=alert.id, apply=False), ev.PenaltyWaived)
    undone = game.apply(ev.WaiveUndone, None, alert=alert.id, reason="waived the wrong alert")
    assert undone == [ev.PenaltyReopened(game.clock, W, alert.id, "waived the wrong alert")]
    (applied,) = of(game.apply(ev.Ruling, None, alert=alert.id), ev.PenaltyApplied)
    assert (applied.offence, applied.points, applied.alert) == (OFFENCE, first, alert.id)
    assert first == 10 and reported(game).penalty["points"] == 20  # the next: a second


def test_issue_36_item_2_only_a_waive_can_be_undone(ccm):
    """A penalty awaiting a ruling, or applied, has no waive to take back: the engine says so
    and the penalty stays as it is."""
    game = ccm_game(ccm)
    alert = reported(game)
    (refusal,) = game.apply(ev.WaiveUndone, None, alert=alert.id, reason="r")
    assert isinstance(refusal, ev.Alert) and "no penalty waived" in refusal.message
    assert of(game.apply(ev.Ruling, None, alert=alert.id), ev.PenaltyApplied)
    (refusal,) = game.apply(ev.WaiveUndone, None, alert=alert.id, reason="r")
    assert "nothing to undo" in refusal.message


def test_issue_36_item_2_a_waived_report_is_no_offence(ccm):
    """Seed 004 第三章 第二條: reported again after a waive, it is a first offence still (the
    10 points do not become the second's)."""
    game = ccm_game(ccm)
    alert = reported(game)
    game.apply(ev.Ruling, None, alert=alert.id, apply=False)
    assert reported(game).penalty["points"] == alert.penalty["points"] == 10
