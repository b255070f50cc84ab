"""`mjtable bench fairness`: how soon the shuffle watch catches each rig, and how rarely it
accuses a fair shuffler (issue 17, issue 35). Walls are built and dealt directly, without
the simulated table: a fair shuffle, or a rigged machine's chip (drivers/sim/: the code
`--faults rigged=` runs, and its other rigs), dealt by the engine from the dice's break,
East's seat passing each hand, watched as the table watches (firmware/audit/shuffle_watch.py)
and as the venue watches its players (firmware/venue/persons.py). A table counts as flagged
at its first alarm of any test.

The rigs, each favouring side S (its player) on the share of hands its strength says:
"starting hands" (the best of 8 shuffles for S), "draws" (S's first draws stacked, its
starting hand fair), "others worse" (the best of 8 for spoiling the other three hands), and
"moving cheat" (the starting-hands rig following a player who changes seats every 4 hands).

Rigged tables and fair walls are shared out over PROCESSES processes. The fair distributions
the tests stand on are made by firmware/bench/fair_figures.py.
"""

import json
import random
import time
from multiprocessing import Pool

from drivers.sim.mechanism import LEVELS, ProgramChip, Rigging
from drivers.sim.rigs import DrawChip, SpoilerChip
from engine import tiles
from engine.deal import deal_by_side
from engine.wall import build_walls
from firmware.audit.shuffle_watch import (
    DRAWS,
    FAIR_HANDS,
    ShuffleWatch,
    fair_distributions,
    neighbours,
    score_tests,
    side_scores,
)
from firmware.resources import load_ruleset
from firmware.venue.persons import PlayerWatch

SIDE = 1  # the side the rigged machine favours (S), and where the moving cheat starts
WITHIN = (16, 64, 256)  # hands within which a rigged table's share flagged is counted
MOVES = 4  # the moving cheat changes seats every so many hands
RIGS: dict[str, type[ProgramChip] | type[DrawChip]] = {
    "starting hands": ProgramChip,
    "draws": DrawChip,
    "others worse": SpoilerChip,
    "moving cheat": ProgramChip,
}
PROCESSES = 2  # the reference machine's cores


