"""The hand state machine (engine/table.py) walked step by step under both rule books.

Each test deals a chosen hand with fixed dice (tests/support/tablekit.py lays the walls so that the
deal, the live draws and the tail replacements give the named tiles) and feeds the table one
input at a time. `Game` checks `check_invariants() == []` after every input, and
`Game.refused` checks that a refused input yields one Alert and changes nothing.
Seats 0..3 = E S W N; East deals. WSOM: RULES.md 3.3-3.8, §5.1; CCM: 4.4-4.7, 4.11, §5.2.
"""

import pytest

from engine import events as ev
from engine import tiles
from engine.table import Table
from engine.wall import build_walls
from tests.support.tablekit import CCM_DICE, WSOM_DICE, E, Game, N, S, W, ccm_game, of, wsom_game


def kind(tile_id: int) -> str:
    return tiles.NAMES[tiles.kind_of(tile_id)]


def east_discards(game: Game, name: str | None = None) -> None:
    """East's first discard (the named tile, or his newest), then the window closes."""
    tile = game.own(E, name)[0] if name else game.table.hands[E][-1]
    game.ok(ev.TileDiscarded, E, tile=tile)
    game.close()


# WSOM 2006: break and deal (RULES.md 3.3, 3.4) ---------------------------------------------------


@pytest.mark.parametrize(
    "first, second, opener, stacks",
    [
        ((3, 4), (2, 3), W, 12),  # 7: opposite
        ((1, 1), (6, 6), S, 14),  # 2: right neighbour
        ((6, 6), (6, 6), N, 24),  # 12: left neighbour, past his 17 stacks
        ((2, 3), (1, 3), E, 9),  # 5: East himself rolls again
    ],
)
def test_wsom_two_roll_break(wsom, first, second, opener, stacks):
    """RULES.md 3.3, 3.4: East's roll counts the 開門人, who rolls again; the sum of both rolls
    is the number of tail stacks."""
    game = Game(wsom, (first, second))
    assert game.ok(ev.DiceRolled, E, dice=first) == []
    assert game.table.state == "second_roll"
    out = game.ok(ev.DiceRolled, opener, dice=second)
    assert out[0] == ev.WallBroken(game.clock, opener, stacks, first + second)
    assert isinstance(out[1], ev.Dealt) and game.table.state == "discard"


def test_wsom_break_opens_the_wall_where_the_dice_say(wsom):
    """RULES.md 3.4 on an unshuffled layout (tile id = place): West breaks 12 stacks, so the
    head is West's 13th stack (92, 93); the deal runs on into South's wall and East's, and the
    jump gives East the 1st and 5th tiles (4, 8), South 5, West 6, North 7."""
    table = Table(wsom, build_walls(list(range(136)), 17))
    table.apply(ev.DiceRolled(1, E, dice=(3, 4)))
    out = table.apply(ev.DiceRolled(2, W, dice=(2, 3)))
    hands = of(out, ev.Dealt)[0].hands
    assert hands[E][:4] == (92, 93, 94, 95) and hands[S][:4] == (96, 97, 98, 99)
    assert hands[E][-2:] == (4, 8) and (hands[S][-1], hands[W][-1], hands[N][-1]) == (5, 6, 7)


def test_wsom_second_roll_only_by_the_counted_seat(wsom):
    """RULES.md 3.4: only East rolls first; the second roll is the counted player's (East's 7
    counts West): South's roll is refused and the table still waits for West's."""
    game = Game(wsom, WSOM_DICE)
    alert = game.refused(ev.DiceRolled, S, dice=(3, 4))
    assert alert.rule == "RULES.md 3.4"
    game.ok(ev.DiceRolled, E, dice=(3, 4))
    for seat in (E, S, N):
        alert = game.refused(ev.DiceRolled, seat, dice=(2, 3))
        assert alert.rule == "RULES.md 3.4" and "W's" in alert.message
    assert game.table.state == "second_roll"
    assert of(game.ok(ev.DiceRolled, W, dice=(2, 3)), ev.WallBroken)


