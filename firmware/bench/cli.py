"""`mjtable bench`: speed figures for README, never asserted by tests.

`bench score` times the WSOM scorer and the win check on a fixed, seeded set of winning hands,
and, when the riichi `mahjong` package (dev extra) is installed, its HandCalculator and
Agari check on the same hands in the same run, with the ratios. `bench frames` times the
tile-reader frame parser against what a 115200-baud link can carry. `bench display` times
the referee display's live update: from a reader frame handed to the service to a page's
event stream delivering the event it caused. `bench waits` times the referee's live waits
after every discard of a simulated session and checks them against brute force. `bench soak`
plays the simulated table at top speed and reports how the process's memory grows per hand.
`bench resume` times a start after a power cut, from the process's start to refereeing again.
`bench venue` runs a hall of simulated tables on the venue's bus through a real broker: the
latency from a journal's commit to the venue's board, the CPU it costs, an outage's drain.
`bench fairness` counts, for each rig and strength, the share of rigged tables caught within
16, 64 and 256 hands, and the false alarms over fair walls (firmware/bench/fairness.py).
"""

import json
import math
import random
import statistics
import sys
import time

from engine import hand, tiles
from engine.scoring import Win
from firmware.bench import display as bench_display
from firmware.bench import fairness as bench_fairness
from firmware.bench import resume as bench_resume
from firmware.bench import soak as bench_soak
from firmware.bench import venue as bench_venue
from firmware.bench import waits as bench_waits
from firmware.percentiles import percentiles
from firmware.resources import load_ruleset


def add_parser(commands) -> None:
    p = commands.add_parser("bench")
    p.add_argument(
        "target",
        choices=["score", "frames", "display", "waits", "soak", "resume", "venue", "fairness"],
        help="what to measure",
    )
    p.add_argument(
        "--hands",
        type=int,
        help="hands (score, waits, soak; resume: in the journal cut short), frames of each "
        "kind (frames) or discards (display) to time; default 5000, 200 for display, 2000 "
        "for waits, 1000 for soak, 16 for resume; venue: per table, default what the run needs; "
        "fairness: fair walls, default 200000",
    )
    p.add_argument(
        "--seed",
        type=int,
        default=1,
        help="seed of the hand set or of the simulated table (default 1)",
    )
    p.add_argument(
        "--ruleset",
        default="wsom2006",
        help="waits, soak: wsom2006 or ccm2012 (or a TOML file)",
    )
    venue = p.add_argument_group("venue")
    venue.add_argument("--tables", type=int, default=500, help="simulated tables (default 500)")
    venue.add_argument(
        "--speed", type=float, default=1.0, help="table time per real second (default 1)"
    )
    venue.add_argument("--seconds", type=float, default=60.0, help="table time timed (default 60)")
    venue.add_argument(
        "--outage",
        type=float,
        default=60.0,
        help="table time the broker is stopped for (default 60)",
    )
    venue.add_argument(
        "--broker",
        type=bench_venue.broker_address,
        metavar="HOST:PORT",
        help="a broker to use, anonymous (default: a mosquitto of its own; no outage then)",
    )
    p.add_argument(
        "--rigged-tables",
        type=int,
        default=100,
        dest="tables_rigged",
        help="fairness: rigged tables per rig and strength (default 100)",
    )
    p.add_argument("--json", action="store_true", help="one JSON line instead of a table")
    p.set_defaults(run=run)


def winning_hands(n: int, seed: int) -> list[Win]:
    """Concealed, self-drawn winning hands (4 sets + pair), reproducible from the seed.

    Concealed self-draws are the hands both rule families score (a riichi hand needs a yaku;
    a concealed self-draw always has one), so the two scorers do the same work.
    """
    rng = random.Random(seed)
    result: list[Win] = []
    while len(result) < n:
        c = [0] * tiles.KINDS
        for _ in range(4):
            if rng.random() < 0.6:
                start = 9 * rng.randrange(3) + rng.randrange(7)
                for k in range(start, start + 3):
                    c[k] += 1
            else:
                c[rng.randrange(tiles.KINDS)] += 3
        c[rng.randrange(tiles.KINDS)] += 2
        if max(c) > 4:
            continue
        all_tiles = [k for k in range(tiles.KINDS) for _ in range(c[k])]
        win_tile = all_tiles.pop(rng.randrange(14))
        result.append(Win(tuple(all_tiles), (), win_tile, True, rng.randrange(4)))
    return result


def _time_interleaved(funcs: dict, items: dict, rounds: int = 5) -> dict[str, list[float]]:
    """Microseconds per call of each function on its own form of each item.

    Each function runs over the whole set in turn, round after round (after a warm-up round),
    so a busy machine or a change of clock speed weighs on all of them alike and the ratios
    hold; within a round the function stays warm, as it would in a loop at the table. The
    cost of reading the clock itself (its median) is taken off every sample.
    """
    clock = time.perf_counter_ns
    overhead = statistics.median(-clock() + clock() for _ in range(10_000)) / 1000
    spent: dict[str, list[float]] = {name: [] for name in funcs}
    for round_number in range(rounds + 1):
        for name, func in funcs.items():
            samples = []
            for item in items[name]:
                start = clock()
                func(item)
                samples.append((clock() - start) / 1000 - overhead)
            if round_number:
                spent[name] += samples
    return spent


def _summary(samples: list[float]) -> dict:
    median, p99, _ = percentiles(samples)
    return {"median_us": median, "p99_us": p99}


# Our honour order is E S W N C F P (red, green, white); riichi's is E S W N white green red.
_RIICHI = list(range(31)) + [33, 32, 31]


