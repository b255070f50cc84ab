"""單放: a self-drawn tile put into the hand before the win call loses 單張和牌 (issue 30 item 12).

Seed 004 第一條二十四 「自摸和牌的那一張牌，不入手牌，只能單獨擺放，以便核查，否則不計單張和牌。」
and 第八條一 「自摸和牌，應直接明示自摸的牌張，該牌張不得先插入手牌。插入手牌後報“和牌”，不計算
單張和牌。」 單張和牌 is 夾, 邊張 and 單吊 (第一條十七; RULES.md 4.9.2). Where the rack reader saw
the drawn tile join the hand before the call (`WinDeclared.mixed_in`), the table knows and
scores the win without it; otherwise the referee rules at the desk and the win is scored again,
the path of seed 000's self-drawn Nine Gates (tests/engine/test_nine_gates_ruling.py).
"""

from engine import events as ev
from engine.session import Session
from tests.support.followkit import rule, turn
from tests.support.moveskit import Hand
from tests.support.ruleskit import ids, score, with_options
from tests.support.tablekit import CCM_DICE, E, Game, S, of, stacked_walls

DRAGON = (["", "123m 456m 79m 234p 55s", "", ""], {0: "8m"})  # 清龍, closed wait on 8m
APART = {"4.8.2": 10, "4.9.2": 4, "4.9.7": 8}  # 清龍, 單張和牌, 門清: T 22
MIXED = {"4.8.2": 10, "4.9.7": 8}  # T 18


def souths_win(game: Game, mixed_in: bool = False) -> list[ev.Event]:
    """East discards his newest tile; South draws 8m and declares the self-drawn win."""
    game.start()
    turn(game, E)
    game.draw(S)
    return game.apply(ev.WinDeclared, S, mixed_in=mixed_in)


def scored(won: ev.Won) -> dict[str, int]:
    return {p["id"]: p["points"] for p in won.score["patterns"]}


def single_placement_alerts(out) -> list[ev.Alert]:
    return [a for a in of(out, ev.Alert) if "單放" in a.message]


def test_seed_004_the_scorer_drops_the_single_tile_win_of_a_drawn_tile_mixed_in():
    """Seed 004 第一條二十四 「否則不計單張和牌」: the scorer's drawn_tile_mixed flag (a
    self-draw's, `mjtable score --flag drawn_tile_mixed`) takes 4.9.2 away, leaves the rest."""
    assert ids(score("123m 456m 79m 234p 55s", "8m", discarder=None)) == APART
    flagged = score("123m 456m 79m 234p 55s", "8m", discarder=None, flags=["drawn_tile_mixed"])
    assert ids(flagged) == MIXED
    assert not score("123m 456m 79m 234p 55s", "8m", flags=["drawn_tile_mixed"]).legal


def test_seed_004_a_self_drawn_single_wait_asks_whether_the_tile_was_kept_apart(ccm):
    """Seed 004 第一條二十四 單放, issue 30 item 12: the table did not see where the drawn tile
    went: the win is scored with 單張和牌 and the referee asked, in words naming the rule
    (4.9.2); applied (it was put into the hand), the win is scored again without it."""
    game = Game(ccm, CCM_DICE, *DRAGON)
    out = souths_win(game)
    [won] = of(out, ev.Won)
    assert scored(won) == APART
    [alert] = single_placement_alerts(out)
    assert alert.needs_ruling and alert.rule == "RULES.md 4.9.2"
    assert alert.message.startswith(
        "S's self-drawn Single-Tile Win stands only if the drawn tile was kept apart until the "
        "hand was shown (seed 004 第一條二十四 單放, 第八條一)"
    )
    [rescored] = of(rule(game, alert.id), ev.WinRescored)
    assert {p["id"]: p["points"] for p in rescored.score["patterns"]} == MIXED
    assert game.table.outcome().results[0].score["total"] == 18


