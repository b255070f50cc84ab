"""The deal and the draws in turn from walls and dice, by the side of the table each hand sits
on: what a rigged machine's chip aims at (drivers/sim/) and what the table and the venue
recompute to watch the shuffler (firmware/audit/shuffle_watch.py, firmware/venue/fairness.py)."""

from engine.rulebook import TableRules
from engine.wall import Break, Wall, build_walls, table_break, wsom_break

Rolls = tuple[tuple[int, int], ...]  # the dice as thrown: one roll, or WSOM's two


def break_of(rolls: tuple[tuple[int, ...], ...], rules: TableRules) -> Break:
    """Where the dice open the wall, East rolling first (RULES.md 3.4, 4.4)."""
    if rules.two_roll_break:
        return wsom_break(sum(rolls[0]), sum(rolls[1]))
    return table_break(sum(rolls[0]), 0, rules.start_offset)


def starting_hands(order: list[int], dealer: int, rolls: Rolls, rules: TableRules):
    """The 13 tiles each physical side is dealt (East's first 13) from walls stacked in
    `order` (lane by lane, E S W N, as the lanes stack them), `dealer` the side East sits on."""
    return deal_by_side(order, dealer, rolls, rules, 0)[0]


def deal_by_side(order: list[int], dealer: int, rolls: Rolls, rules: TableRules, per_seat: int):
    """(starting hands, first `per_seat` draws in turn) by physical side: one wall for both."""
    lanes = build_walls(order, len(order) // 8)
    wall = Wall(
        [lanes[(dealer + seat) % 4] for seat in range(4)], break_of(rolls, rules), rules.dead_wall
    )
    hands = wall.deal(0)
    drawn = _drawn(wall, per_seat)
    return (
        [hands[(side - dealer) % 4][:13] for side in range(4)],
        [drawn[(side - dealer) % 4] for side in range(4)],
    )


def draws_by_side(order: list[int], dealer: int, rolls: Rolls, rules: TableRules, per_seat: int):
    """The first `per_seat` draws in turn (turn_draws) by physical side, for walls stacked
    in `order` with East on side `dealer`."""
    return deal_by_side(order, dealer, rolls, rules, per_seat)[1]


def turn_draws(walls: list[list[int]], brk: Break, dead_wall: int, per_seat: int):
    """The first `per_seat` live tiles each seat (E S W N) draws from `walls` (by seat) opened
    at `brk`, if nobody claims: South first, East holding 14. These are the places a machine
    stacking a seat's draws must aim at, since it cannot foresee the claims (issue 35)."""
    wall = Wall(walls, brk, dead_wall)
    wall.deal(0)
    return _drawn(wall, per_seat)


def _drawn(wall: Wall, per_seat: int) -> list[list[int]]:
    drawn: list[list[int]] = [[] for _ in range(4)]
    for index in range(4 * per_seat):
        tile = wall.tile_at(wall.live_position(index))
        if tile is None:
            break
        drawn[(1 + index) % 4].append(tile)
    return drawn
