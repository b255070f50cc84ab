"""The calls on an open window, for engine/moves.py's `Interpreter`: the tiles laid out for
them declared when the window closes, a kong laid out on one's turn, and a chow's two steps,
shown and then its caller's discard (RULES.md 3.7, 4.6; seed 000 吃牌 4, 鳴牌優先規條 4).
The rules over the laid tiles are engine/laying.py's; this holds the interpreter's side.
"""

from dataclasses import replace

from engine import events as ev
from engine.hand_state import seated
from engine.laying import (
    calls_laid_out,
    chow_pending,
    chower,
    own_kong,
    shown_chow,
    still_laying,
)
from engine.ordering import WAIT, Waiting
from engine.table import Table


class OpenCalls:
    """The Interpreter's calls on the open window (engine/moves.py sets these fields)."""

    table: Table
    claim_window: float
    window_opened: float | None
    exposing: list[list[int]]
    laid_at: dict[int, float]
    declared: set[tuple[int, ...]]
    waiting: Waiting

    @property
    def chower(self) -> int | None:
        """Who showed a chow on the open window (engine/laying.py)."""
        return chower(self.table)

    def _calls_over(self, t: float) -> bool:
        """The open window's time is over, its melds laid out whole (or given `WAIT` more),
        and no chow shown waits for its caller's discard."""
        return (
            self.table.state in ("claim_window", "rob_window")
            and self.window_opened is not None
            and t - self.window_opened >= self.claim_window
            and (
                not (still_laying(self.table, self.exposing) or self._chow_to_show())
                or t - self.window_opened >= self.claim_window + WAIT
            )
            and not chow_pending(self.table, self.chower, self.exposing, self.laid_at)
        )

    def _close_calls(self, t: float, declared: int | None = None) -> list:
        """Declare the calls laid out on the open window (but the seat's `declared` with
        them), then close it."""
        table = self.table
        if table.state not in ("claim_window", "rob_window") or table.out_of_step:
            return []
        self.window_opened = None
        laid_out = calls_laid_out(table, self.exposing, self.laid_at, t, declared)
        return [*laid_out, ev.ClaimWindowClosed(t, None)]

    def _own_kong(self, t: float, seat: int) -> list:
        """Four of a kind laid out on one's turn, or one tile added to one's exposed pung."""
        if self.table.out_of_step:
            return []
        group = own_kong(self.table, seat, self.exposing[seat], self.declared)
        if group is None:
            return []
        self.declared.add(group)
        return [ev.KongDeclared(t, seat, group)]

    # -- a chow: shown, then its caller's discard (seed 000 吃牌 4, 鳴牌優先規條 4) ---------

    def _chow_shown(self, t: float, seat: int) -> list:
        """A chow shown is declared at once: the others' pung and kong rights end with it.
        One whose caller discarded first (seed 000 吃牌 4 allows it: 容許先打牌、後亮出明順)
        is done now: the rights ended at his discard, his time ran until the showing."""
        shown = (
            None
            if self.chower is not None or seat in self.table.calls
            else shown_chow(self.table, seat, self.exposing[seat], t)
        )
        if shown is None:
            return []
        discard = self.waiting.discard_of(seat)
        if discard is None:
            return [shown]
        return [replace(shown, t=min(discard.t, t)), *self._chow_done(t, replace(discard, t=t))]

    def _chow_to_show(self) -> bool:
        """The next player discarded while the calls were open: a chow he may show after
        his discard (吃牌 4) keeps them open a while longer, as a meld half laid out does."""
        table = self.table
        return table.state == "claim_window" and self.waiting.holds_discard(table.after_discarder)

    def _chow_done(self, t: float, discard: ev.TileDiscarded) -> list:
        """The chower discards: the chow is done, the calls close (it is granted unless a
        call before it outranks it), then his discard; a win called meanwhile ends the hand
        on the chowed tile, and this discard is none."""
        closing = self._close_calls(t, declared=seated(discard))
        winning = any(c.claim == "win" for c in self.table.calls.values())
        return closing if winning else closing + [discard]