def test_seed_004_the_drawn_tile_seen_joining_the_hand_loses_the_single_tile_win(ccm):
    """Seed 004 第八條一 「插入手牌後報“和牌”，不計算單張和牌」, issue 30 item 12: the rack reader
    saw the drawn tile join South's hand before his call: the win is scored without 單張和牌 at
    once, the referee told why and asked nothing. options.drawn_tile_in_rack_is_in_hand false
    (a tile in the rack may stand apart there): he is asked instead."""
    game = Game(ccm, CCM_DICE, *DRAGON)
    out = souths_win(game, mixed_in=True)
    [won] = of(out, ev.Won)
    assert scored(won) == MIXED
    [told] = single_placement_alerts(out)
    assert not told.needs_ruling and "joined his hand" in told.message
    assert game.table.referee.rescorings == {}
    asked = Game(with_options(drawn_tile_in_rack_is_in_hand=False), CCM_DICE, *DRAGON)
    out = souths_win(asked, mixed_in=True)
    assert scored(of(out, ev.Won)[0]) == APART
    assert single_placement_alerts(out)[0].needs_ruling


def test_seed_004_single_placement_is_the_self_draws_only(ccm):
    """Seed 004 第一條二十四 (自摸和牌的那一張牌): a discard win on the same wait, and a self-drawn
    win without a single-tile wait, ask nothing."""
    discard = Game(ccm, CCM_DICE, hands=["8m", "123m 456m 79m 234p 55s", "", ""])
    discard.start()
    discard.discard(E, "8m")
    discard.claim(S, "win")
    out = discard.close()
    assert scored(of(out, ev.Won)[0]) == APART and single_placement_alerts(out) == []
    two_sided = Game(ccm, CCM_DICE, hands=["", "123m 456m 78m 234p 55s", "", ""], draws={0: "9m"})
    out = souths_win(two_sided)
    assert of(out, ev.Won) and single_placement_alerts(out) == []


def test_seed_004_the_rack_reader_says_whether_the_drawn_tile_joined_the_hand(ccm):
    """Issue 30 item 12 at the sensed table: South's draw read in his rack before his win press
    is a win declared with the tile mixed in (no 單張和牌); a draw laid straight from the wall
    into his meld area, never read in the rack, is not, and the referee is asked."""
    racked = Hand(ccm, CCM_DICE, dealer_side=2, hands=DRAGON[0], draws=DRAGON[1])
    racked.deal()
    racked.discard(3.0, E)
    racked.poll(6.0)
    racked.draw(6.5, S)
    assert racked.press_win(7.0, S) == [ev.WinDeclared(7.0, S, mixed_in=True)]
    assert scored(racked.of(ev.Won)[0]) == MIXED

    apart = Hand(ccm, CCM_DICE, dealer_side=2, hands=DRAGON[0], draws=DRAGON[1])
    apart.deal()
    apart.discard(3.0, E)
    apart.poll(6.0)
    wall = apart.table.wall
    drawn = wall.tile_at(wall.next_draw_position)
    apart.move(6.5, drawn, apart.wall_of(drawn), apart.zone("melds", S))
    assert apart.press_win(7.0, S) == [ev.WinDeclared(7.0, S, mixed_in=False)]
    assert scored(apart.of(ev.Won)[0]) == APART
    assert single_placement_alerts(apart.outputs)[0].needs_ruling


def test_seed_004_the_ruling_settles_the_hand_again(ccm):
    """Issue 30 item 12 (the win scored again, as WSOM's Nine Gates ruling is): ruled put into
    the hand, the hand's row is settled again with the lower score."""
    session = Session(ccm)
    game = Game(ccm, CCM_DICE)
    game.table = session.new_table(stacked_walls(ccm, CCM_DICE, *DRAGON))
    [alert] = single_placement_alerts(souths_win(game))
    before = session.record(game.table).changes
    assert of(rule(game, alert.id), ev.WinRescored)
    row = session.settle_again(game.table)
    assert row.changes[S] < before[S] and sum(row.changes) == 0
