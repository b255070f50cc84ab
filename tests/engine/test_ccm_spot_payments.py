"""Payments on the spot and the game's end (issue 13 item 5; seed 004 §32, §36, §37, §38 一 6,
第三章 第一條 二(二); RULES.md 4.10, 4.13, 4.15, A-C4, A-C18).

Kongs are paid the moment they are made, 追牌 at its fourth discard, penalties when applied:
every later check in the hand sees the chips after them. A payment that would end the game
with its maker not first is held outside the table and added once the game is over (§32), or
for a kong scores nothing (§15, an option). The referee may give a penalty's points to the
player it disadvantaged or make them dead points. Seats are E S W N of the hand.
"""

import pytest

from engine import events as ev
from engine import tiles
from engine.rulesets import build
from engine.session import Session
from firmware.resources import load_ruleset
from tests.support.tablekit import E, Game, N, S, W, of, stacked_walls

DICE = (3, 4)


def ccm_with(**options):
    config = load_ruleset("ccm2012").config
    return build(config | {"options": config["options"] | options})


def hand_of(ccm, scores, hands, draws=None, passes=0) -> tuple[Session, Game]:
    """Hand 1 of a session whose players hold `scores` (`passes` deals passed in the game):
    the dice rolled, East to play."""
    session = Session(ccm, scores=list(scores))
    session.passes = passes
    game = Game(ccm, DICE)
    game.table = session.new_table(stacked_walls(ccm, DICE, hands, draws))
    game.start()
    return session, game


def chips(game: Game):
    return game.table.winning.chips_now()


def east_kongs(game: Game) -> None:
    """East kongs his four 1m concealed and draws the replacement."""
    game.kong(E, "1m 1m 1m 1m")
    game.draw(E)


def finish(session: Session, game: Game):
    """Nobody calls: the hand played to its end, recorded."""
    game.play_through()
    return session.record(game.table)


KONG_HAND = ["1111m", "9p", "123s 456s 789s 234p 9p", ""]  # West waits on 9p, 清龍


def test_seed_004_section_36_a_kong_is_paid_the_moment_it_is_made():
    """§36 槓牌當時立即付分: East's concealed kong takes 6 from each of the three at once."""
    _, game = hand_of(load_ruleset("ccm2012"), [100] * 4, KONG_HAND)
    assert chips(game) == (100, 100, 100, 100)
    east_kongs(game)
    assert chips(game) == (118, 94, 94, 94)


def test_seed_004_a_player_who_paid_his_last_chips_for_a_kong_is_chipless_at_once():
    """§35 盤面無分者點炮，禁止和牌, after §36: South pays his last 6 chips for East's kong; West
    may then not win on South's discard in the same hand: the referee is asked."""
    ccm = load_ruleset("ccm2012")
    _, game = hand_of(ccm, [100, 6, 100, 194], KONG_HAND)
    east_kongs(game)
    assert chips(game) == (118, 0, 94, 188)
    game.discard(E, game_newest(game, E))
    game.close()
    game.draw(S)
    game.discard(S, "9p")
    [alert] = of(game.apply(ev.ClaimDeclared, W, claim="win"), ev.Alert)
    assert alert.rule == "RULES.md 4.11 (A-C14)" and alert.needs_ruling
    assert not of(game.log, ev.Won)


def game_newest(game: Game, seat: int) -> str:
    """The name of the seat's newest tile."""
    return tiles.NAMES[tiles.kind_of(game.table.hands[seat][-1])]


def test_seed_004_section_37_a_chase_is_paid_at_its_fourth_discard():
    """§37 四人連續出同一張牌，第一家向其他三家各支付四分: the East wind discarded by E, S, W, N
    in a row: East pays 4 to each when North's lands, before anything else."""
    _, game = hand_of(load_ruleset("ccm2012"), [100] * 4, ["E", "E", "E", "E"])
    for seat in (E, S, W):
        if seat != E:
            game.draw(seat)
        game.discard(seat, "E")
        game.close()
        assert chips(game) == (100, 100, 100, 100)
    game.draw(N)
    game.discard(N, "E")
    assert chips(game) == (88, 104, 104, 104)


