"""A tile drawn from the wrong place stands (seed 000 摸牌時的犯規 1, 摸錯牌; RULES.md 3.5, 3.6).

「如果選手摸錯了牌或誤從槓尾摸牌，該摸牌當作有效，牌局繼續。…否則裁判會給予警告，並且如果摸錯牌
時正好自摸和，便會判罰扣分。」 The tile taken is the drawer's, the wall loses it where it stood, the
next draw still comes from the head, and the referee confirms or waives a warning; a self-drawn win
on it stands with a point penalty proposed. CCM's seed 004 is silent: the draw stands and the
referee is told.
"""

import copy

from engine import events as ev
from engine import tiles
from engine.moves import Interpreter
from engine.seats import ZONES, side_of, zone
from engine.tampering import Tampering
from firmware.desk.desk import Desk
from firmware.journal.store import Journal
from tests.support.servicekit import Clock, dealt_service
from tests.support.tablekit import E, Game, S, W, of

WSOM_DICE = ((3, 4), (2, 3))
CCM_DICE = (3, 4)
DEALER_SIDE = 1  # East sits on the South side of the table


def after_first_discard(ruleset, dice, **layout) -> Game:
    """East has discarded and nobody called: South is to draw."""
    game = Game(ruleset, dice, **layout)
    game.start()
    game.ok(ev.TileDiscarded, E, tile=game.table.hands[E][-1])
    game.close()
    return game


def live_tile(game: Game, n: int) -> int:
    """The id of the n-th tile from the head (0 = the head), still standing."""
    wall = copy.deepcopy(game.table.broken_wall)
    for _ in range(n):
        wall.draw()
    return wall.tile_at(wall.next_draw_position)


def wrong_draw(game: Game, seat: int, tile: int) -> tuple[ev.Drew, ev.Alert]:
    out = game.apply(ev.TileDrawn, seat, tile=tile)
    (drew,), (alert,) = of(out, ev.Drew), of(out, ev.Alert)
    return drew, alert


def test_seed_000_wrong_draw_stands_and_the_next_draw_comes_from_the_head(wsom):
    """Seed 000 摸牌時的犯規 1: 該摸牌當作有效，牌局繼續 (today's main refused the draw and waited
    for a draw that never came)."""
    game = after_first_discard(wsom, WSOM_DICE)
    wall = game.table.broken_wall
    head, third, live = wall.next_draw_position, live_tile(game, 3), wall.live_count
    head_tile = wall.tile_at(head)
    drew, alert = wrong_draw(game, S, third)
    assert (drew.seat, drew.tile, drew.replacement) == (S, third, False)
    assert third in game.table.hands[S] and wall.position_of(third) is None
    assert game.table.state == "discard" and game.table.in_turn(S)
    assert wall.next_draw_position == head and wall.live_count == live - 1
    assert len(wall.dead_wall_tiles) == 14
    assert alert.penalty["offence"] == "wrong_draw" and alert.penalty["points"] == 0
    assert alert.needs_ruling and "the draw stands" in alert.message
    game.ok(ev.TileDiscarded, S, tile=third)
    game.close()
    assert game.draw(2).tile == head_tile  # West's draw: the head, as before


def test_seed_000_wrong_draw_warning_is_confirmed_on_the_record(wsom):
    """Seed 000 摸牌時的犯規 1: 裁判會給予警告 — confirmed, a 0-point penalty on the record that
    takes nothing away."""
    game = after_first_discard(wsom, WSOM_DICE)
    _, alert = wrong_draw(game, S, live_tile(game, 5))
    assert alert.id in game.table.referee.pending
    (applied,) = of(game.apply(ev.Ruling, None, alert=alert.id, apply=True), ev.PenaltyApplied)
    assert (applied.seat, applied.offence, applied.points, applied.effect) == (
        S,
        "wrong_draw",
        0,
        "",
    )
    referee = game.table.referee
    assert not referee.no_win[S] and not referee.no_calls[S] and not referee.penalty_tiles[S]


