"""Which of the 44 WSOM patterns a winning hand meets (RULES.md 1.2).

The free-arrangement rule (RULES.md 1.1) scores the whole hand from one grouping only, so the
scorer asks this module for the patterns of every arrangement and keeps the best. An
arrangement also fixes which set the winning tile completed: on a discard win that set is not
concealed (4.2: a pung completed by a discard is not a concealed triplet). Patterns that depend
only on the tiles held are found once per hand.
"""

from collections import Counter
from typing import NamedTuple

from engine import tiles
from engine.hand import (
    CHOW,
    KONG,
    PUNG,
    counts,
    decompositions,
    is_seven_pairs,
    is_thirteen_orphans,
)
from engine.scoring import MIXED, Win

STANDARD, SEVEN_PAIRS, THIRTEEN = "standard", "seven pairs", "thirteen terminals"
NINE_GATES = (3, 1, 1, 1, 1, 1, 1, 1, 3)
INCIDENTAL = {
    "final_draw": "9.1.1",
    "final_discard": "9.1.2",
    "kong_replacement": "9.2",
    "robbing_kong": "9.3",
    "heaven": "9.4.1",
    "earth": "9.4.2",
}
_TERMINAL_OR_HONOUR = frozenset(tiles.TERMINALS_AND_HONOURS)
_TERMINAL_CHOWS = frozenset(k for k in range(27) if k % 9 in (0, 6))  # 123 and 789


class Arrangement(NamedTuple):
    shape: str
    chows: tuple[int, ...] = ()  # lowest tile of each chow
    pungs: tuple[tuple[int, bool, bool], ...] = ()  # (tile, concealed, kong)
    pair: int | None = None


def arrangements(win: Win, seven_pairs_four: bool) -> list[Arrangement]:
    """Every way the hand can be read as a winning shape, with the winning tile's set."""
    declared_chows = tuple(m.tiles[0] for m in win.melds if m.kind == CHOW)
    declared_pungs = tuple(
        (m.tiles[0], m.concealed, m.kind == KONG) for m in win.melds if m.kind != CHOW
    )
    won, on_discard = win.win_tile, not win.self_drawn
    c = counts(win.concealed + (won,))
    found = []
    for groups in decompositions(c):
        chows, hand_pungs, pair = list(declared_chows), [], None
        for kind, t in groups:
            if kind == CHOW:
                chows.append(t)
            elif kind == PUNG:
                hand_pungs.append(t)
            else:
                pair = t
        # On a discard the winner says which set the tile completed; only when no pair or
        # chow can take it does it complete a pung, which is then not concealed (4.2).
        pung_won = (
            on_discard
            and won in hand_pungs
            and pair != won
            and not any(t <= won <= t + 2 for t in chows[len(declared_chows) :])
        )
        pungs = declared_pungs + tuple((t, not (pung_won and t == won), False) for t in hand_pungs)
        found.append(Arrangement(STANDARD, tuple(chows), pungs, pair))
    if not win.melds:
        if is_seven_pairs(c, seven_pairs_four):
            found.append(Arrangement(SEVEN_PAIRS))
        if is_thirteen_orphans(c):
            found.append(Arrangement(THIRTEEN))
    return found


# Tile properties as bits, so a hand's make-up is one OR over its tiles.
_MAN, _PIN, _SOU, _HONOUR, _TERMINAL, _SIMPLE = 1, 2, 4, 8, 16, 32
_BITS = tuple(
    (1 << tiles.suit(k)) | (_TERMINAL if tiles.is_terminal(k) else _SIMPLE)
    if tiles.is_suited(k)
    else _HONOUR
    for k in range(tiles.KINDS)
)
_ONE_SUIT = (_MAN, _PIN, _SOU)


def hand_patterns(win: Win) -> list[str]:
    """Patterns that depend only on the tiles held and how the hand won."""
    found = [pid for flag, pid in INCIDENTAL.items() if flag in win.flags]
    bits = 0
    for t in win.all_tiles:
        bits |= _BITS[t]
    suits = bits & (_MAN | _PIN | _SOU)
    honours = bits & _HONOUR
    if bits & (_HONOUR | _TERMINAL) == 0:
        found.append("1.3")
    if suits in _ONE_SUIT:
        found.append("2.1.1" if honours else "2.1.2")
    if not suits:
        found.append("3.4")
    elif not bits & _SIMPLE:
        found.append("8.1.3" if honours else "8.1.4")
    if _nine_gates(win):
        found.append("2.2")
    return found


def arrangement_patterns(arr: Arrangement, win: Win, held: list[str], opts: dict) -> list[str]:
    """The ids of every pattern this arrangement meets; 3.1 once per qualifying set.

    `held` is hand_patterns(win). Several patterns of one series may be listed; the scorer
    keeps the highest (RULES.md 1.1).
    """
    if arr.shape == THIRTEEN:
        found = [p for p in held if p.startswith("9.")] + ["10.1"]
        if opts["thirteen_terminals_greater_terminals"]:
            found.append("8.1.3")
    elif arr.shape == SEVEN_PAIRS:
        found = held + ["10.2"]
    else:
        found = held + _set_patterns(arr, win)
    if arr.shape != STANDARD and opts["concealed_hand_on_irregular"]:
        found.append("1.2")
    return found


