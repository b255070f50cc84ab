"""Wall geometry: dice counting, the break, the deal, live draws, replacements from the tail.

Seats are 0..3 = E S W N. Turn order (seat + 1 = right neighbour, 下家) is counter-clockwise seen
from above; drawing goes clockwise around the walls, so after the left end of a player's wall
comes the right end of his left neighbour's (seat - 1) wall. RULES.md 3.3-3.5, 4.4, 4.5.
"""

import copy
from dataclasses import dataclass

SEATS = 4
Position = tuple[int, int]  # (seat whose wall it is, place in that wall as laid)


class WallEmpty(Exception):
    """No live tile is left: not a fault but the end of the hand (exhaustive draw, 荒牌)."""


def _check_dice(total, what: str) -> None:
    if not isinstance(total, int) or isinstance(total, bool) or not 2 <= total <= 12:
        raise ValueError(f"{what} must be a roll of two dice, 2..12, got {total!r}")


def _check_seat(seat, what: str) -> None:
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < SEATS:
        raise ValueError(f"{what} must be a seat 0..3 (E S W N), got {seat!r}")


def dice_seat(total: int, roller: int) -> int:
    """The seat a dice total points at, counting the roller as 1 counter-clockwise (RULES.md 3.3):
    5, 9 the roller; 2, 6, 10 his right neighbour; 3, 7, 11 opposite; 4, 8, 12 his left."""
    _check_dice(total, "dice total")
    _check_seat(roller, "roller")
    return (roller + total - 1) % SEATS


@dataclass(frozen=True)
class Break:
    """Where the wall is opened (開門).

    `seat` is the player whose wall is broken (開門人). Counting from the right end of his wall
    and going clockwise (into his left neighbour's wall after his left end), the first `stacks`
    stacks are the tail side (槓尾): replacements are taken from the last of them. The next stack
    is the wall head, where the deal and the live draws start.
    """

    seat: int
    stacks: int

    def __post_init__(self):
        _check_seat(self.seat, "Break.seat")
        if not isinstance(self.stacks, int) or self.stacks < 0:
            raise ValueError(f"Break.stacks must be a count of stacks >= 0, got {self.stacks!r}")


def wsom_break(first_roll: int, second_roll: int, dealer: int = 0) -> Break:
    """WSOM's two-roll break (RULES.md 3.4): the dealer's roll picks the 開門人, who rolls
    again; the sum of both rolls (4..24) is the number of tail stacks, counted from the right
    end of his wall."""
    _check_dice(first_roll, "first roll")
    _check_dice(second_roll, "second roll")
    return Break(dice_seat(first_roll, dealer), first_roll + second_roll)


def table_break(total: int, dealer: int = 0, start_offset: int = 0) -> Break:
    """A single roll picks both the wall and the stack (RULES.md 4.4, A-C1; WSOM break_mode =
    "table", A-W13): dealing starts AT stack number `total` from that wall's right end, moved
    `start_offset` stacks clockwise for a table that counts differently."""
    return Break(dice_seat(total, dealer), total - 1 + start_offset)


def build_walls(order: list[int], stacks_per_side: int) -> list[list[int]]:
    """Lay a shuffled sequence of tile ids into four walls as the stacker does: seat 0's wall
    first, each from its right end to its left end, each stack top tile then bottom tile."""
    per_wall = 2 * stacks_per_side
    if stacks_per_side < 1 or len(order) != SEATS * per_wall:
        raise ValueError(
            f"{len(order)} tiles cannot make four walls of {stacks_per_side} stacks "
            f"(need {SEATS * max(per_wall, 0)})"
        )
    return [list(order[seat * per_wall : (seat + 1) * per_wall]) for seat in range(SEATS)]


