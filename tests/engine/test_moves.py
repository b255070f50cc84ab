"""Tile movements and buttons as game inputs (engine/moves.py, issue 4).

Each test deals a chosen hand (tests/support/tablekit.py) and drives an Interpreter as the service
does: every movement the tracker confirms goes to `move`, every win press to `button`, the
ticker to `poll`; the inputs they return are applied to the table and the engine's outputs
handed back through `outputs`. Zones are physical sides; seats are winds, so with the dealer
on side `dealer_side` the seat s sits on side (s + dealer_side) % 4.
WSOM: RULES.md 3.6 (turns), 3.7 (calls and kongs), 3.8 (winning); CCM: 4.5 (flowers).
"""

from engine import events as ev
from engine import tiles
from engine.moves import HOLD, Irregular
from engine.ordering import WAIT
from tests.support.moveskit import Hand
from tests.support.tablekit import CCM_DICE, WSOM_DICE, E, N, S, W

# The deal, draws and discards ---------------------------------------------------------------


def test_deal_is_not_input_then_a_discard_and_a_draw(wsom):
    """Issue 4, RULES.md 3.6: the deal's 53 tiles going from the walls to the racks are the
    Dealt output already, not draws; a tile from a rack into the same side's river is that
    seat's discard; a tile off the deal taken into the next player's rack closes the calls
    and is his draw. East sits on the North side, so South is on the East side."""
    hand = Hand(wsom, WSOM_DICE, dealer_side=3)
    assert hand.deal() == []
    tile = hand.table.hands[E][-1]
    assert hand.discard(3.0, E) == [ev.TileDiscarded(3.0, E, tile)]
    assert hand.table.state == "claim_window" and hand.table.rivers[E] == [tile]
    drawn = hand.table.wall.tile_at(hand.table.wall.next_draw_position)
    meant = hand.move(4.0, drawn, hand.wall_of(drawn), "hand_E")
    assert meant == [ev.ClaimWindowClosed(4.0, None), ev.TileDrawn(4.0, S, drawn)]
    assert hand.table.state == "discard" and hand.table.turn == S
    assert hand.table.hands[S][-1] == drawn


def test_the_moves_the_hand_waits_for_are_the_ones_due_now(wsom):
    """Issue 32 item 8: the tracking asks one sighting more of a move the hand does not wait
    for (a misread is almost never a move anyone is due to make): the deal's tiles into
    their racks, the wall's next tile into the drawer's rack (or on to his melds at once, a
    flower), the discard of the seat in turn and a call on the latest discard are due;
    another wall tile, another rack, another player's river are not."""
    hand = Hand(wsom, WSOM_DICE, dealer_side=3)
    dealt = hand.table.hands[S][0]
    assert hand.interp.expects(dealt, hand.wall_of(dealt), hand.zone("hand", S))
    assert not hand.interp.expects(dealt, hand.wall_of(dealt), hand.zone("hand", W))
    hand.deal()
    tile = hand.table.hands[E][-1]
    assert hand.interp.expects(tile, hand.zone("hand", E), hand.zone("river", E))
    assert not hand.interp.expects(tile, hand.zone("hand", E), hand.zone("river", S))
    other = hand.table.hands[S][0]
    assert not hand.interp.expects(other, hand.zone("hand", S), hand.zone("river", S))
    hand.discard(3.0, E)
    wall = hand.table.wall
    head = wall.tile_at(wall.next_draw_position)
    assert hand.interp.expects(head, hand.wall_of(head), hand.zone("hand", S))
    assert hand.interp.expects(head, hand.wall_of(head), hand.zone("melds", S))  # a flower
    assert not hand.interp.expects(head, hand.wall_of(head), hand.zone("hand", N))
    deep = next(x for x in hand.table.walls[W] if x not in (head, None) and wall.position_of(x))
    assert not hand.interp.expects(deep, hand.wall_of(deep), hand.zone("hand", S))
    assert hand.interp.expects(tile, hand.zone("river", E), hand.zone("melds", N))
    assert not hand.interp.expects(other, hand.zone("river", S), hand.zone("melds", N))


