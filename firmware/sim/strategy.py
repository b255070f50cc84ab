"""What a simulated player aims at: the nearest win by shanten (tiles away from ready), and
where the rule book refuses a bare shape, the nearest hand that scores (issue 13).

CCM wins only with a fan (RULES.md 4.7: "no fan, no win"), so there the player measures his
distance to the fans a hand can be steered to: a flush in one suit (混一色 / 清一色, 4.8.4 and
4.8.10), all pungs (對對和, 4.8.5), seven pairs (七對, 4.8.11) and four claimed sets with a single
wait (全求獨釣, 4.8.7). He sees only his own tiles and sets, as a player at the table does.
"""

from collections import Counter
from functools import lru_cache

from engine import tiles
from engine.hand import KONG, PUNG
from engine.scoring import Win

# 123m 234p 678s 345m 9p waiting on 9p: a bare shape with no pattern in either rule book.
_BARE = tiles.parse("123m 234p 678s 345m 9p")

Melds = tuple[tuple[str, int, bool], ...]  # (kind, first tile kind, concealed) of each set


def needs_fan(ruleset) -> bool:
    """The scorer's dry run on a bare shape: does the rule book refuse it (CCM) or pay it (WSOM)?"""
    win = Win(tuple(_BARE), (), _BARE[-1], False, 1, discarder=0, responsible=0)
    return not ruleset.score(win).legal


def described(melds) -> Melds:
    """A seat's declared sets as the distance counts them (engine.hand_state.ExposedMeld)."""
    return tuple((m.kind, tiles.kind_of(m.tiles[0]), m.concealed) for m in melds)


# Bounded (4096 suits' readings, about 2.5 MB): a soak plays the simulated table for days. At
# 8192 it was still filling at hand 500, some 10 new suits a hand: part of the soak's slope
# over its last 500 hands (issue 32 item 4); 4096 are full by hand 60, 96 % of lookups hit.
@lru_cache(maxsize=1 << 12)
def _group_shapes(key: tuple[int, ...], runs: bool) -> frozenset[tuple[int, int, int]]:
    """Every useful (sets, partial sets, pair) reading of one suit's counts (or one honour's),
    Pareto-pruned."""
    first = next((i for i, n in enumerate(key) if n), None)
    if first is None:
        return frozenset({(0, 0, 0)})

    def rest(*taken):
        c = list(key)
        for i in taken:
            c[i] -= 1
        return _group_shapes(tuple(c), runs)

    found = set(rest(first))  # an isolated tile
    if key[first] >= 3:
        found |= {(m + 1, t, p) for m, t, p in rest(first, first, first)}
    if key[first] >= 2:
        for m, t, p in rest(first, first):
            found.add((m, t + 1, p))
            if not p:
                found.add((m, t, 1))
    if runs and first <= 6 and key[first + 1] and key[first + 2]:
        found |= {(m + 1, t, p) for m, t, p in rest(first, first + 1, first + 2)}
    if runs and first <= 7 and key[first + 1]:
        found |= {(m, t + 1, p) for m, t, p in rest(first, first + 1)}
    if runs and first <= 6 and key[first + 2]:
        found |= {(m, t + 1, p) for m, t, p in rest(first, first + 2)}
    return _pareto(found)


def _pareto(shapes) -> frozenset:
    """Drop the readings another reading beats on sets, partial sets and pair alike."""
    return frozenset(
        s
        for s in shapes
        if not any(o != s and o[0] >= s[0] and o[1] >= s[1] and o[2] >= s[2] for o in shapes)
    )


def shanten(kinds: list[int], melds: int) -> int:
    """How many tiles from ready (0 = waiting, -1 = complete) for four sets and a pair;
    seven pairs too when nothing is declared."""
    return _shanten(tuple(sorted(kinds)), melds)


# 8192 entries each, as above: at 65 536 these two filled for 650 hands and some 40 MB, the
# soak's slope (issue 32 item 4); a smaller cache played 300 hands as fast.
@lru_cache(maxsize=1 << 13)
def _shanten(kinds: tuple[int, ...], melds: int) -> int:
    c = [0] * tiles.KINDS
    for k in kinds:
        if k < tiles.KINDS:
            c[k] += 1
    groups = [_group_shapes(tuple(c[s : s + 9]), True) for s in (0, 9, 18) if any(c[s : s + 9])]
    honours = c[27:34]
    pungs, pairs = sum(n >= 3 for n in honours), honours.count(2)
    groups.append(
        frozenset({(pungs, pairs, 0), (pungs, pairs - 1, 1)} if pairs else {(pungs, 0, 0)})
    )
    best_partials = {(melds, 0): 0}  # (sets, pair) -> most partial sets
    for group in groups:
        merged: dict[tuple[int, int], int] = {}
        for (m1, p1), t1 in best_partials.items():
            for m2, t2, p2 in group:
                pair, partials = min(p1 + p2, 1), min(t1 + t2 + max(p1 + p2 - 1, 0), 4)
                if merged.get((m1 + m2, pair), -1) < partials:
                    merged[(m1 + m2, pair)] = partials
        best_partials = merged
    best = min(8 - 2 * m - min(t, 4 - m) - p for (m, p), t in best_partials.items())
    if not melds:
        pairs = sum(n >= 2 for n in c)
        best = min(best, 6 - pairs + max(0, 7 - sum(n > 0 for n in c)))
    return best


