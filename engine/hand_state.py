"""The state of one hand as plain data: where every tile is, whose turn it is, what is owed.

The rules of the hand (engine/dealing.py, turns.py, calls.py, winning.py) receive it and
change it; the table (engine/table.py) wires them to its state machine. Nothing here
referees: a rule that refuses an input says so with a `Refusal`. Seats are the winds of this
hand: 0..3 = E S W N.
"""

from dataclasses import dataclass, field
from typing import NamedTuple

from engine import events as ev
from engine import tiles
from engine.hand import PUNG, Meld
from engine.penalties import Penalty
from engine.wall import Wall


@dataclass(frozen=True)
class Refusal:
    """Why a rule refuses an input: the situation (a key of the rule book's refs), the
    message, whether the referee must rule, and the offence with the tiles it exposed."""

    situation: str
    message: str
    needs_ruling: bool = False
    offence: str = ""
    named: tuple[int, ...] = ()


def seated(event: ev.Event) -> int:
    """The seat of a game input that names one: the table refuses one without a seat 0..3
    before any rule sees it."""
    if event.seat is None:
        raise ValueError(f"{type(event).__name__} names no seat")
    return event.seat


@dataclass(frozen=True)
class Call:
    seat: int
    claim: str  # chow, pung, kong, win
    tiles: tuple[int, ...] = ()  # the caller's own tiles for the meld
    shown_at: float | None = None  # when its tiles were seen laid out (ClaimDeclared.shown)


@dataclass(frozen=True)
class ExposedMeld:
    kind: str  # chow, pung, kong
    tiles: tuple[int, ...]  # physical ids, the claimed one included
    concealed: bool = False  # a concealed kong
    claimed: int | None = None  # the tile taken from another seat
    from_seat: int | None = None

    def as_meld(self) -> Meld:
        return Meld(self.kind, tuple(tiles.kind_of(t) for t in self.tiles), self.concealed)


class WinResult(NamedTuple):
    winner: int
    from_seat: int | None
    score: dict  # the ruleset's Score.to_json()
    tile: int
    robbed: bool = False  # the tile was robbed from an added kong
    hung: int | None = None  # CCM 4.12 險牌(2): the winner's hung tile then (HandState.hung)


class Spot(NamedTuple):
    """What a rule book may pay for the moment it happens, in the order it happened: a kong
    (CCM 現場匯, seed 004 §36), a penalty (第三章 第一條 二(二) 當場扣除) or the fine for winning
    off a chip-less player (§38 一 5). `at`: how many discards the hand had made then, so that
    a 追牌, paid at its fourth discard (§37), falls in its place among them."""

    kind: str  # melded, added, concealed, flower (a kong); penalty; fine
    seat: int  # the konger, the offender, the fined winner
    at: int
    feeder: int | None = None  # a melded kong's discarder
    penalty: Penalty | None = None  # a penalty's, as applied
    payments: tuple[int, ...] = ()  # a fine's, per seat


Claim = tuple[int, int, tuple[int, ...]]  # (claimer, feeder, kinds of the meld)


def _seats() -> list[list]:
    return [[] for _ in range(4)]