def test_wsom_deal_gives_east_14_and_the_others_13(wsom):
    """RULES.md 3.4: 4-4-4 then the jump: East 14 tiles, the others 13; the Dealt output is
    the hands; 136 - 14 dead - 53 dealt = 69 live tiles remain."""
    game = Game(wsom, WSOM_DICE)
    dealt = of(game.start(), ev.Dealt)[0]
    assert [len(h) for h in dealt.hands] == [14, 13, 13, 13]
    assert [list(h) for h in dealt.hands] == game.table.hands
    assert game.table.wall.live_count == 69 and len(game.table.wall.dead_wall_tiles) == 14


# WSOM: turns (RULES.md 3.6) ---------------------------------------------------------------------


def test_wsom_east_discards_first(wsom):
    """RULES.md 3.4, 3.6, 3.10: East, holding 14, discards first: East drawing would hold too
    many tiles (大相公), South drawing reaches for the wall out of turn, South discarding
    would hold too few (小相公); East's discard opens the claim window."""
    game = wsom_game(wsom, hands=["C", "", "", ""])
    assert game.refused(ev.TileDrawn, E).penalty["offence"] == "wrong_count_high"
    assert game.refused(ev.TileDrawn, S).rule == "RULES.md 3.6"
    alert = game.refused(ev.TileDiscarded, S, tile=game.table.hands[S][0])
    assert alert.rule == "RULES.md 3.6"
    assert alert.penalty["rule"] == "RULES.md 3.10" and alert.penalty["effect"] == "no_win"
    assert game.discard(E, "C") == [ev.Discarded(game.clock, E, game.table.rivers[E][0])]
    assert kind(game.table.rivers[E][0]) == "C" and game.table.state == "claim_window"


def test_wsom_draw_out_of_turn_refused_and_play_goes_on(wsom):
    """RULES.md 3.6: after East's discard it is South's draw; West, North and East reaching
    for the wall are refused (the alert names 3.6); South "drawing" a tile the wall does not
    hold (one of East's) is refused for the referee (3.4; a tile from the wrong place in the
    wall stands, tests/firmware/desk/test_wrong_draw.py); then South draws the head tile."""
    game = wsom_game(wsom, draws=["F"])
    east_discards(game)
    for seat in (W, N, E):
        alert = game.refused(ev.TileDrawn, seat)
        assert alert.rule == "RULES.md 3.6" and "out of turn" in alert.message
    alert = game.refused(ev.TileDrawn, S, tile=game.table.hands[E][0])  # not in the wall
    assert alert.rule == "RULES.md 3.4" and alert.needs_ruling
    drew = game.draw(S)
    assert (drew.seat, kind(drew.tile), drew.replacement) == (S, "F", False)
    assert game.table.state == "discard" and game.table.turn == S


def test_wsom_discard_of_a_tile_not_held_refused(wsom):
    """RULES.md 3.6: a discard must come from the discarder's own hand (the sensors saw a tile
    he does not hold): refused, for the referee, and East may still discard his own."""
    game = wsom_game(wsom)
    alert = game.refused(ev.TileDiscarded, E, tile=game.table.hands[S][0])
    assert alert.rule == "RULES.md 3.6" and alert.needs_ruling
    game.ok(ev.TileDiscarded, E, tile=game.table.hands[E][0])


# WSOM: claims and priority (RULES.md 3.7) -------------------------------------------------------


def test_wsom_chow_only_from_the_left_and_only_a_run(wsom):
    """RULES.md 3.7: only South (East's right neighbour, whose left player is East) may chow
    East's 3m, and only with tiles that make a run with it."""
    game = wsom_game(wsom, hands=["3m", "2m 4m 1m 5m", "2m 4m", ""])
    game.discard(E, "3m")
    alert = game.refused(ev.ClaimDeclared, W, claim="chow", tiles=game.own(W, "2m 4m"))
    assert alert.rule == "RULES.md 3.7" and "left" in alert.message
    alert = game.refused(ev.ClaimDeclared, S, claim="chow", tiles=game.own(S, "1m 5m"))
    assert alert.rule == "RULES.md 3.7" and "run" in alert.message
    mine = game.own(S, "2m 4m")
    game.claim(S, "chow", "2m 4m")
    out = game.close()
    claimed = game.table.discards[-1][1]
    assert out == [ev.Claimed(game.clock, S, "chow", tuple(sorted(mine + (claimed,))), claimed, E)]
    assert game.table.state == "discard" and game.table.turn == S
    assert game.table.rivers[E] == []


