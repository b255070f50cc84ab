"""The order of the deal at the sensed table and the errors of the deal (engine/deal_order.py,
issue 12; seed 000 配牌 1-4 and 配牌時的犯規 1-4, 7; RULES.md 3.4).

Each test deals a WSOM hand and drives an Interpreter as the service does: every tile the
players take from a wall into a rack goes to `move`, its inputs are applied to the table and
the engine's outputs handed back. East sits on the South side of the table.
"""

import re

import pytest

from engine import events as ev
from engine import tiles
from engine.deal_order import READ_LAG, blocks, redeal_refusal
from engine.seats import side_of, zone
from engine.tampering import Tampering
from engine.wall import Break, Wall
from tests.support.moveskit import DEALER_SIDE, Deal, irregular
from tests.support.tablekit import CCM_DICE, E, N, S, W, of, wsom_game


def names_no_tile(message: str) -> bool:
    """A public message: no word of it is a tile's name (a wall tile is concealed)."""
    return not set(re.findall(r"[\w]+", message)) & set(tiles.NAMES)


def test_seed_000_配牌_1_to_4_the_deal_in_its_order_raises_nothing(wsom):
    """Seed 000 配牌 1-4: E S W N two stacks each, three times, then the jump (East the 1st
    and 5th tiles, S W N one each): no note, no input, every dealt tile arrived; East, with
    14, discards first."""
    deal = Deal(wsom)
    assert [deal.take_block(block.seat, n) for n, block in enumerate(deal.blocks)] == [[]] * 16
    assert deal.interp.to_deal == [set(), set(), set(), set()]
    assert [len(b.tiles) for b in deal.blocks[12:]] == [2, 1, 1, 1]  # the jump
    tile = deal.table.hands[E][-1]
    source, river = zone("hand", side_of(E, DEALER_SIDE)), zone("river", side_of(E, DEALER_SIDE))
    assert deal.interp.move(9.0, tile, source, river) == [ev.TileDiscarded(9.0, E, tile)]


def test_seed_000_配牌_1_to_3_a_block_taken_out_of_turn_is_noted_once(wsom):
    """Seed 000 配牌 1-3: North takes his two stacks before West has taken hers: one note,
    on North's side, naming the rule and no tile, once West's take shows it (a take the
    readers confirm a moment early proves nothing: READ_LAG); the tiles are his all the same,
    and the deal goes on without another note."""
    deal = Deal(wsom)
    assert deal.take_block(E, 0) + deal.take_block(S, 1) == []
    assert deal.take_block(N, 3) == []
    deal.t += READ_LAG
    (note,) = irregular(deal.take_block(W, 2))
    assert note.side == side_of(N, DEALER_SIDE) and "配牌 1-3" in note.message
    assert note.tile is None and names_no_tile(note.message)
    assert deal.interp.to_deal[N] == set(deal.table.hands[N]) - deal.blocks[3].tiles
    others = [n for n in range(16) if n not in (0, 1, 2, 3)]
    rest = [deal.take_block(deal.blocks[n].seat, n) for n in others]
    assert rest == [[]] * 12


def test_a_take_confirmed_a_moment_before_an_earlier_one_is_no_error(wsom):
    """Seed 000 配牌 1-3 read as the readers can: dropped reads may confirm West's take a
    little after North's next one; within READ_LAG that is no note."""
    deal = Deal(wsom)
    for n in (0, 1, 3, 2):
        assert deal.take_block(deal.blocks[n].seat, n) == []


def test_seed_000_配牌時的犯規_4_a_tile_of_anothers_deal_is_noted_not_drawn(wsom):
    """Seed 000 配牌時的犯規 4 (拿錯牌): South takes a tile of West's deal. The referee is told
    (free to put right if unseen, else a penalty he rules), in public words; it is no draw
    out of turn for the engine (no dead-hand penalty proposed); the tile names go only in the
    referee's tampering note (issue 17)."""
    deal = Deal(wsom)
    deal.take_block(E, 0)
    deal.take_block(S, 1)
    tile = min(deal.blocks[2].tiles)
    meant = deal.take(S, tile)
    (note,) = irregular(meant)
    assert "配牌時的犯規 4" in note.message and "West player's deal" in note.message
    assert note.side == side_of(S, DEALER_SIDE) and note.tile == tile
    assert names_no_tile(note.message)
    assert [m for m in meant if isinstance(m, Tampering)]  # for the referee only
    assert not [m for m in meant if isinstance(m, ev.Event)]
    assert deal.table.referee.alerts == 0 and tile not in deal.interp.to_deal[W]


