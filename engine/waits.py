"""Live waits and hand values for the referee and the delayed broadcast view (issue 18).

For each seat: how far its hand is from ready, every tile kind that would complete it, how
many copies of each the player cannot see, how many really stand in the live wall, and what
the win would be worth under the session's rule book, by discard and by self-draw.

A tile is a wait when the rule book's own scorer reads the 14 tiles as a winning shape, the
same verdict the table gives a declared win (engine/winning.py `score_for`): a shape that may
not win (CCM: no fan; WSOM: under the minimum) is still a wait, with `legal` False and the
scorer's reason. The value is that of the plain win: no situational flag (last tile, kong or
flower replacement, robbing a kong, heaven, earth, last copy) and none of the table's own bars
(a seat that lost the right to win, penalty tiles, chips, the end of a CCM game). By discard,
the discarder is the winner's left neighbour; the total does not depend on who it is.

Fast enough to run after every discard: the search for candidate tiles and the distance are
cached by the hand's counts and melds, the scores by the (frozen, hashable) `Win`.
"""

from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol, cast

from engine import shanten, tiles
from engine.hand import Meld, counts, is_fourteen_singles, is_knitted_straight, is_win
from engine.scoring import Score, Win
from engine.table import Table

# How both scorers begin their refusal of 14 tiles that make no winning shape at all
# (engine/rulesets/*/__init__.py); any other refusal is of a shape that may not win.
SHAPE_REFUSAL = "not a winning hand"
# Entries of each cache below: their keys are a whole hand's tiles, met again within the hand
# (the same seat asked after every discard) and seldom in another, and a hand asks some 270
# new wins. A score with its win is about 1.2 KB: 65 536 of them filled 80 MB over the first
# 250 hands of a table serving its display (issue 32 item 4); 4096 hold some fifteen hands.
CACHE_SIZE = 1 << 12


class Scorer(Protocol):
    """A rule book as the caches here key it: its scorer, and hashable (by identity)."""

    def score(self, win: Win) -> Score: ...

    def __hash__(self) -> int: ...