def test_seed_004_section_32_a_kong_that_would_end_the_game_is_held_then_added():
    """§32 「槓牌和處罰的得失分只能掛於盤外，局結後累積得分」: East's kong would leave South and
    West without chips while North stays first: nothing moves in the hand; the game ends at
    the hand's end (its last deal), and the kong is added then, out of the chips left."""
    session, game = hand_of(load_ruleset("ccm2012"), [100, 6, 0, 294], KONG_HAND, passes=15)
    east_kongs(game)
    assert chips(game) == (100, 6, 0, 294)
    row = finish(session, game)
    assert row.totals == (100, 6, 0, 294)
    [ended] = session.games
    assert ended["held"] == [18, -6, -6, -6]
    assert ended["chips"] == [112, 0, 0, 288] and sum(ended["chips"]) == 400


def test_seed_004_section_15_option_a_game_ending_kong_scores_nothing():
    """Option game_ending_kong = "void", §15 「遇到槓牌導致非勝式局結，則本次槓牌不得分」: the same
    kong is neither paid nor held."""
    session, game = hand_of(
        ccm_with(game_ending_kong="void"), [100, 6, 0, 294], KONG_HAND, passes=15
    )
    east_kongs(game)
    finish(session, game)
    [ended] = session.games
    assert ended["held"] == [0, 0, 0, 0] and ended["chips"] == [100, 6, 0, 294]


def test_seed_004_the_kong_of_the_player_who_becomes_first_is_paid():
    """§15 除非槓牌方自己成為局結第一名: East's kong leaves two without chips, East first."""
    _, game = hand_of(load_ruleset("ccm2012"), [194, 6, 0, 200], KONG_HAND)
    game.kong(E, "1m 1m 1m 1m")
    assert chips(game) == (206, 0, 0, 194)


def test_seed_004_31_two_players_left_without_chips_by_a_kong_end_the_game_at_once():
    """第一條三十一 「第三種是兩家無分即告結束。」 with 十五 (除非槓牌方自己成為局結第一名)
    (issue 30 item 7): East's concealed kong takes South's last chips, West has none, East is first
    after it: the game ends there. The hand stops (GameEnded; East's replacement is not
    drawn), its row says so, and the game is over with the chips the kong left."""
    session, game = hand_of(load_ruleset("ccm2012"), [194, 6, 0, 200], KONG_HAND)
    out = game.kong(E, "1m 1m 1m 1m")
    assert game.table.ended
    [ended] = of(out, ev.GameEnded)
    assert "two players have no chips left" in ended.reason
    game.refused(ev.TileDrawn, E)
    row = session.record(game.table)
    assert row.result == "game over" and row.totals == (206, 0, 0, 194)
    [over] = session.games
    assert (over["hands"], over["ended"], over["chips"]) == (1, ended.reason, [206, 0, 0, 194])
    assert session.scores == [100] * 4  # the next game's fresh chips


def report_naming(game: Game, seat: int) -> ev.Alert:
    """The referee reports `seat` naming his discard (RULES.md 4.15, 10 to each)."""
    [alert] = of(game.apply(ev.ViolationReported, seat, offence="naming_discard"), ev.Alert)
    return alert


def test_seed_004_a_penalty_is_deducted_on_the_spot():
    """第三章 第一條 二(二) 參賽違例者被判罰的分數當場扣除均分給其他三家: applied, South's 10 to
    each moves at once."""
    _, game = hand_of(load_ruleset("ccm2012"), [100] * 4, ["", "", "", ""])
    alert = report_naming(game, S)
    game.ok(ev.Ruling, None, alert=alert.id)
    assert chips(game) == (110, 70, 110, 110)


