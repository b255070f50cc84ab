"""The sequential test behind each of the shuffle watch's alarms (issue 17, issue 35): a CUSUM
over integer scores whose fair distribution is shipped (shuffle_watch.json), its threshold
set by an exact Markov chain so that a fair shuffler raises it once in a stated number of
hands on average. That number, not a p picked after the fact, is what an alarm says: a
CUSUM looks back over the stretch that makes its case, so any p it printed would be far
smaller than the chance of an alarm at all (issue 35: "9.7e-8" on a fair table that raises
one about once in 56 000 hands)."""

from functools import lru_cache

STEP = 4  # CUSUM values are kept in quarters: exact arithmetic, an exact chain


class Cusum:
    """One-sided CUSUM of integer scores x with fair distribution `pmf` (pmf[x]): S = max(0,
    S + x - k), an alarm when S reaches h. k is the fair mean plus half the `shift` to catch,
    to the nearest STEP; h the least whose fair mean run to an alarm is at least `fair_run`.
    `lower`: the test watches for scores below the fair ones (a side made worse) by
    mirroring them, max - x, over the mirrored distribution."""

    def __init__(self, pmf: list[float], shift: float, fair_run: float, lower: bool = False):
        self.lower = lower
        self.pmf = list(reversed(pmf)) if lower else list(pmf)
        mean = sum(x * p for x, p in enumerate(self.pmf))
        self.k = round((mean + shift / 2) * STEP)  # in STEPs
        self.h = _threshold(tuple(self.pmf), self.k, fair_run)
        self.fair_run = mean_run(tuple(self.pmf), self.k, self.h)
        self.s = 0  # in STEPs
        self.hands = 0  # since S last stood at zero

    def add(self, x: int) -> int | None:
        """Take one hand's score; on an alarm, the hands since the test last stood at zero
        (the test then starts again), else None."""
        top = len(self.pmf) - 1
        x = min(max(x, 0), top)  # beyond what fair walls showed: counted as the extreme
        self.s += STEP * (top - x if self.lower else x) - self.k
        self.hands += 1
        if self.s <= 0:
            self.s = self.hands = 0
            return None
        if self.s < self.h:
            return None
        fired, self.s, self.hands = self.hands, 0, 0
        return fired


@lru_cache(maxsize=64)  # the sides and the players share theirs
def _threshold(pmf: tuple[float, ...], k: int, fair_run: float) -> int:
    """The least h (in STEPs) whose fair mean run reaches `fair_run`: doubled, then halved."""
    low, high = 1, STEP
    while mean_run(pmf, k, high) < fair_run:
        low, high = high, 2 * high
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (mid, high) if mean_run(pmf, k, mid) < fair_run else (low, mid)
    return high


@lru_cache(maxsize=256)
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
