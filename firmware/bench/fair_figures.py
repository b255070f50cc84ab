"""The fair distributions the shuffle watch's thresholds stand on (firmware/audit/
shuffle_watch.json, issue 17, issue 35): from WALLS fair shuffles of each tile set, dealt
from a free roll of the dice with East on a side chosen at random, each side's hand score
and draw score (four of each per shuffle) and the walls' same-kind neighbours.

`python -m firmware.bench.fair_figures PATH` writes them (PATH: where), over 2 processes.
"""

import json
import random
import sys
from collections import Counter
from multiprocessing import Pool

from engine import tiles
from engine.deal import deal_by_side
from engine.wall import build_walls
from firmware.audit.shuffle_watch import DRAWS, neighbours, scores
from firmware.resources import load_ruleset

WALLS = 200_000  # fair shuffles per tile set
SEED = 1
RULE_BOOKS = {136: "wsom2006", 144: "ccm2012"}  # the deal and the break of each set's play
PARTS = 2  # processes: the reference machine's cores


def tally(job) -> tuple[Counter[int], Counter[int], Counter[int]]:
    """Hand scores, draw scores and neighbours over `walls` shuffles of one set."""
    tile_count, part, walls = job
    rules = load_ruleset(RULE_BOOKS[tile_count]).table_rules
    rng = random.Random(f"distributions-{SEED}-{tile_count}-{part}")
    order = tiles.physical_set(tile_count == 144)
    hands: Counter[int] = Counter()
    draws: Counter[int] = Counter()
    pairs: Counter[int] = Counter()
    for _ in range(walls):
        rng.shuffle(order)
        throws = 2 if rules.two_roll_break else 1
        rolls = tuple((rng.randint(1, 6), rng.randint(1, 6)) for _ in range(throws))
        dealer = rng.randrange(4)
        dealt, drawn = deal_by_side(order, dealer, rolls, rules, DRAWS)
        for side, held in enumerate(dealt):
            hand, draw = scores(held, drawn[side])
            hands[hand] += 1
            draws[draw] += 1
        pairs[neighbours(build_walls(order, len(order) // 8))] += 1
    return hands, draws, pairs


def distributions(walls: int = WALLS) -> dict:
    jobs = [(count, part, walls // PARTS) for count in RULE_BOOKS for part in range(PARTS)]
    with Pool(PARTS) as pool:
        parts = pool.map(tally, jobs)
    sets = {}
    for count in RULE_BOOKS:
        mine = [p for (c, _, _), p in zip(jobs, parts, strict=True) if c == count]
        merged = [sum((p[i] for p in mine), Counter()) for i in range(3)]
        sets[str(count)] = {
            name: [tally_[n] / sum(tally_.values()) for n in range(max(tally_) + 1)]
            for name, tally_ in zip(("hands", "draws", "neighbours"), merged, strict=True)
        }
    return {
        "made_by": f"python -m firmware.bench.fair_figures ({walls} fair walls a set, seed {SEED})",
        "sets": sets,
    }


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m firmware.bench.fair_figures PATH")
    with open(sys.argv[1], "w", encoding="utf-8") as out:
        json.dump(distributions(), out, indent=1)
        out.write("\n")