def test_seed_004_section_38_the_referee_gives_the_points_to_the_disadvantaged_player():
    """§38 一 6 罰分可以判給明顯虧損方: all 30 to West, the sheet's penalties say so."""
    session, game = hand_of(load_ruleset("ccm2012"), [100] * 4, ["", "", "", ""])
    alert = report_naming(game, S)
    [applied] = of(game.ok(ev.Ruling, None, alert=alert.id, to=W), ev.PenaltyApplied)
    assert applied.to == W
    assert chips(game) == (100, 70, 130, 100)
    row = finish(session, game)
    assert row.penalties == (0, -30, 30, 0) and row.dead == 0


def test_seed_004_section_38_the_referee_makes_them_dead_points():
    """§38 一 6 或處理成盤外的死分: South pays 30 to nobody; the sheet counts them dead, and the
    chips on the table plus the dead points are the 400 the game began with."""
    session, game = hand_of(load_ruleset("ccm2012"), [100] * 4, ["", "", "", ""])
    alert = report_naming(game, S)
    [applied] = of(game.ok(ev.Ruling, None, alert=alert.id, dead=True), ev.PenaltyApplied)
    assert not applied.paid_to_others and applied.to is None
    assert chips(game) == (100, 70, 100, 100)
    row = finish(session, game)
    assert row.penalties == (0, -30, 0, 0) and row.dead == 30
    assert sum(row.totals) + row.dead == 400
    assert session.chips_unaccounted() == ""


def test_option_penalties_paid_dead_makes_dead_points_the_default():
    """penalties_paid = "dead": a penalty applied without a choice is dead points."""
    _, game = hand_of(ccm_with(penalties_paid="dead"), [100] * 4, ["", "", "", ""])
    alert = report_naming(game, S)
    game.ok(ev.Ruling, None, alert=alert.id)
    assert chips(game) == (100, 70, 100, 100)


@pytest.mark.parametrize(
    ("choice", "said"),
    [
        ({"to": S}, "not the offender"),
        ({"to": 7}, "not the offender"),
        ({"to": W, "dead": True}, "not both"),
        ({"to": W, "apply": False}, "a waived penalty pays nobody"),
    ],
)
def test_a_choice_of_who_is_paid_that_cannot_stand_is_refused_and_the_penalty_waits(choice, said):
    """§38 一 6: the points go to another player, or are dead; refused, the penalty still
    awaits its ruling."""
    _, game = hand_of(load_ruleset("ccm2012"), [100] * 4, ["", "", "", ""])
    alert = report_naming(game, S)
    [refused] = of(game.apply(ev.Ruling, None, alert=alert.id, **choice), ev.Alert)
    assert said in refused.message
    game.ok(ev.Ruling, None, alert=alert.id)
    assert chips(game) == (110, 70, 110, 110)


def test_wsom_has_no_choice_of_who_is_paid():
    """Seed 000 deducts a penalty from the offender (RULES.md 3.13): no such choice."""
    wsom = load_ruleset("wsom2006")
    game = Game(wsom, ((3, 4), (2, 5)))
    game.start()
    [alert] = of(game.apply(ev.ViolationReported, S, offence="naming_discard"), ev.Alert)
    [refused] = of(game.apply(ev.Ruling, None, alert=alert.id, to=W), ev.Alert)
    assert "this rule book gives" in refused.message


FLOWER_HAND = ["", "", "1f 2f 3f", ""]  # West is dealt 春夏秋; his first draw is 冬
FLOWER_DRAWS = {1: "4f"}


def west_draws_his_fourth_flower(game: Game) -> None:
    """The opening flowers replaced (West's three), East discards, South draws and discards,
    West draws 冬."""
    for name in ("1f", "2f", "3f"):
        game.ok(ev.FlowerExposed, W, tile=game.own(W, name)[0])
        game.draw(W)
    game.discard(E, game_newest(game, E))
    game.close()
    game.draw(S)
    game.discard(S, game_newest(game, S))
    game.close()
    game.draw(W)


