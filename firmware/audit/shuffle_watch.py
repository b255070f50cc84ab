"""A rigged shuffler caught by its walls (issue 17, VENUE.md §4.1 "program machines").

Two sequential tests run over every hand dealt, each a CUSUM against the distribution a fair
shuffle gives (simulated once and shipped: shuffle_watch.json, which `python -m
firmware.bench.fairness PATH` makes again):

- per physical side, how near ready the 13 tiles it is dealt are (East's first 13): the
  shanten over four sets and a pair, seven pairs and thirteen orphans, flowers left out. A
  machine that favours the player on one side gives that side's starting hands fewer tiles to
  change, whichever seat he holds;
- for the table, how often two tiles of a kind lie next to each other in a wall as stacked:
  a machine that builds walls by placing tiles rather than shuffling them clusters them.

Each CUSUM's threshold is set from the fair distribution (an exact Markov chain on its steps)
so that a fair shuffler raises it once in FAIR_HANDS hands on average: the five tests
together, under one false alarm per FAIR_HANDS / 5 hands (target: 1 per 10 000). An alarm is
a fault for the referee, with the chance a fair shuffler had of dealing the hands since the
test last stood at zero at least this well (that stretch is the one the test picked out, so
this p is smaller than the chance of an alarm at all: that is the rate above); the test then
starts again. The tests follow the hands this process deals: a start after a power cut
begins them afresh.
"""

import itertools
import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from engine import events as ev
from engine import tiles
from engine.hand import counts
from engine.seats import LETTERS
from engine.shanten import seven_pairs, standard, thirteen_orphans

DATA = "shuffle_watch.json"
FAIR_HANDS = 250_000  # each test's mean run between false alarms on a fair shuffler
HAND_SHIFT = 0.5  # the shift in 6 - shanten a side's CUSUM is tuned to catch
CLUSTER_SHIFT = 2.0  # the shift in same-kind neighbours per wall the table's CUSUM is tuned to
STEP = 4  # CUSUM values are kept in quarters: exact arithmetic, an exact chain


def shanten(hand) -> int:
    """How many tiles a starting hand (tile ids) must change to be ready, the best of the
    three shapes; flowers are no hand tiles."""
    c = counts(k for k in map(tiles.kind_of, hand) if not tiles.is_flower(k))
    return min(standard(c), seven_pairs(c), thirteen_orphans(c))


def hand_score(hand) -> int:
    """A side's hand for its test: 6 - shanten, higher for a better start (0..6)."""
    return 6 - shanten(hand)


def neighbours(lanes) -> int:
    """Pairs of tiles of one kind side by side in the walls as stacked, lane by lane."""
    return sum(
        tiles.kind_of(a) == tiles.kind_of(b) for lane in lanes for a, b in itertools.pairwise(lane)
    )


def fair_distributions(tile_count: int) -> dict[str, list[float]]:
    """The shipped fair distributions for a set of `tile_count` tiles: "hand" over the
    hand scores 0..6, "neighbours" over the counts 0, 1, ..."""
    data = json.loads(resources.files("firmware.audit").joinpath(DATA).read_text(encoding="utf-8"))
    return data["sets"][str(tile_count)]


class Cusum:
    """One-sided CUSUM of integer scores x with fair distribution `pmf` (pmf[x]): S = max(0,
    S + x - k), an alarm when S reaches h. k is the fair mean plus half the `shift` to catch,
    to the nearest STEP; h the least whose fair mean run to an alarm is at least `fair_run`."""

    def __init__(self, pmf: list[float], shift: float, fair_run: float):
        self.pmf = pmf
        mean = sum(x * p for x, p in enumerate(pmf))
        self.k = round((mean + shift / 2) * STEP)  # in STEPs
        self.h = _threshold(tuple(pmf), self.k, fair_run)
        self.fair_run = mean_run(tuple(pmf), self.k, self.h)
        self.s = 0  # in STEPs
        self.hands = self.total = 0  # since S last stood at zero: hands, scores' sum

    def add(self, x: int) -> tuple[float, int] | None:
        """Take one hand's score; on an alarm, its p and the hands it is over (the test then
        starts again), else None."""
        x = min(x, len(self.pmf) - 1)  # beyond what fair walls showed: counted as the most
        self.s += STEP * x - self.k
        self.hands, self.total = self.hands + 1, self.total + x
        if self.s <= 0:
            self.s = self.hands = self.total = 0
            return None
        if self.s < self.h:
            return None
        fired = self.tail(self.hands, self.total), self.hands
        self.s = self.hands = self.total = 0
        return fired

    def tail(self, n: int, total: int) -> float:
        """The chance that n fair hands score `total` or more between them."""
        dist = [1.0]
        for _ in range(n):
            step = [0.0] * (len(dist) + len(self.pmf) - 1)
            for x, q in enumerate(self.pmf):
                step[x : x + len(dist)] = [a + q * b for a, b in zip(step[x:], dist, strict=False)]
            dist = step
        return min(1.0, sum(dist[total:]))


