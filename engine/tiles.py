"""Tile kinds and the one notation used everywhere: CLI, JSON, display, tests (RULES.md notation).

A tile kind is a small int so that hands can be counted in flat lists:
0-8 = 1m..9m, 9-17 = 1p..9p, 18-26 = 1s..9s, 27-30 = E S W N, 31-33 = C F P, 34-41 = 1f..8f.
"""

import re

from engine.seats import LETTERS

SUITS = "mps"
WINDS = LETTERS  # the wind tiles, named as the seats they are the winds of
DRAGONS = "CFP"
KINDS = 34  # the playing tiles, four of each
FLOWER_KINDS = 8  # CCM only, one of each

NAMES = (
    [f"{rank}{suit}" for suit in SUITS for rank in range(1, 10)]
    + list(WINDS)
    + list(DRAGONS)
    + [f"{n}f" for n in range(1, 9)]
)
_BY_NAME = {name: kind for kind, name in enumerate(NAMES)}

EAST, SOUTH, WEST, NORTH = 27, 28, 29, 30
RED, GREEN, WHITE = 31, 32, 33
TERMINALS_AND_HONOURS = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)
CHINESE = (
    ["一二三四五六七八九"[r] + "萬" for r in range(9)]
    + ["一二三四五六七八九"[r] + "筒" for r in range(9)]
    + ["一二三四五六七八九"[r] + "索" for r in range(9)]
    + list("東南西北中發白")
    + list("春夏秋冬梅蘭竹菊")
)


class TileError(ValueError):
    """Input that does not name a tile; the message says which part is wrong."""


def tile(name: str) -> int:
    """The kind of a single tile written as in RULES.md (`5m`, `E`, `3f`)."""
    kind = _BY_NAME.get(name.strip()) if isinstance(name, str) else None
    if kind is None:
        raise TileError(
            f"{name!r} is not a tile (expected 1m..9m, 1p..9p, 1s..9s, E S W N, C F P or 1f..8f)"
        )
    return kind


_TOKEN = re.compile(r"(\d+)([mpsf])|([ESWNCFP])")
# The rule book's names (seed 004 一條: 萬子, 餅子, 條子; 東南西北, 中發白, 春夏秋冬梅蘭竹菊), the
# display's (筒, 索) and the simplified forms a mainland referee types, numerals or digits
# before the suit: 一萬, 一二三萬 and 123萬 alike.
_CHINESE_SUITS = {
    **dict.fromkeys("萬万", "m"),
    **dict.fromkeys("餅饼筒", "p"),
    **dict.fromkeys("條条索", "s"),
}
_CHINESE_RANKS = {c: str(n) for n, c in enumerate("一二三四五六七八九", 1)}
_CHINESE_SINGLES = {
    **{c: NAMES[EAST + i] for i, c in enumerate("東南西北")},
    **{c: NAMES[RED + i] for i, c in enumerate("中發白")},
    **{c: f"{n}f" for n, c in enumerate("春夏秋冬梅蘭竹菊", 1)},
    "东": "E",
    "发": "F",
    "兰": "6f",
}
_CHINESE_TOKEN = re.compile(
    f"([一二三四五六七八九1-9]+)([{''.join(_CHINESE_SUITS)}])|([{''.join(_CHINESE_SINGLES)}])"
)


def parse(text: str) -> list[int]:
    """Tiles from the compact typed form people use, e.g. `123m 456p 789s EEE CC 1f`, or
    in Chinese, `一二三萬 四五六餅 東東東 中中 春`."""
    if not isinstance(text, str):
        raise TileError(f"expected tiles as text, got {text!r}")
    kinds = []
    for word in text.split():
        pos = 0
        while pos < len(word):
            match = _TOKEN.match(word, pos)
            if not match:
                match = _CHINESE_TOKEN.match(word, pos)
                if not match:
                    raise TileError(
                        f"cannot read {word[pos:]!r} in {word!r}: write number tiles as "
                        "digits then m/p/s/f (123m), honours as E S W N C F P; or in "
                        "Chinese: 一二三萬 四餅 五條, 東南西北 中發白, 春夏秋冬梅蘭竹菊"
                    )
                kinds.extend(_chinese(match))
                pos = match.end()
                continue
            digits, suit, honour = match.groups()
            if honour:
                kinds.append(_BY_NAME[honour])
            else:
                for digit in digits:
                    kinds.append(tile(digit + suit))
            pos = match.end()
    return kinds


def _chinese(match: re.Match[str]) -> list[int]:
    """The tiles of one Chinese token: ranks then a suit (一二三萬), or one honour or flower."""
    ranks, suit, single = match.groups()
    if single:
        return [_BY_NAME[_CHINESE_SINGLES[single]]]
    return [_BY_NAME[_CHINESE_RANKS.get(r, r) + _CHINESE_SUITS[suit]] for r in ranks]


def format_tiles(kinds) -> str:
    """The compact form of tiles, suits grouped in notation order: `123m 456p EEE`."""
    groups = []
    ordered = sorted(kinds)
    for suit_index, suit in enumerate(SUITS):
        ranks = "".join(
            str(k - 9 * suit_index + 1) for k in ordered if is_suited(k) and k // 9 == suit_index
        )
        if ranks:
            groups.append(ranks + suit)
    for honour in WINDS + DRAGONS:
        run = "".join(NAMES[k] for k in ordered if NAMES[k] == honour)
        if run:
            groups.append(run)
    flowers = "".join(NAMES[k][0] for k in ordered if is_flower(k))
    if flowers:
        groups.append(flowers + "f")
    return " ".join(groups)


def is_suited(kind: int) -> bool:
    return kind < 27


def suit(kind: int) -> int:
    """0, 1, 2 for characters, dots, bamboo; only for number tiles."""
    return kind // 9


def rank(kind: int) -> int:
    """1..9 for number tiles."""
    return kind % 9 + 1


def is_honour(kind: int) -> bool:
    return 27 <= kind < KINDS


def is_wind(kind: int) -> bool:
    return 27 <= kind <= 30


def is_dragon(kind: int) -> bool:
    return 31 <= kind <= 33


def is_terminal(kind: int) -> bool:
    """A 1 or a 9 of a suit."""
    return kind < 27 and kind % 9 in (0, 8)


def is_flower(kind: int) -> bool:
    return KINDS <= kind < KINDS + FLOWER_KINDS


def wind(index: int) -> int:
    """The wind tile of seat index 0..3 (E S W N)."""
    return EAST + index


# Physical tiles: each tile of a set has an id. 0..135 are the four copies of the 34 kinds
# (id // 4 is the kind); 136..143 are the eight flowers of a CCM set.
def physical_set(with_flowers: bool) -> list[int]:
    """The ids of one tile set: 136 tiles (WSOM) or 144 with the flowers (CCM)."""
    return list(range(4 * KINDS + (FLOWER_KINDS if with_flowers else 0)))


def kind_of(tile_id: int) -> int:
    """The kind of a physical tile."""
    return tile_id // 4 if tile_id < 4 * KINDS else tile_id - 4 * KINDS + KINDS