class Wall:
    """The four walls of one hand: what is live, what is dead, what comes next from each end.

    The tiles not yet taken form one sequence in draw order, from the head clockwise to the
    tail. Draws take its first tile; replacements take from its end, the top of the last stack
    before its bottom (that is the physical order at the tail). The last `dead_wall` tiles of the
    sequence are never drawn (WSOM's 14, RULES.md 3.5); since the dead wall is always the last
    `dead_wall` of what remains, it stays that size and each replacement shortens the live wall
    by one (A-W11). CCM has dead_wall = 0: the 144th tile is the last draw (RULES.md 4.4).
    """

    def __init__(self, walls: list[list[int]], brk: Break, dead_wall: int):
        if len(walls) != SEATS:
            raise ValueError(f"expected four walls (one per seat), got {len(walls)}")
        per_wall = len(walls[0])
        if per_wall == 0 or per_wall % 2 or any(len(w) != per_wall for w in walls):
            raise ValueError(
                "walls must all have the same, even, non-zero number of tiles "
                f"(two per stack); got lengths {[len(w) for w in walls]}"
            )
        seen = set()
        for seat, wall in enumerate(walls):
            for place, tile_id in enumerate(wall):
                if tile_id in seen:
                    raise ValueError(
                        f"tile id {tile_id} appears twice (again in seat {seat}'s "
                        f"wall at place {place})"
                    )
                seen.add(tile_id)
        ring_stacks = SEATS * per_wall // 2
        if brk.stacks >= ring_stacks:
            raise ValueError(
                f"break of {brk.stacks} stacks is beyond the {ring_stacks} stacks around the table"
            )
        if not 0 <= dead_wall <= len(seen):
            raise ValueError(f"dead wall of {dead_wall} tiles does not fit a set of {len(seen)}")
        self._walls = [list(w) for w in walls]
        self.dead_wall = dead_wall
        ring = [(brk.seat - k) % SEATS for k in range(SEATS)]  # clockwise: then left neighbour
        order = [(seat, place) for seat in ring for place in range(per_wall)]
        head = 2 * brk.stacks
        self._order: list[Position] = order[head:] + order[:head]  # the whole draw order
        self._sequence = list(self._order)  # what still stands of it
        self._place = {self.tile_at(p): p for p in order}  # tile id -> where it was laid
        self._started = False  # a tile has left the wall: too late to deal

    def __deepcopy__(self, memo: dict) -> "Wall":
        """A copy of what stands, sharing the walls as laid and their order, which never
        change (a probe of the hand's next move copies the hand many times, tests/)."""
        copied = copy.copy(self)
        copied._sequence = list(self._sequence)
        return copied

    def _take(self, index: int) -> int:
        seat, place = self._sequence.pop(index)
        return self._walls[seat][place]

    @property
    def live_count(self) -> int:
        """Live tiles still to be drawn (from the head or as replacements)."""
        return len(self._sequence) - self.dead_wall

    @property
    def is_last_live(self) -> bool:
        """The next tile taken, drawn or a replacement, is the seabed (海底牌): its drawer
        may not kong in WSOM (A-W10)."""
        return self.live_count == 1

    @property
    def dead_wall_tiles(self) -> list[int]:
        """The dead wall (王牌) in draw order; the seabed is the live tile just before it."""
        tail = self._sequence[len(self._sequence) - self.dead_wall :]
        return [self._walls[seat][place] for seat, place in tail]

    @property
    def next_draw_position(self) -> Position | None:
        """Where the next live draw stands, to light it for the player or check a reader."""
        return self._sequence[0] if self.live_count > 0 else None

    def live_position(self, index: int) -> Position | None:
        """Where the index-th live tile from the head stands (0: the head), or None."""
        return self._sequence[index] if 0 <= index < self.live_count else None

    @property
    def next_replacement_position(self) -> Position | None:
        """Where the next replacement stands: the top of the last stack if it is still whole."""
        return self._sequence[self._replacement_index()] if self.live_count > 0 else None

    def tile_at(self, position: Position | None) -> int | None:
        """The tile id standing at a wall position (for checking what a reader saw)."""
        return None if position is None else self._walls[position[0]][position[1]]

    def position_of(self, tile_id: int) -> Position | None:
        """Where a tile still stands in the wall, or None (dealt, drawn, or not of this set)."""
        position = self._place.get(tile_id)
        return position if position in self._sequence else None

    def laid_at(self, tile_id: int) -> Position | None:
        """Where the shuffler laid a tile of these walls, standing or not."""
        return self._place.get(tile_id)

    def take(self, position: Position) -> int:
        """The tile standing at `position`, taken from the middle of the wall: a draw from the
        wrong place stands (seed 000 摸牌時的犯規 1), and the next draw still comes from the head.

        The dead wall is always the last `dead_wall` tiles still standing, so a tile taken from
        it (the kong tail) makes the last live tile dead, as a replacement does: the dead wall
        stays 14 (RULES.md 3.5, A-W11; an inference, the seed does not say)."""
        if self.live_count <= 0:
            raise WallEmpty("no live tile left: the seabed has been drawn")
        self._started = True
        return self._take(self._sequence.index(position))

    def _replacement_index(self) -> int:
        if len(self._sequence) >= 2:
            (seat_a, place_a), (seat_b, place_b) = self._sequence[-2:]
            if seat_a == seat_b and place_a // 2 == place_b // 2:  # last stack still whole
                return -2
        return -1

    def draw(self) -> int:
        """The next live tile from the head; WallEmpty once the seabed has been drawn."""
        if self.live_count <= 0:
            raise WallEmpty("no live tile left: the seabed has been drawn")
        self._started = True
        return self._take(0)

    def draw_replacement(self) -> int:
        """A kong or flower replacement (嶺上牌 / 補花) from the tail end: top tile of the last
        stack, then its bottom, then the stack before. WallEmpty when no live tile is left,
        since the dead wall never gives a tile (A-W11)."""
        if self.live_count <= 0:
            raise WallEmpty("no live tile left for a replacement")
        self._started = True
        return self._take(self._replacement_index())

    def deal(self, dealer: int = 0) -> list[list[int]]:
        """The opening deal (RULES.md 3.4, 4.4, A-C2): three rounds of two stacks (4 tiles) each,
        dealer first then in turn order; then the jump (跳牌): the dealer takes the 1st and 5th
        tiles from the head, the next three seats the 2nd, 3rd and 4th. Hands indexed by seat:
        the dealer 14 tiles, the others 13."""
        _check_seat(dealer, "dealer")
        if self._started:
            raise RuntimeError("the deal must come first: tiles were already taken from the wall")
        if self.live_count < 53:
            raise WallEmpty(f"only {self.live_count} live tiles, the deal needs 53")
        self._started = True
        hands: list[list[int]] = [[] for _ in range(SEATS)]
        turn = [(dealer + k) % SEATS for k in range(SEATS)]
        for _ in range(3):
            for seat in turn:
                hands[seat].extend(self._take(0) for _ in range(4))
        jump = [self._take(0) for _ in range(5)]
        hands[dealer] += [jump[0], jump[4]]
        for seat, tile_id in zip(turn[1:], jump[1:4], strict=True):
            hands[seat].append(tile_id)
        return hands

    def realign(self, standing: set[int]) -> None:
        """The tiles the table shows standing are the wall (the referee accepts the table as
        it lies, issue 20): in draw order, those gone taken out and any still there put back."""
        self._sequence = [p for p in self._order if self.tile_at(p) in standing]

    def remaining(self) -> list[list[int | None]]:
        """Per seat, per place in the wall as laid: the tile still standing there, or None."""
        standing = set(self._sequence)
        return [
            [tile_id if (seat, place) in standing else None for place, tile_id in enumerate(wall)]
            for seat, wall in enumerate(self._walls)
        ]
