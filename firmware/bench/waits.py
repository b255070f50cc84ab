"""`mjtable bench waits`: the referee's live waits (engine/waits.py, issue 18) after every
discard of a simulated session: how long `table_waits` takes for the four seats (target: p99
under 5 ms), and whether it agrees on every discard with brute force and with a recount of the
table's tiles. Figures for README, never asserted by tests; tests/engine/test_waits.py runs the same
check on a short session.
"""

import json
import sys
import time
from functools import lru_cache
from typing import cast

from engine import events as ev
from engine import tiles
from engine.hand import Meld
from engine.scoring import Win, WinError, check
from engine.table import Table
from engine.waits import Scorer, SeatWaits, table_waits
from firmware.percentiles import percentiles
from firmware.resources import load_ruleset
from firmware.sim import simulate

WAITS_TARGET_MS = 5.0


def _kinds(ids) -> list[int]:
    return [k for k in map(tiles.kind_of, ids) if not tiles.is_flower(k)]


def recount(table: Table, seat: int, kind: int) -> tuple[int, int]:
    """(unseen, in_wall) of a kind counted from where the tiles lie: 4 less what `seat` sees
    (his hand, all his melds, every river, the others' exposed sets), and 4 less every copy out
    of the live wall (hands, melds, rivers, the dead wall)."""
    seen = _kinds(table.hands[seat]) + [t for river in table.rivers for t in _kinds(river)]
    for other, melds in enumerate(table.melds):
        seen += [t for m in melds if other == seat or not m.concealed for t in _kinds(m.tiles)]
    elsewhere = [t for hand in table.hands for t in _kinds(hand)]
    elsewhere += [t for river in table.rivers for t in _kinds(river)]
    elsewhere += [t for melds in table.melds for m in melds for t in _kinds(m.tiles)]
    elsewhere += _kinds(table.broken_wall.dead_wall_tiles)
    return 4 - seen.count(kind), 4 - elsewhere.count(kind)


def brute_force(table: Table, seat: int) -> dict[int, tuple] | None:
    """Each of the 34 kinds added to the seat's 13 tiles and scored as a plain win, by his
    left neighbour's discard and by self-draw: {kind: ((legal, total), (legal, total))} for
    the kinds the scorer reads as a winning shape. None if he does not hold 13."""
    held = tuple(_kinds(table.hands[seat]))
    melds = tuple(m.as_meld() for m in table.melds[seat])
    if len(held) + 3 * len(melds) != 13:
        return None
    flowers = tuple(map(tiles.kind_of, table.flowers[seat]))
    scorer = cast(Scorer, table.ruleset)  # rule books are plain objects, hashed by identity
    return _brute_force(scorer, seat, held, melds, flowers)


@lru_cache(maxsize=4096)  # a hand seen again (the others' discards) is not searched again
def _brute_force(
    ruleset: Scorer, seat: int, held: tuple[int, ...], melds: tuple[Meld, ...], flowers: tuple
) -> dict[int, tuple]:
    left, found = (seat + 3) % 4, {}
    for kind in range(tiles.KINDS):
        by_discard = Win(held, melds, kind, False, seat, left, left, flowers=flowers)
        try:
            check(by_discard)
        except WinError:  # a fifth copy
            continue
        score = ruleset.score(by_discard)
        if score.reason.startswith("not a winning hand"):
            continue
        self_drawn = ruleset.score(Win(held, melds, kind, True, seat, flowers=flowers))
        found[kind] = ((score.legal, score.total), (self_drawn.legal, self_drawn.total))
    return found


def disagreements(table: Table, reports: tuple[SeatWaits, ...]) -> list[str]:
    """Where the reports differ from brute force (kinds, legality, totals, and shanten 0
    exactly when ready) or from the recount of copies, seat by seat."""
    found = []
    for report in reports:
        seat, expected = report.seat, brute_force(table, report.seat)
        got = {
            w.tile: ((w.discard.legal, w.discard.total), (w.self_draw.legal, w.self_draw.total))
            for w in report.waits
        }
        if expected is not None and (got != expected or (report.shanten == 0) != bool(got)):
            found.append(f"seat {seat}: {report.to_json()} against {expected}")
        for w in report.waits:
            if (w.unseen, w.in_wall) != recount(table, seat, w.tile):
                found.append(f"seat {seat} {tiles.NAMES[w.tile]}: {w.unseen}, {w.in_wall}")
    return found


class CheckedGame(simulate.Game):
    """A simulated session that times and checks `table_waits` on every discard the table
    accepts: the first call on the new state, then once more with everything cached."""

    def __init__(self, ruleset, seed: int):
        super().__init__(ruleset, seed, 0.0)
        self.first_ms: list[float] = []
        self.again_ms: list[float] = []
        self.ready = 0
        self.problems: list[str] = []

    def apply(self, table, event):
        out = super().apply(table, event)
        if isinstance(event, ev.TileDiscarded) and any(isinstance(o, ev.Discarded) for o in out):
            start = time.perf_counter()
            reports = table_waits(table)
            middle = time.perf_counter()
            table_waits(table)
            self.first_ms.append((middle - start) * 1000)
            self.again_ms.append((time.perf_counter() - middle) * 1000)
            self.ready += sum(r.shanten == 0 for r in reports)
            self.problems += disagreements(table, reports)
        return out


def run(args) -> int:
    ruleset = load_ruleset(args.ruleset)
    game = CheckedGame(ruleset, args.seed)
    start = time.perf_counter()
    simulate.play_hands(game, args.hands, ruleset.name, quiet=args.json)
    if not game.first_ms:
        print("mjtable bench waits: the session had no discard", file=sys.stderr)
        return 1
    p50, p99, worst = percentiles(game.first_ms, 3)
    again_p50, again_p99, _ = percentiles(game.again_ms, 3)
    result = {
        "ruleset": ruleset.name,
        "hands": args.hands,
        "seed": args.seed,
        "discards": len(game.first_ms),
        "seats_ready": game.ready,
        "disagreements": len(game.problems),
        "p50_ms": p50,
        "p99_ms": p99,
        "max_ms": worst,
        "again_p50_ms": again_p50,
        "again_p99_ms": again_p99,
        "target_p99_ms": WAITS_TARGET_MS,
        "seconds": round(time.perf_counter() - start, 1),
    }
    for problem in game.problems[:5]:
        print(f"mjtable bench waits: {problem}", file=sys.stderr)
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"{ruleset.name}: {args.hands} simulated hands (seed {args.seed}), "
            f"{result['discards']} discards, table_waits for the four seats after each"
        )
        print(
            f"  first call  p50 {p50:.3f} ms   p99 {p99:.3f} ms   max {worst:.3f} ms   "
            f"(target: p99 under {WAITS_TARGET_MS:.0f} ms)"
        )
        print(f"  once more   p50 {again_p50:.3f} ms   p99 {again_p99:.3f} ms   (all cached)")
        print(
            f"  brute force: {result['disagreements']} disagreements over "
            f"{result['discards']} discards ({game.ready} ready seats); "
            f"{result['seconds']} s in all"
        )
    return 1 if game.problems else 0