def test_draw_seen_before_the_discard_it_follows_waits_for_it(wsom):
    """Issue 4: when the readers miss a discard for a sweep or two, the next player's draw
    is confirmed first; it is held, and given to the engine once the discard is seen, in
    the order the hand was played (no penalty for a draw out of turn)."""
    hand = Hand(wsom, WSOM_DICE, dealer_side=1)
    hand.deal()
    drawn = hand.table.wall.tile_at(hand.table.wall.next_draw_position)
    assert hand.move(3.2, drawn, hand.wall_of(drawn), hand.zone("hand", S)) == []
    hand.discard(3.5, E)
    assert hand.poll(3.55) == [ev.ClaimWindowClosed(3.55, None), ev.TileDrawn(3.55, S, drawn)]
    assert hand.of(ev.Alert) == [] and hand.table.turn == S


def test_draw_that_never_comes_in_order_goes_to_the_engine_after_the_hold(wsom):
    """Issue 4: a held draw that nothing puts in order is not dropped: after WAIT seconds the
    engine gets it and refuses it for the referee (South reaching for the wall out of turn)."""
    hand = Hand(wsom, WSOM_DICE, dealer_side=2)
    hand.deal()
    drawn = hand.table.wall.tile_at(hand.table.wall.next_draw_position)
    hand.move(3.0, drawn, hand.wall_of(drawn), hand.zone("hand", S))
    assert hand.poll(3.0 + WAIT - 0.1) == []
    assert hand.poll(3.0 + WAIT) == [ev.TileDrawn(3.0 + WAIT, S, drawn)]
    assert [a.seat for a in hand.of(ev.Alert)] == [S] and hand.table.turn == E


def test_flower_laid_out_is_exposed_and_replaced(ccm):
    """RULES.md 4.5 (CCM): a flower from a rack into its meld area is FlowerExposed; the
    replacement taken from the wall is that seat's draw, from the tail."""
    hand = Hand(ccm, CCM_DICE, dealer_side=2, hands=["1f", "", "", ""], replacements=["C"])
    hand.deal()
    flower = hand.own(E, "1f")[0]
    assert hand.lay_out(5.0, E, [flower]) == [ev.FlowerExposed(5.0, E, flower)]
    assert hand.table.owes[E] == 1
    replacement = hand.table.wall.tile_at(hand.table.wall.next_replacement_position)
    meant = hand.move(6.0, replacement, hand.wall_of(replacement), hand.zone("hand", E))
    assert meant == [ev.TileDrawn(6.0, E, replacement)]
    assert hand.table.flowers[E] == [flower] and hand.of(ev.Drew)[-1].replacement


def test_a_replacement_taken_before_its_flower_is_read_waits_for_it(ccm):
    """Issue 32 item 8: South draws a flower, lays it out and takes its replacement from the
    tail; under heavy noise the replacement is read first. It is not due (the tracking asks a
    sighting more of it) and, once read, waits for the flower: the flower, then the
    replacement, no draw from the wrong place."""
    hand = Hand(ccm, CCM_DICE, dealer_side=2, draws=["1f"], replacements=["C"])
    hand.deal()
    hand.discard(3.0, E)
    wall = hand.table.wall
    flower = wall.tile_at(wall.next_draw_position)
    replacement = wall.tile_at(wall.next_replacement_position)
    to_rack = (replacement, hand.wall_of(replacement), hand.zone("hand", S))
    assert not hand.interp.expects(*to_rack)
    assert hand.move(4.0, *to_rack) == []
    assert hand.interp.expects(flower, hand.wall_of(flower), hand.zone("melds", S))
    assert hand.move(4.2, flower, hand.wall_of(flower), hand.zone("melds", S)) == [
        ev.ClaimWindowClosed(4.2, None),
        ev.TileDrawn(4.2, S, flower),
        ev.FlowerExposed(4.2, S, flower),
    ]
    assert hand.interp.expects(*to_rack)
    assert hand.poll(4.3) == [ev.TileDrawn(4.3, S, replacement)]
    assert hand.of(ev.Alert) == [] and hand.of(ev.Drew)[-1].replacement