def test_seed_000_配牌時的犯規_3_a_wrong_dealer_is_told_case_by_case(wsom):
    """Seed 000 配牌時的犯規 3 (做錯莊): South begins the deal and the others follow him. The
    referee is told at South's first take (before East's first 4: re-deal), again once East has
    his first 4 (deal on to 12, East jumps), and once East has 12 (South keeps the deal); the
    takes in South's order are no wrong tiles, nor is his jump."""
    deal = Deal(wsom)
    told = []
    for n in range(12):
        told += [(n, m.message) for m in irregular(deal.take_block((S + n) % 4, n))]
    assert [n for n, _ in told] == [0, 3, 11]  # South's first; East's 1st-4th; his 9th-12th
    first, second, third = (message for _, message in told)
    assert all("配牌時的犯規 3" in m and "South player" in m for m in (first, second, third))
    assert "re-dealt" in first and "East takes the jump" in second and "keeps the deal" in third
    jump = [deal.take_block((S + n) % 4, n) for n in range(12, 16)]  # the wrong dealer's jump
    assert jump == [[]] * 4


def test_seed_000_配牌時的犯規_3_the_right_east_may_take_the_jump(wsom):
    """Seed 000 配牌時的犯規 3, the second case: after 12 each under the wrong dealer, the right
    East takes the jump and S W N one each: no wrong tiles."""
    deal = Deal(wsom)
    for n in range(12):
        deal.take_block((S + n) % 4, n)
    assert [deal.take_block(deal.blocks[n].seat, n) for n in range(12, 16)] == [[]] * 4


def test_seed_000_配牌時的犯規_2_a_tile_off_the_break_before_4_each_is_noted(wsom):
    """Seed 000 配牌時的犯規 2 (開錯門): East's first take is not at the break the dice gave: he
    is told to put the break right (no draw for the engine); once each has 4 tiles the break
    stands, and a tile off the deal is the engine's again, as any draw."""
    deal = Deal(wsom)
    wall = deal.table.wall
    stray = wall.tile_at(wall.next_draw_position)  # past the deal's 53 tiles
    (note,) = irregular(deal.take(E, stray))
    assert "配牌時的犯規 2" in note.message and names_no_tile(note.message)
    assert deal.table.referee.alerts == 0
    for n in range(4):
        deal.take_block(n, n)
    other = wall.tile_at(wall.next_replacement_position)
    meant = deal.take(S, other)
    assert irregular(meant) == []  # the engine's, as any draw: it waits for East's discard


def test_seed_000_配牌時的犯規_7_no_redeal_once_all_four_have_discarded():
    """Seed 000 配牌時的犯規 7: a re-deal only until all four have discarded once."""
    assert redeal_refusal([]) is None
    assert redeal_refusal([(E, 1), (S, 2), (W, 3), (S, 4)]) is None  # North has not
    refusal = redeal_refusal([(E, 1), (S, 2), (W, 3), (N, 4)])
    assert refusal is not None and "配牌時的犯規 7" in refusal


def test_seed_000_配牌時的犯規_6_short_at_the_deal_tops_up_before_his_first_discard(wsom):
    """Seed 000 配牌時的犯規 6 (配牌相公, short): South left his jump tile standing; after East's
    first discard he tops up from the wall head (his own tile, the first left there): it
    stands, no note, and his turn's draw is the next live tile as usual."""
    deal = Deal(wsom)
    for n, block in enumerate(deal.blocks):
        if n != 13:  # South's jump tile
            deal.take_block(block.seat, n)
    tile = deal.table.hands[E][-1]
    source, river = zone("hand", side_of(E, DEALER_SIDE)), zone("river", side_of(E, DEALER_SIDE))
    deal.interp.outputs(9.0, deal.table.apply(*deal.interp.move(9.0, tile, source, river)))
    assert deal.take_block(S, 13) == []
    wall = deal.table.wall
    head = wall.tile_at(wall.next_draw_position)
    assert [type(m) for m in deal.take(S, head)] == [ev.ClaimWindowClosed, ev.TileDrawn]
    assert deal.table.hands[S][-1] == head and deal.table.referee.alerts == 0


def made_break(deal: Deal, stacks: int) -> Break:
    """The break `stacks` stacks past (or, negative, short of) the dice's, on the same wall."""
    wall = deal.table.wall
    broken = next(o for o in deal.game.log if isinstance(o, ev.WallBroken))
    ring = 4 * deal.table.rules.stacks_per_side
    assert wall is not None and broken.seat is not None
    return Break(broken.seat, (broken.stacks + stacks) % ring)


def take_from(deal: Deal, brk: Break) -> list:
    """The four take the whole deal, in the right order, from the break `brk`: what it meant."""
    dealt = Wall(deal.table.walls, brk, deal.table.rules.dead_wall).deal(0)
    return [m for n, block in enumerate(blocks(dealt)) for m in deal.take_block_of(block)]


