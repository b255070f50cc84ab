"""How much of the simulated truth the tracking got right (`mjtable run --json-summary`),
weighed hand by hand as the session goes, so that a long day keeps no list of moves
(issue 20).

The simulated players record the true movements of their latest hand (firmware/sim/world.py)
and the service what its tracking inferred in its latest (firmware/table/status.py's TrackedHand).
The score follows both as the table plays and keeps a hand until both sides are past its
number (a voided hand and its redeal share one); then it folds the hand into five counts.
A move the players made once their hand was over (a call taken back after a win) is no true
move of it, nor a wrong one if the tracking saw it: the service, its hand still in play after
a misread win, tracks on (issue 32 item 8).
"""

from collections import Counter

from firmware.table.status import TrackedHand

FIGURES = ("true_moves", "inferred_right", "flagged", "inferred_wrong", "missed")


class TrackingScore:
    def __init__(self) -> None:
        self.truth: dict[int, Counter] = {}  # hand -> its true movements, until folded
        self.tracked: dict[int, TrackedHand] = {}  # hand -> what the tracking inferred
        self.after: dict[int, Counter] = {}  # hand -> the true movements once it was over
        self.figures = dict.fromkeys(FIGURES, 0)

    def follow(self, tracked: TrackedHand, true_moves: tuple[int, Counter, Counter]) -> None:
        """Note both sides' latest hands (at every tick: a hand lasts many) and fold the
        hands both are past: neither side goes back to an earlier number. `true_moves`: the
        hand's number, its movements and those made once it was over."""
        number, moves, after = true_moves
        self.tracked[tracked.number], self.truth[number] = tracked, moves
        self.after[number] = after
        past = min(tracked.number, number)
        for hand in [h for h in self.truth.keys() | self.tracked.keys() if h < past]:
            self._fold(hand)

    def summary(self, hands: int) -> dict[str, int]:
        """The figures over the hands numbered up to `hands` (the hand the run's end cut
        short is left out)."""
        for hand in [h for h in self.truth.keys() | self.tracked.keys() if h <= hands]:
            self._fold(hand)
        return dict(self.figures)

    def _fold(self, hand: int) -> None:
        truth = self.truth.pop(hand, Counter())
        tracked = self.tracked.pop(hand, TrackedHand(hand))
        after = self.after.pop(hand, Counter())
        right = truth & tracked.moves
        missed = truth - right
        flagged = sum(n for (tile, _, _), n in missed.items() if tile in tracked.flagged)
        figures = self.figures
        figures["true_moves"] += truth.total()
        figures["inferred_right"] += right.total()
        figures["flagged"] += flagged
        figures["inferred_wrong"] += (tracked.moves - truth - after).total()
        figures["missed"] += missed.total() - flagged