@pytest.mark.parametrize("first", ["chow", "pung"])
def test_wsom_pung_from_anyone_beats_a_chow(wsom, first):
    """RULES.md 3.7: priority win > pung/kong > chow, whoever called first: North's pung of
    East's 3m is granted over South's chow; South keeps his tiles and North discards next."""
    game = wsom_game(wsom, hands=["3m", "2m 4m", "", "3m 3m"])
    game.discard(E, "3m")
    calls = {"chow": (S, "2m 4m"), "pung": (N, "3m 3m")}
    for claim in (first, "pung" if first == "chow" else "chow"):
        seat, names = calls[claim]
        game.claim(seat, claim, names)
    out = game.close()
    assert [(c.seat, c.claim, c.from_seat) for c in of(out, ev.Claimed)] == [(N, "pung", E)]
    assert game.table.turn == N and game.table.melds[S] == []
    assert [kind(t) for t in game.table.melds[N][0].tiles] == ["3m"] * 3


def test_wsom_melded_kong_replacement_from_the_tail_a_w11(wsom):
    """RULES.md 3.5, 3.7, A-W11: West holds three 5p and calls kong on East's 5p (big melded
    kong): Claimed and Konged(melded); he must draw the replacement from the tail before
    discarding; the dead wall stays 14 and the live wall shrinks by one."""
    game = wsom_game(wsom, hands=["5p", "", "5p 5p 5p", ""], draws=["S"], replacements=["C"])
    wall = game.table.wall
    game.discard(E, "5p")
    game.claim(W, "kong", "5p 5p 5p")
    live = wall.live_count
    out = game.close()
    assert [type(o) for o in out] == [ev.Claimed, ev.Konged]
    assert (out[1].seat, out[1].kind, [kind(t) for t in out[1].tiles]) == (W, "melded", ["5p"] * 4)
    assert game.refused(ev.TileDiscarded, W, tile=game.table.hands[W][0]).rule == "RULES.md 3.7"
    drew = game.draw(W)
    assert (drew.seat, drew.replacement, kind(drew.tile)) == (W, True, "C")
    assert wall.live_count == live - 1 and len(wall.dead_wall_tiles) == 14
    game.discard(W, "C")
    game.close()
    assert game.table.turn == N
    assert kind(game.draw(N).tile) == "S"  # the head is where it was


def test_wsom_concealed_kong_on_own_turn_not_right_after_a_pung(wsom):
    """RULES.md 3.7: East konges four 7p from his dealt 14 (Konged concealed, replacement
    from the tail); South may not kong out of turn, nor right after his pung of East's 9s, but
    may on his own next draw."""
    game = wsom_game(
        wsom, hands=["7p 7p 7p 7p 9s", "6p 6p 6p 6p 9s 9s N", "", ""], replacements=["C", "F"]
    )
    assert game.refused(ev.KongDeclared, S, tiles=game.own(S, "6p 6p 6p 6p")).rule == "RULES.md 3.6"
    out = game.kong(E, "7p 7p 7p 7p")
    assert [(o.seat, o.kind) for o in of(out, ev.Konged)] == [(E, "concealed")]
    assert game.table.melds[E][0].concealed
    assert kind(game.draw(E).tile) == "C"
    game.discard(E, "9s")
    game.claim(S, "pung", "9s 9s")
    game.close()
    alert = game.refused(ev.KongDeclared, S, tiles=game.own(S, "6p 6p 6p 6p"))
    assert alert.rule == "RULES.md 3.7" and "right after" in alert.message
    game.discard(S, "N")
    game.close()
    game.play_through(until=lambda g: g.table.turn == S)
    out = game.kong(S, "6p 6p 6p 6p")
    assert [(o.seat, o.kind) for o in of(out, ev.Konged)] == [(S, "concealed")]
    assert kind(game.draw(S).tile) == "F"


