"""空和 and 錯和 under WSOM (seed 000 錯鳴 6, 7; RULES.md 3.11; issue 12).

A win called and withdrawn before the hand is shown (空和) exposes 3 penalty tiles, all of them
if the hand holds fewer, the referee may name which; a wrong win with the whole hand shown is
錯和: every tile shown becomes a penalty tile. A no-pattern (chicken) hand is 錯和 (基本規則 5:
當作「錯和」處理), whose penalty is the tiles exposed: called before it is shown, 空和's three
(issue 30 item 1). On the sensed table, a win press with the hand not laid out is the form 空和
takes.
"""

from engine import events as ev
from tests.support.moveskit import Hand
from tests.support.tablekit import WSOM_DICE, E, Game, S, W, chicken_game, of, wsom_game, wsom_with

ODD_SOUTH = ["C", "147m 258p 369s ESWN", "", ""]  # South's thirteen tiles make no win on C


def rule_on(game: Game, alert: ev.Alert, **fields) -> list[ev.Event]:
    return game.apply(ev.Ruling, None, alert=alert.id, **fields)


def win_on_c(wsom, shown: bool) -> tuple[Game, ev.Alert]:
    """South calls win on East's C with no winning hand, shown or not."""
    game = wsom_game(wsom, hands=ODD_SOUTH)
    game.discard(E, "C")
    return game, game.refused(ev.ClaimDeclared, S, claim="win", shown=shown)


def test_seed_000_empty_win_self_drawn_exposes_three_live_penalty_tiles(wsom):
    """Seed 000 空和, RULES.md 3.11: East declares a self-drawn win he does not have and has
    not shown his hand: the alert names 空和 and proposes 3 of his tiles; applied, they are
    live penalty tiles and play goes on (he may discard one of them at once)."""
    game = wsom_game(wsom, hands=["147m 258p 369s ESWN C", "", "", ""])
    alert = game.refused(ev.WinDeclared, E)
    assert "空和" in alert.message and alert.rule == "RULES.md 3.11" and alert.needs_ruling
    penalty = alert.penalty
    assert (penalty["offence"], penalty["rule"]) == ("empty_win", "RULES.md 3.11 (空和)")
    assert len(penalty["penalty_tiles"]) == 3
    applied = of(rule_on(game, alert), ev.PenaltyApplied)[0]
    assert applied.penalty_tiles == tuple(penalty["penalty_tiles"])
    marked = game.table.referee.penalty_tiles[E]
    assert marked == {t: "live" for t in applied.penalty_tiles}
    assert set(marked) <= set(game.table.hands[E])
    game.ok(ev.TileDiscarded, E, tile=applied.penalty_tiles[0])
    assert game.table.state == "claim_window"


def test_seed_000_empty_win_the_referee_names_the_three_tiles(wsom):
    """Seed 000 空和: 裁判有權指定要揭露那些牌作為罰張: the referee's three tiles are the penalty
    tiles; naming two is refused and the penalty still waits for him."""
    game, alert = win_on_c(wsom, shown=False)
    chosen = game.own(S, "E S W")
    refused = rule_on(game, alert, tiles=chosen[:2])
    assert "takes 3 penalty tiles, 2 named" in of(refused, ev.Alert)[0].message
    assert alert.id in game.table.referee.pending
    applied = of(rule_on(game, alert, tiles=chosen), ev.PenaltyApplied)[0]
    assert applied.offence == "empty_win" and applied.penalty_tiles == chosen
    assert set(game.table.referee.penalty_tiles[S]) == set(chosen)


def test_seed_000_empty_win_with_fewer_than_three_tiles_exposes_them_all(wsom):
    """Seed 000 空和 (如果手牌只有三張下﹐則全數揭露), RULES.md 3.11: South has four pungs and
    one concealed 9s; his win called on West's 5s is withdrawn: that one tile, all he holds,
    is the penalty tile."""
    game = wsom_game(wsom, hands=["C", "C C F F P P 1m 1m 9s 2p 4p 6p 8p", "F P 1m 5s", ""])
    game.discard(E, "C")
    for pung, spare, fed in (("C C", "2p", "F"), ("F F", "4p", "P"), ("P P", "6p", "1m")):
        game.claim(S, "pung", pung)
        game.close()
        game.discard(S, spare)
        game.close()
        game.draw(W)
        game.discard(W, fed)
    game.claim(S, "pung", "1m 1m")
    game.close()
    game.discard(S, "8p")
    game.close()
    game.draw(W)
    game.discard(W, "5s")
    alert = game.refused(ev.ClaimDeclared, S, claim="win")
    assert alert.penalty["offence"] == "empty_win"
    assert alert.penalty["penalty_tiles"] == list(game.own(S, "9s")) == game.table.hands[S]


