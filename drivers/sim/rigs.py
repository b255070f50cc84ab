"""The program machine's other rigs (issue 35), beside drivers/sim/mechanism.py's ProgramChip
(which stacks the favoured side's starting hands): what `mjtable bench fairness` pits the
detector against. Each forces the dice, as that chip does, and steers the share of hands
its Rigging's strength says.

- `SpoilerChip`: the other three starting hands made worse, the favoured side's left as it
  falls: of TRIES shuffles, the one whose best other hand is farthest from four sets and a
  pair. A detector that only looks for a side favoured never sees it.
- `DrawChip`: the starting hands left fair, the favoured side's first STEERED draws in turn
  stacked: each that would not bring its hand nearer ready is swapped for a later live tile
  that does (the chip follows the hand as it would be played, keeping the best 13).
"""

import random

from drivers.sim.mechanism import ProgramChip, Rigging, distance
from engine import tiles
from engine.deal import Rolls, draws_by_side, starting_hands
from engine.hand import counts
from engine.rulebook import TableRules
from engine.shanten import standard

STEERED = 3  # the favoured side's draws a DrawChip stacks in a hand it steers
LOOKS_AHEAD = 18  # each side's draws in turn the chip may take a tile from


class SpoilerChip(ProgramChip):
    """A program machine that favours `side` by dealing the other three sides poor hands."""

    def aim(self, by_side, side: int) -> int:
        return -min(distance(hand) for other, hand in enumerate(by_side) if other != side)


class DrawChip:
    """A program machine that stacks the favoured side's draws, its starting hands fair."""

    def __init__(self, rigging: Rigging, rules: TableRules, rng: random.Random):
        self.rigging, self.rules, self.rng = rigging, rules, rng

    def build(self, order: list[int], dealers) -> tuple[list[int], Rolls | None]:
        """The order to stack instead of the fair `order`, and the dice to force (None: this
        hand is left fair)."""
        if self.rng.random() >= self.rigging.strength:
            return order, None
        rng, side, rules = self.rng, self.rigging.side, self.rules
        throws = 2 if rules.two_roll_break else 1
        rolls = tuple((rng.randint(1, 6), rng.randint(1, 6)) for _ in range(throws))
        dealer = rng.choice(sorted(dealers))
        stacked = list(order)
        places = draws_by_side(list(range(len(order))), dealer, rolls, rules, LOOKS_AHEAD)
        spare = [place for drawn in places for place in drawn[STEERED:]]
        rng.shuffle(spare)
        held = [k for k in map(tiles.kind_of, starting_hands(order, dealer, rolls, rules)[side])]
        for place in places[side][:STEERED]:
            now = _short(held)
            if _short([*held, tiles.kind_of(stacked[place])]) >= now:
                better = next(
                    (
                        i
                        for i, q in enumerate(spare)
                        if _short([*held, tiles.kind_of(stacked[q])]) < now
                    ),
                    None,
                )
                if better is not None:
                    other = spare.pop(better)
                    stacked[place], stacked[other] = stacked[other], stacked[place]
            held.append(tiles.kind_of(stacked[place]))
        return stacked, rolls


def _short(kinds: list[int]) -> int:
    """Tiles short of four sets and a pair, the best hand among `kinds` (flowers out)."""
    return standard(counts(k for k in kinds if not tiles.is_flower(k)))