def added_kong_game(wsom) -> Game:
    """East discards 6s, South pungs it and later draws the fourth 6s (his 4th draw of the
    hand: West, North, East, then South draw after his pung). West waits on 3s/6s:
    123s 789s 45s EEE SS (Mixed One-Suit, Nine-Tile Straight, Concealed Hand)."""
    game = wsom_game(
        wsom,
        hands=["6s", "6s 6s N", "123s 789s 45s EEE SS", ""],
        draws={3: "6s"},
        replacements=["C"],
    )
    game.discard(E, "6s")
    game.claim(S, "pung", "6s 6s")
    game.close()
    game.discard(S, "N")
    game.close()
    game.play_through(until=lambda g: g.table.turn == S)
    assert kind(game.table.hands[S][-1]) == "6s"
    return game


def test_wsom_added_kong_opens_a_rob_window(wsom):
    """RULES.md 3.7: South adds the drawn 6s to his exposed pung: a window opens in which only
    a win may be called; when it closes unclaimed the kong is made (Konged added) and South
    draws the replacement from the tail."""
    game = added_kong_game(wsom)
    assert game.kong(S, "6s") == []
    assert game.table.state == "rob_window"
    alert = game.refused(ev.ClaimDeclared, W, claim="pung", tiles=game.own(W, "EE"))
    assert alert.rule == "RULES.md 3.7"
    out = game.close()
    assert [(o.seat, o.kind, len(o.tiles)) for o in of(out, ev.Konged)] == [(S, "added", 4)]
    assert game.table.melds[S][0].kind == "kong"
    drew = game.draw(S)
    assert (drew.replacement, kind(drew.tile)) == (True, "C")


def test_wsom_robbing_the_kong_wins_and_the_konger_pays(wsom):
    """RULES.md 3.7, 3.8: West robs South's added 6s: Won from South with robbing_kong; the
    robbed kong counts as a discard win by the konger, who pays as discarder (1.3: above 30
    the two others pay 30, South the rest); the kong is not made."""
    game = added_kong_game(wsom)
    added = game.own(S, "6s")[0]
    game.kong(S, "6s")
    game.claim(W, "win")
    out = game.close()
    won = of(out, ev.Won)
    assert len(won) == 1 and (won[0].seat, won[0].from_seat, won[0].win_tile) == (W, S, added)
    assert "robbing_kong" in won[0].flags
    value = won[0].score["total"]
    assert value > 30
    assert won[0].score["payments"] == [-30, -(3 * value - 60), 3 * value, -30]
    assert game.table.state == "won" and game.table.melds[S][0].kind == "pung"


def test_wsom_win_beats_pung(wsom):
    """RULES.md 3.7: West discards 9p; North (next in turn) calls pung, South calls win: the
    win is granted and no pung is made."""
    game = wsom_game(wsom, hands=["", "123m 456m 789m 123p 9p", "", "9p 9p"], draws={1: "9p"})
    game.play_through(until=lambda g: g.table.turn == W)
    game.discard(W, "9p")
    game.claim(N, "pung", "9p 9p")
    game.claim(S, "win")
    out = game.close()
    assert of(out, ev.Claimed) == [] and game.table.melds[N] == []
    assert [(w.seat, w.from_seat) for w in of(out, ev.Won)] == [(S, W)]


def test_wsom_two_win_calls_only_the_nearest_wins_a_w17(wsom):
    """RULES.md 3.7, A-W17 (截和): South discards 9p; East and North both call win: North, the
    nearer in turn order after South (West, North, East), is the only winner."""
    game = wsom_game(
        wsom, hands=["123s 456s 789s 111p 9p N", "", "", "123m 456m 789m 123p 9p"], draws=["9p"]
    )
    east_discards(game, "N")
    game.draw(S)
    game.discard(S, "9p")
    game.claim(E, "win")
    game.claim(N, "win")
    out = game.close()
    assert [(w.seat, w.from_seat) for w in of(out, ev.Won)] == [(N, S)]
    assert [result.winner for result in game.table.results] == [N]