def test_seed_000_wrong_draw_warning_waived_when_the_opponents_share_the_blame(wsom):
    """Seed 000 摸牌時的犯規 1: 如果裁判員判定對手應負部份責任…則可以免罰."""
    game = after_first_discard(wsom, WSOM_DICE)
    _, alert = wrong_draw(game, S, live_tile(game, 2))
    out = game.apply(ev.Ruling, None, alert=alert.id, apply=False)
    assert out == [ev.PenaltyWaived(game.clock, S, alert.id)]
    assert not game.table.referee.applied


def test_seed_000_draw_from_the_kong_tail_stands_and_the_dead_wall_stays_14(wsom):
    """Seed 000 摸牌時的犯規 1: 誤從槓尾摸牌 stands; the dead wall stays 14 tiles, the last live
    tile going to it (RULES.md 3.5, A-W11)."""
    game = after_first_discard(wsom, WSOM_DICE)
    wall = game.table.broken_wall
    tail = wall.tile_at(wall.next_replacement_position)
    seabed_before = live_tile(game, wall.live_count - 1)
    live = wall.live_count
    drew, alert = wrong_draw(game, S, tail)
    assert drew.tile == tail and alert.penalty["offence"] == "wrong_draw"
    assert len(wall.dead_wall_tiles) == 14 and wall.live_count == live - 1
    assert seabed_before == wall.dead_wall_tiles[0]  # the last live tile is dead now


def test_seed_000_self_drawn_win_on_a_wrong_draw_stands_with_a_point_penalty(wsom):
    """Seed 000 摸牌時的犯規 1: 如果摸錯牌時正好自摸和，便會判罰扣分 — the win stands, and the rule
    book's points (config wrong_draw_win) are proposed for the referee."""
    game = after_first_discard(
        wsom, WSOM_DICE, hands=["", "123m 456p 789s EEE N", "", ""], draws={3: "N"}
    )
    _, warning = wrong_draw(game, S, live_tile(game, 3))
    out = game.apply(ev.WinDeclared, S)
    assert game.table.state == "won" and game.table.results[0].winner == S
    (alert,) = [a for a in of(out, ev.Alert) if a.penalty]
    assert alert.penalty["offence"] == "wrong_draw_win" and alert.penalty["points"] == 10
    assert alert.id in game.table.referee.pending and warning.id in game.table.referee.pending
    (applied,) = of(game.apply(ev.Ruling, None, alert=alert.id, apply=True), ev.PenaltyApplied)
    assert applied.points == 10 and applied.offence == "wrong_draw_win"


def test_seed_000_a_win_on_a_draw_from_the_head_costs_nothing(wsom):
    """Seed 000 摸牌時的犯規 1 applies to the wrong draw only: a right draw's win has no penalty."""
    game = after_first_discard(
        wsom, WSOM_DICE, hands=["", "123m 456p 789s EEE N", "", ""], draws={0: "N"}
    )
    game.draw(S)
    out = game.apply(ev.WinDeclared, S)
    assert game.table.state == "won" and not [a for a in of(out, ev.Alert) if a.penalty]


def test_a_tile_the_wall_does_not_hold_is_refused_and_play_goes_on(wsom):
    """Not a wrong draw: a tile already in a hand cannot come from the wall. Refused with an
    alert, nothing changed, and the right draw still moves the hand on (no dead end)."""
    game = after_first_discard(wsom, WSOM_DICE)
    alert = game.refused(ev.TileDrawn, S, tile=game.table.hands[E][0])
    assert alert.needs_ruling and "the wall does not hold" in alert.message
    assert game.draw(S).seat == S and game.table.in_turn(S)


def test_ccm_wrong_draw_stands_and_the_referee_is_told(ccm):
    """Seed 004 is silent on a wrong draw: the same as seed 000 摸牌時的犯規 1 without points —
    the draw stands and the referee is told; a self-drawn win on it has no penalty."""
    game = after_first_discard(ccm, CCM_DICE, hands=["", "123m 456p 789s EEE N", "", ""])
    game.table.referee.pending.clear()  # any flower business of the deal is not this test's
    tile = live_tile(game, 4)
    drew, alert = wrong_draw(game, S, tile)
    assert drew.tile == tile and alert.penalty["offence"] == "wrong_draw"
    assert alert.penalty["points"] == 0 and alert.rule == "RULES.md 4.4"
    assert game.table.broken_wall.position_of(tile) is None


