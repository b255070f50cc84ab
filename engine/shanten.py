"""How far a hand is from ready (向聽數): the referee's "one away, two away" (issue 18).

Counted on a hand of 13 tiles (kongs as 3) as the tiles it must still exchange before one more
tile could complete it; 0 is ready (聽牌). Each suit is searched on its own and cached by its
counts, as engine/hand.py does for the win check, so a new hand costs a few dict lookups.
"""

from collections.abc import Sequence
from functools import lru_cache

from engine import tiles

Blocks = frozenset[tuple[int, int, int]]  # (sets, partial sets, pair kept as the head)


@lru_cache(maxsize=1 << 12)  # bounded, as engine/hand.py's: a table plays for days
def _blocks(key: tuple[int, ...], runs: bool) -> Blocks:
    """Every (sets, partials, head) one suit's counts can be split into, the dominated left
    out. A partial is two tiles one short of a set: a pair, two neighbours, two one apart."""
    first = next((i for i, n in enumerate(key) if n), None)
    if first is None:
        return frozenset({(0, 0, 0)})

    def rest(*taken: int) -> list[int]:
        left = list(key)
        for i in taken:
            left[i] -= 1
        return left

    options: list[tuple[tuple[int, int, int], list[int]]] = [((0, 0, 0), rest(first))]
    n = key[first]
    if n >= 3:
        options.append(((1, 0, 0), rest(first, first, first)))
    if n >= 2:
        options.append(((0, 0, 1), rest(first, first)))
        options.append(((0, 1, 0), rest(first, first)))
    if runs:
        near = [first + d for d in (1, 2) if first + d < len(key) and key[first + d]]
        if len(near) == 2:
            options.append(((1, 0, 0), rest(first, *near)))
        options += [((0, 1, 0), rest(first, other)) for other in near]
    found = set()
    for (s, p, h), left in options:
        for s2, p2, h2 in _blocks(tuple(left), runs):
            if h + h2 <= 1:
                found.add((s + s2, p + p2, h + h2))
    return frozenset(b for b in found if not any(o != b and _covers(o, b) for o in found))


def _covers(a: tuple[int, int, int], b: tuple[int, int, int]) -> bool:
    return all(x >= y for x, y in zip(a, b, strict=True))


def standard(c: Sequence[int], melds: int = 0) -> int:
    """Four sets and a pair, the `melds` declared sets counted as complete: 8, less 2 a set,
    1 a partial set (no more partials than sets still wanted), 1 for a pair kept as the head.
    More tiles than a hand (a starting hand and its next draws, issue 35) count as the best
    hand among them: no more than four sets count."""
    b = bytes(c)
    sums: set[tuple[int, int, int]] = {(melds, 0, 0)}
    for part, runs in ((b[:9], True), (b[9:18], True), (b[18:27], True), (b[27:34], False)):
        sums = {  # past four sets and four partials none counts more: fewer sums to carry
            (min(s + s2, 4), min(p + p2, 4), h + h2)
            for s, p, h in sums
            for s2, p2, h2 in _blocks(tuple(part), runs)
            if h + h2 <= 1
        }
    return min(8 - 2 * s - min(p, 4 - s) - h for s, p, h in sums)


def seven_pairs(c: Sequence[int], four_as_two_pairs: bool = True) -> int:
    """6 less the pairs held; where four alike are not two pairs, the kinds short of seven
    distinct are counted too."""
    if four_as_two_pairs:
        return 6 - sum(n // 2 for n in c)
    pairs = sum(n >= 2 for n in c)
    return 6 - pairs + max(0, 7 - sum(n > 0 for n in c))


def thirteen_orphans(c: Sequence[int]) -> int:
    """13 less the terminal and honour kinds held, less 1 if one of them is paired."""
    held = [c[k] for k in tiles.TERMINALS_AND_HONOURS]
    return 13 - sum(n > 0 for n in held) - any(n >= 2 for n in held)
