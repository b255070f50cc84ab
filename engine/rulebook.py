"""What the hand and the session need from a rule book, whichever it is.

The rule book packages (engine/rulesets/) build a `TableRules` and implement `Ruleset`; the
table and the session know them only through this module, so neither imports a rule book.
"""

from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

from engine import tiles
from engine.clocks import Timing
from engine.hand_state import Claim, ExposedMeld, Spot, WinResult
from engine.penalties import Catalogue, Penalty
from engine.schema import Section, whole
from engine.scoring import Score, Win
from engine.transfers import Transfer

WIN_UNLESS_CALLED, WIN_UNTIL_A_LATER_WINS = "unless_called", "until_a_later_wins"  # touch_and_win
STACKS_PER_SIDE = whole(17, 18)  # four walls of stacks of two: 136 tiles, 144 with flowers
DEAD_WALL = whole(0, 16)  # up to eight stacks never drawn (WSOM's 14 tiles, CCM's none)


def check_walls(wall: dict, flowers: bool) -> None:
    """Refuse a [wall] whose four walls do not hold the tile set: each hand would stop at its
    first shuffle, the walls a stack short or over (RULES.md 3.3, 4.4)."""
    count = len(tiles.physical_set(flowers))
    if 8 * wall["stacks_per_side"] != count:
        kind = "with" if flowers else "without"
        raise Section(wall, "wall").error(
            "stacks_per_side",
            f"expected {count // 8} for the {count} tiles of a set {kind} flowers, "
            f"got {wall['stacks_per_side']}",
        )


@dataclass(frozen=True)
class TableRules:
    """What the hand state machine needs from a rule book besides its scorer."""

    stacks_per_side: int
    dead_wall: int
    flowers: bool
    two_roll_break: bool  # WSOM's 開門 (3.4) rather than one roll (4.4)
    start_offset: int  # A-C1
    chow_allowed: bool
    multiple_winners: bool  # A-W17 / A-C15
    kong_after_last_tile: bool  # A-W10
    auto_exemption: bool | None  # A-W3; None: the rule book has no follow-tile exemption
    dealer_repeats: bool = False  # CCM 4.11: a winning dealer keeps the deal
    start_chips: int | None = None  # CCM 4.13: chips each player starts a game with
    block_win_from_chipless: bool = False  # A-C14
    chipless_win_fine_each: int = 0  # A-C14: the fine for winning off him anyway
    # seed 004 §38 一 5 「罰分和牌得分」: the fine pays him T times this, (a discard win, a robbed
    # kong): the win's score as paid (2T, 3T), or (1, 1) for the hand's total T alone
    chipless_win_fine_times: tuple[int, int] = (1, 1)
    # seed 000 配牌時的犯規 3 做錯莊: a wrong dealer found late keeps the deal (DealerKept)
    wrong_dealer_keeps_deal: bool = False
    # seed 000 配牌時的犯規 2 開錯門: once all four have taken 4 tiles the break made stands and
    # the hand goes on from it (BreakMade)
    wrong_break_stands: bool = False
    # A-C4, seed 004 §32: the flower that makes a flower kong whose payment would end the game
    # with its maker not first may be discarded instead (「允許花槓牌不槓而打出」)
    discard_flower_kong_at_game_end: bool = False
    doubling_factor: int = 1  # A-C13: score changes while he continues
    # A-C10: how many of the wall's last live tiles are last tiles (海底撈月 / 妙手回春): 1, the
    # final tile; 4, the final go-around, each player's last draw (本盤最後各人一張牌)
    last_tiles: int = 1
    final_draw_with_win_on_kong: bool = True  # A-W10
    refuse_false_win_quietly: bool = False  # A-W12 "assisted"
    # A-W12 "strict", seed 000 錯鳴 6, 7: a complete hand that may not win, called before it
    # was shown, is 空和 (3 tiles): 錯和's whole hand is the tiles exposed (issue 30 item 1)
    unshown_false_win_is_empty: bool = False
    # What the next player's touch of the wall head does to his win on the open discard:
    # WIN_UNLESS_CALLED (seed 000 摸打規條 2: given up, unless another player calls that
    # discard) or WIN_UNTIL_A_LATER_WINS (seed 004 第一條三十五: void once a later player wins)
    touch_and_win: str = WIN_UNLESS_CALLED
    # The seed's rule that a self-drawn tile be kept apart until the win is shown, else the
    # win loses what the scorer's drawn_tile_mixed flag takes (seed 000 九蓮寶燈自摸規條; seed
    # 004 單放: 單張和牌); "": none. `drawn_tile_in_rack_mixed`: the rack reader seeing the drawn
    # tile in his rack before the call is that tile put into the hand; else the referee rules.
    drawn_tile_rule: str = ""
    drawn_tile_in_rack_mixed: bool = False
    # Seed 000 鳴牌優先規條 4: a chow shown ends pung/kong rights on its discard, never sooner
    # than this many seconds after it (吃牌 5: 約一秒); None: the rule book has no such rule (CCM)
    chow_call_wait: float | None = None
    heaven_cancelled_by_kong: bool = True  # A-W9
    earth_cancelled_by_call: bool = True
    timing: Timing | None = None
    penalties: Catalogue | None = None
    forfeit_threshold: int | None = None  # A-W15: time penalty points in a hand
    win_flags: dict[str, str] = field(default_factory=dict)  # situation -> the scorer's flag
    refs: dict[str, str] = field(default_factory=dict)  # situation -> "RULES.md x.y"


