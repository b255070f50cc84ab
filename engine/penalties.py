"""Penalties as the rule books define them (RULES.md 3.9-3.13, 4.15), from config data.

Each offence is a config entry: its rule, the points for the first, second, ... offence in the
hand (CCM escalates within one hand, seed 004 §296-298), what it takes away from the offender,
how many of his tiles become penalty tiles (WSOM 3.9, 3.11), and whether the referee must
confirm it. WSOM deducts points from the offender only (3.13); CCM has him pay each of the
other three (4.15).

An offence the referee enters at the desk (a conduct penalty, 行為守則) may have, beside these:
`per_seconds` (timed: the points are per started block of that many seconds), `forfeit_after`
(seconds beyond which the referee is asked about a forfeit, the offence `absent`),
`session_limit` (the points of all such offences a player may gather in a half-session before
a forfeit is proposed, engine/session.py), and for `penalty_tiles = "exposed"` (the tiles the
referee names become penalty tiles) `free_tiles` (how many of them the player takes back);
`notice` (true: the sanction is publicly announced, 通報, seed 004 第三章 第二條 一, 十一);
`after_win` (true: the offence is committed while another's win is being confirmed, and its
points are settled after the hand's wins, after the game's end where the hand ends the game:
seed 004 第三章 第二條 七(二) 先計分不罰分，局結後罰分).

What the offender may do with his penalty tiles is the rule book's `penalty_tile_mode`, a key of
[penalties] beside the offences: "live_then_dead" (RULES.md 3.9: they may be discarded at his
next discard, then are dead and never may be), the default; "must_discard" (seed 004 第三章
第二條 七(一): 在下一次輪到自己出牌時，必須將罰張打出 — each discard of his is one of them
until none is left).
"""

import math
from dataclasses import dataclass

from engine.schema import Kind, Schema, Section, check_schema, list_of, one_of, whole

# What an offence takes away: (may not win, may not call or kong, must discard what he draws).
EFFECTS = {
    "": (False, False, False),
    "no_win": (True, False, False),
    "dead_hand": (True, True, False),
    "no_calls": (False, True, False),  # seed 000 罰則 不準鳴牌
    "mechanical": (True, True, True),
    "removed": (True, True, True),
    "forfeit": (True, True, False),
    "disqualified": (True, True, True),
}
# The offences the table detects in every rule book; a rule book may add its own.
COMMON = (
    "overtime_discard",
    "early_draw",
    "wrong_count_high",
    "wrong_count_low",
    "empty_call",
    "wrong_call",
    "empty_kong",
    "false_win",
    "incomplete_win",
    "late_call",
    "kong_after_last_tile",
    "naming_discard",
)


MODE = "penalty_tile_mode"  # the [penalties] key that is no offence
LIVE_THEN_DEAD, MUST_DISCARD = "live_then_dead", "must_discard"
EXPOSED = -2  # penalty_tiles = "exposed": the tiles the referee names (seed 000 罰張 1, 6)
_TILE_COUNT = whole(-1, 14)  # -1: the whole concealed hand
OFFENCE_SCHEMA: Schema = {
    "rule": "text",
    "points": list_of(whole(0, 1000), 1, 10, "points, one per repeated offence"),
    "beyond": one_of("repeat", "removed"),
    "effect": one_of(*EFFECTS),
    "penalty_tiles": (
        lambda v: v == "exposed" or _TILE_COUNT.holds(v),
        f'"exposed" or {_TILE_COUNT.words}',
    ),
    "confirm": "bool",
}
OPTIONAL: dict[str, Kind] = {  # the keys of a reported offence, see above
    "per_seconds": whole(1, 3600),
    "forfeit_after": whole(1, 86_400),
    "session_limit": whole(1, 100_000),
    "free_tiles": whole(0, 14),
    "notice": "bool",
    "after_win": "bool",
}


@dataclass(frozen=True)
class Offence:
    name: str
    rule: str
    points: tuple[int, ...]  # per offence in the hand: 1st, 2nd, ...
    beyond: str  # after the list: "repeat" the last, or "removed" from play
    effect: str
    penalty_tiles: int  # 0 none, N (all if fewer), -1 the whole concealed hand, EXPOSED those named
    confirm: bool
    per_seconds: int | None = None
    forfeit_after: int | None = None
    session_limit: int | None = None
    free_tiles: int = 0
    notice: bool = False
    after_win: bool = False

    def blocks(self, seconds: int) -> int:
        """How many times the points are due for `seconds` (seed 000 暫停: 每30秒（或不足30秒）)."""
        return math.ceil(seconds / self.per_seconds) if self.per_seconds else 1