def _nine_gates(win: Win) -> bool:
    """1112345678999 of one suit concealed before the winning tile of that suit (2.2).

    East's dealt 14 tiles have no drawn tile: a Heaven win scores Heaven, not Nine Gates; nor
    does a self-drawn one whose drawn tile was mixed into the hand before it was shown apart
    (seed 000 九蓮寶燈自摸規條: `drawn_tile_mixed`, the referee's ruling).
    """
    if win.melds or {"heaven", MIXED} & win.flags or not tiles.is_suited(win.win_tile):
        return False
    start = 9 * tiles.suit(win.win_tile)
    if not all(start <= t < start + 9 for t in win.concealed):
        return False
    return tuple(counts(win.concealed)[start : start + 9]) == NINE_GATES


def _set_patterns(arr: Arrangement, win: Win) -> list[str]:
    found = []
    chows, pungs, pair = arr.chows, arr.pungs, arr.pair
    if pair is None:
        raise ValueError("sets are read in a standard arrangement, which has its pair")
    if len(chows) == 4:
        found.append("1.1")
    if all(m.concealed for m in win.melds):
        found.append("1.2")
    if pungs:
        pung_tiles = {t for t, _, _ in pungs}
        if pair >= 27 or any(t >= 27 for t in pung_tiles):
            found += _honour_patterns(pung_tiles, pair, win.seat_wind)
        found += _triplet_patterns(pungs, pung_tiles, pair)
    else:
        pung_tiles = set()
    if len(chows) >= 2:
        found += _sequence_patterns(chows)
    if (
        pair in _TERMINAL_OR_HONOUR
        and pung_tiles <= _TERMINAL_OR_HONOUR
        and all(t in _TERMINAL_CHOWS for t in chows)
    ):
        found += _lesser_terminals(chows, pung_tiles, pair)
    return found


def _honour_patterns(pung_tiles: set[int], pair: int, seat_wind: int) -> list[str]:
    """3.1 per dragon or own-wind set (no prevailing wind in WSOM), 3.2 dragons, 3.3 winds."""
    found = ["3.1" for t in pung_tiles if tiles.is_dragon(t) or t == seat_wind]
    dragons = sum(tiles.is_dragon(t) for t in pung_tiles)
    if dragons == 3:
        found.append("3.2.2")
    elif dragons == 2 and tiles.is_dragon(pair):
        found.append("3.2.1")
    winds = sum(tiles.is_wind(t) for t in pung_tiles)
    if winds == 4:
        found.append("3.3.4")
    elif winds == 3:
        found.append("3.3.3" if tiles.is_wind(pair) else "3.3.2")
    elif winds == 2 and tiles.is_wind(pair):
        found.append("3.3.1")
    return found


def _triplet_patterns(pungs, pung_tiles: set[int], pair: int) -> list[str]:
    """4.1 all triplets, 4.2 concealed triplets, 4.3 kongs, 6.2 similar and 7.2 consecutive."""
    found = []
    if len(pungs) == 4:
        found.append("4.1")
    concealed = sum(1 for _, hidden, _ in pungs if hidden)
    if concealed >= 2:
        found.append(("4.2.1", "4.2.2", "4.2.3")[concealed - 2])
    kongs = sum(1 for _, _, kong in pungs if kong)
    if kongs:
        found.append(("4.3.1", "4.3.2", "4.3.3", "4.3.4")[kongs - 1])
    if len(pungs) >= 2:
        for r, n in Counter(t % 9 for t in pung_tiles if t < 27).items():
            if n == 3:
                found.append("6.2.2")
            elif n == 2 and pair < 27 and pair % 9 == r:
                found.append("6.2.1")
    if len(pungs) >= 3:
        for t in pung_tiles:
            if t < 27 and t % 9 <= 6 and t + 1 in pung_tiles and t + 2 in pung_tiles:
                four = t % 9 <= 5 and t + 3 in pung_tiles
                found.append("7.2.2" if four else "7.2.1")
    return found


def _sequence_patterns(chows) -> list[str]:
    """5.1 identical, 6.1 similar and 7.1 straight sequences."""
    found = []
    chow_set = set(chows)
    if len(chow_set) < len(chows):
        same = sorted(Counter(chows).values(), reverse=True)
        found.append(
            {4: "5.1.4", 3: "5.1.3"}.get(same[0], "5.1.2" if same[:2] == [2, 2] else "5.1.1")
        )
    if len(chow_set) >= 3:
        if any(t < 9 and t + 9 in chow_set and t + 18 in chow_set for t in chow_set):
            found.append("6.1")
        if any(t % 9 == 0 and t + 3 in chow_set and t + 6 in chow_set for t in chow_set):
            found.append("7.1")
    return found


def _lesser_terminals(chows, pung_tiles: set[int], pair: int) -> list[str]:
    """8.1.1 / 8.1.2: every set and the pair holds a terminal, or is of honours; at least one
    number set or pair (an all-honour hand is All Honors)."""
    groups = [*chows, *pung_tiles, pair]
    if all(t >= 27 for t in groups):
        return []
    return ["8.1.1" if any(t >= 27 for t in groups) else "8.1.2"]
