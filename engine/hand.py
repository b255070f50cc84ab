"""Win shapes, decompositions and waits of a hand (RULES.md 1.1, 4.7).

A hand is counted as a list of 34 counts (index = tile kind). Each suit is decomposed on its own
and the results are cached per suit pattern, so a win check is a handful of dict lookups and a
scorer can walk every arrangement of a hand without searching it again.
"""

from collections.abc import MutableSequence, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise, permutations, product

from engine import tiles

CHOW, PUNG, KONG, PAIR = "chow", "pung", "kong", "pair"
MELD_SIZES = {CHOW: 3, PUNG: 3, KONG: 4}


class HandError(ValueError):
    """A set of tiles that cannot be what it claims to be (a chow that is not a run, ...)."""


@dataclass(frozen=True)
class Meld:
    """A declared set: claimed from a discard, or a concealed kong."""

    kind: str
    tiles: tuple[int, ...]
    concealed: bool = False

    def __post_init__(self):
        if not isinstance(self.kind, str) or self.kind not in MELD_SIZES:
            raise HandError(f"unknown meld type {self.kind!r} (expected chow, pung or kong)")
        ts = sorted(self.tiles)
        if self.concealed and self.kind != KONG:
            raise HandError(
                f"only a kong is declared concealed, not a {self.kind}: "
                "concealed sets belong in the hand"
            )
        if len(ts) != MELD_SIZES[self.kind]:
            raise HandError(
                f"a {self.kind} has {MELD_SIZES[self.kind]} tiles, "
                f"not {len(ts)}: {tiles.format_tiles(ts)}"
            )
        if self.kind == CHOW:
            ok = (
                tiles.is_suited(ts[0])
                and tiles.suit(ts[0]) == tiles.suit(ts[2])
                and ts[1] == ts[0] + 1
                and ts[2] == ts[0] + 2
            )
        else:
            ok = len(set(ts)) == 1 and not tiles.is_flower(ts[0])
        if not ok:
            raise HandError(f"{tiles.format_tiles(ts)} is not a {self.kind}")
        object.__setattr__(self, "tiles", tuple(ts))

    @property
    def group(self) -> tuple[str, int]:
        """The meld as a decomposition group: kongs count as triplets for the shape."""
        return (CHOW if self.kind == CHOW else PUNG, self.tiles[0])


def counts(kinds) -> bytearray:
    """The 34 counts of the playing tiles among `kinds` (flowers are not hand tiles).

    A bytearray rather than a list: the per-suit keys are then cheap bytes slices.
    """
    c = bytearray(tiles.KINDS)
    for kind in kinds:
        c[kind] += 1
    return c


# The suit caches are bounded (a table plays for days, issue 20): 4096 patterns hold a
# session's working set and `bench score`'s 5000 hands; a rare one is worked out again.
SUITS_CACHED = 1 << 12


@lru_cache(maxsize=SUITS_CACHED)
def _suit(key: tuple[int, ...]) -> tuple[tuple[tuple[str, int], ...], ...]:
    """Every way to split one suit's nine counts into chows and pungs with at most one pair.

    Groups are (kind, rank index 0..8). Empty tuple: the suit cannot be split.
    """
    first = next((i for i, n in enumerate(key) if n), None)
    if first is None:
        return ((),)
    found = set()

    def take(group, removal):
        rest = list(key)
        for i, n in removal:
            rest[i] -= n
        for tail in _suit(tuple(rest)):
            if group[0] == PAIR and any(g[0] == PAIR for g in tail):
                continue
            found.add(tuple(sorted((group,) + tail)))

    if key[first] >= 3:
        take((PUNG, first), [(first, 3)])
    if key[first] >= 2:
        take((PAIR, first), [(first, 2)])
    if first <= 6 and key[first + 1] and key[first + 2]:
        take((CHOW, first), [(first, 1), (first + 1, 1), (first + 2, 1)])
    return tuple(sorted(found))


# Per suit (9 counts) or honours (7 counts): tiles * 16 + pairs if it splits into sets and
# pairs, -1 if it cannot. Filled on first sight until it holds SHAPES_KEPT, then kept as it
# is: the display's waits try every tile against every hand, and a table playing for days
# would meet ever more of the 405 350 possible suits (issue 32 item 4: flat memory). The
# common shapes come first; a rarer one is worked out again (from _suit's cache). Emptied and
# refilled instead, its table and keys were freed and made again every 150 hands of a soak.
SHAPES_KEPT = 1 << 13
_SHAPES: dict[bytes, int] = {}


def _shape(key: bytes) -> int:
    n = sum(key)
    if len(key) == 7:  # honours: only pungs and pairs
        ok, pairs = 1 not in key and 4 not in key, key.count(2)
    else:
        ok, pairs = n % 3 != 1 and bool(_suit(tuple(key))), int(n % 3 == 2)
    shape = n * 16 + pairs if ok else -1
    if len(_SHAPES) < SHAPES_KEPT:  # a plain dict for the hot path's lookup
        _SHAPES[key] = shape
    return shape