def test_wsom_false_win_not_a_winning_hand_refused(wsom):
    """RULES.md 3.11, 1.1: South calls win on East's C with a hand of thirteen odd tiles: the
    call is refused for the referee and play goes on (South draws)."""
    game = wsom_game(wsom, hands=["C", "147m 258p 369s ESWN", "", ""])
    game.discard(E, "C")
    alert = game.refused(ev.ClaimDeclared, S, claim="win")
    assert alert.rule == "RULES.md 3.11" and alert.needs_ruling
    assert "not a winning hand" in alert.message
    game.close()
    game.draw(S)
    assert game.table.state == "discard"


def test_wsom_false_win_no_pattern_refused(wsom):
    """RULES.md 1.1, 3.11: after chowing 234m South holds 999p 123s 78s 55m; West's 9s
    completes the shape but no pattern scores (open, a pung, terminals): a false win, refused;
    the window then closes and North draws."""
    game = wsom_game(wsom, hands=["3m", "2m 4m 999p 123s 55m 78s N", "", ""], draws=["9s"])
    game.discard(E, "3m")
    game.claim(S, "chow", "2m 4m")
    game.close()
    game.discard(S, "N")
    game.close()
    game.draw(W)
    game.discard(W, "9s")
    alert = game.refused(ev.ClaimDeclared, S, claim="win")
    assert alert.rule == "RULES.md 3.11" and "no pattern" in alert.message
    game.close()
    assert game.draw(N).seat == N


# WSOM: seabed and riverbed (RULES.md 3.5, A-W10) ------------------------------------------------


@pytest.mark.parametrize("ending", ["nobody wins", "West wins"])
def test_wsom_last_live_tile(wsom, ending):
    """RULES.md 3.5, A-W10: the 69th draw is the seabed, South's: he may not kong with it; his
    discard (the riverbed E) may not be punged, only won on (Final Discard flag); with no win
    the hand is an exhaustive draw."""
    game = wsom_game(
        wsom, hands=["", "5p 5p 5p E", "123m 456m 789m 111p E", "E E"], draws={-1: "5p"}
    )
    game.play_through(until=lambda g: g.table.wall.live_count == 0)
    assert game.table.turn == S and kind(game.table.hands[S][-1]) == "5p"
    alert = game.refused(ev.KongDeclared, S, tiles=game.own(S, "5p 5p 5p 5p"))
    assert alert.rule == "RULES.md 3.5"
    game.discard(S, "E")
    assert (
        game.refused(ev.ClaimDeclared, N, claim="pung", tiles=game.own(N, "E E")).rule
        == "RULES.md 3.5"
    )
    if ending == "West wins":
        game.claim(W, "win")
        won = of(game.close(), ev.Won)
        assert [(w.seat, w.from_seat) for w in won] == [(W, S)]
        assert "final_discard" in won[0].flags and game.table.state == "won"
    else:
        assert game.close() == [ev.ExhaustiveDraw(game.clock, None)]
        assert game.table.state == "exhausted"
    assert len(game.table.wall.dead_wall_tiles) == 14


def test_wsom_kong_on_the_second_to_last_tile_its_replacement_is_the_seabed_a_w10(wsom):
    """A-W10, A-W11: East draws the 68th tile (one live tile left) and konges: allowed; the
    replacement from the tail is then the last live tile, and a win on it is both Final Draw
    and Win on Kong."""
    game = wsom_game(
        wsom,
        hands=["7s 7s 7s 123m 456m 789m 9p", "", "", ""],
        draws={67: "7s"},
        replacements=["9p"],
    )
    game.play_through(until=lambda g: g.table.wall.live_count == 1)
    assert game.table.turn == E and kind(game.table.hands[E][-1]) == "7s"
    game.kong(E, "7s 7s 7s 7s")
    assert kind(game.draw(E).tile) == "9p" and game.table.wall.live_count == 0
    won = of(game.ok(ev.WinDeclared, E), ev.Won)
    assert set(won[0].flags) == {"final_draw", "kong_replacement"}
    assert {"9.1.1", "9.2"} <= {p["id"] for p in won[0].score["patterns"]}


# WSOM: special wins (RULES.md 1.2 patterns 9.x, 3.8, A-W9) --------------------------------------