@dataclass(frozen=True)
class Value:
    """What a win on the tile would score one way (Score's own total and pattern names)."""

    legal: bool
    total: int | None
    patterns: tuple[str, ...]
    reason: str

    @classmethod
    def of(cls, score: Score) -> "Value":
        names = tuple(f"{p.name} {p.points}" for p in score.patterns)
        return cls(score.legal, score.total, names, score.reason)

    def to_json(self) -> dict:
        return {
            "legal": self.legal,
            "total": self.total,
            "patterns": list(self.patterns),
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Wait:
    """One tile kind that completes the hand. `unseen`: copies the player cannot see (not in
    his hand or his melds, in no river, in no exposed set of the others; their concealed kongs
    are hidden from him). `in_wall`: copies standing in the live wall (the dead wall and the
    other hands do not count), the referee's knowledge."""

    tile: int
    unseen: int
    in_wall: int
    discard: Value
    self_draw: Value

    def to_json(self) -> dict:
        return {
            "tile": tiles.NAMES[self.tile],
            "unseen": self.unseen,
            "in_wall": self.in_wall,
            "discard": self.discard.to_json(),
            "self_draw": self.self_draw.to_json(),
        }


@dataclass(frozen=True)
class SeatWaits:
    """One seat now.

    `shanten` counts the tiles the hand must still exchange to be ready: 0 is ready (some tile
    completes a shape the rule book takes, so `waits` is not empty); otherwise at least 1, the
    least over four sets and a pair (declared melds count as sets), seven pairs and thirteen
    orphans where the rule book takes them. Waits are given for a hand of 13 tiles (kongs
    counted as 3, flowers not counted). A seat holding 14 (his turn, before he discards) has
    no waits: `shanten` is that of his 13 after his best discard. Before the deal, None.
    """

    seat: int
    shanten: int | None
    waits: tuple[Wait, ...] = ()

    def to_json(self) -> dict:
        return {
            "seat": self.seat,
            "shanten": self.shanten,
            "waits": [w.to_json() for w in self.waits],
        }


def seat_waits(table: Table, seat: int) -> SeatWaits:
    """One seat's waits and values now."""
    return _seat_waits(table, seat, _public(table), _live(table))


def table_waits(table: Table) -> tuple[SeatWaits, ...]:
    """The four seats' waits and values now, seats 0..3."""
    public, live = _public(table), _live(table)
    return tuple(_seat_waits(table, seat, public, live) for seat in range(4))


def _seat_waits(table: Table, seat: int, public: bytearray, live: bytearray) -> SeatWaits:
    held = [k for k in map(tiles.kind_of, table.hands[seat]) if not tiles.is_flower(k)]
    melds = tuple(m.as_meld() for m in table.melds[seat])
    size = len(held) + 3 * len(melds)
    c = counts(held)
    scorer = cast(Scorer, table.ruleset)  # rule books are plain objects, hashed by identity
    hand = _Hand(scorer, seat, melds, tuple(map(tiles.kind_of, table.flowers[seat])))
    if size == 14:
        return SeatWaits(seat, min(hand.shanten(_without(c, k)) for k in set(held)))
    if size != 13:
        return SeatWaits(seat, None)
    scored = hand.waits(c)
    if not scored:
        return SeatWaits(seat, hand.shanten(c))
    # He sees the public tiles and his hand; his own concealed kongs too, but a kind he holds
    # all four of is never a wait.
    waits = tuple(
        Wait(k, 4 - c[k] - public[k], live[k], Value.of(by_discard), Value.of(by_self_draw))
        for k, by_discard, by_self_draw in scored
    )
    return SeatWaits(seat, 0, waits)


class _Hand:
    """One seat's melds and flowers, asked about the counts of his concealed tiles."""

    def __init__(self, ruleset: Scorer, seat: int, melds: tuple[Meld, ...], flowers: tuple):
        self.ruleset, self.seat, self.melds, self.flowers = ruleset, seat, melds, flowers
        self.in_melds = counts(k for m in melds for k in m.tiles)

    def waits(self, c: bytearray) -> list[tuple[int, Score, Score]]:
        """(kind, by discard, by self-draw) for each kind the scorer reads as completing."""
        concealed = tuple(k for k in range(tiles.KINDS) for _ in range(c[k]))
        left = (self.seat + 3) % 4
        found = []
        for k in _candidates(bytes(c), len(self.melds)):
            if c[k] + self.in_melds[k] >= 4:
                continue  # no fifth copy
            by_discard = _score(
                self.ruleset,
                Win(concealed, self.melds, k, False, self.seat, left, left, flowers=self.flowers),
            )
            if by_discard.reason.startswith(SHAPE_REFUSAL):
                continue
            by_self_draw = _score(
                self.ruleset, Win(concealed, self.melds, k, True, self.seat, flowers=self.flowers)
            )
            found.append((k, by_discard, by_self_draw))
        return found

    def shanten(self, c: bytearray) -> int:
        """The SeatWaits number of 13 concealed counts `c` beside the melds."""
        if self.waits(c):
            return 0
        return max(1, _distance(bytes(c), len(self.melds), _shapes(self.ruleset)))


def _without(c: bytearray, kind: int) -> bytearray:
    rest = bytearray(c)
    rest[kind] -= 1
    return rest


@lru_cache(maxsize=CACHE_SIZE)
def _candidates(key: bytes, melds: int) -> tuple[int, ...]:
    """Kinds that complete the counts in a shape of some rule book (engine/hand.py): all
    four sets and a pair, seven pairs, thirteen orphans, the knitted straight and fourteen
    singles at any gap; the rule book's scorer then decides."""
    c = bytearray(key)
    found = []
    for k in range(tiles.KINDS):
        if c[k] == 4:
            continue
        c[k] += 1
        if (
            is_win(c, melds)
            or is_knitted_straight(c, melds)
            or (not melds and is_fourteen_singles(c, 1))
        ):
            found.append(k)
        c[k] -= 1
    return tuple(found)


@lru_cache(maxsize=CACHE_SIZE)
def _score(ruleset: Scorer, win: Win) -> Score:
    """The scorer's verdict, once per win: the same hand is asked after every discard."""
    return ruleset.score(win)


@lru_cache(maxsize=CACHE_SIZE)
def _distance(key: bytes, melds: int, shapes: tuple[bool, bool, bool]) -> int:
    """engine/shanten.py's least over four sets and a pair and the shapes of `_shapes`."""
    seven, seven_with_four, thirteen = shapes
    best = shanten.standard(key, melds)
    if not melds and seven:
        best = min(best, shanten.seven_pairs(key, seven_with_four))
    if not melds and thirteen:
        best = min(best, shanten.thirteen_orphans(key))
    return best


# Seven pairs; seven pairs with four alike; thirteen orphans: none of them four sets and a pair.
_PROBES = ("1199m 1199p EESSWW", "111199m 1199p EESS", "19m 19p 19s ESWNCFP E")


@lru_cache(maxsize=8)
def _shapes(ruleset: Scorer) -> tuple[bool, bool, bool]:
    """Whether the rule book's scorer takes each of _PROBES: asked of it once."""
    found = []
    for text in _PROBES:
        hand = tiles.parse(text)
        win = Win(tuple(hand[:-1]), (), hand[-1], True, 0)
        found.append(not ruleset.score(win).reason.startswith(SHAPE_REFUSAL))
    return found[0], found[1], found[2]


def _public(table: Table) -> bytearray:
    """Copies of each kind every player sees (HandState.seen_tiles)."""
    return counts(k for k in map(tiles.kind_of, table.seen_tiles()) if not tiles.is_flower(k))


def _live(table: Table) -> bytearray:
    """Copies of each kind standing in the live wall (the dead wall left out)."""
    wall = table.wall
    if wall is None:
        return counts(())
    dead = set(wall.dead_wall_tiles)
    standing = (t for side in wall.remaining() for t in side if t is not None and t not in dead)
    return counts(k for k in map(tiles.kind_of, standing) if not tiles.is_flower(k))
