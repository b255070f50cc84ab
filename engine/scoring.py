"""What every ruleset's scorer takes and gives: a declared win and its score.

The JSON form of a win is the one of ../shared/rules/wsom_examples.jsonl (RULES.md §2), so the
same line can come from a test vector, `mjtable score`, the table itself or the journal.
"""

import re
from dataclasses import dataclass, field

from engine import tiles
from engine.hand import CHOW, KONG, PUNG, HandError, Meld
from engine.seats import LETTERS

# A win's flag: the self-drawn tile was put into the hand before the win was shown, which each
# rule book's scorer honours (seed 000 九蓮寶燈自摸規條; seed 004 第一條二十四 單放)
MIXED = "drawn_tile_mixed"


class WinError(ValueError):
    """A win description that cannot be scored; the message names the problem."""


@dataclass(frozen=True)
class Win:
    """A declared win, as the winner lays it down.

    `concealed` excludes `win_tile`. Seats are 0..3 = E S W N of the hand. `responsible` is the
    seat that pays for a discard win (RULES.md 1.3); None on a discard win means nobody is (the
    follow-tile exemption reached the winner himself).
    """

    concealed: tuple[int, ...]
    melds: tuple[Meld, ...]
    win_tile: int
    self_drawn: bool
    winner: int
    discarder: int | None = None
    responsible: int | None = None
    flags: frozenset[str] = frozenset()
    flowers: tuple[int, ...] = ()
    seat_wind: int = field(default=-1)

    def __post_init__(self):
        if self.seat_wind == -1:
            object.__setattr__(self, "seat_wind", tiles.wind(self.winner))

    @property
    def east(self) -> int:
        """The seat playing East: the one whose wind is East (seat 0 but after 做錯莊)."""
        return (self.winner - (self.seat_wind - tiles.EAST)) % 4

    @property
    def all_tiles(self) -> list[int]:
        """Every playing tile of the hand, kongs with all four."""
        return [*self.concealed, self.win_tile, *(t for m in self.melds for t in m.tiles)]


@dataclass(frozen=True)
class Pattern:
    id: str
    name: str
    points: int


@dataclass(frozen=True)
class Score:
    legal: bool
    patterns: tuple[Pattern, ...] = ()
    total: int | None = None
    payments: tuple[int, ...] | None = None  # per seat
    reason: str = ""

    def to_json(self) -> dict:
        return {
            "legal": self.legal,
            "patterns": [{"id": p.id, "name": p.name, "points": p.points} for p in self.patterns],
            "total": self.total,
            "payments": list(self.payments) if self.payments is not None else None,
            "reason": self.reason,
        }


def _seat(value, what: str) -> int:
    if isinstance(value, str) and value in LETTERS:
        return LETTERS.index(value)
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 3:
        return value
    raise WinError(f"{what} must be a seat 0..3 or E S W N, not {value!r}")


def _tile_list(value, what: str) -> tuple[int, ...]:
    if isinstance(value, str):
        try:
            return tuple(tiles.parse(value))
        except tiles.TileError as err:
            raise WinError(f"{what}: {err}") from None
    if not isinstance(value, list):
        raise WinError(f'{what} must be a list of tiles such as ["1m", "E"], not {value!r}')
    try:
        return tuple(tiles.tile(t) for t in value)
    except tiles.TileError as err:
        raise WinError(f"{what}: {err}") from None