def test_wsom_heaven_east_wins_on_the_dealt_tiles(wsom):
    """RULES.md 1.2 (pattern 9.4.1), A-W9: East declares a win on his 14 dealt tiles:
    heaven, self-drawn."""
    game = wsom_game(wsom, hands=["123m 456m 789m 123p 99p", "", "", ""])
    won = of(game.ok(ev.WinDeclared, E), ev.Won)
    assert [(w.seat, w.from_seat) for w in won] == [(E, None)]
    assert "heaven" in won[0].flags and game.table.state == "won"
    assert "9.4.1" in [p["id"] for p in won[0].score["patterns"]]


def test_wsom_heaven_cancelled_by_easts_kong_a_w9(wsom):
    """A-W9: heaven is a win on the dealt 14 with no kong: after konging 7s and winning on the
    replacement East has Win on Kong, not heaven."""
    game = wsom_game(wsom, hands=["7s 7s 7s 7s 123m 456m 789m 9p", "", "", ""], replacements=["9p"])
    game.kong(E, "7s 7s 7s 7s")
    game.draw(E)
    won = of(game.ok(ev.WinDeclared, E), ev.Won)
    assert won[0].flags == ("kong_replacement",)


def test_wsom_earth_south_wins_on_easts_first_discard(wsom):
    """RULES.md 1.2 (pattern 9.4.2), A-W9: South wins on East's first discard, nobody having
    called: earth."""
    game = wsom_game(wsom, hands=["9p", "123m 456m 789m 123p 9p", "", ""])
    game.discard(E, "9p")
    game.claim(S, "win")
    won = of(game.close(), ev.Won)
    assert [(w.seat, w.from_seat) for w in won] == [(S, E)]
    assert "earth" in won[0].flags


def test_wsom_earth_cancelled_by_easts_kong_a_w9(wsom):
    """A-W9: no earth when anyone called or konged before East's first discard: East konges
    7s, discards 9p, South wins on it without the earth flag."""
    game = wsom_game(wsom, hands=["7s 7s 7s 7s 9p", "123m 456m 789m 123p 9p", "", ""])
    game.kong(E, "7s 7s 7s 7s")
    game.draw(E)
    game.discard(E, "9p")
    game.claim(S, "win")
    won = of(game.close(), ev.Won)
    assert [(w.seat, w.from_seat) for w in won] == [(S, E)] and "earth" not in won[0].flags


def test_wsom_self_drawn_win_on_a_kong_replacement(wsom):
    """RULES.md 3.7, 3.8, 1.2 (pattern 9.2): South draws his fourth 7s, konges it and wins on the
    replacement 9p: a self-drawn win flagged kong_replacement (and nothing else)."""
    game = wsom_game(
        wsom, hands=["", "7s 7s 7s 123m 456m 789m 9p", "", ""], draws=["7s"], replacements=["9p"]
    )
    east_discards(game)
    game.draw(S)
    game.kong(S, "7s 7s 7s 7s")
    assert kind(game.draw(S).tile) == "9p"
    won = of(game.ok(ev.WinDeclared, S), ev.Won)
    assert [(w.seat, w.from_seat, w.flags) for w in won] == [(S, None, ("kong_replacement",))]


# CCM 2012: dice, deal and flowers (RULES.md 4.4, 4.5) ---------------------------------------------


def test_ccm_single_roll_seed_example(ccm):
    """RULES.md 4.4, A-C1: East rolls once; 7 picks the opposite wall and dealing starts at its
    7th stack (6 stacks on the tail side). Unshuffled (id = place): West's 7th stack is 84."""
    table = Table(ccm, build_walls(list(range(144)), 18))
    out = table.apply(ev.DiceRolled(1, E, dice=CCM_DICE))
    assert out[0] == ev.WallBroken(1, W, 6, CCM_DICE)
    assert of(out, ev.Dealt)[0].hands[E][:4] == (84, 85, 86, 87)
    assert table.state == "discard" and table.check_invariants() == []


