"""Wall geometry: dice counting, break, deal, draws, replacements, dead wall, seabed.

Expected tile ids are worked out by hand from unshuffled layouts, where the walls are laid from
`range(...)` with seat 0's wall first:
  WSOM (17 stacks): seat s, stack k counted from his right end (1-based): top 34*s + 2*(k-1),
                    bottom one more. East 0..33, South 34..67, West 68..101, North 102..135.
  CCM  (18 stacks): top 36*s + 2*(k-1). East 0..35, South 36..71, West 72..107, North 108..143.
Clockwise after a wall's left end comes the left neighbour's (seat - 1) right end.
"""

import random

import pytest

from engine.wall import Break, Wall, WallEmpty, build_walls, dice_seat, table_break, wsom_break

E, S, W, N = 0, 1, 2, 3


def wsom_wall(brk: Break) -> Wall:
    return Wall(build_walls(list(range(136)), 17), brk, dead_wall=14)


def ccm_wall(brk: Break) -> Wall:
    return Wall(build_walls(list(range(144)), 18), brk, dead_wall=0)


# RULES.md 3.3: counting dice -------------------------------------------------------------------


def test_dice_seat_every_total_from_east_rules_3_3():
    """RULES.md 3.3: 5, 9 roller; 2, 6, 10 right; 3, 7, 11 opposite; 4, 8, 12 left."""
    expected = {2: S, 3: W, 4: N, 5: E, 6: S, 7: W, 8: N, 9: E, 10: S, 11: W, 12: N}
    assert {total: dice_seat(total, E) for total in range(2, 13)} == expected


def test_dice_seat_roller_other_than_east_rules_3_3():
    """RULES.md 3.3 from North (seat 3): his right neighbour is East, his left is West."""
    expected = {2: E, 3: S, 4: W, 5: N, 6: E, 7: S, 8: W, 9: N, 10: E, 11: S, 12: W}
    assert {total: dice_seat(total, N) for total in range(2, 13)} == expected
    assert dice_seat(7, S) == N and dice_seat(4, W) == S


@pytest.mark.parametrize("total", [0, 1, 13, 7.0, "7", True])
def test_dice_seat_rejects_impossible_totals_rules_3_3(total):
    with pytest.raises(ValueError, match=r"2\.\.12"):
        dice_seat(total, E)


def test_dice_seat_rejects_unknown_roller():
    with pytest.raises(ValueError, match=r"seat 0\.\.3"):
        dice_seat(7, 4)


# RULES.md 3.4: WSOM two-roll break --------------------------------------------------------------


def test_wsom_break_opener_and_count_for_every_roll_pair_rules_3_4():
    """RULES.md 3.4: the dealer's roll picks the 開門人; the two rolls' sum is the count."""
    opener_from_east = {2: S, 3: W, 4: N, 5: E, 6: S, 7: W, 8: N, 9: E, 10: S, 11: W, 12: N}
    opener_from_west = {2: N, 3: E, 4: S, 5: W, 6: N, 7: E, 8: S, 9: W, 10: N, 11: E, 12: S}
    sums = set()
    for first in range(2, 13):
        for second in range(2, 13):
            assert wsom_break(first, second) == Break(opener_from_east[first], first + second)
            assert wsom_break(first, second, dealer=W).seat == opener_from_west[first]
            sums.add(wsom_break(first, second).stacks)
    assert sums == set(range(4, 25))  # two rolls of two dice: 4..24 (RULES.md says 2-24)


# count: (wall of the head, head stack number in that wall, head top tile, tail-end top tile)
# East breaks; 18 and beyond continue into North's wall (East's left neighbour), stack 18 = its
# rightmost. Counts 2 and 3 cannot be rolled but are covered as RULES.md states 2..24.
WSOM_BREAKS_EAST = {
    2: (E, 3, 4, 2),
    3: (E, 4, 6, 4),
    4: (E, 5, 8, 6),
    5: (E, 6, 10, 8),
    6: (E, 7, 12, 10),
    7: (E, 8, 14, 12),
    8: (E, 9, 16, 14),
    9: (E, 10, 18, 16),
    10: (E, 11, 20, 18),
    11: (E, 12, 22, 20),
    12: (E, 13, 24, 22),
    13: (E, 14, 26, 24),
    14: (E, 15, 28, 26),
    15: (E, 16, 30, 28),
    16: (E, 17, 32, 30),
    17: (N, 1, 102, 32),
    18: (N, 2, 104, 102),
    19: (N, 3, 106, 104),
    20: (N, 4, 108, 106),
    21: (N, 5, 110, 108),
    22: (N, 6, 112, 110),
    23: (N, 7, 114, 112),
    24: (N, 8, 116, 114),
}