def win_from_json(obj, known_flags: frozenset[str]) -> Win:
    """A Win from one JSON object; unknown keys are ignored, unknown flags are errors."""
    if not isinstance(obj, dict):
        raise WinError(f"a hand must be a JSON object, not {type(obj).__name__}")
    for key in ("concealed", "win_tile"):
        if key not in obj:
            raise WinError(f"missing {key!r}")
    concealed = _tile_list(obj["concealed"], "concealed")
    win_tile = _tile_list(
        [obj["win_tile"]] if isinstance(obj["win_tile"], str) else obj["win_tile"], "win_tile"
    )
    if len(win_tile) != 1:
        raise WinError(f"win_tile must be one tile, not {obj['win_tile']!r}")
    melds = []
    raw_melds = obj.get("melds") or []
    if not isinstance(raw_melds, list):
        raise WinError("melds must be a list of {type, tiles, concealed}")
    for i, m in enumerate(raw_melds):
        if not isinstance(m, dict) or "type" not in m or "tiles" not in m:
            raise WinError(f"meld {i + 1} must be an object with type and tiles, not {m!r}")
        hidden = m.get("concealed", False)
        if not isinstance(hidden, bool):
            raise WinError(f"meld {i + 1}: concealed must be true or false, not {hidden!r}")
        try:
            melds.append(Meld(m["type"], _tile_list(m["tiles"], f"meld {i + 1}"), hidden))
        except HandError as err:
            raise WinError(f"meld {i + 1}: {err}") from None
    self_drawn = obj.get("self_drawn", False)
    if not isinstance(self_drawn, bool):
        raise WinError(f"self_drawn must be true or false, not {self_drawn!r}")
    if "winner_seat_index" in obj:
        winner = _seat(obj["winner_seat_index"], "winner_seat_index")
    elif "seat_wind" in obj:
        winner = _seat(obj["seat_wind"], "seat_wind")
    else:
        raise WinError("missing winner_seat_index (or seat_wind)")
    seat_wind = _seat(obj.get("seat_wind", LETTERS[winner]), "seat_wind")
    if seat_wind != winner:
        raise WinError(
            f"seat_wind {LETTERS[seat_wind]} is not the seat of winner_seat_index "
            f"{winner} ({LETTERS[winner]}): seats are numbered by wind, 0 = E"
        )
    seat_wind = tiles.wind(seat_wind)
    discarder = obj.get("discarder_seat_index")
    discarder = None if discarder is None else _seat(discarder, "discarder_seat_index")
    if "responsible_seat_index" in obj:
        responsible = obj["responsible_seat_index"]
        responsible = None if responsible is None else _seat(responsible, "responsible_seat_index")
    else:
        responsible = discarder
    flags = obj.get("flags") or []
    if not isinstance(flags, list) or not all(isinstance(f, str) for f in flags):
        raise WinError(f"flags must be a list of words, not {flags!r}")
    unknown = sorted(f for f in flags if f not in known_flags and not f.startswith("expect_"))
    if unknown:
        raise WinError(f"unknown flag {unknown[0]!r} (known: {', '.join(sorted(known_flags))})")
    flowers = _tile_list(obj.get("flowers") or [], "flowers")
    if any(not tiles.is_flower(f) for f in flowers):
        raise WinError("flowers must be 1f..8f")
    win = Win(
        concealed,
        tuple(melds),
        win_tile[0],
        self_drawn,
        winner,
        discarder,
        responsible,
        frozenset(f for f in flags if not f.startswith("expect_")),
        flowers,
        seat_wind,
    )
    check(win)
    return win


_MELD_TEXT = re.compile(r"\[([^\]]*)\]|\(([^)]*)\)")


def win_from_text(
    text: str, win_tile: str, winner: int, discarder: int | None, flags=(), flowers: str = ""
) -> Win:
    """A Win from the form people type: `123m 456p EE [PPP] (CCCC)`.

    Square brackets hold an exposed meld, round brackets a concealed kong.
    """
    melds = []
    for match in _MELD_TEXT.finditer(text):
        exposed, concealed = match.groups()
        body = exposed if exposed is not None else concealed
        try:
            ts = tiles.parse(body)
            kind = CHOW if len(set(ts)) > 1 else (KONG if len(ts) == 4 else PUNG)
            melds.append(Meld(kind, tuple(ts), concealed is not None))
        except (tiles.TileError, HandError) as err:
            raise WinError(f"meld {match.group(0)}: {err}") from None
    try:
        hand_tiles = tuple(tiles.parse(_MELD_TEXT.sub(" ", text)))
        win = tiles.tile(win_tile)
        flower_tiles = tuple(tiles.parse(flowers))
    except tiles.TileError as err:
        raise WinError(str(err)) from None
    result = Win(
        hand_tiles,
        tuple(melds),
        win,
        discarder is None,
        winner,
        discarder,
        discarder,
        frozenset(flags),
        flower_tiles,
    )
    check(result)
    return result


def check(win: Win) -> None:
    """Reject a win that cannot exist on a table: wrong tile count, a fifth tile, seat errors."""
    size = len(win.concealed) + 1 + 3 * len(win.melds)
    if size != 14:
        raise WinError(
            f"the hand has {size} tiles counting each meld as 3 and the winning "
            "tile; a winning hand has 14"
        )
    if any(tiles.is_flower(t) for t in win.concealed + (win.win_tile,)):
        raise WinError("flowers are not hand tiles; list them under flowers")
    c = [0] * (tiles.KINDS + tiles.FLOWER_KINDS)
    for t in win.all_tiles + list(win.flowers):
        c[t] += 1
    for kind, n in enumerate(c):
        limit = 1 if tiles.is_flower(kind) else 4
        if n > limit:
            raise WinError(f"{n} copies of {tiles.NAMES[kind]}; a set has {limit}")
    if win.self_drawn:
        if win.discarder is not None:
            raise WinError("a self-drawn win has no discarder")
    elif win.discarder is None:
        raise WinError("a win on a discard needs discarder_seat_index (or self_drawn: true)")
    elif win.discarder == win.winner:
        raise WinError("the winner cannot win on his own discard")
    if win.responsible == win.winner:
        raise WinError("the winner cannot be the responsible player")


def robbed_tile_held(win: Win) -> bool:
    """A win robbing a kong whose winner holds a copy of the robbed tile: the konger holds
    the other three, so it cannot be."""
    return win.win_tile in win.concealed or any(win.win_tile in m.tiles for m in win.melds)