def test_ccm_144_tiles_with_flowers(ccm):
    """RULES.md 4.4: 18 stacks a side, 144 tiles: the 136 and the eight flowers 136..143; no
    dead wall, so 144 - 53 = 91 tiles can still be drawn."""
    game = ccm_game(ccm)
    standing = [t for side in game.table.wall.remaining() for t in side if t is not None]
    assert sorted(standing + [t for h in game.table.hands for t in h]) == list(range(144))
    assert game.table.wall.live_count == 91 and game.table.wall.dead_wall_tiles == []


def test_ccm_dealt_flowers_replaced_before_easts_first_discard(ccm):
    """RULES.md 4.4, 4.5: East and South are dealt flowers; East may not discard until every
    dealt flower is exposed and replaced from the tail (East first, then South)."""
    game = ccm_game(ccm, hands=["1f", "2f", "", ""], replacements=["C", "F"])
    plain = next(t for t in game.table.hands[E] if t < 136)
    assert game.refused(ev.TileDiscarded, E, tile=plain).rule == "RULES.md 4.5"
    out = game.ok(ev.FlowerExposed, E, tile=game.own(E, "1f")[0])
    assert out == [ev.FlowerReplaced(game.clock, E, game.table.flowers[E][0])]
    game.refused(ev.TileDiscarded, E, tile=plain)  # his replacement first
    assert kind(game.draw(E).tile) == "C"
    assert game.refused(ev.TileDiscarded, E, tile=plain).rule == "RULES.md 4.5"
    game.ok(ev.FlowerExposed, S, tile=game.own(S, "2f")[0])
    drew = game.draw(S)
    assert (drew.seat, drew.replacement, kind(drew.tile)) == (S, True, "F")
    game.ok(ev.TileDiscarded, E, tile=plain)
    assert [[kind(f) for f in fl] for fl in game.table.flowers] == [["1f"], ["2f"], [], []]


def test_ccm_opening_flowers_replaced_east_first(ccm):
    """RULES.md 4.4: at the start East replaces his flowers first, then South, West, North."""
    game = ccm_game(ccm, hands=["1f", "2f", "", ""])
    game.refused(ev.FlowerExposed, S, tile=game.own(S, "2f")[0])


def test_ccm_discard_before_the_flower_replacement_names_4_5(ccm):
    """RULES.md 4.5: the flower's replacement is drawn before discarding; the alert says so."""
    game = ccm_game(ccm, hands=["1f", "", "", ""])
    game.ok(ev.FlowerExposed, E, tile=game.own(E, "1f")[0])
    alert = game.refused(ev.TileDiscarded, E, tile=game.table.hands[E][0])
    assert alert.rule == "RULES.md 4.5"


def test_ccm_flower_drawn_later_exposed_and_replaced_never_discarded(ccm):
    """RULES.md 4.5: South draws 3f: discarding it is refused (it would kill his hand); he
    exposes it on his turn and draws the replacement from the tail, then discards."""
    game = ccm_game(ccm, draws=["3f"], replacements=["C"])
    east_discards(game)
    flower = game.draw(S).tile
    alert = game.refused(ev.TileDiscarded, S, tile=flower)
    assert alert.rule == "RULES.md 4.5" and alert.needs_ruling
    assert game.refused(ev.FlowerExposed, W, tile=flower).rule == "RULES.md 4.5"
    assert game.ok(ev.FlowerExposed, S, tile=flower) == [ev.FlowerReplaced(game.clock, S, flower)]
    drew = game.draw(S)
    assert (drew.replacement, kind(drew.tile)) == (True, "C")
    game.discard(S, "C")
    assert game.table.flowers[S] == [flower]


def test_ccm_drawn_flower_must_be_exposed_before_discarding(ccm):
    """RULES.md 4.5: a drawn flower is exposed and replaced before the player discards."""
    game = ccm_game(ccm, draws=["3f"])
    east_discards(game)
    game.draw(S)
    other = next(t for t in game.table.hands[S] if t < 136)
    assert game.refused(ev.TileDiscarded, S, tile=other).rule == "RULES.md 4.5"


def test_ccm_self_drawn_win_declared_on_a_flower_is_refused(ccm):
    """RULES.md 4.5, 4.7: a flower is not a hand tile: declaring a self-drawn win with the
    drawn flower still in hand is a false win, refused for the referee (not a crash)."""
    game = ccm_game(ccm, draws=["3f"])
    east_discards(game)
    game.draw(S)
    alert = game.refused(ev.WinDeclared, S)
    assert alert.rule.startswith("RULES.md 4.") and alert.needs_ruling
    assert "flower" in alert.message