# Kongs on one's own turn (RULES.md 3.7) ------------------------------------------------------


def test_concealed_kong_laid_out_in_two_halves_is_one_kong(wsom):
    """RULES.md 3.7: four of a kind laid out on one's turn is one KongDeclared, however the
    tiles arrive: the first two are nothing yet, the fourth makes the kong."""
    hand = Hand(wsom, WSOM_DICE, dealer_side=2, hands=["EEEE", "", "", ""])
    hand.deal()
    four = hand.own(E, "EEEE")
    assert hand.lay_out(5.0, E, four[:2]) == []
    assert hand.lay_out(5.5, E, four[2:3]) == []
    assert hand.lay_out(6.0, E, four[3:]) == [ev.KongDeclared(6.0, E, four)]
    assert [k.kind for k in hand.of(ev.Konged)] == ["concealed"]
    assert hand.table.owes[E] == 1


def pung_by_west(ruleset, dealer_side, **layout) -> Hand:
    """East discards C; West lays out his two C during the window; the window closes."""
    hand = Hand(ruleset, WSOM_DICE, dealer_side, hands=["C", "", "CC", ""], **layout)
    hand.deal()
    hand.discard(3.0, E, hand.own(E, "C")[0])
    assert hand.lay_out(3.8, W, hand.own(W, "CC")) == []
    return hand


def test_added_kong(wsom):
    """RULES.md 3.7: one tile added on one's turn to one's exposed pung is a KongDeclared of
    that tile (the added kong, open to robbing)."""
    hand = pung_by_west(wsom, dealer_side=1, draws={3: "C"})
    hand.poll(5.8)
    claimed = hand.of(ev.Claimed)[0]
    hand.move(6.0, claimed.claimed_tile, hand.zone("river", E), hand.zone("melds", W))
    hand.discard(7.0, W)
    t = 8.0
    for seat in (N, E, S):
        hand.draw(t, seat)
        hand.discard(t + 1, seat)
        t += 2
    hand.draw(t, W)
    fourth = hand.table.hands[W][-1]
    assert tiles.NAMES[tiles.kind_of(fourth)] == "C"
    assert hand.lay_out(t + 1, W, [fourth]) == [ev.KongDeclared(t + 1, W, (fourth,))]
    assert hand.table.state == "rob_window"


# Calls on a discard (RULES.md 3.7) -----------------------------------------------------------


def test_pung_laid_out_is_declared_when_the_window_closes(wsom):
    """RULES.md 3.7: tiles laid out during the claim window are a call, declared when the
    window's time is over: nothing before claim_window seconds, then the pung (made when it
    was laid out: issue 20 item 5, CCM's 3-s limit counts to then) and the close."""
    hand = pung_by_west(wsom, dealer_side=3)
    assert hand.poll(4.9) == []
    meant = hand.poll(5.0)
    pair = tuple(t for t in hand.table.melds[W][0].tiles if t != hand.table.melds[W][0].claimed)
    assert meant == [ev.ClaimDeclared(3.8, W, "pung", pair), ev.ClaimWindowClosed(5.0, None)]
    assert hand.table.turn == W and hand.of(ev.Claimed)[0].from_seat == E


def test_window_waits_for_a_call_half_laid_out(wsom):
    """Issue 4: a caller whose first tile is read but not yet the second when the window's
    time is over keeps the window open (up to HOLD seconds more), so his call is not cut."""
    hand = Hand(wsom, WSOM_DICE, dealer_side=2, hands=["C", "", "CC", ""])
    hand.deal()
    hand.discard(3.0, E, hand.own(E, "C")[0])
    first, second = hand.own(W, "CC")
    hand.lay_out(4.5, W, [first])
    assert hand.poll(5.0) == []
    hand.lay_out(5.6, W, [second])
    assert hand.poll(5.6) == [
        ev.ClaimDeclared(4.5, W, "pung", (first, second)),  # called from his first tile
        ev.ClaimWindowClosed(5.6, None),
    ]