@dataclass(frozen=True)
class Penalty:
    """A proposed or applied penalty; `points` per recipient (CCM) or deducted (WSOM)."""

    seat: int
    offence: str
    rule: str
    points: int
    paid_to_others: bool
    effect: str
    penalty_tiles: tuple[int, ...]
    confirm: bool
    nth: int
    to: int | None = None  # all the points to this seat, the disadvantaged (seed 004 §38 一 6)
    after_win: bool = False  # settled after the hand's wins (the offence's `after_win`)

    def to_json(self) -> dict:
        out = {
            "seat": self.seat,
            "offence": self.offence,
            "rule": self.rule,
            "points": self.points,
            "paid_to_others": self.paid_to_others,
            "effect": self.effect,
            "penalty_tiles": list(self.penalty_tiles),
            "confirm": self.confirm,
            "nth": self.nth,
        }
        if self.to is not None:  # only when the referee gave the points to one player
            out["to"] = self.to
        if self.after_win:
            out["after_win"] = True
        return out


class Catalogue:
    """The offences of one rule book."""

    def __init__(
        self,
        section: dict,
        paid_to_others: bool,
        required: tuple[str, ...] = COMMON,
        allocatable: bool = False,
    ):
        """`allocatable`: the referee may give a penalty's points to the player it
        disadvantaged or make them dead points (seed 004 §38 一 6); seed 000 has no such
        choice."""
        self.paid_to_others, self.allocatable = paid_to_others, allocatable
        self.offences: dict[str, Offence] = {}
        penalties = Section(section, "penalties")
        for name in required:
            penalties.get(name, "table")
        self.penalty_tile_mode = (
            penalties.get(MODE, one_of(LIVE_THEN_DEAD, MUST_DISCARD))
            if MODE in section
            else LIVE_THEN_DEAD
        )
        for name, entry in section.items():
            if name == MODE:
                continue
            extra = {k: OPTIONAL[k] for k in OPTIONAL if isinstance(entry, dict) and k in entry}
            check_schema(entry, {**OFFENCE_SCHEMA, **extra}, f"penalties.{name}")
            tiles = entry["penalty_tiles"]
            self.offences[name] = Offence(
                name,
                "RULES.md " + entry["rule"],
                tuple(entry["points"]),
                entry["beyond"],
                entry["effect"],
                EXPOSED if tiles == "exposed" else tiles,
                entry["confirm"],
                **{k: entry[k] for k in extra},
            )

    def propose(
        self,
        seat: int,
        name: str,
        nth: int,
        blocks: int = 1,
        hand: tuple[int, ...] = (),
        named: tuple[int, ...] = (),
        held: tuple[int, ...] = (),
    ) -> Penalty:
        """The penalty for the nth offence of this kind by the seat this hand.

        `blocks` multiplies the points (WSOM: 5 per started 15 s); `named` are the tiles the
        offence exposed (they become penalty tiles first; for an EXPOSED offence they are
        its penalty tiles, but for the `free_tiles` first), `hand` the offender's tiles, `held`
        his penalty tiles already: each offence exposes tiles of its own (seed 000 空鳴).
        """
        offence = self.offences[name]
        effect = offence.effect
        if nth > len(offence.points) and offence.beyond == "removed":
            effect = "removed"
        points = offence.points[min(nth, len(offence.points)) - 1] * blocks
        count = len(hand) if offence.penalty_tiles == -1 else offence.penalty_tiles
        if offence.penalty_tiles == EXPOSED:  # the first `free_tiles` named are taken back
            named, hand = named[offence.free_tiles :], ()
            count = len(named)
        fresh = [t for t in (*named, *hand) if t not in held]
        tiles = tuple(dict.fromkeys(fresh))[:count]  # all he has if fewer (seed 000 空和)
        return Penalty(
            seat,
            name,
            offence.rule,
            points,
            self.paid_to_others,
            effect,
            tiles,
            offence.confirm,
            nth,
            after_win=offence.after_win,
        )
