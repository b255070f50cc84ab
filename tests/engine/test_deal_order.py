"""The order of the deal at the sensed table and the errors of the deal (engine/deal_order.py,
issue 12; seed 000 配牌 1-4 and 配牌時的犯規 1-4, 7; RULES.md 3.4).

Each test deals a WSOM hand and drives an Interpreter as the service does: every tile the
players take from a wall into a rack goes to `move`, its inputs are applied to the table and
the engine's outputs handed back. East sits on the South side of the table.
"""

import re

from engine import events as ev
from engine import tiles
from engine.deal_order import READ_LAG, redeal_refusal
from engine.seats import side_of, zone
from engine.tampering import Tampering
from tests.support.moveskit import DEALER_SIDE, Deal, irregular
from tests.support.tablekit import E, N, S, W


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
