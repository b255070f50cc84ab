"""Every reading of a CCM 2012 winning hand (RULES.md 4.7), and the hand's waits.

The scorer values each reading and keeps the best (free arrangement, as in WSOM). A reading
fixes the shape, the sets, the pair and how the winning tile completed the hand: the wait that
the single-tile win (4.9) and 夾絕張 (4.8.8) look at.
"""

from itertools import permutations
from typing import NamedTuple

from engine import tiles
from engine.hand import (
    CHOW,
    KNITTED,
    PAIR,
    PUNG,
    counts,
    decompositions,
    is_fourteen_singles,
    is_knitted_straight,
    is_seven_pairs,
    is_standard,
)
from engine.scoring import Win

STANDARD, SEVEN_PAIRS, FOURTEEN_SINGLES, KNITTED_STRAIGHT = (
    "standard",
    "seven pairs",
    "fourteen singles",
    "knitted straight",
)
# How the winning tile completed its set: 夾 closed, 邊張 edge (3 of 12, 7 of 89), 單吊 on the
# pair, a two-sided chow, a pung, a knitted run or a fourteen-singles gap.
CLOSED, EDGE, ON_PAIR, TWO_SIDED, ON_PUNG, KNITTED_GAP, SINGLES_GAP = (
    "closed",
    "edge",
    "pair",
    "two-sided",
    "pung",
    "knitted",
    "singles",
)


class Reading(NamedTuple):
    shape: str
    chows: tuple[int, ...] = ()  # lowest tile of each chow, declared chows included
    pungs: tuple[int, ...] = ()  # tile of each pung or kong, declared ones included
    pair: int | None = None
    wait: str = ON_PAIR


def is_shape(c, melds: int, opts: dict, knitted: bool = True) -> bool:
    """Counts `c` beside `melds` declared sets form one of the eight shapes of RULES.md 4.7
    (`knitted` False: the caller knows shape 8 is out of reach)."""
    if is_standard(c) or (knitted and is_knitted_straight(c, melds)):
        return True
    return not melds and (
        is_seven_pairs(c, opts["seven_pairs_four_of_a_kind"])
        or is_fourteen_singles(c, opts["fourteen_singles_min_gap"])
    )


def waits(win: Win, opts: dict) -> set[int]:
    """The tile kinds that would complete the hand held before the winning tile.

    By shape alone: 就低不就高 (seed 第九條六(二)) asks how the hand can be arranged, so a tile
    that completes a fan-less hand is still a wait. A kind of which the winner already holds
    all four (hand and melds) is no wait.
    """
    c = counts(win.concealed)
    own = counts(t for m in win.melds for t in m.tiles)
    knitted = len(win.melds) <= 1 and any(
        sum(bool(c[9 * s + r]) for s, group in enumerate(groups) for r in group) >= 8
        for groups in permutations(KNITTED)
    )
    found = set()
    for kind in range(tiles.KINDS):
        if c[kind] + own[kind] >= 4:
            continue
        c[kind] += 1
        if is_shape(c, len(win.melds), opts, knitted):
            found.add(kind)
        c[kind] -= 1
    return found


def readings(win: Win, opts: dict) -> list[Reading]:
    """Every reading of the hand as a winning shape, once per place the winning tile can take."""
    c = counts(win.concealed + (win.win_tile,))
    found = set()
    chows = tuple(m.tiles[0] for m in win.melds if m.kind == CHOW)
    pungs = tuple(m.tiles[0] for m in win.melds if m.kind != CHOW)
    for groups in decompositions(c):
        found.update(_placed(groups, chows, pungs, win.win_tile))
    if len(win.melds) <= 1:
        found.update(_knitted(c, chows, pungs, win))
    if not win.melds:
        if is_seven_pairs(c, opts["seven_pairs_four_of_a_kind"]):
            found.add(Reading(SEVEN_PAIRS))
        if is_fourteen_singles(c, opts["fourteen_singles_min_gap"]):
            found.add(Reading(FOURTEEN_SINGLES, wait=SINGLES_GAP))
    return sorted(found)


def _placed(groups, chows, pungs, won: int, knitted=()) -> list[Reading]:
    """One reading per place of the winning tile among `groups` (and the knitted tiles)."""
    hand_chows = tuple(t for kind, t in groups if kind == CHOW)
    hand_pungs = tuple(t for kind, t in groups if kind == PUNG)
    pair = next(t for kind, t in groups if kind == PAIR)
    places = {
        _wait(kind, t, won)
        for kind, t in groups
        if t == won or (kind == CHOW and t <= won <= t + 2)
    }
    if won in knitted:
        places.add(KNITTED_GAP)
    shape = KNITTED_STRAIGHT if knitted else STANDARD
    return [
        Reading(
            shape, tuple(sorted(chows + hand_chows)), tuple(sorted(pungs + hand_pungs)), pair, wait
        )
        for wait in places
    ]


def _wait(kind: str, first: int, won: int) -> str:
    if kind == PAIR:
        return ON_PAIR
    if kind == PUNG:
        return ON_PUNG
    if won == first + 1:
        return CLOSED
    if (won == first + 2 and first % 9 == 0) or (won == first and first % 9 == 6):
        return EDGE
    return TWO_SIDED


def _knitted(c, chows, pungs, win: Win) -> list[Reading]:
    """Shape 8: 147, 258 and 369 each in its own suit, and a pair and one set (declared or not)."""
    found = []
    for groups in permutations(KNITTED):
        knitted = [9 * s + r for s, group in enumerate(groups) for r in group]
        if not all(c[k] for k in knitted):
            continue
        rest = bytearray(c)
        for k in knitted:
            rest[k] -= 1
        if sum(rest) + 3 * len(win.melds) != 5:
            continue
        for rest_groups in decompositions(rest):
            found += _placed(rest_groups, chows, pungs, win.win_tile, knitted)
    return found
