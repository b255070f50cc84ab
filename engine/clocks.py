"""Four chess clocks for one hand, kept from the times the inputs carry (RULES.md 3.12, 4.14).

A seat's turn clock runs from the discard he answers (the previous discard, or the discard he
claimed; the end of the deal for East's first discard; a kong's replacement starts a new turn)
to his own discard. Free time (the preparation after the deal, referee pauses) never counts.
The engine never reads a clock: `t` always comes from an input.
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
        self.used = [0.0] * 4  # counted seconds this hand, per seat
        self.started: list[float | None] = [None] * 4
        self.first = [False] * 4  # the turn is East's first discard
        self.free_until = 0.0
        self.paused_at: float | None = None
        self.pauses: list[tuple[float, float]] = []

    def deal(self, t: float) -> None:
        """The deal is over: East's first turn starts, after any free preparation time."""
        self.free_until = t + self.timing.free_after_deal
        self.start(0, t, first=True)

    def start(self, seat: int, t: float, first: bool = False) -> None:
        self.started[seat], self.first[seat] = t, first

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

    def counted(self, start: float, end: float) -> float:
        """Seconds between start and end that count: not free, not paused."""
        begin = max(start, self.free_until)
        total = max(0.0, end - begin)
        pauses = self.pauses + ([(self.paused_at, end)] if self.paused_at is not None else [])
        for a, b in pauses:
            total -= max(0.0, min(b, end) - max(a, begin))
        return max(0.0, total)

    def turn_limit(self, seat: int) -> float:
        return self.timing.first_discard_limit if self.first[seat] else self.timing.discard_limit

    def discard(self, seat: int, t: float) -> list[Overtime]:
        """The seat discards: his turn ends; what he ran over, per limit."""
        start = self.started[seat]
        if start is None:
            return []
        elapsed = self.counted(start, t)
        before = self.used[seat]
        self.used[seat] += elapsed
        self.started[seat] = None
        found = []
        over = elapsed - self.turn_limit(seat)
        if self._over(over):
            found.append(Overtime(seat, "discard", over, self._blocks(over)))
        limit = self.timing.hand_limit
        if limit is not None:
            newly = self._blocks(self.used[seat] - limit) - self._blocks(before - limit)
            if newly > 0:
                found.append(Overtime(seat, "hand", self.used[seat] - limit, newly))
        return found

    def call_is_late(self, discarded_at: float, t: float) -> bool:
        """A call made after the call limit (CCM 延時碰牌)."""
        limit = self.timing.call_limit
        return limit is not None and self._over(self.counted(discarded_at, t) - limit)

    def _over(self, seconds: float) -> bool:
        return seconds > 0 if self.timing.strictly_over else seconds >= 0

    def _blocks(self, seconds: float) -> int:
        """Started blocks in `seconds` over a limit (0 when not over)."""
        if not self._over(seconds):
            return 0
        return max(1, math.ceil(seconds / self.timing.block))

    def snapshot(self, t: float) -> list[dict]:
        """Per seat: seconds left this turn (None when not his turn) and this hand."""
        result = []
        for seat in range(4):
            start = self.started[seat]
            running = self.counted(start, t) if start is not None else 0.0
            limit = self.timing.hand_limit
            result.append(
                {
                    "turn_left": None if start is None else self.turn_limit(seat) - running,
                    "hand_left": None if limit is None else limit - self.used[seat] - running,
                    "running": start is not None and self.paused_at is None,
                }
            )
        return result