@pytest.mark.parametrize("count", sorted(WSOM_BREAKS_EAST))
def test_wsom_break_head_and_tail_for_every_count_rules_3_4(count):
    """RULES.md 3.4: `count` stacks from the 開門人's right end are the tail; the head is the
    next stack; past 17 the count runs on in the left neighbour's wall, rightmost stack = 18."""
    head_seat, head_stack, head_top, tail_top = WSOM_BREAKS_EAST[count]
    wall = wsom_wall(Break(E, count))
    seat, place = wall.next_draw_position
    assert (seat, place // 2 + 1, place % 2) == (head_seat, head_stack, 0)
    assert [wall.draw(), wall.draw()] == [head_top, head_top + 1]  # top, then bottom
    assert wall.draw_replacement() == tail_top


def test_wsom_break_from_the_opposite_player_into_his_left_neighbour_rules_3_4():
    """RULES.md 3.4: East rolls 7 -> West opens; West rolls 12 -> 19 stacks: West's 17, then
    South's (West's left neighbour) stacks 18 and 19 are the tail; the head is South's 3rd."""
    brk = wsom_break(7, 12)
    assert brk == Break(W, 19)
    wall = wsom_wall(brk)
    assert wall.next_draw_position == (S, 4)
    assert wall.draw() == 38
    assert wall.next_replacement_position == (S, 2)
    assert wall.draw_replacement() == 36


@pytest.mark.parametrize("rolls", [(1, 6), (6, 13), (6, 1), (13, 2)])
def test_wsom_break_rejects_impossible_rolls(rolls):
    with pytest.raises(ValueError, match="roll"):
        wsom_break(*rolls)


# RULES.md 4.4, A-C1: single-roll break (CCM; WSOM break_mode = "table", A-W13) ----------------

# total: (break, head top tile) on the 18-stack CCM layout; the head is stack number `total`.
TABLE_BREAKS_EAST = {
    2: (Break(S, 1), 38),
    3: (Break(W, 2), 76),
    4: (Break(N, 3), 114),
    5: (Break(E, 4), 8),
    6: (Break(S, 5), 46),
    7: (Break(W, 6), 84),
    8: (Break(N, 7), 122),
    9: (Break(E, 8), 16),
    10: (Break(S, 9), 54),
    11: (Break(W, 10), 92),
    12: (Break(N, 11), 130),
}


@pytest.mark.parametrize("total", sorted(TABLE_BREAKS_EAST))
def test_table_break_every_total_rules_4_4_a_c1(total):
    """RULES.md 4.4, A-C1: the total picks the wall and dealing starts AT that stack."""
    brk, head_top = TABLE_BREAKS_EAST[total]
    assert table_break(total) == brk
    assert ccm_wall(brk).draw() == head_top


def test_table_break_seed_example_and_offset_rules_4_4_a_c1():
    """Seed 004: 7 -> the opposite player's wall, 7th stack; A-C1: the offset is configurable."""
    wall = ccm_wall(table_break(7))
    assert wall.next_draw_position == (W, 12)  # West's 7th stack, top tile
    assert wall.draw() == 84
    assert table_break(7, start_offset=1) == Break(W, 7)
    assert ccm_wall(table_break(7, start_offset=1)).draw() == 86
    assert table_break(7, dealer=S) == Break(N, 6)


# RULES.md 3.4, 4.4, A-C2: the deal -------------------------------------------------------------


def test_wsom_deal_exact_tiles_and_jump_rules_3_4_a_c2():
    """RULES.md 3.4: 3 x 4 tiles each from East in turn order, then the jump: East the 1st and
    5th tiles of the head (124, 128), South 125, West 126, North 127. West's second round
    crosses from East's wall into North's."""
    wall = wsom_wall(Break(E, 4))
    hands = wall.deal()
    assert hands == [
        [8, 9, 10, 11, 24, 25, 26, 27, 108, 109, 110, 111, 124, 128],
        [12, 13, 14, 15, 28, 29, 30, 31, 112, 113, 114, 115, 125],
        [16, 17, 18, 19, 32, 33, 102, 103, 116, 117, 118, 119, 126],
        [20, 21, 22, 23, 104, 105, 106, 107, 120, 121, 122, 123, 127],
    ]
    standing = wall.remaining()
    assert standing[N][26] is None and standing[N][27] == 129  # the jump left 129 standing
    assert wall.live_count == 136 - 14 - 53 == 69
    assert wall.draw() == 129


def test_deal_with_south_dealing_rules_3_4():
    """RULES.md 3.4: the dealer takes first and jumps, whichever seat he is in."""
    hands = wsom_wall(Break(E, 4)).deal(dealer=S)
    assert [len(h) for h in hands] == [13, 14, 13, 13]
    assert hands[S][:4] == [8, 9, 10, 11] and hands[S][-2:] == [124, 128]
    assert (hands[W][-1], hands[N][-1], hands[E][-1]) == (125, 126, 127)


def test_ccm_deal_exact_tiles_rules_4_4_a_c2():
    """RULES.md 4.4: roll 7 -> West's 7th stack; after West's left end come South's stacks."""
    wall = ccm_wall(table_break(7))
    assert wall.deal() == [
        [84, 85, 86, 87, 100, 101, 102, 103, 44, 45, 46, 47, 60, 64],
        [88, 89, 90, 91, 104, 105, 106, 107, 48, 49, 50, 51, 61],
        [92, 93, 94, 95, 36, 37, 38, 39, 52, 53, 54, 55, 62],
        [96, 97, 98, 99, 40, 41, 42, 43, 56, 57, 58, 59, 63],
    ]
    assert wall.live_count == 144 - 53 == 91
    assert wall.draw() == 65


def test_deal_only_before_any_tile_is_taken():
    wall = wsom_wall(Break(E, 4))
    wall.draw()
    with pytest.raises(RuntimeError, match="deal must come first"):
        wall.deal()
    dealt = wsom_wall(Break(E, 4))
    dealt.deal()
    with pytest.raises(RuntimeError):
        dealt.deal()


# Draw order, replacements, dead wall, seabed (RULES.md 3.4, 3.5, A-W10, A-W11, 4.5) --------------


def test_draws_run_clockwise_across_a_wall_boundary_rules_3_4():
    """RULES.md 3.4: drawing goes clockwise: East's left end (30..33) then North's right end."""
    wall = wsom_wall(Break(E, 15))
    assert [wall.draw() for _ in range(6)] == [30, 31, 32, 33, 102, 103]


def test_kong_replacements_from_the_tail_keep_the_dead_wall_at_14_rules_3_5_a_w11():
    """RULES.md 3.5, A-W11: top of the last tail stack first, then its bottom, then the stack
    before it, wrapping into South's (the ring's last) wall; the dead wall stays 14 and each
    replacement takes one tile from the live wall."""
    wall = wsom_wall(Break(E, 4))
    assert wall.dead_wall_tiles == [62, 63, 64, 65, 66, 67, 0, 1, 2, 3, 4, 5, 6, 7]
    assert wall.live_count == 122
    assert wall.draw_replacement() == 6
    # half a stack at the tail: the 7th tail stack (60, 61) splits, 61 joins the dead wall
    assert wall.dead_wall_tiles == [61, 62, 63, 64, 65, 66, 67, 0, 1, 2, 3, 4, 5, 7]
    assert wall.live_count == 121
    assert wall.draw_replacement() == 7
    assert wall.dead_wall_tiles == [60, 61, 62, 63, 64, 65, 66, 67, 0, 1, 2, 3, 4, 5]
    assert wall.live_count == 120
    taken = [wall.draw_replacement() for _ in range(8)]
    assert taken == [4, 5, 2, 3, 0, 1, 66, 67]
    assert len(wall.dead_wall_tiles) == 14 and wall.live_count == 112


def test_seabed_is_the_tile_just_before_the_dead_wall_after_kongs_rules_3_5_a_w11():
    """A-W11: after two replacements (6, 7) the dead wall is 60..67, 0..5: the seabed is 59."""
    wall = wsom_wall(Break(E, 4))
    wall.deal()
    assert [wall.draw_replacement(), wall.draw_replacement()] == [6, 7]
    draws = []
    while wall.live_count:
        draws.append(wall.draw())
    assert len(draws) == 67 and draws[-1] == 59


def test_wsom_last_live_tile_after_69_draws_then_wall_empty_rules_3_5():
    """RULES.md 3.5: 136 - 14 = 122 live, 53 dealt, 69 draws; the 69th is the seabed (61)."""
    wall = wsom_wall(Break(E, 4))
    wall.deal()
    for _ in range(68):
        assert not wall.is_last_live
        wall.draw()
    assert wall.is_last_live
    assert wall.draw() == 61
    assert wall.live_count == 0 and not wall.is_last_live
    assert wall.next_draw_position is None and wall.next_replacement_position is None
    with pytest.raises(WallEmpty):
        wall.draw()
    with pytest.raises(WallEmpty):
        wall.draw_replacement()
    assert wall.dead_wall_tiles == [62, 63, 64, 65, 66, 67, 0, 1, 2, 3, 4, 5, 6, 7]


def test_kong_on_the_second_to_last_tile_its_replacement_is_the_seabed_a_w10():
    """A-W10, A-W11: with one live tile left a replacement still comes from the tail (6) and
    the old seabed (61) joins the dead wall: the replacement was the last live tile."""
    wall = wsom_wall(Break(E, 4))
    wall.deal()
    for _ in range(68):
        wall.draw()
    assert wall.is_last_live
    assert wall.draw_replacement() == 6
    assert wall.live_count == 0
    assert wall.dead_wall_tiles == [61, 62, 63, 64, 65, 66, 67, 0, 1, 2, 3, 4, 5, 7]
    with pytest.raises(WallEmpty):
        wall.draw()


def test_ccm_has_no_dead_wall_the_144th_tile_is_the_last_rules_4_4():
    """Seed 004 (荒牌 after the 144th tile): dead_wall = 0, the tail end (West's 6th stack,
    bottom 83) is the last draw."""
    wall = ccm_wall(table_break(7))
    wall.deal()
    assert wall.dead_wall_tiles == []
    draws = [wall.draw() for _ in range(91)]
    assert draws[:3] == [65, 66, 67] and draws[-4:] == [80, 81, 82, 83]
    assert wall.live_count == 0
    assert all(tile is None for row in wall.remaining() for tile in row)
    with pytest.raises(WallEmpty):
        wall.draw()


def test_ccm_flower_replacements_from_the_tail_rules_4_5():
    """RULES.md 4.5: flower (and kong) replacements come from the tail: 82, 83, then 80, 81."""
    wall = ccm_wall(table_break(7))
    wall.deal()
    assert [wall.draw_replacement() for _ in range(4)] == [82, 83, 80, 81]
    assert wall.live_count == 87
    assert wall.remaining()[W][8:12] == [None] * 4 and wall.remaining()[W][7] == 79


def test_remaining_shows_what_still_stands():
    walls = build_walls(list(range(136)), 17)
    wall = Wall(walls, Break(E, 4), dead_wall=14)
    assert wall.remaining() == walls
    assert (wall.draw(), wall.draw_replacement()) == (8, 6)
    standing = wall.remaining()
    assert standing[E][8] is None and standing[E][6] is None
    assert standing[E][9] == 9 and standing[E][7] == 7


# Tile conservation -----------------------------------------------------------------------------


@pytest.mark.parametrize("tiles, stacks, dead, seed", [(136, 17, 14, 2006), (144, 18, 0, 2012)])
def test_every_tile_is_in_exactly_one_place_at_every_step(tiles, stacks, dead, seed):
    """RULES.md 3.4-3.5, 4.4-4.5: hands + taken tiles + standing wall = the whole set, always."""
    rng = random.Random(seed)
    order = list(range(tiles))
    rng.shuffle(order)
    brk = (
        wsom_break(rng.randint(2, 12), rng.randint(2, 12))
        if dead
        else table_break(rng.randint(2, 12))
    )
    wall = Wall(build_walls(order, stacks), brk, dead)

    def check(taken):
        standing = [t for row in wall.remaining() for t in row if t is not None]
        assert len(standing) == wall.live_count + len(wall.dead_wall_tiles)
        assert sorted(taken + standing) == list(range(tiles))

    taken = [t for hand in wall.deal() for t in hand]
    check(taken)
    step = 0
    while True:
        step += 1
        try:
            taken.append(wall.draw_replacement() if step % 7 == 0 else wall.draw())
        except WallEmpty:
            break
        check(taken)
    assert len(taken) == tiles - dead


# Validation ------------------------------------------------------------------------------------


def good_walls():
    return build_walls(list(range(136)), 17)


@pytest.mark.parametrize(
    "walls, message",
    [
        (good_walls()[:3], "four walls"),
        ([w[:-2] if seat == 1 else w for seat, w in enumerate(good_walls())], "same"),
        ([w[:-1] for w in good_walls()], "even"),
        ([[], [], [], []], "non-zero"),
        ([w if seat != 2 else [0] + w[1:] for seat, w in enumerate(good_walls())], "appears twice"),
    ],
)
def test_malformed_walls_are_refused_with_the_reason(walls, message):
    with pytest.raises(ValueError, match=message):
        Wall(walls, Break(E, 4), dead_wall=14)


def test_break_and_dead_wall_must_fit_the_table():
    with pytest.raises(ValueError, match="beyond the 68 stacks"):
        Wall(good_walls(), Break(E, 68), dead_wall=14)
    with pytest.raises(ValueError, match="dead wall"):
        Wall(good_walls(), Break(E, 4), dead_wall=137)
    with pytest.raises(ValueError, match="dead wall"):
        Wall(good_walls(), Break(E, 4), dead_wall=-1)
    with pytest.raises(ValueError, match=r"seat 0\.\.3"):
        Break(4, 0)
    with pytest.raises(ValueError, match="stacks"):
        Break(E, -1)


def test_build_walls_needs_exactly_four_walls_of_tiles():
    with pytest.raises(ValueError, match="need 136"):
        build_walls(list(range(135)), 17)
    with pytest.raises(ValueError, match="need 144"):
        build_walls(list(range(136)), 18)