def test_pung_declared_when_the_claimer_takes_the_discard_first(wsom):
    """RULES.md 3.7: the claimer's hand on the discard ends the calls before the window's
    time is over: the pung is declared then."""
    hand = pung_by_west(wsom, dealer_side=2)
    discard = hand.table.discards[-1][1]
    meant = hand.move(4.2, discard, hand.zone("river", E), hand.zone("melds", W))
    assert [type(m) for m in meant] == [ev.ClaimDeclared, ev.ClaimWindowClosed]
    assert meant[0].claim == "pung" and meant[0].seat == W
    assert hand.table.melds[W][0].claimed == discard
    assert hand.poll(6.0) == []  # the window is closed: nothing more to declare


def test_three_tiles_laid_out_are_a_kong_claim(wsom):
    """RULES.md 3.7: three tiles matching the discard laid out is a call to kong it."""
    hand = Hand(wsom, WSOM_DICE, dealer_side=1, hands=["9s", "", "", "9s 9s 9s"])
    hand.deal()
    hand.discard(3.0, E, hand.own(E, "9s")[0])
    three = hand.own(N, "9s 9s 9s")
    assert hand.lay_out(3.5, N, three) == []
    assert hand.poll(5.0) == [
        ev.ClaimDeclared(3.5, N, "kong", three),
        ev.ClaimWindowClosed(5.0, None),
    ]
    assert [k.kind for k in hand.of(ev.Konged)] == ["melded"]


def test_chow_laid_out_by_the_next_player(wsom):
    """RULES.md 3.7: two tiles making a run with the left player's discard are a chow,
    declared as soon as they are shown; it is granted at the chower's discard (seed 000
    吃牌 4: tests/engine/test_chow_priority.py)."""
    hand = Hand(wsom, WSOM_DICE, dealer_side=3, hands=["5p", "4p 6p", "", ""])
    hand.deal()
    hand.discard(3.0, E, hand.own(E, "5p")[0])
    run = hand.own(S, "4p 6p")
    assert hand.lay_out(3.5, S, run) == [ev.ClaimDeclared(3.5, S, "chow", run, shown=True)]
    assert hand.poll(5.0) == []
    hand.discard(6.0, S, next(t for t in hand.table.hands[S] if t not in run))
    assert hand.of(ev.Claimed)[0].claim == "chow"


def test_next_players_draw_declares_the_laid_out_call_first(wsom):
    """RULES.md 3.6, 3.7: South reaching for the wall closes the calls, but West's pung laid
    out before it is declared first, and wins the discard (pung before the draw); South's
    draw waits, to be put back (seed 000 摸打規條 5: tests/firmware/desk/test_wall_touch.py)."""
    hand = pung_by_west(wsom, dealer_side=2)
    drawn = hand.table.wall.tile_at(hand.table.wall.next_draw_position)
    meant = hand.move(4.0, drawn, hand.wall_of(drawn), hand.zone("hand", S))
    assert [type(m) for m in meant] == [ev.WallTouched, ev.ClaimDeclared, ev.ClaimWindowClosed]
    assert meant[1].seat == W and meant[1].claim == "pung"
    assert hand.of(ev.Claimed)[0].seat == W and hand.table.turn == W


def test_call_taken_back_before_the_close_is_not_declared(wsom):
    """RULES.md 3.7: tiles laid out and taken back into the rack before the window closes
    make no call: the window just closes."""
    hand = pung_by_west(wsom, dealer_side=1)
    for tile in hand.own(W, "CC"):
        assert hand.move(4.0, tile, hand.zone("melds", W), hand.zone("hand", W)) == []
    assert hand.poll(5.0) == [ev.ClaimWindowClosed(5.0, None)]
    assert hand.of(ev.Claimed) == [] and hand.table.state == "draw"