def run(args) -> int:
    began = time.monotonic()
    tables, walls = args.tables_rigged, args.hands
    jobs = [
        (args.ruleset, rig, level, seed)
        for rig in RIGS
        for level in LEVELS
        for seed in range(args.seed, args.seed + tables)
    ]
    share = -(-walls // PROCESSES)  # each process one unbroken run of fair walls
    chunks = [
        (args.ruleset, start, min(share, walls - start), args.seed)
        for start in range(0, walls, share)
    ]
    with Pool(PROCESSES) as pool:
        flagged = pool.map(first_flagged, jobs, chunksize=8)
        alarms = [alarm for part in pool.map(fair_alarms, chunks) for alarm in part]
    rows = {}
    for rig in RIGS:
        for level in LEVELS:
            first = [
                f for (_, r, lv, _), f in zip(jobs, flagged, strict=True) if (r, lv) == (rig, level)
            ]
            rows[f"{rig}, {level}"] = {
                f"within_{n}": sum(f is not None and f <= n for f in first) / len(first)
                for n in WITHIN
            }
    tile_count = len(tiles.physical_set(load_ruleset(args.ruleset).table_rules.flowers))
    players = score_tests(fair_distributions(tile_count), FAIR_HANDS, both_ways=False)
    stated = 10_000 * (
        sum(1 / t.fair_run for t in ShuffleWatch(tile_count).tests())
        + 4 * sum(1 / t.fair_run for t in players.values())
    )
    result = {
        "ruleset": args.ruleset,
        "tables_per_rig": tables,
        "flagged": rows,
        "fair_walls": walls,
        "false_alarms": len(alarms),
        "false_alarms_per_10000_hands": round(len(alarms) * 10_000 / walls, 2),
        "stated_per_10000_hands": round(stated, 2),
        "seconds": round(time.monotonic() - began, 1),
    }
    if args.json:
        print(json.dumps(result))
        return 0
    print(
        f"rigged tables flagged ({args.ruleset}; {tables} tables per rig and strength, "
        f"seed {args.seed} on), any test:"
    )
    print(f"  {'rig, strength':28}" + "".join(f"{f'within {n}':>12}" for n in WITHIN))
    for name, row in rows.items():
        print(f"  {name:28}" + "".join(f"{row[f'within_{n}']:>12.0%}" for n in WITHIN))
    print(
        f"fair shuffler: {len(alarms)} false alarm{'' if len(alarms) == 1 else 's'} over "
        f"{walls} walls ({result['false_alarms_per_10000_hands']:g} per 10 000 hands; the "
        f"tests' exact rate: {result['stated_per_10000_hands']:g}); {result['seconds']:g} s"
    )
    for alarm in alarms:
        print(f"  hand {alarm['hand']}: {alarm['message']}")
    return 0


def deal(order: list[int], hand: int, rolls, rules, rng: random.Random):
    """(East's side, the hands by seat, the lanes, the draws in turn by seat) of one hand's
    walls stacked in `order`, East's seat passing each hand."""
    dealer = hand % 4
    if rolls is None:
        throws = 2 if rules.two_roll_break else 1
        rolls = tuple((rng.randint(1, 6), rng.randint(1, 6)) for _ in range(throws))
    by_side, drawn = deal_by_side(order, dealer, rolls, rules, DRAWS)
    by_seat = [by_side[(dealer + seat) % 4] for seat in range(4)]
    draws = [drawn[(dealer + seat) % 4] for seat in range(4)]
    return dealer, by_seat, build_walls(order, len(order) // 8), draws


class Watched:
    """A table's tests and its players' (the venue's), as the bench runs them."""

    def __init__(self, tile_count: int):
        self.count = tile_count
        self.table, self.players = ShuffleWatch(tile_count), PlayerWatch()

    def hand(self, dealt, seated: list[str]):
        dealer, hands, lanes, draws = dealt
        scores = side_scores(dealer, hands, draws)
        return [
            *self.table.scored(scores, neighbours(lanes)),
            *self.players.hand(self.count, seated, scores),
        ]


def first_flagged(job, most: int = WITHIN[-1]) -> int | None:
    """The hand at which a rigged table (ruleset, rig, strength, seed) is first flagged, or
    None within `most` hands."""
    ruleset, rig, level, seed = job
    rules = load_ruleset(ruleset).table_rules
    rng, rig_rng = random.Random(f"fair-{seed}"), random.Random(f"rig-{rig}-{seed}")
    chip = RIGS[rig](Rigging(SIDE, LEVELS[level]), rules, rig_rng)
    order = tiles.physical_set(rules.flowers)
    watched = Watched(len(order))
    seated = [f"P{person + 1}" for person in range(4)]  # by side; the cheat is P2, on S
    for hand in range(1, most + 1):
        if rig == "moving cheat" and hand % MOVES == 1 and hand > 1:
            here = seated.index("P2")
            there = rig_rng.choice([s for s in range(4) if s != here])
            seated[here], seated[there] = seated[there], seated[here]
            chip.rigging = Rigging(there, LEVELS[level])
        rng.shuffle(order)
        stacked, rolls = chip.build(list(order), {hand % 4})
        if watched.hand(deal(stacked, hand, rolls, rules, rng), seated):
            return hand
    return None


def fair_alarms(chunk) -> list[dict]:
    """The alarms over a run of fair walls (ruleset, start, count, seed), one hand each,
    numbered from `start` + 1."""
    ruleset, start, count, seed = chunk
    rules = load_ruleset(ruleset).table_rules
    rng = random.Random(f"fair-walls-{seed}-{start}")
    order = tiles.physical_set(rules.flowers)
    watched = Watched(len(order))
    seated = [f"P{person + 1}" for person in range(4)]
    alarms = []
    for hand in range(start + 1, start + count + 1):
        rng.shuffle(order)
        for alarm in watched.hand(deal(order, hand, None, rules, rng), seated):
            alarms.append({"hand": hand, "message": alarm.message()})
    return alarms
