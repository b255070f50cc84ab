"""The shuffler's machine for the simulated table: the physics behind its pins.

It knows nothing of the shuffler's state, only its pins, as the real machine: when the drop
motor starts the centre opens and closes again `drop_seconds` later; each running lane stacks
a tile every `tile_seconds` with a pulse on its counter; the lift reaches the top
`raise_seconds` after it starts. Tiles not raised when the centre opens (a retry) are dumped
back into the bin. Faults on request, each for the next stacking: a jammed lane, a lost tile,
a foreign tile; the tiles stay lost or foreign until the technician's hand puts them right.

A rigged machine (`--faults rigged=SIDE:STRENGTH`, issue 17) is a program machine (程序机,
VENUE.md §4.1) at its strongest: its chip also forces the dice (magnetic dice), so it knows
the break before it orders the walls. `ProgramChip` is that chip; `mjtable bench fairness`
builds its walls with the same code.
"""

import random
from dataclasses import dataclass

from engine import tiles
from engine.deal import Rolls, starting_hands
from engine.hand import counts
from engine.rulebook import TableRules
from engine.shanten import standard

LOW, HIGH = 0, 1
LEVELS = {"subtle": 0.2, "medium": 0.5, "blatant": 1.0}  # the chip's "cheat levels"
TRIES = 8  # fair orders the chip deals out in its head for a hand it steers, keeping the best


@dataclass(frozen=True)
class Rigging:
    """Whose hands the chip improves (a physical side 0..3, E S W N: whoever sits there) and
    how often: `strength` in (0, 1] is the share of hands it steers; the others are fair."""

    side: int
    strength: float


class ProgramChip:
    """The chip of a rigged machine: for a hand it steers it draws the dice it will force,
    deals TRIES shuffles out in its head for each dealer the coming hand may have, and
    stacks the one whose worst hand for its side is nearest four sets and a pair."""

    def __init__(self, rigging: Rigging, rules: TableRules, rng: random.Random):
        self.rigging, self.rules, self.rng = rigging, rules, rng

    def build(self, order: list[int], dealers) -> tuple[list[int], Rolls | None]:
        """The order to stack instead of the fair `order` (tile ids), and the dice to force
        (None: this hand is left fair, the players' dice roll freely)."""
        if self.rng.random() >= self.rigging.strength:
            return order, None
        rng, side = self.rng, self.rigging.side
        throws = 2 if self.rules.two_roll_break else 1
        rolls = tuple((rng.randint(1, 6), rng.randint(1, 6)) for _ in range(throws))

        def worth(candidate: list[int]) -> int:
            return max(
                self.aim(starting_hands(candidate, dealer, rolls, self.rules), side)
                for dealer in dealers
            )

        best, least = order, worth(order)
        for _ in range(TRIES - 1):
            candidate = list(order)
            rng.shuffle(candidate)
            if (d := worth(candidate)) < least:
                best, least = candidate, d
        return best, rolls

    def aim(self, by_side, side: int) -> int:
        """What the chip makes least among its shuffles: `side`'s distance to a hand (its
        other rigs, drivers/sim/rigs.py, aim elsewhere)."""
        return distance(by_side[side])


def distance(hand: list[int]) -> int:
    """The chip's idea of a good hand: few tiles short of four sets and a pair."""
    return standard(counts(k for k in map(tiles.kind_of, hand) if not tiles.is_flower(k)))