@pytest.mark.parametrize("stacks", [1, 2, -1])
def test_seed_000_配牌時的犯規_2_a_deal_taken_off_the_break_is_開錯門_alone(wsom, stacks):
    """Issue 30 item 3, seed 000 配牌時的犯規 2 (開錯門: 「如果立即發覺便應更正。一旦四家均已各取
    四張牌，已開了的門便當作有效」): the deal taken whole, in the right order, a stack or two off
    the dice's break is one note naming 開錯門, in public words, on the side of the first player
    whose take showed it; no 拿錯牌 (rule 4), no tampering, no input but the BreakMade once
    all four have their first four tiles."""
    deal = Deal(wsom)
    brk = made_break(deal, stacks)
    meant = take_from(deal, brk)
    (note,) = irregular(meant)
    assert "配牌時的犯規 2 開錯門" in note.message and "the break made stands" in note.message
    assert "配牌時的犯規 4" not in note.message and names_no_tile(note.message)
    assert note.tile is None
    assert not [m for m in meant if isinstance(m, Tampering)]
    assert [m for m in meant if isinstance(m, ev.Event)] == [
        ev.BreakMade(m.t, brk.seat, brk.stacks) for m in meant if isinstance(m, ev.BreakMade)
    ]
    assert len([m for m in meant if isinstance(m, ev.BreakMade)]) == 1


@pytest.mark.parametrize("stacks", [2, -1])
def test_seed_000_開門_3_王牌與海底牌_1_the_hand_goes_on_from_the_break_made(wsom, stacks):
    """Issue 30 item 4, seed 000 開門 3 and 王牌與海底牌 1: once the wrong break stands, the
    wall's head, kong tail and 14 dead tiles are the break made's: the hands are its deal
    (every tile each player holds), East's discard and South's draw from the head made stand
    with no wrong-draw note, a replacement comes from the tail made, and the dead wall is 14."""
    deal = Deal(wsom)
    brk = made_break(deal, stacks)
    take_from(deal, brk)
    made = Wall(deal.table.walls, brk, deal.table.rules.dead_wall)
    assert [sorted(h) for h in deal.table.hands] == [sorted(h) for h in made.deal(0)]
    assert deal.interp.to_deal == [set(), set(), set(), set()]
    wall = deal.table.wall
    assert wall.next_draw_position == made.next_draw_position
    assert wall.next_replacement_position == made.next_replacement_position
    assert wall.dead_wall_tiles == made.dead_wall_tiles and len(wall.dead_wall_tiles) == 14
    out = deal.table.apply(ev.TileDiscarded(9.0, E, deal.table.hands[E][-1]))
    assert of(out, ev.Discarded)
    head = wall.tile_at(wall.next_draw_position)
    drawn = [ev.ClaimWindowClosed(deal.t + 0.1, None), ev.TileDrawn(deal.t + 0.1, S, head)]
    assert deal.take(S, head) == drawn  # no tampering, no note
    assert deal.table.hands[S][-1] == head and deal.table.referee.alerts == 0


def test_seed_000_開錯門_the_break_made_is_refused_after_the_first_discard(wsom):
    """Seed 000 配牌時的犯規 2: the break stands at the deal; once a tile beyond it has moved
    (East's discard) a BreakMade is refused, saying why, and the wall is left as it was."""
    game = wsom_game(wsom)
    head = game.table.wall.next_draw_position
    game.discard(E, tiles.NAMES[tiles.kind_of(game.table.hands[E][-1])])
    (alert,) = of(game.table.apply(ev.BreakMade(5.0, W, 14)), ev.Alert)
    assert "開錯門" in alert.message and "beyond the deal" in alert.message
    assert game.table.wall.next_draw_position == head


def test_seed_004_has_no_wrong_break_standing(ccm):
    """Seed 004 has no rule letting a wrong break stand: a deal taken a stack off the break
    is told once, without 拿錯牌 or tampering, to be put right or re-dealt, and gives no
    BreakMade; one entered is refused (the referee re-deals)."""
    deal = Deal(ccm, CCM_DICE)
    meant = take_from(deal, made_break(deal, 1))
    (note,) = irregular(meant)
    assert "開錯門" in note.message and "redeal" in note.message
    assert not [m for m in meant if isinstance(m, (Tampering, ev.BreakMade))]
    (alert,) = of(deal.table.apply(ev.BreakMade(1.0, W, 9)), ev.Alert)
    assert "no wrong break standing" in alert.message and "redeal" in alert.message


def test_seed_000_開錯門_put_right_at_once_the_hand_goes_on_from_the_dices_break(wsom):
    """Seed 000 配牌時的犯規 2 「如果立即發覺便應更正」: East takes his first four tiles two
    stacks past the break (told once, 開錯門), puts them back in the wall, and the deal is
    taken again from the dice's break: no other note, no BreakMade, the hands as dealt."""
    deal = Deal(wsom)
    dealt = [list(h) for h in deal.table.hands]
    wrong = blocks(Wall(deal.table.walls, made_break(deal, 2), 14).deal(0))[0]
    (note,) = irregular(deal.take_block_of(wrong))
    assert "開錯門" in note.message
    for tile in sorted(wrong.tiles):
        wall = next(s for s in range(4) if tile in deal.table.walls[s])
        back = deal.interp.move(
            deal.t,
            tile,
            zone("hand", side_of(E, DEALER_SIDE)),
            zone("wall", side_of(wall, DEALER_SIDE)),
        )
        assert back == []
    meant = [m for block in deal.blocks for m in deal.take_block_of(block)]
    assert meant == [] and deal.table.hands == dealt
    assert deal.interp.to_deal == [set(), set(), set(), set()]
