"""The deal from walls and dice, by the side of the table each hand sits on: what a rigged
machine's chip aims at (drivers/sim/mechanism.py) and what the table and the venue recompute
to watch the shuffler (firmware/audit/shuffle_watch.py, firmware/venue/fairness.py)."""

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
    lanes = build_walls(order, len(order) // 8)
    walls = [lanes[(dealer + seat) % 4] for seat in range(4)]
    hands = Wall(walls, break_of(rolls, rules), rules.dead_wall).deal(0)
    return [hands[(side - dealer) % 4][:13] for side in range(4)]