def test_issue_17_a_draw_not_from_the_head_is_seen_as_possible_tampering(wsom):
    """Issue 17 "Tampering seen", seed 000 摸牌時的犯規 1: South takes a tile that is not the one
    the walls had at the head: a tile swapped in the wall or a draw from the wrong place. The
    interpreter names the head's position (lane and stack) and both kinds for the referee, and
    hands the engine the draw of that tile, which stands."""
    game = after_first_discard(wsom, WSOM_DICE)
    interp = Interpreter(game.table, DEALER_SIDE, claim_window=2.0)
    wall = game.table.broken_wall
    seat_of_head, place = wall.next_draw_position
    head, taken = wall.tile_at(wall.next_draw_position), live_tile(game, 6)
    lane = ("East", "South", "West", "North")[side_of(seat_of_head, DEALER_SIDE)]
    note, drawn = interp.move(9.0, taken, zone("wall", 0), zone("hand", side_of(S, DEALER_SIDE)))
    assert isinstance(note, Tampering) and note.tile == taken
    assert f"the {lane} wall, stack {place // 2 + 1}" in note.message
    assert tiles.NAMES[tiles.kind_of(head)] in note.message
    assert tiles.NAMES[tiles.kind_of(taken)] in note.message
    assert drawn == ev.TileDrawn(9.0, S, taken)
    assert of(game.table.apply(drawn), ev.Drew)[0].tile == taken


def test_issue_17_the_head_tile_drawn_is_no_tampering(wsom):
    """Issue 17: the tile the walls had at the head raises nothing."""
    game = after_first_discard(wsom, WSOM_DICE)
    interp = Interpreter(game.table, DEALER_SIDE, claim_window=2.0)
    head = game.table.broken_wall.tile_at(game.table.broken_wall.next_draw_position)
    target = zone("hand", side_of(S, DEALER_SIDE))
    assert interp.move(9.0, head, zone("wall", 0), target) == [ev.TileDrawn(9.0, S, head)]
    west = zone("hand", side_of(W, DEALER_SIDE))
    early = interp.move(9.5, live_tile(game, 3), zone("wall", 0), west)
    assert not [n for n in early if isinstance(n, Tampering)]  # not his draw: not a swap


def test_issue_17_a_dealt_tile_the_walls_did_not_have_is_a_fault_at_once(tmp_path):
    """Issue 17 "Tampering seen" at the firmware: during the deal South's rack gets a wall tile
    that is not one of the tiles the walls had for his deal. A fault at once, for the referee:
    its message names where the stacker read the tile and the kinds; the public's view names
    neither, and the tile stays out of the public record."""
    clock = Clock()
    service = dealt_service(Journal(tmp_path / "tamper.sqlite"), clock)
    hands = service.hands
    table, dealer = hands.table, hands.session.player_at(0)
    where = dict(hands.tracker.layout())
    for seat, hand in enumerate(table.hands):
        for tile in hand:
            where[tile] = zone("hand", side_of(seat, dealer))
    kept = table.hands[S][0]  # left in the wall; the head's tile taken instead
    swapped = table.broken_wall.tile_at(table.broken_wall.next_draw_position)
    where[kept], where[swapped] = where[swapped], zone("hand", side_of(S, dealer))
    tag = {owner: tag for tag, owner in service.profile.tags.items()}
    for _ in range(4):
        clock.t += 0.25
        for name in ZONES:
            seen = [tag[(hands.set_in_play, t)] for t, z in where.items() if z == name]
            hands.sweep(clock.t, name, seen)
    (fault,) = [f for f in service.status().faults if f.kind == "tampering"]
    assert fault.device == "tracking" and fault.tile == swapped and "stack" in fault.message
    assert tiles.NAMES[tiles.kind_of(swapped)] in fault.message
    assert tiles.NAMES[tiles.kind_of(kept)] in fault.message
    public = Desk(service, "test table").snapshot(False)["faults"]
    (shown,) = [f for f in public if f["kind"] == "tampering"]
    assert "stack" not in shown["message"] and "tile" not in shown
    assert "tile" not in fault.public_json()
