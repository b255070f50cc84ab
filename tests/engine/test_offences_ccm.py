"""CCM 2012 timing and offences at the table (RULES.md 4.14-4.15, A-C18, A-C19, A-C22).

The offender pays each of the other three; repeated offences escalate within one hand (盤,
seed 004 §296-298); the 10-s discard limit takes the general escalation of 4.15 (inference).
"""

from engine import events as ev
from tests.support.tablekit import CCM_DICE, E, Game, N, S, W, ccm_game, of


def rule_on(game, alert, apply=True):
    return game.apply(ev.Ruling, None, alert=alert.id, apply=apply)


def test_dealer_first_discard_20_seconds_then_10(ccm):
    """RULES.md 4.14: the dealer's first discard within 20 s of the deal, later ones within
    10 s of the left player's discard; the first overtime is a warning (0 points)."""
    game = ccm_game(ccm, hands=["C", "", "", ""])
    game.clock += 19
    assert not of(game.apply(ev.TileDiscarded, E, tile=game.own(E, "C")[0]), ev.Alert)
    game.close()
    game.draw(S)
    game.clock += 10
    out = game.apply(ev.TileDiscarded, S, tile=game.table.hands[S][-1])
    alert = of(out, ev.Alert)[0]
    assert alert.rule == "RULES.md 4.14" and alert.penalty["points"] == 0
    assert not of(out, ev.PenaltyApplied)


def test_overtime_escalates_within_the_hand_and_is_paid_to_each(ccm):
    """RULES.md 4.15, A-C18: warning, then 10, then 20 to each of the other three; more:
    removed from play (機械陪打) for the rest of the hand."""
    game = ccm_game(ccm, hands=["C", "", "", ""])
    game.discard(E, "C")
    game.close()
    points = []
    for _ in range(4):
        game.play_through(until=lambda g: g.table.turn == S and g.table.state == "discard")
        game.clock += 15
        out = game.apply(ev.TileDiscarded, S, tile=game.table.hands[S][-1])
        points.append(of(out, ev.Alert)[0].penalty["points"])
        applied = of(out, ev.PenaltyApplied)
        assert all(p.paid_to_others for p in applied)
        game.close()
    assert points == [0, 10, 20, 20]
    assert game.table.referee.mechanical[S]


def test_late_pung_refused_and_escalating(ccm):
    """RULES.md 4.14-4.15 延時碰牌, A-C22: a pung called more than 3 s after the discard is
    refused; first a warning, then 10 to each."""
    game = ccm_game(ccm, hands=["C 5p", "C C 5p 5p", "", ""])
    game.discard(E, "C")
    game.clock += 3
    alert = game.refused(ev.ClaimDeclared, S, claim="pung", tiles=game.own(S, "C C"))
    assert alert.penalty["offence"] == "late_pung" and alert.penalty["points"] == 0
    game.close()
    game.play_through(until=lambda g: g.table.turn == E and g.table.state == "discard")
    game.discard(E, "5p")
    game.clock += 4
    out = game.apply(ev.ClaimDeclared, S, claim="pung", tiles=game.own(S, "5p 5p"))
    assert of(out, ev.PenaltyApplied)[0].points == 10 and game.table.state == "claim_window"


def test_pung_within_three_seconds_stands(ccm):
    """RULES.md 4.14: a pung called within 3 s is a call like any other."""
    game = ccm_game(ccm, hands=["C", "C C", "", ""])
    game.discard(E, "C")
    game.clock += 1
    game.claim(S, "pung", "C C")
    assert of(game.close(), ev.Claimed)


def test_early_draw_costs_10_to_each_then_20(ccm):
    """RULES.md 4.15 違規摸牌: drawing before the left player discards: 10 to each, then 20,
    once the referee confirms."""
    game = ccm_game(ccm, hands=["C", "", "", ""])
    game.discard(E, "C")
    game.close()
    first = game.refused(ev.TileDrawn, W)
    assert first.penalty["points"] == 10 and first.needs_ruling
    second = game.refused(ev.TileDrawn, N)
    third = game.refused(ev.TileDrawn, W)
    assert second.penalty["points"] == 10 and third.penalty["points"] == 20
    assert of(rule_on(game, third), ev.PenaltyApplied)[0].paid_to_others


def test_false_win_complete_shape_is_mechanical_play(ccm):
    """RULES.md 4.15 錯和, A-C19: a complete hand without a fan: 10 to each and the offender
    plays on mechanically (no win, no call, discards what he draws)."""
    game = ccm_game(ccm, hands=["123m 345p 678s 234s 55p", "", "", ""])
    alert = game.refused(ev.WinDeclared, E)
    assert alert.penalty["offence"] == "false_win" and alert.penalty["points"] == 10
    rule_on(game, alert)
    assert game.table.referee.mechanical[E]
    assert "mechanically" in game.refused(ev.TileDiscarded, E, tile=game.table.hands[E][0]).message


