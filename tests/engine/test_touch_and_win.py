"""The next player's win on a discard after he reached for the wall head (issue 30 items 2, 10).

WSOM, seed 000 摸打規條 2: 「一旦伸手觸摸了牆頭的牌，便當作放棄鳴牌的權利。但如果有他家鳴牌，則仍有
權按照「鳴牌優先規條」優先和牌。」, 鳴牌 4 counting 銃和 among the calls: his win is given up
with his calls, unless another player calls that discard. CCM, seed 004 第一條三十五:
「但第一家決定不和牌而伸手摸牌時，後順序的可以和牌，此時第一家反悔和牌無效。」: his win stands
while nobody later wins; once a later player has won on that discard, his own win call is void,
whichever came first.
"""

from engine import events as ev
from tests.support.tablekit import E, Game, S, W, ccm_game, of, wsom_game

WSOM_HANDS = ["5p", "123m 456m 789m 123p 5p", "5p 5p", ""]  # South waits on 5p (一氣通貫)
CCM_HANDS = ["7s", "11m 22m 33m 44p 55p 66s 7s", "11p 22p 33s 44s 55m 66m 7s", ""]  # 七對 each


def touched(game: Game, tile: str) -> Game:
    """East discards `tile`; South, next to draw, reaches for the wall head."""
    game.discard(E, tile)
    game.ok(ev.WallTouched, S)
    return game


def test_seed_000_the_toucher_gives_up_his_win_unless_another_calls(wsom):
    """Issue 30 item 2, seed 000 摸打規條 2 「一旦伸手觸摸了牆頭的牌，便當作放棄鳴牌的權利」 (銃和
    among the calls, 鳴牌 4): South touched the wall head and calls win on East's 5p with no
    other call on it: refused, naming the rule, nothing changed."""
    game = touched(wsom_game(wsom, hands=WSOM_HANDS), "5p")
    alert = game.refused(ev.ClaimDeclared, S, claim="win")
    assert "摸打規條 2" in alert.message and "given up" in alert.message
    assert alert.penalty["offence"] == "late_call" and not alert.needs_ruling
    game.close()
    assert of(game.log, ev.Won) == [] and game.table.state == "draw" and game.table.turn == S


def test_seed_000_another_call_gives_the_toucher_his_win_by_priority(wsom):
    """Issue 30 item 2, seed 000 摸打規條 2 「但如果有他家鳴牌，則仍有權按照「鳴牌優先規條」優先
    和牌」: West pungs the 5p South's touch left; South's win on it then stands and takes the
    discard before the pung (鳴牌優先規條: win first)."""
    game = touched(wsom_game(wsom, hands=WSOM_HANDS), "5p")
    game.claim(W, "pung", "5p 5p")
    game.claim(S, "win")
    out = game.close()
    assert [(w.seat, w.from_seat) for w in of(out, ev.Won)] == [(S, E)]
    assert of(out, ev.Claimed) == []


def test_seed_004_the_first_in_order_may_not_win_after_a_later_player(ccm):
    """Issue 30 item 10, seed 004 第一條三十五 「此時第一家反悔和牌無效」: South, first in order
    after East, reached for the wall; West has won on East's 7s: South's own win call is
    refused, naming the rule, and West alone wins."""
    game = touched(ccm_game(ccm, hands=CCM_HANDS), "7s")
    game.claim(W, "win")
    alert = game.refused(ev.ClaimDeclared, S, claim="win")
    assert "第一條三十五" in alert.message and "void" in alert.message
    assert [w.seat for w in of(game.close(), ev.Won)] == [W]


def test_seed_004_a_later_win_voids_the_win_the_first_called_after_reaching(ccm):
    """Issue 30 item 10, seed 004 第一條三十五: South reached for the wall, then called win,
    before West: West's win voids South's call (他反悔), an alert says so; West alone wins."""
    game = touched(ccm_game(ccm, hands=CCM_HANDS), "7s")
    game.claim(S, "win")
    out = game.apply(ev.ClaimDeclared, W, claim="win")
    (voided,) = of(out, ev.Alert)
    assert voided.seat == S and "第一條三十五" in voided.message and S not in game.table.calls
    assert [w.seat for w in of(game.close(), ev.Won)] == [W]


def test_seed_004_the_first_who_reached_still_wins_when_nobody_later_does(ccm):
    """Issue 30 item 10, seed 004 第一條三十五 (the rule differs from WSOM's 摸打規條 2): only a
    later player's win voids South's; with nobody else calling, his win after reaching for the
    wall stands."""
    game = touched(ccm_game(ccm, hands=CCM_HANDS), "7s")
    game.claim(S, "win")
    assert [w.seat for w in of(game.close(), ev.Won)] == [S]