@lru_cache(maxsize=16)  # the four sides share theirs
def _threshold(pmf: tuple[float, ...], k: int, fair_run: float) -> int:
    """The least h (in STEPs) whose fair mean run reaches `fair_run`: doubled, then halved."""
    low, high = 1, STEP
    while mean_run(pmf, k, high) < fair_run:
        low, high = high, 2 * high
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (mid, high) if mean_run(pmf, k, mid) < fair_run else (low, mid)
    return high


def mean_run(pmf: tuple[float, ...], k: int, h: int) -> float:
    """Hands a fair shuffler takes on average to raise an alarm from zero with reference k
    and threshold h (in STEPs): (I - Q) L = 1 over the states 0..h-1, by elimination."""
    a = [[float(i == j) for j in range(h)] + [1.0] for i in range(h)]
    for i in range(h):
        for x, p in enumerate(pmf):
            j = max(0, i + STEP * x - k)
            if j < h:
                a[i][j] -= p
    for col in range(h):
        pivot = a[col][col]
        for row in range(col + 1, h):
            factor = a[row][col] / pivot
            if factor:
                a[row] = [v - factor * w for v, w in zip(a[row], a[col], strict=True)]
    run = [0.0] * h
    for row in range(h - 1, -1, -1):
        run[row] = (a[row][h] - sum(a[row][j] * run[j] for j in range(row + 1, h))) / a[row][row]
    return run[0]


@dataclass(frozen=True)
class Alarm:
    """A test that fired: `side` 0..3, or None for the walls' clustering; its p and hands."""

    side: int | None
    p: float
    hands: int

    def message(self) -> str:
        over = f"p = {self.p:.1e} over its last {self.hands} hands"
        if self.side is None:
            return f"the shuffler's walls cluster tiles of a kind ({over})"
        return f"the shuffler's walls favour the {LETTERS[self.side]} side ({over})"


class ShuffleWatch:
    """The tests of one table's walls, for a set of `tile_count` tiles."""

    def __init__(self, tile_count: int, fair_run: float = FAIR_HANDS):
        fair = fair_distributions(tile_count)
        self.sides = [Cusum(fair["hand"], HAND_SHIFT, fair_run) for _ in range(4)]
        self.walls = Cusum(fair["neighbours"], CLUSTER_SHIFT, fair_run)

    def hand(self, dealer: int, hands, lanes) -> list[Alarm]:
        """One hand dealt: `hands` by seat (East first) with East on side `dealer`; `lanes`
        the walls as stacked."""
        alarms = []
        for seat, held in enumerate(hands):
            side = (dealer + seat) % 4
            fired = self.sides[side].add(hand_score(held[:13]))
            if fired:
                alarms.append(Alarm(side, *fired))
        fired = self.walls.add(neighbours(lanes))
        if fired:
            alarms.append(Alarm(None, *fired))
        return alarms


def follow(service) -> None:
    """Watch the hands `service` deals (a listener on its outputs); an alarm is a fault on
    the referee's board, which reaches the display and the venue."""
    port = service.commands  # the table's write port (firmware/table/commands.py)
    watch = ShuffleWatch(len(tiles.physical_set(service.ruleset.table_rules.flowers)))

    def seen(events) -> None:
        dealt = [event for event in events if isinstance(event, ev.Dealt)]
        status = service.status() if dealt else None
        for event in dealt:
            if status is not None and status.table is not None:
                dealer, walls = status.session.player_at(0), status.table.walls
                for alarm in watch.hand(dealer, event.hands, walls):
                    port.report_fault(
                        event.t,
                        "shuffler",
                        "favoured" if alarm.side is not None else "clustered",
                        alarm.message(),
                        "stop play on this table and have the machine inspected; the journal "
                        "holds every wall",
                        transient=True,
                    )

    port.subscribe(seen)