@dataclass(frozen=True)
class HandOutcome:
    """A hand as a rule book settles it, frozen by the table: so a rule book can weigh a win
    not made yet (`proposed`, CCM 4.13) without touching the hand. Seat order throughout."""

    results: tuple[WinResult, ...]  # the wins made
    spot: tuple[Spot, ...]  # kongs, penalties and fines, in the order they happened
    claims: tuple[Claim, ...]
    discards: tuple[tuple[int, int], ...]
    hands: tuple[tuple[int, ...], ...]
    melds: tuple[tuple[ExposedMeld, ...], ...]
    chips: tuple[int, ...] | None  # at the hand's start; None where the rule book has none
    doubling: bool
    last_deal: bool
    proposed: WinResult | None = None
    time_up: bool = False  # the game's time ran out: the hand is its last (seed 004 第五條)
    game_over: bool = False  # the game ended in the hand, cutting it short (seed 004 第一條三十一)
    east: int = 0  # the seat that played East (another after 做錯莊, seed 000)

    @property
    def wins(self) -> tuple[WinResult, ...]:
        """The wins to settle: those made, and the proposed one."""
        return self.results + ((self.proposed,) if self.proposed else ())

    @property
    def penalties(self) -> tuple[Penalty, ...]:
        """The penalties the referee applied, in order."""
        return tuple(s.penalty for s in self.spot if s.penalty is not None)


class Settlement(NamedTuple):
    """A hand's score changes per seat: the payments, and the penalties (their sum below
    zero by the dead points, paid to nobody); `held`, the payments held outside the table
    until the game ends (CCM 4.13, seed 004 §32), each per seat; `lines`, the transfers they
    add up to, each with its reason (engine/transfers.py)."""

    payments: tuple[int, ...]
    penalties: tuple[int, ...]
    held: tuple[tuple[int, ...], ...] = ()
    lines: tuple[Transfer, ...] = ()


class Ruleset(Protocol):
    name: str
    title: str
    flags: frozenset[str]
    table_rules: TableRules

    def score(self, win: Win) -> Score: ...

    def settle(self, outcome: HandOutcome) -> Settlement:
        """A hand's score changes per seat, its wins and the proposed one."""
        ...

    def follow_exemption(
        self, discards: list[tuple[int, int]], winner: int, robbed: bool
    ) -> int | None:
        """Who pays for a discard win under the rule book's exemption (WSOM 1.3)."""
        ...

    def game_end(self, chips: list[int], deals_passed: int, time_up: bool = False) -> str | None:
        """Why the game is over after a hand, or None (CCM 4.13; `time_up`: its time ran
        out during the hand, RULES.md 4.3)."""
        ...

    def win_banned(self, outcome: HandOutcome) -> str:
        """Why the proposed win may not be made though it scores (CCM 4.13: it would end the
        game with the winner not first), or ""."""
        ...

    def chips_now(self, outcome: HandOutcome) -> tuple[int, ...] | None:
        """The chips as they stand in the hand: its start's, after what was paid on the spot
        (CCM 4.10); None where the rule book has none."""
        ...

    def spot_held(self, outcome: HandOutcome, spot: Spot) -> bool:
        """Whether paying `spot` now would be held outside the table: it would end the game
        with its maker not first (CCM 4.13, seed 004 §32)."""
        ...

    def release_held(self, chips: list[int], held: list[tuple[int, ...]]) -> list[int]:
        """A game's final chips: the amounts held outside the table added once it ended."""
        ...