def _riichi(hands: list[Win]):
    """Functions and inputs to score the same hands with the riichi `mahjong` package, or
    None if it is not installed."""
    try:
        from mahjong.agari import Agari
        from mahjong.hand_calculating.hand import HandCalculator
        from mahjong.hand_calculating.hand_config import HandConfig
    except ImportError:
        return None
    calculator, config = HandCalculator(), HandConfig(is_tsumo=True)

    def as_136(win: Win):
        used = [0] * 34
        ids = []
        for kind in (*win.concealed, win.win_tile):
            k = _RIICHI[kind]
            ids.append(4 * k + used[k])
            used[k] += 1
        return ids, ids[-1]

    converted = [as_136(w) for w in hands]
    counts34 = []
    for ids, _ in converted:
        c = [0] * 34
        for i in ids:
            c[i // 4] += 1
        counts34.append(c)
    funcs = {
        "mahjong_hand_calculator": lambda h: calculator.estimate_hand_value(
            h[0], h[1], config=config
        ),
        "mahjong_agari": Agari().is_agari,
    }
    return funcs, {"mahjong_hand_calculator": converted, "mahjong_agari": counts34}


LINK_BYTES_PER_SECOND = 115200 / 10  # 8N1: ten bits on the wire per byte


def run(args) -> int:
    if args.target == "venue":
        return bench_venue.run(args)
    if args.hands is None:
        args.hands = {
            "display": 200,
            "waits": 2000,
            "soak": 1000,
            "resume": 16,
            "fairness": 200_000,
        }.get(args.target, 5000)
    if args.hands < 1:
        print(f"mjtable bench: --hands {args.hands}: time at least one", file=sys.stderr)
        return 2
    if args.target == "frames":
        return _frames(args)
    if args.target == "display":
        return bench_display.run(args)
    if args.target == "waits":
        return bench_waits.run(args)
    if args.target == "soak":
        return bench_soak.run(args)
    if args.target == "resume":
        return bench_resume.run(args)
    if args.target == "fairness":
        if args.tables_rigged < 1:
            print(
                f"mjtable bench: --rigged-tables {args.tables_rigged}: at least one",
                file=sys.stderr,
            )
            return 2
        return bench_fairness.run(args)
    ruleset = load_ruleset("wsom2006")
    hands = winning_hands(args.hands, args.seed)
    funcs = {"score": ruleset.score, "win_check": hand.is_win}
    items = {"score": hands, "win_check": [hand.counts(w.concealed + (w.win_tile,)) for w in hands]}
    riichi = _riichi(hands)
    if riichi:
        funcs.update(riichi[0])
        items.update(riichi[1])
    result = {"hands": len(hands), "seed": args.seed}
    result.update(
        (name, _summary(samples)) for name, samples in _time_interleaved(funcs, items).items()
    )
    if riichi:
        result["score_speedup"] = round(
            result["mahjong_hand_calculator"]["median_us"] / result["score"]["median_us"], 2
        )
        result["win_check_speedup"] = round(
            result["mahjong_agari"]["median_us"] / result["win_check"]["median_us"], 2
        )
    if args.json:
        print(json.dumps(result))
        return 0
    print(
        f"{len(hands)} concealed self-drawn winning hands, seed {args.seed}, "
        "each timed 5 times, the measured functions taking turns"
    )
    labels = {
        "score": "mjtable score (WSOM 2006)",
        "win_check": "mjtable win check",
        "mahjong_hand_calculator": "mahjong HandCalculator",
        "mahjong_agari": "mahjong Agari.is_agari",
    }
    for name, label in labels.items():
        if name in result:
            s = result[name]
            print(f"  {label:<28} median {s['median_us']:>8.2f} us   p99 {s['p99_us']:>8.2f} us")
    if riichi:
        print(
            f"  scoring: mjtable is {result['score_speedup']}x as fast as mahjong's "
            f"HandCalculator; win check: {result['win_check_speedup']}x its Agari"
        )
    else:
        print("  (install the dev extra for the riichi `mahjong` comparison)")
    return 0


def _frames(args) -> int:
    """Frames parsed per second, fed in 64-byte chunks as a serial port delivers them, for a
    wall-side inventory (36 tags of 8 bytes), a stacker record and a heartbeat."""
    from drivers.reader_frames import encode_heartbeat, encode_inventory, encode_stacked
    from drivers.reader_parser import FrameParser

    rng = random.Random(args.seed)
    kinds = {
        "inventory of 36 tags": lambda: encode_inventory(
            rng.randrange(8), [rng.randbytes(8) for _ in range(36)]
        ),
        "stacker record": lambda: encode_stacked(rng.randrange(144), rng.randbytes(8)),
        "heartbeat": lambda: encode_heartbeat(rng.randrange(256)),
    }
    result = {}
    for name, make in kinds.items():
        frames = [make() for _ in range(args.hands)]
        stream = b"".join(frames)
        chunks = [stream[i : i + 64] for i in range(0, len(stream), 64)]
        best = math.inf
        for _ in range(5):
            parser = FrameParser()
            start = time.perf_counter()
            for chunk in chunks:
                parser.feed(chunk)
            best = min(best, time.perf_counter() - start)
        link = LINK_BYTES_PER_SECOND / len(frames[0])
        result[name] = {
            "frame_bytes": len(frames[0]),
            "parsed_per_second": round(len(frames) / best),
            "link_per_second": round(link, 1),
            "headroom": round(len(frames) / best / link, 1),
        }
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"{args.hands} frames of each kind, best of 5 runs, fed in 64-byte chunks")
    for name, r in result.items():
        print(
            f"  {name:<22} {r['frame_bytes']:>4} B  parsed {r['parsed_per_second']:>9,}/s"
            f"  115200 baud carries {r['link_per_second']:>7}/s  headroom {r['headroom']}x"
        )
    return 0
