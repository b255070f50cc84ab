"""The rules of penalty tiles (RULES.md 3.9, 4.15) over those a seat holds (`held`: tile ->
"live" or "dead"), for engine/referee.py, which keeps them: which discard win they bar, the
discard they forbid, and which tiles the referee may name as penalty tiles.
"""

from collections import Counter

from engine import tiles
from engine.hand import counts, decompositions, is_seven_pairs, is_thirteen_orphans
from engine.seats import letter


def win_barred(held, hand: list[int], tile: int) -> str:
    """Why penalty tiles forbid winning on this discard, or "" (RULES.md 3.9)."""
    if not held:
        return ""
    kind = tiles.kind_of(tile)
    marked_kinds = Counter(tiles.kind_of(t) for t in held)
    if len(held) >= 3 and _thirteen_shaped(hand, tile):
        return "with three penalty tiles Thirteen Terminals wins only by self-draw"
    if kind in marked_kinds and (_thirteen_shaped(hand, tile) or _pairs_shaped(hand, tile)):
        return "a penalty tile may not complete a pair or Thirteen Terminals on a discard"
    free = Counter(tiles.kind_of(t) for t in hand if t not in held)
    readings = decompositions(counts([tiles.kind_of(t) for t in hand] + [kind]))
    if not readings:
        return ""  # an irregular hand: the checks above are the rule
    for groups in readings:
        for group_kind, low in groups:
            size = 2 if group_kind == "pair" else 3
            members = [low] * size if group_kind != "chow" else [low, low + 1, low + 2]
            if kind not in members:
                continue
            members.remove(kind)
            if all(free[k] >= members.count(k) for k in set(members)):
                return ""
    return "the winning tile would complete a set or pair with a penalty tile"


def refused_discard(seat: int, held, must_discard: bool) -> tuple[str, str]:
    """(offence, message) of a discard his penalty tiles forbid (engine/turns.py)."""
    if not must_discard:
        return "penalty_tile_discard", "a dead penalty tile may never be discarded"
    owed = " ".join(tiles.NAMES[tiles.kind_of(t)] for t in held)
    return (
        "penalty_tile_kept",
        f"{letter(seat)} must discard his penalty tile ({owed}) at this discard (seed 004 "
        "第三章 第二條 七(一): 必須將罰張打出): he takes the tile back and discards one of "
        "them",
    )


def named_problem(seat: int, named, hand, held) -> str:
    """Why `named` cannot become the seat's penalty tiles, or "": each named once, each
    one of his concealed tiles (`hand`) and not a penalty tile already. A tile is named
    by its place in the list: a tile not his may be a hidden one."""
    if len(set(named)) != len(named):
        return "a tile is named twice"
    for n, tile in enumerate(named, 1):
        if tile not in hand:
            return f"tile {n} named is not one of {letter(seat)}'s concealed tiles"
        if tile in held:
            return f"tile {n} named is a penalty tile of {letter(seat)}'s already"
    return ""


def _thirteen_shaped(hand, tile) -> bool:
    return is_thirteen_orphans(counts([tiles.kind_of(t) for t in hand + [tile]]))


def _pairs_shaped(hand, tile) -> bool:
    return is_seven_pairs(counts([tiles.kind_of(t) for t in hand + [tile]]))