def test_seed_004_section_32_the_flower_of_a_game_ending_flower_kong_may_be_discarded():
    """§32 允許花槓牌不槓而打出 (A-C4): West's 冬 would make a flower kong whose 8 from each
    would leave East and South without chips, North first: he may discard it, no dead hand."""
    _, game = hand_of(load_ruleset("ccm2012"), [0, 8, 100, 292], FLOWER_HAND, FLOWER_DRAWS)
    west_draws_his_fourth_flower(game)
    out = game.ok(ev.TileDiscarded, W, tile=game.own(W, "4f")[0])
    assert of(out, ev.Discarded) and not game.table.referee.mechanical[W]


@pytest.mark.parametrize(
    ("ccm", "scores"),
    [
        (load_ruleset("ccm2012"), [100, 100, 100, 100]),  # no game end in sight
        (ccm_with(discard_flower_kong_at_game_end=False), [0, 8, 100, 292]),
    ],
)
def test_seed_004_elsewhere_discarding_a_flower_makes_a_dead_hand(ccm, scores):
    """RULES.md 4.5 花牌一旦打出，即為相公: outside §32's situation, or with the option off,
    the same discard is refused as a flower discarded."""
    _, game = hand_of(ccm, scores, FLOWER_HAND, FLOWER_DRAWS)
    west_draws_his_fourth_flower(game)
    [alert] = of(game.apply(ev.TileDiscarded, W, tile=game.own(W, "4f")[0]), ev.Alert)
    assert alert.rule == "RULES.md 4.5"


SOUTH_WAITS = ["7m", "1122334455667m", "", ""]  # East's 7m gives South 清一色 七對 (T 60)


def south_calls_win_on_easts_7m(game: Game) -> None:
    game.discard(E, "7m")
    game.ok(ev.ClaimDeclared, S, claim="win")


def test_seed_004_7_2_a_penalty_in_a_game_ending_win_comes_after_the_games_end():
    """第三章 第二條 七(二) 「在別人報和牌且尚未核准和牌成立時，將自己的手牌提前推倒亮明 ...
    罰分30分均分給各家10分。如此例出現在局結情況下，則先計分不罰分，局結後罰分。」
    (issue 30 item 8):
    South's win on East's last 50 chips leaves East and North without chips, ending the game;
    West lays his hand down before it is confirmed. The win is scored first, the game ends,
    and West's 10 to each is added after its end: paid before, it would have given North and
    East 10 each and kept the game going."""
    session, game = hand_of(load_ruleset("ccm2012"), [50, 100, 150, 0], SOUTH_WAITS)
    south_calls_win_on_easts_7m(game)
    [alert] = of(game.apply(ev.ViolationReported, W, offence="laying_down_early"), ev.Alert)
    [applied] = of(game.ok(ev.Ruling, None, alert=alert.id), ev.PenaltyApplied)
    assert applied.points == 10 and chips(game) == (50, 100, 150, 0)  # not on the spot
    game.close()
    assert of(game.log, ev.Won)
    row = session.record(game.table)
    assert row.totals == (0, 150, 150, 0) and row.penalties == (0, 0, 0, 0)
    [ended] = session.games
    assert "two players have no chips left" in ended["ended"]
    assert ended["held"] == [10, 10, -30, 10] and ended["chips"] == [10, 160, 120, 10]
    assert session.scores == [100] * 4  # nothing lands in the next game


def test_seed_004_7_2_elsewhere_the_penalty_is_paid_after_the_win():
    """七(二) outside a game-ending situation: 罰分30分均分給各家10分, settled after the win
    (先計分): West pays 10 to each, the game goes on."""
    session, game = hand_of(load_ruleset("ccm2012"), [100, 100, 100, 100], SOUTH_WAITS)
    south_calls_win_on_easts_7m(game)
    [alert] = of(game.apply(ev.ViolationReported, W, offence="laying_down_early"), ev.Alert)
    game.ok(ev.Ruling, None, alert=alert.id)
    game.close()
    row = session.record(game.table)
    assert row.changes == (-100, 100, 0, 0) and row.penalties == (10, 10, -30, 10)
    assert session.games == []
