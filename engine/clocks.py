"""Four chess clocks for one hand, kept from the times the inputs carry (RULES.md 3.12, 4.14).

A seat's turn clock runs from the discard he answers (the previous discard, or the discard he
claimed; the end of the deal for East's first discard) to his own discard. A kong's
replacement starts another turn; under WSOM it also ends the one before, whose time counts
(seed 000 打牌時限 3: 「開槓時，補槓後便算作另一巡」). CCM's seed (004) says nothing of it:
there the replacement starts the turn again, as it always has. Free time (the preparation
after the deal, referee pauses) never counts. The engine never reads a clock: `t` always comes
from an input; durations are reckoned in whole milliseconds, never in float differences.
"""

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Timing:
    """A rule book's limits, in seconds. hand_limit None: no budget per hand (CCM)."""

    discard_limit: float
    first_discard_limit: float  # East's first discard (CCM 20 s; WSOM as any other)
    hand_limit: float | None
    free_after_deal: float  # WSOM's 15 s of preparation
    block: float  # WSOM: penalties per started block over a limit
    strictly_over: bool = True  # A-W14: exactly the limit is not over
    call_limit: float | None = None  # CCM: a pung within 3 s
    kong_ends_turn: bool = False  # WSOM: the time before a kong's replacement counts


def _ms(seconds: float) -> float:
    """Seconds in whole milliseconds, the unit all time here is reckoned in: table times are
    floats (16.1 - 1.1 is 15.000000000000002), their milliseconds exact, so a discard exactly
    at the limit is within it. No limit (infinity) stays infinite."""
    return seconds if math.isinf(seconds) else round(seconds * 1000)


UNTIMED = Timing(
    discard_limit=float("inf"),
    first_discard_limit=float("inf"),
    hand_limit=None,
    free_after_deal=0.0,
    block=1.0,
)


@dataclass(frozen=True)
class Overtime:
    """Time over a limit at one discard: which limit, by how much, in started blocks."""

    seat: int
    limit: str  # "discard" or "hand"
    seconds: float
    blocks: int


class Clocks:
    def __init__(self, timing: Timing):
        self.timing = timing
        self.used_ms = [0.0] * 4  # counted time this hand, per seat
        self.started: list[float | None] = [None] * 4
        self.first = [False] * 4  # the turn is East's first discard
        self.owed: list[list[Overtime]] = [[] for _ in range(4)]  # of a turn a kong ended
        self.free_until = 0.0
        self.paused_at: float | None = None
        self.pauses: list[tuple[float, float]] = []

    @property
    def used(self) -> list[float]:
        """Counted seconds this hand, per seat."""
        return [ms / 1000 for ms in self.used_ms]

    def deal(self, t: float) -> None:
        """The deal is over: East's first turn starts, after any free preparation time."""
        self.free_until = t + self.timing.free_after_deal
        self.start(0, t, first=True)

    def start(self, seat: int, t: float, first: bool = False) -> None:
        """The seat's turn starts at t. Under `kong_ends_turn` a turn of his still running
        ends there and counts: a kong's replacement starts another turn (另一巡) but never
        gives back the time before it, whose overtime comes with his next discard. East's
        first turn started again is the deal going on (his flowers), time that was never his."""
        if not first and self.timing.kong_ends_turn:
            self.owed[seat] += self._end_turn(seat, t)
        self.started[seat], self.first[seat] = t, first

    def owing(self, seat: int) -> list[Overtime]:
        """The overtime of a turn a kong ended, still to come with his next discard: taken
        now, when the hand ends before that discard (a win on the replacement)."""
        found, self.owed[seat] = self.owed[seat], []
        return found

    def stop(self, seat: int) -> None:
        """The turn ends without a discard (a win, or the hand is over)."""
        self.started[seat] = None

    def pause(self, t: float) -> bool:
        if self.paused_at is not None:
            return False
        self.paused_at = t
        return True

    def resume(self, t: float) -> bool:
        if self.paused_at is None:
            return False
        self.pauses.append((self.paused_at, t))
        self.paused_at = None
        return True

    def counted_ms(self, start: float, end: float) -> float:
        """Milliseconds between start and end that count: not free, not paused."""
        begin, stop = max(_ms(start), _ms(self.free_until)), _ms(end)
        pauses = self.pauses + ([(self.paused_at, end)] if self.paused_at is not None else [])
        paused = sum(max(0, min(_ms(b), stop) - max(_ms(a), begin)) for a, b in pauses)
        return max(0, stop - begin - paused)

    def turn_limit(self, seat: int) -> float:
        return self.timing.first_discard_limit if self.first[seat] else self.timing.discard_limit

    def discard(self, seat: int, t: float) -> list[Overtime]:
        """The seat discards: his turn ends; what he ran over, per limit (first in a turn a
        kong ended)."""
        found, self.owed[seat] = self.owed[seat] + self._end_turn(seat, t), []
        return found

    def _end_turn(self, seat: int, t: float) -> list[Overtime]:
        """The seat's turn, if running, ends at t: its time counts; what it ran over."""
        start = self.started[seat]
        if start is None:
            return []
        elapsed = self.counted_ms(start, t)
        before = self.used_ms[seat]
        self.used_ms[seat] += elapsed
        self.started[seat] = None
        found = []
        over = elapsed - _ms(self.turn_limit(seat))
        if self._over(over):
            found.append(Overtime(seat, "discard", over / 1000, self._blocks(over)))
        limit = self.timing.hand_limit
        if limit is not None:
            budget = _ms(limit)
            newly = self._blocks(self.used_ms[seat] - budget) - self._blocks(before - budget)
            if newly > 0:
                found.append(Overtime(seat, "hand", (self.used_ms[seat] - budget) / 1000, newly))
        return found

    def call_is_late(self, discarded_at: float, t: float) -> bool:
        """A call made after the call limit (CCM 延時碰牌)."""
        limit = self.timing.call_limit
        return limit is not None and self._over(self.counted_ms(discarded_at, t) - _ms(limit))

    def _over(self, ms: float) -> bool:
        return ms > 0 if self.timing.strictly_over else ms >= 0

    def _blocks(self, ms: float) -> int:
        """Started blocks in `ms` milliseconds over a limit (0 when not over)."""
        if not self._over(ms):
            return 0
        return max(1, math.ceil(ms / _ms(self.timing.block)))

    def snapshot(self, t: float) -> list[dict]:
        """Per seat: seconds left this turn (None when not his turn) and this hand."""
        result = []
        for seat in range(4):
            start = self.started[seat]
            running = self.counted_ms(start, t) if start is not None else 0
            turn, limit = _ms(self.turn_limit(seat)), self.timing.hand_limit
            result.append(
                {
                    "turn_left": None if start is None else (turn - running) / 1000,
                    "hand_left": None
                    if limit is None
                    else (_ms(limit) - self.used_ms[seat] - running) / 1000,
                    "running": start is not None and self.paused_at is None,
                }
            )
        return result