def best_after_discard(kinds: list[int], melds: int) -> int:
    """Shanten after a call: the best discard that follows it."""
    best = 8
    for kind in set(kinds):
        rest = list(kinds)
        rest.remove(kind)
        best = min(best, shanten(rest, melds))
    return best


def isolation(kind: int, others: list[int]) -> int:
    """How lonely a tile is beside the `others` in hand: 1 and more for a tile with no copy
    and no neighbour within two (honours and terminals lonelier), below 1 with company."""
    near = sum(
        1
        for k in others
        if k == kind or (k < 27 and kind < 27 and k // 9 == kind // 9 and abs(k - kind) <= 2)
    )
    return (3 if kind >= 27 else 2 if kind % 9 in (0, 8) else 1) - 3 * near


def without(kinds: list[int], kind: int) -> list[int]:
    rest = list(kinds)
    rest.remove(kind)
    return rest


def fan_distance(kinds: list[int], melds: Melds) -> int:
    """Tiles away from ready for the nearest hand with a fan, his declared `melds` kept."""
    return _fan_distance(tuple(sorted(kinds)), melds)


@lru_cache(maxsize=1 << 13)  # bounded: a soak plays the simulated table for days
def _fan_distance(kinds: tuple[int, ...], melds: Melds) -> int:
    n, best = len(melds), 8
    counts = Counter(kinds)
    if all(kind in (PUNG, KONG) for kind, _, _ in melds):  # 對對和 (4.8.5)
        sets = min(4, n + sum(v >= 3 for v in counts.values()))
        pairs = sum(v == 2 for v in counts.values())
        head = 1 if pairs else 0
        best = min(best, 8 - 2 * sets - min(pairs - head, 4 - sets) - head)
    if not n:  # 七對 (4.8.11), four alike not two pairs
        pairs = sum(v >= 2 for v in counts.values())
        best = min(best, 6 - pairs + max(0, 7 - len(counts)))
    claimed = not any(concealed for _, _, concealed in melds)
    if claimed and 4 - n < best:  # 全求獨釣 (4.8.7): every set claimed; 4 - n at the nearest
        best = min(best, 8 - 2 * n - min(_claimable(kinds), 4 - n))
    meld_suits = {k // 9 for _, k, _ in melds if k < 27}
    for suit in range(3):  # a flush: his tiles of one suit and the honours (4.8.4 / 4.8.10)
        own = [k for k in kinds if k >= 27 or k // 9 == suit]
        short = 13 - 3 * n - len(own)  # ready needs that many tiles more of the flush
        if meld_suits <= {suit} and short < best:
            best = min(best, max(short, shanten(own, n)))
    return best


def _claimable(kinds: tuple[int, ...]) -> int:
    """How many sets the concealed tiles could still be completed into by a claim: pairs and
    neighbours, a set in hand counting as one (its claim breaks it up)."""
    c = [0] * tiles.KINDS
    for k in kinds:
        c[k] += 1
    found = sum(n >= 2 for n in c[27:])
    for s in (0, 9, 18):
        if any(c[s : s + 9]):
            found += max(m + t + p for m, t, p in _group_shapes(tuple(c[s : s + 9]), True))
    return found


def aimed_discard(kinds: list[int], melds: Melds) -> list[int]:
    """The kinds whose discard leaves the hand nearest to one that scores: ties broken by the
    bare shape's distance, then by the loneliest tile."""
    distance = {kind: fan_distance(without(kinds, kind), melds) for kind in set(kinds)}
    nearest = min(distance.values())
    after = {}
    for kind in (k for k, d in distance.items() if d == nearest):
        rest = without(kinds, kind)
        after[kind] = (shanten(rest, len(melds)), -isolation(kind, rest))
    best = min(after.values())
    return sorted(k for k, value in after.items() if value == best)


def aimed_after_call(kinds: list[int], melds: Melds) -> int:
    """The distance to a scoring hand after a call: the best discard that follows it."""
    return min(fan_distance(without(kinds, kind), melds) for kind in set(kinds))