# Win presses (RULES.md 3.8) ------------------------------------------------------------------

READY_SOUTH = ["5p", "123m 456m 789m 123p 5p", "", ""]  # South waits on 5p


def test_win_press_during_the_claim_window_is_a_win_call(wsom):
    """RULES.md 3.7, 3.8: a win press while calls are open is a call to win on the discard."""
    hand = Hand(wsom, WSOM_DICE, dealer_side=2, hands=READY_SOUTH)
    hand.deal()
    hand.discard(3.0, E, hand.own(E, "5p")[0])
    assert hand.press_win(3.5, S) == [ev.ClaimDeclared(3.5, S, "win")]
    hand.poll(5.0)
    won = hand.of(ev.Won)
    assert len(won) == 1 and won[0].seat == S and won[0].from_seat == E


def test_win_press_before_the_discard_is_seen_is_held_for_it(wsom):
    """Issue 4 (engine/moves.py HOLD): the player presses on the discard he sees; the
    readers confirm it a moment later. The press is held, and declared as a win call once
    the window opens."""
    hand = Hand(wsom, WSOM_DICE, dealer_side=3, hands=READY_SOUTH)
    hand.deal()
    assert hand.press_win(3.0, S) == []
    hand.discard(3.4, E, hand.own(E, "5p")[0])
    assert hand.poll(3.45) == [ev.ClaimDeclared(3.45, S, "win")]
    hand.poll(5.4)
    assert [w.seat for w in hand.of(ev.Won)] == [S]


def test_self_drawn_win_pressed_before_the_draw_is_confirmed(wsom):
    """Issue 4: a press is read `settle` seconds late, once the moves made before it are
    confirmed: South's win press right after his draw is his self-drawn win, not a call on
    East's discard (whose window is still open when the button is seen)."""
    hand = Hand(
        wsom,
        WSOM_DICE,
        dealer_side=3,
        settle=0.75,
        hands=["C", READY_SOUTH[1], "", ""],
        draws=["5p"],
    )
    hand.deal()
    hand.discard(3.0, E, hand.own(E, "C")[0])
    assert hand.press_win(3.5, S) == []
    assert hand.poll(3.75) == []
    hand.draw(4.0, S)
    assert hand.poll(4.25) == [ev.WinDeclared(4.25, S, mixed_in=True)]
    assert [(w.seat, w.from_seat) for w in hand.of(ev.Won)] == [(S, None)]


def test_self_drawn_win_press(wsom):
    """RULES.md 3.8: a win press on one's own turn after the draw is a self-drawn win; the
    drawn tile read in his rack joined his hand (seed 004 單放, issue 30 item 12)."""
    hand = Hand(wsom, WSOM_DICE, dealer_side=1, hands=READY_SOUTH, draws=["5p"])
    hand.deal()
    hand.discard(3.0, E)
    hand.draw(4.0, S)
    assert hand.press_win(5.0, S) == [ev.WinDeclared(5.0, S, mixed_in=True)]
    won = hand.of(ev.Won)
    assert len(won) == 1 and won[0].seat == S and won[0].from_seat is None


def test_held_press_that_never_makes_sense_is_declared_after_the_hold(wsom):
    """Issue 4: a press nothing explains is not dropped: after HOLD seconds it is
    declared, and the engine refuses it with an alert for the referee."""
    hand = Hand(wsom, WSOM_DICE, dealer_side=2)
    hand.deal()
    assert hand.press_win(3.0, N) == []
    assert hand.poll(3.0 + HOLD - 0.1) == []
    assert hand.poll(3.0 + HOLD) == [ev.WinDeclared(3.0 + HOLD, N)]
    alerts = hand.of(ev.Alert)
    assert len(alerts) == 1 and alerts[0].seat == N and hand.table.state == "discard"


# Movements the readers did not see step by step ------------------------------------------------


