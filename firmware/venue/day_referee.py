"""The demo day's floor referee (issue 36, "rulings made late by a simulated floor referee").

At a simulated table of the day (firmware/venue/day_table.py) the players sometimes break a
rule, and the engine's alert waits for a referee's ruling. The table's own referee rules at
once (firmware/sim/simulate.py), except on the first alert of a hand whose penalty changes
nothing of the play (points, or a warning on the record): for that one the floor referee is
called across the hall, and he arrives after the hand has ended, once the next hand's walls
rose (after the round's last hand: before the sheet is signed). His ruling then goes the
way a real table's desk sends it: a Ruling naming its hand, through the table's late-ruling
path (firmware/table/late.py), journaled, applied to that hand's table and its row on the
sheet settled again while play goes on. A penalty that acts on the play (no calls, penalty
tiles) is always ruled at the table: applied after the hand it would change nothing.

His first call at a table he gets wrong at first (issue 36 "one waive undone"): he waives
it, is told otherwise, undoes his waive (a WaiveUndone naming the hand: the penalty awaits a
ruling again, and the venue pages for it again) and applies it. Which call is the table's
play's, from its seed, never the hall's timing; the sheet carries the penalty once, as its
alert proposed it (a waived report is no offence: seed 004 第三章, CCM's 10 points stay 10).
"""

import logging
from dataclasses import replace

from engine import events as ev
from firmware.journal import draws
from firmware.sim.simulate import STEP, Game
from firmware.table.hands import Hands
from firmware.table.late import LateInput, apply_late

log = logging.getLogger("mjtable.venue")

CALLED = "the floor referee, called to the table, rules after the hand"
WAIVED = "the floor referee, called to the table, took the player's word"
UNDONE = "the table's referee saw the offence: the waive was a mistake"
RULED_AGAIN = "the floor referee, his waive undone, applies it"


class DayGame(Game):
    """The Game of a day's table, with its floor referee; `late` counts the rulings he made
    after their hand had ended that were applied."""

    def __init__(self, ruleset, seed: int, mistakes: float, journal):
        super().__init__(ruleset, seed, mistakes, journal=journal)
        self.called: list[tuple[int, int]] = []  # (hand, alert) awaiting the floor referee
        self.late = 0
        self.answered = 0  # calls the floor referee has answered at this table
        self.undone = 0  # his waives undone (each then applied)

    def rule(self, table, alert: ev.Alert) -> None:
        penalty = table.referee.pending[alert.id]
        hand = self.session.hand_number
        if penalty.effect or penalty.penalty_tiles or any(h == hand for h, _ in self.called):
            super().rule(table, alert)
        else:
            self.called.append((hand, alert.id))

    def roll(self) -> tuple[int, ...]:
        """Electronic dice drawn from the hand's seal and the press, as a real table's
        (firmware/journal/draws.py): `mjtable verify` recomputes them (issue 35)."""
        sealed = self.journal.sealed
        return draws.dice(sealed.nonce, sealed.digest, self.t, 2)

    def arrive(self) -> None:
        """The floor referee is at the table, the hand he was called for over: he applies
        each penalty waiting, naming its hand (refused, it is said and not counted); the
        first he waives, then undoes his waive, before he applies it."""
        for hand, alert in self.called:
            reason = CALLED
            waive = ev.Ruling(self.t, None, alert, False, reason=WAIVED, hand=hand)
            if not self.answered and self._late(waive, ev.PenaltyWaived):
                undo = ev.WaiveUndone(self.t, None, alert, UNDONE, hand)
                if self._late(undo, ev.PenaltyReopened):
                    self.undone, reason = self.undone + 1, RULED_AGAIN
            self.answered += 1
            ruling = ev.Ruling(self.t, None, alert, True, reason=reason, hand=hand)
            if self._late(ruling, ev.PenaltyApplied):
                self.late += 1
        self.called = []

    def _late(self, event: LateInput, answer: type) -> bool:
        """`event` made now, through the table's late path; whether an output of `answer`
        came of it (refused, it is said)."""
        self.t += STEP
        outputs = apply_late(self, replace(event, t=self.t))
        if isinstance(outputs, str):
            log.warning("%s: %s", self.journal.name, outputs)
            return False
        return any(isinstance(out, answer) for out in outputs)

    # -- what firmware/table/late.py asks of the table's hands ---------------------------------

    settle_again = Hands.settle_again  # the row settled again: one definition, the table's

    def out(self, line: str) -> None:
        log.debug("%s: %s", self.journal.name, line.strip())

    def publish(self, events) -> None:
        """Nothing to push: the table's uplink reads the journal (firmware/venue/demo.py)."""