def test_incomplete_false_win_loses_the_right_to_win(ccm):
    """RULES.md 4.15 詐和, A-C19: a hand one tile short: 20 to each and no win this hand."""
    game = ccm_game(ccm, hands=["C 123m 456p 789s 234s 5p", "", "", ""])
    alert = game.refused(ev.WinDeclared, E)
    assert alert.penalty["offence"] == "incomplete_win" and alert.penalty["points"] == 20
    rule_on(game, alert)
    assert game.table.referee.no_win[E] and not game.table.referee.mechanical[E]


def test_flower_discarded_makes_a_dead_hand(ccm):
    """RULES.md 4.5, 4.15: discarding a flower makes the hand dead (相公): mechanical play."""
    game = ccm_game(ccm, hands=["1f", "", "", ""])
    alert = game.refused(ev.TileDiscarded, E, tile=game.table.hands[E][0])
    assert alert.penalty["offence"] == "flower_discarded" and alert.rule == "RULES.md 4.5"


def test_no_win_on_a_chipless_discard(ccm):
    """RULES.md 4.11, A-C14: a player with no chips left cannot be won from by discard."""
    game = Game(ccm, CCM_DICE, hands=["9p", "123m 456m 789m 123p 9p", "", ""])
    game.table.chips = [0, 100, 150, 150]
    game.start()
    game.discard(E, "9p")
    alert = game.refused(ev.ClaimDeclared, S, claim="win")
    assert alert.rule == "RULES.md 4.11 (A-C14)"


def test_wrong_pung_costs_10_to_each_and_the_win(ccm):
    """RULES.md 4.15 錯碰: a pung with tiles that do not match: 10 to each, no win this hand."""
    game = ccm_game(ccm, hands=["C", "F F", "", ""])
    game.discard(E, "C")
    alert = game.refused(ev.ClaimDeclared, S, claim="pung", tiles=game.own(S, "F F"))
    assert alert.penalty["offence"] == "wrong_call" and alert.penalty["points"] == 10
    rule_on(game, alert)
    assert game.table.referee.no_win[S]


def test_penalty_points_keep_the_units_of_a_c18():
    """A-C18: CCM penalty points are 10-point steps, at most 50 a recipient; a config that
    breaks that is refused, naming the entry."""
    import tomllib

    import pytest

    from engine.rulesets import build
    from engine.schema import ConfigError
    from tests.conftest import REPO

    config = tomllib.loads((REPO / "config" / "rules" / "ccm2012.toml").read_text("utf-8"))
    config["penalties"]["empty_call"]["points"] = [10, 15]
    with pytest.raises(ConfigError, match=r"penalties\.empty_call\.points: 15"):
        build(config)


def test_a_win_that_would_end_the_game_is_refused_to_a_player_not_first(ccm):
    """RULES.md 4.13 (seed §32): near the end a player who would not be first may not end the
    game by winning: he plays on. No penalty: his hand is good, the moment is not. The one who
    would be first after it may end the game so."""
    for chips, allowed in (([1, 100, 0, 300], False), ([1, 300, 0, 100], True)):
        game = Game(ccm, CCM_DICE, hands=["9p", "123m 456m 789m 123p 9p", "", ""])
        game.table.chips = list(chips)  # West has nothing left; East's 1 is his last
        game.start()
        game.discard(E, "9p")
        if allowed:
            game.ok(ev.ClaimDeclared, S, claim="win")
            continue
        assert not game.table.would_win(S, E, game.table.discards[-1][1])
        alert = game.refused(ev.ClaimDeclared, S, claim="win")
        assert alert.rule == "RULES.md 4.13" and alert.penalty is None
        assert "would end the game with S not first" in alert.message


def test_in_the_last_deal_a_win_passing_the_deal_is_refused_to_a_player_not_first(ccm):
    """RULES.md 4.13: in the game's last deal a win that passes the deal ends the game, so a
    player who would not be first after it plays on; the dealer's own win keeps the deal
    (4.11) and does not end it."""
    game = Game(ccm, CCM_DICE, hands=["9p", "123m 456m 789m 123p 9p", "", ""])
    game.table.chips, game.table.last_deal = [100, 100, 100, 300], True
    game.start()
    game.discard(E, "9p")
    alert = game.refused(ev.ClaimDeclared, S, claim="win")
    assert alert.rule == "RULES.md 4.13" and alert.penalty is None
    dealer = Game(ccm, CCM_DICE, hands=["123m 456m 789m 123p 9p 9p", "", "", ""])
    dealer.table.chips, dealer.table.last_deal = [100, 100, 100, 300], True
    dealer.start()  # East, not first after it either, wins on the deal
    assert dealer.table.would_win(E, None, dealer.table.hands[E][-1])


def test_the_session_tells_the_table_its_last_deal(ccm):
    """RULES.md 4.13: the table knows when a passing deal ends the game by schedule."""
    from engine.session import Session
    from engine.wall import build_walls

    session = Session(ccm)
    walls = build_walls(list(range(144)), 18)
    assert not session.new_table(walls).last_deal
    session.passes = 4 * ccm.config["game"]["rounds"] - 1
    assert session.new_table(walls).last_deal