def test_seed_000_wrong_win_is_empty_win_unless_shown(wsom):
    """Seed 000 錯鳴 6, 7, RULES.md 3.11: the same call that is no win is 空和 (3 tiles) with
    the hand not shown, 錯和 with it shown (宣布和牌並公開了全手牌: all thirteen tiles shown
    become penalty tiles)."""
    _, unshown = win_on_c(wsom, shown=False)
    assert unshown.penalty["offence"] == "empty_win"
    assert len(unshown.penalty["penalty_tiles"]) == 3
    game, shown = win_on_c(wsom, shown=True)
    assert shown.penalty["offence"] == "incomplete_win" and "空和" not in shown.message
    applied = of(rule_on(game, shown), ev.PenaltyApplied)[0]
    assert sorted(applied.penalty_tiles) == sorted(game.table.hands[S])
    assert len(applied.penalty_tiles) == 13


def test_seed_000_a_chicken_hand_called_before_it_is_shown_costs_three_tiles(wsom):
    """Issue 30 item 1, seed 000 錯鳴 7 「宣布和牌﹐但在公開手牌前…發現不能正確和牌﹐則在取消和牌
    的同時﹐必須揭露三張牌作為罰張」 with 錯鳴 6 「違規暴露了的牌全部成為罰張」: a complete hand
    with no pattern (基本規則 5, 當作「錯和」處理) called on a discard, his hand not laid out,
    exposed nothing: 3 penalty tiles. Laid out, it is 錯和 and the whole hand, as before;
    A-W12 "whole_hand" keeps the whole hand even not shown."""
    game, unshown = chicken_game(wsom)
    assert unshown.penalty["offence"] == "empty_win" and "空和" in unshown.message
    assert len(unshown.penalty["penalty_tiles"]) == 3
    applied = of(rule_on(game, unshown), ev.PenaltyApplied)[0]
    assert len(applied.penalty_tiles) == 3 and len(game.table.hands[S]) == 10
    game, shown = chicken_game(wsom, shown=True)
    assert shown.penalty["offence"] == "false_win" and "空和" not in shown.message
    assert sorted(shown.penalty["penalty_tiles"]) == sorted(game.table.hands[S])
    whole = wsom_with(lambda c: c["options"].update(chicken_declaration="whole_hand"))
    game, kept = chicken_game(whole)
    assert kept.penalty["offence"] == "false_win"
    assert sorted(kept.penalty["penalty_tiles"]) == sorted(game.table.hands[S])


def test_seed_000_win_press_without_the_hand_laid_out_is_empty_win(wsom):
    """Seed 000 空和 / 錯和, issue 12: on the sensed table a win press with nothing laid out is
    a win not shown (空和, 3 tiles); with the hand laid out in the meld area, all his
    tiles but one, it is shown (錯和, the whole hand)."""
    bare = Hand(wsom, WSOM_DICE, dealer_side=2, hands=ODD_SOUTH)
    bare.deal()
    bare.discard(3.0, E, bare.own(E, "C")[0])
    assert bare.press_win(3.5, S) == [ev.ClaimDeclared(3.5, S, "win", shown=False)]
    assert bare.of(ev.Alert)[-1].penalty["offence"] == "empty_win"

    laid = Hand(wsom, WSOM_DICE, dealer_side=2, hands=ODD_SOUTH)
    laid.deal()
    laid.discard(3.0, E, laid.own(E, "C")[0])
    laid.lay_out(3.2, S, laid.table.hands[S][:12])
    assert laid.press_win(3.5, S) == [ev.ClaimDeclared(3.5, S, "win", shown=True)]
    assert laid.of(ev.Alert)[-1].penalty["offence"] == "incomplete_win"


def test_seed_000_empty_win_reported_by_the_referee(wsom):
    """Seed 000 空和: a win called aloud and withdrawn, which no button saw, is entered at the
    desk as a report; the table proposes 3 of the caller's tiles for the referee to confirm
    or replace with his own choice."""
    game = wsom_game(wsom, hands=ODD_SOUTH)
    game.discard(E, "C")
    out = game.apply(ev.ViolationReported, S, offence="empty_win")
    alert = of(out, ev.Alert)[0]
    assert alert.penalty["offence"] == "empty_win" and alert.needs_ruling
    assert len(alert.penalty["penalty_tiles"]) == 3
    chosen = game.own(S, "1m 2p 3s")
    applied = of(rule_on(game, alert, tiles=chosen), ev.PenaltyApplied)[0]
    assert applied.penalty_tiles == chosen


def test_old_journal_win_rows_read_as_not_shown():
    """tests/firmware/journal/test_migration.py: a WinDeclared or win ClaimDeclared row written
    before `shown`
    existed reads as not shown, and the field round-trips."""
    old = ev.from_json({"type": "WinDeclared", "t": 1.0, "seat": E})
    assert old == ev.WinDeclared(1.0, E) and old.shown is False
    call = ev.from_json({"type": "ClaimDeclared", "t": 1.0, "seat": S, "claim": "win", "tiles": []})
    assert call.shown is False
    shown = ev.WinDeclared(2.0, E, shown=True)
    assert ev.from_json(shown.to_json()) == shown