def test_wall_to_river_jump_of_the_expected_tile_is_a_draw_and_a_discard(wsom):
    """Issue 4: the next player's tile seen leaving the wall and next in his river (the
    rack sweep missed it) is his draw and his discard, after the calls close."""
    hand = Hand(wsom, WSOM_DICE, dealer_side=3)
    hand.deal()
    hand.discard(3.0, E)
    tile = hand.table.wall.tile_at(hand.table.wall.next_draw_position)
    meant = hand.move(4.0, tile, hand.wall_of(tile), hand.zone("river", S))
    assert meant == [
        ev.ClaimWindowClosed(4.0, None),
        ev.TileDrawn(4.0, S, tile),
        ev.TileDiscarded(4.0, S, tile),
    ]
    assert hand.table.rivers[S] == [tile] and hand.table.state == "claim_window"


def test_replacement_flower_seen_straight_in_the_meld_area_is_drawn_and_exposed(ccm):
    """RULES.md 4.5, issue 4: a replacement that is a flower again, seen leaving the wall and
    next among the seat's melds (the rack read missed it), is his replacement draw and the
    flower's exposure, in that order."""
    hand = Hand(ccm, CCM_DICE, dealer_side=2, hands=["1f", "", "", ""], replacements=["2f"])
    hand.deal()
    hand.lay_out(5.0, E, hand.own(E, "1f"))
    wall = hand.table.wall
    second = wall.tile_at(wall.next_replacement_position)
    meant = hand.move(6.0, second, hand.wall_of(second), hand.zone("melds", E))
    assert meant == [ev.TileDrawn(6.0, E, second), ev.FlowerExposed(6.0, E, second)]
    assert len(hand.table.flowers[E]) == 2 and hand.table.owes[E] == 1


def test_wall_to_river_jump_of_another_tile_is_irregular(wsom):
    """Issue 4: a tile seen going from a wall into the river of a player who is not to draw
    is told to the referee, not guessed (South's wrong draw would stand: seed 000 摸錯牌)."""
    hand = Hand(wsom, WSOM_DICE, dealer_side=1)
    hand.deal()
    hand.discard(3.0, E)
    wall = hand.table.wall
    other = wall.tile_at(wall.next_replacement_position)  # the tail, not the head
    meant = hand.interp.move(4.0, other, hand.wall_of(other), hand.zone("river", W))
    assert len(meant) == 1 and isinstance(meant[0], Irregular)
    assert meant[0].tile == other and hand.table.state == "claim_window"


def test_inexplicable_movement_is_irregular_and_keeps_the_tile_hidden(wsom):
    """Issue 4, DESIGN.md tracking: a movement no move of the hand explains (a tile from
    East's rack into South's meld area) is Irregular for the referee; the message names the
    zones, never the concealed tile, which only the `tile` field keeps."""
    hand = Hand(wsom, WSOM_DICE, dealer_side=2, hands=["7m", "", "", ""])
    hand.deal()
    tile = hand.own(E, "7m")[0]
    meant = hand.interp.move(3.0, tile, hand.zone("hand", E), hand.zone("melds", S))
    assert len(meant) == 1 and isinstance(meant[0], Irregular)
    note = meant[0]
    assert note.tile == tile and note.side == (S + 2) % 4
    assert "7m" not in note.message and "hand rack" in note.message
    assert hand.table.hands[E].count(tile) == 1  # nothing applied


def test_river_tile_taken_without_a_granted_call_is_irregular(wsom):
    """RULES.md 3.7: only the latest discard may be claimed; a river tile taken into a meld
    area after the window closed, with no call granted, is Irregular."""
    hand = Hand(wsom, WSOM_DICE, dealer_side=1)
    hand.deal()
    hand.discard(3.0, E)
    hand.poll(5.0)  # nobody called
    discard = hand.table.rivers[E][0]
    meant = hand.interp.move(6.0, discard, hand.zone("river", E), hand.zone("melds", W))
    assert len(meant) == 1 and isinstance(meant[0], Irregular)
    assert "without a granted call" in meant[0].message