# CCM: claims, several winners, the last tile (RULES.md 4.6, 4.11) -------------------------------


def test_ccm_chow_from_the_left_pung_beats_chow(ccm):
    """RULES.md 4.6, A-C5: West may not chow East's 3m; South (on East's right) may, but
    North's pung of it has priority."""
    game = ccm_game(ccm, hands=["3m", "2m 4m", "2m 4m", "3m 3m"])
    game.discard(E, "3m")
    alert = game.refused(ev.ClaimDeclared, W, claim="chow", tiles=game.own(W, "2m 4m"))
    assert alert.rule.startswith("RULES.md 4.6")
    game.claim(S, "chow", "2m 4m")
    game.claim(N, "pung", "3m 3m")
    out = game.close()
    assert [(c.seat, c.claim, c.from_seat) for c in of(out, ev.Claimed)] == [(N, "pung", E)]
    assert game.table.turn == N


def test_ccm_several_winners_on_one_discard_a_c15(ccm):
    """RULES.md 4.11, A-C15: North then South call win on East's 9p: both win, reported
    counter-clockwise from the discarder (South, then North); each is scored on its own: 清龍
    10 + single-tile win 4 + 門清 8 = 22, the discarder paying 2T to each winner."""
    game = ccm_game(ccm, hands=["9p", "123m 456m 789m 123p 9p", "", "123s 456s 789s 123p 9p"])
    game.discard(E, "9p")
    game.claim(N, "win")
    game.claim(S, "win")
    won = of(game.close(), ev.Won)
    assert [(w.seat, w.from_seat) for w in won] == [(S, E), (N, E)]
    for w in won:
        payments = [0, 0, 0, 0]
        payments[w.seat], payments[E] = 44, -44
        assert w.score["legal"] and w.score["total"] == 22 and w.score["payments"] == payments
    assert game.table.state == "won"


def test_ccm_every_tile_drawn_then_exhaustive_draw(ccm):
    """RULES.md 4.4, 4.5: no dead wall: the 91 tiles left after the deal are all drawn (live
    draws and flower replacements from the tail); with no winner the hand ends in ExhaustiveDraw
    after the last discard."""
    game = ccm_game(ccm)
    game.play_through()
    assert game.table.state == "exhausted"
    assert isinstance(game.log[-1], ev.ExhaustiveDraw)
    assert len(of(game.log, ev.Drew)) == 91
    assert sum(len(f) for f in game.table.flowers) == 8
    assert all(t is None for side in game.table.wall.remaining() for t in side)


def test_only_the_next_players_draw_ends_the_calls(wsom):
    """RULES.md 3.6: while calls on a discard are open, another seat's input is refused and
    the window stays open; the next player's draw ends it."""
    game = wsom_game(wsom)
    game.ok(ev.TileDiscarded, E, tile=game.table.hands[E][-1])
    game.refused(ev.TileDrawn, W)
    assert game.table.state == "claim_window"
    game.draw(S)
    assert game.table.state == "discard" and game.table.turn == S


def test_the_table_says_who_draws_and_who_may_discard(wsom):
    """RULES.md 3.6, 3.7: the hand answers whose turn it is (engine/moves.py asks it rather
    than read the hand's internals): East discards first; on his discard's window South draws
    next; after an added kong the konger draws, and owes the replacement before anything."""
    game = wsom_game(wsom)
    table = game.table
    assert table.in_turn(E) and not table.in_turn(S) and table.next_to_draw() is None
    game.ok(ev.TileDiscarded, E, tile=table.hands[E][-1])
    assert table.next_to_draw() == table.live_drawer() == S and not table.in_turn(E)
    game.close()
    assert table.state == "draw" and table.next_to_draw() == S
    game = added_kong_game(wsom)
    table = game.table
    game.kong(S, "6s")
    assert table.next_to_draw() == S and table.live_drawer() is None
    game.close()
    assert table.owes_replacement(S) and not table.in_turn(S)
