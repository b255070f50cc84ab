"""The 12 fans (RULES.md 4.8) and the additional points (4.9) of one reading of a CCM win.

Ids are RULES.md's numbers: 4.8.1 ... 4.8.12 for the fans, 4.9.1 ... 4.9.7 for the additional
points (flower, single-tile win, flower replacement, kong replacement, 海底撈月, 妙手回春, 門清).
Values live in config/rules/ccm2012.toml; this module only says which apply.
"""

from collections import Counter
from collections.abc import Iterable
from itertools import permutations
from typing import NamedTuple, Protocol

from engine import tiles
from engine.rulesets.ccm2012.readings import (
    CLOSED,
    EDGE,
    FOURTEEN_SINGLES,
    KNITTED_STRAIGHT,
    ON_PAIR,
    SEVEN_PAIRS,
    Reading,
)
from engine.scoring import MIXED, Win

FAN_IDS = tuple(f"4.8.{n}" for n in range(1, 13))
ADDITIONAL_IDS = tuple(f"4.9.{n}" for n in range(1, 8))
FLOWER = "4.9.1"
FLOWER_GROUPS = (frozenset(range(34, 38)), frozenset(range(38, 42)))  # 春夏秋冬, 梅蘭竹菊
DRAGONS = frozenset((tiles.RED, tiles.GREEN, tiles.WHITE))
STRAIGHT = (0, 3, 6)  # ranks of the chows 123, 456, 789 (0-based)
SINGLE_TILE_FANS = frozenset(("4.8.7", "4.8.8"))  # 全求獨釣, 夾絕張: a single-tile win each


class Declared(Protocol):
    """A declared set, as the scorer (engine.hand.Meld) or the table (ExposedMeld) has it."""

    @property
    def concealed(self) -> bool: ...


def all_melded(melds: Iterable[Declared], opts: dict) -> bool:
    """全求 (A-C8, seed 004 §34「當一家形成全求獨釣」): four sets claimed from others; a concealed
    kong is not one unless all_melded_allows_concealed_kong. An added kong's pung was claimed."""
    allowed = opts["all_melded_allows_concealed_kong"]
    return sum(1 for m in melds if allowed or not m.concealed) == 4


class Facts(NamedTuple):
    """What every reading of one hand shares."""

    suits: int  # how many suits the hand's number tiles use
    honours: bool
    all_melded: bool  # 全求獨釣: four claimed sets, the win on the pair (A-C8)
    concealed: bool  # nothing claimed; concealed kongs allowed (A-C11)
    last_copy: bool  # 絕張: the other three of the winning tile are in sight (flag) or robbed
    flowers: int  # flowers that score (A-C3)


def facts(win: Win, opts: dict) -> Facts:
    suited = {tiles.suit(t) for t in win.all_tiles if tiles.is_suited(t)}
    own_pung = any(m.kind == "pung" and m.tiles[0] == win.win_tile for m in win.melds)
    flowers = set(win.flowers)
    if not opts["flower_kong_flowers_score"]:
        flowers -= {f for group in FLOWER_GROUPS if group <= flowers for f in group}
    return Facts(
        len(suited),
        any(tiles.is_honour(t) for t in win.all_tiles),
        all_melded(win.melds, opts),
        all(m.concealed for m in win.melds),
        bool({"last_copy", "robbing_kong"} & win.flags) or own_pung,
        len(flowers),
    )


def fans(r: Reading, f: Facts, opts: dict, one_wait: bool) -> list[str]:
    """The fan ids of reading `r`; `one_wait`: the hand waited on the winning tile only."""
    found = []
    chows = set(r.chows)
    if any(
        all(9 * s + rank in chows for s, rank in zip(suits, STRAIGHT, strict=True))
        for suits in permutations(range(3))
    ):
        found.append("4.8.1")
    if any(all(9 * s + rank in chows for rank in STRAIGHT) for s in range(3)):
        found.append("4.8.2")
    if r.shape == KNITTED_STRAIGHT:
        found.append("4.8.3")
    if f.suits == 1 and (f.honours or not opts["full_flush_excludes_half_flush"]):
        found.append("4.8.4")
    if len(r.pungs) == 4:
        found.append("4.8.5")
    if r.shape == FOURTEEN_SINGLES:
        found.append("4.8.6")
    if f.all_melded:
        found.append("4.8.7")
    if f.last_copy and one_wait and r.wait in (CLOSED, EDGE):
        found.append("4.8.8")
    if _big_middle_small(r.chows, opts["small_middle_big_same_suit"]):
        found.append("4.8.9")
    if f.suits == 1 and not f.honours:
        found.append("4.8.10")
    if r.shape == SEVEN_PAIRS:
        found.append("4.8.11")
    if set(r.pungs) >= DRAGONS:
        found.append("4.8.12")
    return found


def additional(
    r: Reading, f: Facts, win: Win, opts: dict, one_wait: bool, fan_ids: list[str]
) -> list[str]:
    """The additional point ids of reading `r` beside its fans `fan_ids`, 4.9.1 once per
    scoring flower. The single-tile win is not added to 七對 (seed 004 §17), nor to the fans
    that are one (A-C7 revised) unless single_tile_fans_add_bonus."""
    found = [FLOWER] * f.flowers
    if (
        one_wait
        and MIXED not in win.flags  # 單放: the drawn tile put into the hand first (seed 004 二十四)
        and r.wait in (CLOSED, EDGE, ON_PAIR)
        and r.shape != SEVEN_PAIRS
        and (opts["single_tile_fans_add_bonus"] or not SINGLE_TILE_FANS & set(fan_ids))
    ):
        found.append("4.9.2")
    if "flower_replacement" in win.flags:
        found.append("4.9.3")
    if "kong_replacement" in win.flags:
        found.append("4.9.4")
    if "last_tile" in win.flags:
        found.append("4.9.6" if win.self_drawn else "4.9.5")
    irregular = r.shape in (SEVEN_PAIRS, FOURTEEN_SINGLES)
    if (
        f.concealed
        and (win.self_drawn or not opts["concealed_needs_self_draw"])
        and not (irregular and opts["seven_pairs_excludes_concealed"])
    ):
        found.append("4.9.7")
    return found


def _big_middle_small(chows: tuple[int, ...], same_suit: bool) -> bool:
    """全大 / 全中 / 全小 (A-C9): three chows 789, 456 or 123 (in one suit if `same_suit`)."""
    for rank in STRAIGHT:
        starts = [t for t in chows if t % 9 == rank]
        if (max(Counter(starts).values(), default=0) if same_suit else len(starts)) >= 3:
            return True
    return False