@dataclass(eq=False)
class HandState:
    """One hand's tiles and turn. `chips`, `doubling` and `last_deal` come from the session
    (CCM 4.11-4.13); None chips where the rule book has none. `time_up` from the game's clock
    (ev.GameTimeUp)."""

    walls: list[list[int]]  # as the shuffler laid them, walls[side], before the break
    chips: list[int] | None = None
    doubling: bool = False  # CCM 倍打: a winning dealer goes on (A-C13)
    last_deal: bool = False  # CCM: the game's scheduled end if the deal passes
    time_up: bool = False  # CCM: the game's time is up, this hand is its last (seed 004 第五條)
    game_over: str = ""  # CCM: why the game ended in the hand, cutting it short (第一條三十一)
    wall: Wall | None = None  # broken and dealt from after the dice
    hands: list[list[int]] = field(default_factory=_seats)
    melds: list[list[ExposedMeld]] = field(default_factory=_seats)
    flowers: list[list[int]] = field(default_factory=_seats)
    rivers: list[list[int]] = field(default_factory=_seats)  # discards still lying there
    discards: list[tuple[int, int]] = field(default_factory=list)  # (seat, tile), in order
    discard_times: list[float] = field(default_factory=list)
    turn: int = 0
    east: int = 0  # the seat playing East: another only after 做錯莊 (DealerKept)
    owes: list[int] = field(default_factory=lambda: [0, 0, 0, 0])  # replacements due
    owed_for: list[str] = field(default_factory=lambda: [""] * 4)  # why: "kong" or "flower"
    calls: dict[int, Call] = field(default_factory=dict)  # calls on the open window, by seat
    added_kong: tuple[int, int] | None = None  # (seat, tile) open to robbing
    first_dice: tuple[int, ...] = ()
    calls_made: bool = False  # any call or kong yet (A-W9)
    last_draw: str = "deal"  # deal, live, kong, flower, claim
    # the turn's draw was a last tile (海底): the final live tile, or under CCM's go-around
    # reading (A-C10, 本盤最後各人一張牌) one of the last four, each player's last
    last_tile_drawn: bool = False
    wrong_draw: tuple[int, int] | None = None  # (seat, tile): his latest draw, from elsewhere
    results: list[WinResult] = field(default_factory=list)
    # What the settlement needs beyond the wins (CCM 4.10, 4.12).
    spot: list[Spot] = field(default_factory=list)
    claims_log: list[Claim] = field(default_factory=list)
    # CCM 4.12 險牌(2), seed 004 §34「掛牌方換牌後，點炮方不再包牌」: the kind a seat kept when he
    # first held one tile beside four sets, while he keeps it; None once he has changed it.
    hung: dict[int, int | None] = field(default_factory=dict)

    @property
    def broken_wall(self) -> Wall:
        """The wall once the dice have broken it: every rule after the dice needs it."""
        if self.wall is None:
            raise RuntimeError("the wall is not broken yet")
        return self.wall

    @property
    def discarder(self) -> int:
        return self.discards[-1][0]

    @property
    def after_discarder(self) -> int:
        """Who draws after the latest discard when nobody calls it."""
        return (self.discarder + 1) % 4

    def holds_turn(self, seat: int) -> bool:
        """His turn, nothing owed: he may discard, kong, or win on his own draw."""
        return seat == self.turn and not self.owes[seat]

    def paid_now(self, kind: str, seat: int, **what) -> None:
        """Note a kong, a penalty or a fine, for the rule book to pay on the spot."""
        self.spot.append(Spot(kind, seat, len(self.discards), **what))

    def makes_flower_kong(self, seat: int, tile: int) -> bool:
        """The flower `tile` completes one of the seat's flower groups, 春夏秋冬 or 梅蘭竹菊: a
        flower kong (花槓, A-C3)."""
        group = (tiles.kind_of(tile) - tiles.KINDS) // 4
        kinds = {tiles.kind_of(t) - tiles.KINDS for t in [*self.flowers[seat], tile]}
        return {4 * group + i for i in range(4)} <= kinds

    def holds_flower(self, seat: int) -> bool:
        return any(tiles.is_flower(tiles.kind_of(t)) for t in self.hands[seat])

    def follow_hung(self) -> None:
        """Record each seat's hung tile when he first holds one tile beside four sets, and
        forget it for the hand once he discards it for another kind (table.py, every input)."""
        for seat, held in enumerate(self.hands):
            if len(held) != 1 or len(self.melds[seat]) != 4:
                continue
            kind = tiles.kind_of(held[0])
            if seat not in self.hung:
                self.hung[seat] = kind
            elif self.hung[seat] != kind:
                self.hung[seat] = None

    def seen_tiles(self) -> list[int]:
        """Tiles every player sees: the rivers and the exposed sets (not the concealed kongs,
        three of whose four lie face down, seed 004 §15)."""
        seen = [t for river in self.rivers for t in river]
        return seen + [t for seat in self.melds for m in seat if not m.concealed for t in m.tiles]

    def last_copy(self, tile: int) -> set[str]:
        """A win on `tile` with its other three copies in sight (CCM 4.8.8 絕張), as situations
        of the win (TableRules.win_flags): "last_copy_pung", they are an exposed pung (the
        konger's, when his added tile is robbed); "last_copy_seen", they lie anywhere every
        player sees."""
        kind, found = tiles.kind_of(tile), set()
        melds = [m for seat in self.melds for m in seat if not m.concealed]
        if any(m.kind == PUNG and tiles.kind_of(m.tiles[0]) == kind for m in melds):
            found.add("last_copy_pung")
        if sum(tiles.kind_of(t) == kind for t in self.seen_tiles() if t != tile) == 3:
            found.add("last_copy_seen")
        return found

    def owe(self, seat: int, why: str) -> None:
        """A kong or flower is replaced from the tail before the player may discard."""
        self.owes[seat] += 1
        self.owed_for[seat] = why
