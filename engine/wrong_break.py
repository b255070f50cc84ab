"""A deal taken from the wrong break (seed 000 配牌時的犯規 2 開錯門; 開門 3, 王牌與海底牌 1).

East may begin the deal a stack or two off the break the dice gave, and the others follow
him: each then takes, in the right order, the tiles that break would deal him, which are
partly another seat's under the dice's break. Each take is checked against the dice's deal
and the deals of the breaks near it; while the dice's no longer explains the takes and one
near it explains them all, the deal is no error of the players' tiles (no 拿錯牌, no
tampering): the break was made in the wrong place, and the referee is told that once
(engine/deal_order.py). Once all four have their first four tiles from it, that break stands
(一旦四家均已各取四張牌，已開了的門便當作有效): the interpreter gives the hand a BreakMade and the
wall is re-based on it (engine/dealing.py).
"""

from engine.wall import Break, Wall

NEAR = (-2, -1, 1, 2)  # stacks off the dice's break a break made by mistake may lie
FIRST_BLOCKS = 4  # the first four tiles of each seat: then the break made stands
Hands = list[list[int]]


def deals_near(walls: list[list[int]], brk: Break, dead_wall: int) -> dict[Break, Hands]:
    """The deals of the breaks one or two stacks either side of `brk`, by break: the wall
    counted from is the same, its tail stacks fewer or more (round the table)."""
    ring = 2 * len(walls[0])  # stacks round the table: four walls of len/2 stacks
    near = (Break(brk.seat, (brk.stacks + k) % ring) for k in NEAR)
    return {b: Wall(walls, b, dead_wall).deal(0) for b in near}


class WrongBreak:
    """The breaks near the dice's that still explain every take of the deal. `deals` are
    their deals as engine/deal_order.py's blocks (seat, tiles), by break."""

    def __init__(self, deals: dict[Break, list]):
        self.deals = deals
        self.fitting = set(deals)  # the breaks every take so far fits
        self.takes: dict[int, int] = {}  # tile -> the seat that took it
        self.told = False  # the referee has been told

    def _fits(self, brk: Break, seat: int, tile: int) -> bool:
        """The break's deal gives `tile` to `seat` (the jump as its block's seat)."""
        return any(tile in block.tiles and block.seat == seat for block in self.deals[brk])

    def narrow(self, seat: int, tile: int) -> None:
        """`seat` took `tile`: the breaks whose deal gives it him still fit."""
        self.takes[tile] = seat
        self.fitting = {brk for brk in self.fitting if self._fits(brk, seat, tile)}

    def put_back(self, tile: int) -> None:
        """A tile taken is back in the wall (the error put right): the breaks that fit the
        takes left; none left, a wrong break taken again is told again."""
        self.takes.pop(tile, None)
        self.fitting = {
            brk for brk in self.deals if all(self._fits(brk, s, x) for x, s in self.takes.items())
        }
        self.told = self.told and bool(self.takes)

    def standing(self, taken: set[int]) -> Break | None:
        """The break made, once it alone fits and all four have their first four tiles
        from it (`taken`: the tiles of the deal taken so far)."""
        if len(self.fitting) != 1:
            return None
        (brk,) = self.fitting
        first = self.deals[brk][:FIRST_BLOCKS]
        return brk if all(block.tiles <= taken for block in first) else None