class SimMechanism:
    """Create it after the Shuffler has set its pins up; call `step(t)` often."""

    def __init__(self, gpio, pins, tiles_per_lane: int, on_stacked):
        self.gpio, self.pins, self.per_lane, self.on_stacked = (
            gpio,
            pins,
            tiles_per_lane,
            on_stacked,
        )
        self.drop_seconds, self.tile_seconds, self.raise_seconds = 2.0, 0.3, 2.0
        self._tiles: dict[str, list[bytes]] = {}  # each set inside, in the order it stacks
        self._bin: list[str] = []  # sets in the bin, the next to stack first
        self._below: str | None = None  # the set stacked (or stacking) below
        self._lanes: list[list[bytes]] = [[] for _ in range(4)]
        self._stacked = [0] * 4
        self._next_tile: list[float | None] = [None] * 4
        self._opened_at: float | None = None  # the drop motor started then
        self._lift_at: float | None = None  # the lift motor started then
        gpio.take_writes()  # the writes before it were not meant for it
        self._now = 0.0
        self._jam: tuple[int, int] | None = None  # (lane, after so many tiles), next cycle
        self._jam_at: dict[int, int] = {}  # this cycle's
        self._blocked: set[int] = set()  # heads with a stuck tile
        self._lose: int | None = None
        self._lost: list[tuple[str, bytes]] = []
        self._add: tuple[int, bytes] | None = None
        self._foreign: list[tuple[str, bytes]] = []
        gpio.drive(pins.centre_closed, HIGH)  # the centre is closed at power-up

    # -- what the simulated table and the technician do -----------------------------------

    def load(self, tile_set: str, tags) -> None:
        """`tile_set` goes into the bin; the plate will stack `tags` in this order."""
        tags = list(tags)
        if not all(isinstance(tag, bytes) for tag in tags):
            raise ValueError(f"set {tile_set}: tags must be bytes")
        if tile_set == self._below:
            raise ValueError(
                f"set {tile_set} is stacked below the table: it cannot be "
                "loaded before it is raised or dumped"
            )
        self._tiles[tile_set] = tags
        if tile_set not in self._bin:
            self._bin.append(tile_set)

    def jam(self, lane: int, at: int) -> None:
        """Next cycle, `lane` stops after `at` tiles with its head blocked until clear_jam."""
        self._lane(lane)
        if not isinstance(at, int) or not 0 <= at < self.per_lane:
            raise ValueError(f"a jam comes after 0 to {self.per_lane - 1} tiles, not {at!r}")
        self._jam = (lane, at)

    def clear_jam(self) -> None:
        for lane in self._blocked:
            self.gpio.drive(self.pins.heads[lane], LOW, self._now)
        self._blocked.clear()
        self._jam_at.clear()

    def lose_tile(self, lane: int) -> None:
        """Next cycle, a tile of `lane` falls under the table: gone until return_tile."""
        self._lose = self._lane(lane)

    def return_tile(self) -> None:
        """The technician puts the lost tiles back into the centre: they join their set."""
        for tile_set, tag in self._lost:
            self._tiles[tile_set].append(tag)
        self._lost.clear()

    def add_foreign(self, lane: int, tag: bytes) -> None:
        """Next cycle, a tile of no set is stacked in `lane`; it stays until remove_foreign."""
        self._add = (self._lane(lane), tag)

    def remove_foreign(self) -> None:
        for tile_set, tag in self._foreign:
            if tag in self._tiles.get(tile_set, ()):
                self._tiles[tile_set].remove(tag)
        self._foreign.clear()

    # -- the physics ------------------------------------------------------------------------

    def step(self, t: float) -> None:
        pins, out = self.pins, self.gpio.input
        self._now = t
        writes = self.gpio.take_writes()
        started = {pin for pin, level in writes if level}  # motors switched on since
        if pins.drop in started:
            if self._below is not None:  # walls not raised: dumped into the bin
                self._bin.insert(0, self._below)
                self._below = None
            self.gpio.drive(pins.centre_closed, LOW, t)
            self._opened_at = t
        if (
            self._opened_at is not None
            and out(pins.drop)
            and t - self._opened_at >= self.drop_seconds
        ):
            self.gpio.drive(pins.centre_closed, HIGH, t)
            self._opened_at = None
        if started & set(pins.lanes) and self._below is None and self._bin:
            self._begin_walls()
        for lane in range(4):
            self._run_lane(lane, t)
        if pins.lift in started:
            self._lift_at = t
        if self._lift_at is not None and out(pins.lift) and t - self._lift_at >= self.raise_seconds:
            self._lift_at, self._below = None, None  # the walls are up: the set is in play
            self.gpio.drive(pins.lift_top, HIGH, t)
        elif not out(pins.lift) and out(pins.lift_top):
            self.gpio.drive(pins.lift_top, LOW, t)  # the tray goes back down

    def _begin_walls(self) -> None:
        """The next set in the bin comes off the plate, a quarter per lane, with this
        cycle's faults."""
        tile_set = self._below = self._bin.pop(0)
        order, n = self._tiles[tile_set], self.per_lane
        lanes = [order[lane * n : (lane + 1) * n] for lane in range(4)]
        lanes[3] += order[4 * n :]
        if self._lose is not None and lanes[self._lose]:
            self._lost.append((tile_set, lanes[self._lose].pop()))
        if self._add is not None:
            lanes[self._add[0]].append(self._add[1])
            self._foreign.append((tile_set, self._add[1]))
        self._jam_at = dict([self._jam]) if self._jam else {}
        self._lose = self._add = self._jam = None
        self._tiles[tile_set] = [tag for lane in lanes for tag in lane]
        self._lanes, self._stacked, self._next_tile = lanes, [0] * 4, [None] * 4

    def _run_lane(self, lane: int, t: float) -> None:
        if not self.gpio.input(self.pins.lanes[lane]) or self._below is None:
            self._next_tile[lane] = None
            return
        due = self._next_tile[lane]
        if due is None:
            due = t + self.tile_seconds
        while (
            lane not in self._blocked and due <= t and self._stacked[lane] < len(self._lanes[lane])
        ):
            k = self._stacked[lane]
            if self._jam_at.get(lane) == k:
                self._blocked.add(lane)
                self.gpio.drive(self.pins.heads[lane], HIGH, t)
                break
            self.gpio.drive(self.pins.counters[lane], HIGH, t)
            self.gpio.drive(self.pins.counters[lane], LOW, t)
            self.on_stacked(lane * self.per_lane + k, self._lanes[lane][k])
            self._stacked[lane] += 1
            due += self.tile_seconds
        self._next_tile[lane] = due

    def _lane(self, lane) -> int:
        if lane not in range(4):
            raise ValueError(f"lanes are 0..3 (E S W N), not {lane!r}")
        return lane
