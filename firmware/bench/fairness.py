"""`mjtable bench fairness`: how soon the table catches a rigged shuffler, and how rarely it
accuses a fair one (issue 17). Walls are built and dealt directly, without the simulated
table: a fair shuffle, or the rigged machine's own chip (drivers/sim/mechanism.py's
ProgramChip, the code `--faults rigged=` runs), dealt by the engine from the dice's break,
East's seat passing each hand, watched by firmware/audit/shuffle_watch.py as the table watches.

`python -m firmware.bench.fairness PATH` simulates the fair distributions shuffle_watch.json
ships (PATH: where to write them).
"""

import json
import random
import statistics
import sys
import time

from drivers.sim.mechanism import LEVELS, ProgramChip, Rigging
from engine import tiles
from engine.deal import starting_hands
from engine.wall import build_walls
from firmware.audit.shuffle_watch import ShuffleWatch, hand_score, neighbours
from firmware.resources import load_ruleset

SEEDS = 20  # rigged runs per strength
GIVE_UP = 2000  # hands a rigged run is watched at most
SIDE = 1  # the side the rigged machine favours (S)


def run(args) -> int:
    rules = load_ruleset(args.ruleset).table_rules
    began = time.monotonic()
    caught = {name: _hands_to_flag(rules, share, args.seed) for name, share in LEVELS.items()}
    walls = args.hands
    alarms = _fair(rules, walls, args.seed)
    result = {
        "ruleset": args.ruleset,
        "hands_to_flag": {
            name: {
                "median": statistics.median(hands),  # a seed never flagged counts GIVE_UP + 1
                "max": max(hands) if max(hands) <= GIVE_UP else None,
                "not_flagged": sum(n > GIVE_UP for n in hands),
                "seeds": len(hands),
                "share_steered": LEVELS[name],
            }
            for name, hands in caught.items()
        },
        "fair_walls": walls,
        "false_alarms": alarms,
        "false_alarms_per_10000_hands": round(len(alarms) * 10_000 / walls, 2),
        "stated_per_10000_hands": round(_stated(rules), 2),
        "seconds": round(time.monotonic() - began, 1),
    }
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"rigged shuffler favouring S ({args.ruleset}; {SEEDS} seeds, seed {args.seed} on):")
    for name, row in result["hands_to_flag"].items():
        most = f"{row['max']} at most" if row["max"] else f"{row['not_flagged']} not by {GIVE_UP}"
        print(
            f"  {name:8} ({row['share_steered']:.0%} of hands steered): flagged after "
            f"{row['median']:g} hands (median), {most}"
        )
    print(
        f"fair shuffler: {len(alarms)} false alarm{'' if len(alarms) == 1 else 's'} over "
        f"{walls} walls "
        f"({result['false_alarms_per_10000_hands']:g} per 10 000 hands; the tests' exact "
        f"rate: {result['stated_per_10000_hands']:g})"
    )
    for alarm in alarms:
        print(f"  hand {alarm['hand']}: {alarm['message']}")
    return 0


def _stated(rules) -> float:
    """The false alarms per 10 000 fair hands the five tests' thresholds give (exact chains)."""
    watch = ShuffleWatch(len(tiles.physical_set(rules.flowers)))
    return sum(10_000 / cusum.fair_run for cusum in [*watch.sides, watch.walls])


def deal(order: list[int], hand: int, rolls, rules, rng: random.Random):
    """(East's side, the hands by seat, the lanes) of one hand's walls stacked in `order`."""
    dealer = hand % 4
    if rolls is None:
        throws = 2 if rules.two_roll_break else 1
        rolls = tuple((rng.randint(1, 6), rng.randint(1, 6)) for _ in range(throws))
    by_side = starting_hands(order, dealer, rolls, rules)
    by_seat = [by_side[(dealer + seat) % 4] for seat in range(4)]
    return dealer, by_seat, build_walls(order, len(order) // 8)


def _hands_to_flag(rules, share: float, first_seed: int) -> list[int]:
    """For each seed, the hands a machine steering `share` of them takes to be flagged
    (GIVE_UP + 1: not flagged by then)."""
    found = []
    for seed in range(first_seed, first_seed + SEEDS):
        rng = random.Random(f"fair-{seed}")
        chip = ProgramChip(Rigging(SIDE, share), rules, random.Random(f"rig-{seed}"))
        watch = ShuffleWatch(len(tiles.physical_set(rules.flowers)))
        order = tiles.physical_set(rules.flowers)
        for hand in range(1, GIVE_UP + 1):
            rng.shuffle(order)
            stacked, rolls = chip.build(list(order), {hand % 4})
            alarms = watch.hand(*deal(stacked, hand, rolls, rules, rng))
            if any(alarm.side == SIDE for alarm in alarms):
                break
        else:
            hand = GIVE_UP + 1
        found.append(hand)
    return found


def _fair(rules, walls: int, seed: int) -> list[dict]:
    """The alarms over `walls` fair walls, one hand each."""
    rng = random.Random(f"fair-walls-{seed}")
    watch = ShuffleWatch(len(tiles.physical_set(rules.flowers)))
    order = tiles.physical_set(rules.flowers)
    alarms = []
    for hand in range(1, walls + 1):
        rng.shuffle(order)
        for alarm in watch.hand(*deal(order, hand, None, rules, rng)):
            alarms.append({"hand": hand, "message": alarm.message()})
    return alarms


def simulated_distributions(walls: int, seed: int) -> dict:
    """The distributions shuffle_watch.json ships, from `walls` fair shuffles of each set:
    four disjoint starting hands and the walls' same-kind neighbours per shuffle."""
    sets = {}
    for flowers in (False, True):
        rng = random.Random(f"distributions-{seed}")
        order = tiles.physical_set(flowers)
        scores = [0] * 7
        pairs: dict[int, int] = {}  # same-kind neighbours in a shuffle's walls -> shuffles
        for _ in range(walls):
            rng.shuffle(order)
            for side in range(4):
                scores[hand_score(order[13 * side : 13 * side + 13])] += 1
            n = neighbours(build_walls(order, len(order) // 8))
            pairs[n] = pairs.get(n, 0) + 1
        counted = [pairs.get(n, 0) for n in range(max(pairs) + 1)]
        sets[str(len(order))] = {
            "hand": [n / (4 * walls) for n in scores],
            "neighbours": [n / walls for n in counted],
        }
    return {
        "made_by": f"python -m firmware.bench.fairness ({walls} fair walls a set, seed {seed})",
        "sets": sets,
    }


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m firmware.bench.fairness PATH")
    with open(sys.argv[1], "w", encoding="utf-8") as out:
        json.dump(simulated_distributions(200_000, 1), out, indent=1)
        out.write("\n")