def _standard_size(c) -> int:
    """How many tiles the counts `c` hold if they split into sets and one pair, else -1."""
    b = bytes(c)
    shapes = _SHAPES
    total = 0
    for key in (b[:9], b[9:18], b[18:27], b[27:]):
        shape = shapes.get(key)
        if shape is None:
            shape = _shape(key)
        if shape < 0:
            return -1
        total += shape
    return total >> 4 if total & 15 == 1 else -1


def is_standard(c: Sequence[int]) -> bool:
    """Sets and exactly one pair (the melds already taken out of `c`)."""
    return _standard_size(c) >= 0


@lru_cache(maxsize=SUITS_CACHED)
def _suit_groups(key: bytes, start: int) -> tuple[tuple[tuple[str, int], ...], ...]:
    """_suit() of one suit's counts with ranks turned into tile kinds."""
    return tuple(tuple((kind, start + r) for kind, r in option) for option in _suit(tuple(key)))


@lru_cache(maxsize=SUITS_CACHED)
def _honour_groups(key: bytes) -> tuple[tuple[str, int], ...] | None:
    if 1 in key or 4 in key:
        return None
    return tuple((PAIR if n == 2 else PUNG, 27 + i) for i, n in enumerate(key) if n)


def decompositions(c) -> list[tuple[tuple[str, int], ...]]:
    """Every arrangement of the concealed counts `c` into sets and one pair.

    Groups are (kind, lowest tile kind); a concealed four of a kind is a pung plus one tile,
    never a kong: a kong exists only when declared (RULES.md 3.7).
    """
    b = bytes(c)
    honours = _honour_groups(b[27:34])
    if honours is None:
        return []
    parts = [_suit_groups(b[start : start + 9], start) for start in (0, 9, 18)]
    if not all(parts):
        return []
    result = []
    for m, p, s in product(*parts):
        groups = honours + m + p + s
        if sum(g[0] == PAIR for g in groups) == 1:
            result.append(groups)
    return result


def is_seven_pairs(c, four_as_two_pairs: bool = True) -> bool:
    """Seven pairs from 14 concealed tiles; four alike count as two pairs if allowed (A-W6)."""
    if c.count(1) or c.count(3) or (c.count(4) and not four_as_two_pairs):
        return False
    return c.count(2) + 2 * c.count(4) == 7


def is_thirteen_orphans(c) -> bool:
    """One of each terminal and honour plus one more of any of them, 14 concealed tiles."""
    held = list(map(c.__getitem__, tiles.TERMINALS_AND_HONOURS))
    return all(held) and sum(held) == 14 == sum(c)


KNITTED = ((0, 3, 6), (1, 4, 7), (2, 5, 8))  # ranks 147, 258, 369 (0-based)


def is_fourteen_singles(c, min_gap: int = 3) -> bool:
    """CCM 十四不靠 (RULES.md 4.7 shape 7, A-C6): 14 distinct tiles, numbers of a suit at
    least `min_gap` apart, the rest single honours."""
    if sum(c) != 14 or max(c) > 1:
        return False
    for start in (0, 9, 18):
        ranks = [r for r in range(9) if c[start + r]]
        if any(b - a < min_gap for a, b in pairwise(ranks)):
            return False
    return True


def is_knitted_straight(c, melds: int = 0) -> bool:
    """CCM 組合龍 (RULES.md 4.7 shape 8): 147, 258 and 369 each in a different suit, and the
    other tiles a pair and one set (which may be a declared meld)."""
    for groups in permutations(KNITTED):
        knitted = [9 * s + r for s, group in enumerate(groups) for r in group]
        if all(c[k] for k in knitted):
            rest = bytearray(c)
            for k in knitted:
                rest[k] -= 1
            size = _standard_size(rest)
            if size >= 0 and size + 3 * melds == 5:
                return True
    return False


def is_win(c: Sequence[int], melds: int = 0, four_as_two_pairs: bool = True) -> bool:
    """A complete hand of concealed counts `c` beside `melds` declared sets (WSOM shapes)."""
    size = _standard_size(c)
    if size >= 0:
        return size + 3 * melds == 14
    return melds == 0 and (is_seven_pairs(c, four_as_two_pairs) or is_thirteen_orphans(c))


def waits(c: MutableSequence[int], melds: int = 0, four_as_two_pairs: bool = True) -> list[int]:
    """The tile kinds that complete a hand one tile short (13 with kongs counted as 3)."""
    found = []
    for kind in range(tiles.KINDS):
        if c[kind] == 4:
            continue
        c[kind] += 1
        if is_win(c, melds, four_as_two_pairs):
            found.append(kind)
        c[kind] -= 1
    return found
