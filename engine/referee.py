"""What the table's referee keeps during one hand (RULES.md 3.9-3.13, 4.15).

Alerts are numbered so that a Ruling can name one. An offence gets the penalty the rule book
proposes: applied at once when it is mechanical (time), held for the referee's ruling when
the rule book wants a person to confirm it. Applied penalties take away the right to win or
to call, and make penalty tiles, as the rule book's `penalty_tile_mode` says: WSOM's live ones
may be discarded at the next discard, then they are dead and may never be discarded (3.9);
CCM's must be discarded at his next discard (4.15); none may go into a called set. An applied
penalty is noted on the hand (HandState.paid_now) for the rule book to pay on the spot.
The rules of penalty tiles are engine/penalty_tiles.py's; the checks of a ruling,
engine/ruling_checks.py's; a win scored again on a ruling, engine/rescoring.py's.
"""

from collections import Counter
from dataclasses import replace

from engine import chipless
from engine import events as ev
from engine.hand_state import HandState
from engine.penalties import EFFECTS, MUST_DISCARD, Catalogue, Penalty
from engine.penalty_tiles import named_problem, refused_discard, win_barred
from engine.rescoring import Rescoring
from engine.ruling_checks import allocation_problem, choice_problem
from engine.seats import letter


class Referee:
    def __init__(
        self, catalogue: Catalogue | None, hand: HandState, forfeit_threshold: int | None = None
    ):
        self.catalogue, self.hand = catalogue, hand  # the hand notes what is paid on the spot
        self.forfeit_threshold = forfeit_threshold
        self.counts: Counter = Counter()  # (seat, offence) this hand
        self.pending: dict[int, Penalty] = {}
        self.waived: dict[int, Penalty] = {}  # by alert: a waive may be undone (issue 36)
        # Beside the penalties awaiting a ruling: the wins to score again if it applies
        self.rescorings: dict[int, Rescoring] = {}
        self.fines_asked: dict[int, chipless.ChiplessFine] = {}  # wins off a chip-less player
        self.fine_called: chipless.ChiplessFine | None = None  # the refused win's, for its alert
        self.in_force: dict[int, Penalty] = {}  # the penalties applied, by their alert's id
        self.no_win = [False] * 4
        self.no_calls = [False] * 4
        self.mechanical = [False] * 4  # CCM 相公: draws and discards the drawn tile
        self.penalty_tiles: list[dict[int, str]] = [{} for _ in range(4)]
        self.time_points = [0, 0, 0, 0]
        self.forfeit_flagged = [False] * 4
        self.alerts = 0
        self.held: list[ev.ViolationReported] = []  # entered after the hand's end, for the next
        self.carried = 0  # reports of the hand before carried into this one (engine/reports.py)

    @property
    def applied(self) -> list[Penalty]:
        """The penalties in force, in the order applied."""
        return list(self.in_force.values())

    def alert(self, t, seat, rule, message, needs_ruling=False, penalty=None) -> ev.Alert:
        self.alerts += 1
        return ev.Alert(t, seat, rule, message, needs_ruling, self.alerts, penalty)

    def propose_rescoring(self, t, message: str, rescoring: Rescoring) -> ev.Alert:
        """The alert proposing to score a win again; it awaits the referee's Ruling on it."""
        alert = self.alert(t, None, rescoring.rule, message, True)
        self.rescorings[alert.id] = rescoring
        return alert

    def offence(
        self,
        t,
        seat: int,
        name: str,
        message: str,
        rule: str = "",
        hand=(),
        named=(),
        blocks: int = 1,
        warning: bool = False,
    ) -> list[ev.Event]:
        """The alert for an offence and, unless the referee must confirm it, its penalty.

        The alert names `rule`, the rule the input broke, when given; the proposed penalty
        names the rule that sets it. A `warning` that costs nothing still waits for the
        referee, who confirms it (on the record) or waives it (seed 000 摸錯牌)."""
        if name == chipless.OFFENCE and self.fine_called is not None:
            fine, self.fine_called = self.fine_called, None
            return [chipless.ask(self, t, fine)]
        if self.catalogue is None or name not in self.catalogue.offences:
            return [self.alert(t, seat, rule, message, True)]
        self.counts[(seat, name)] += 1
        held = tuple(self.penalty_tiles[seat])
        penalty = self.catalogue.propose(
            seat, name, self.counts[(seat, name)], blocks, tuple(hand), tuple(named), held
        )
        alert = self.alert(
            t, seat, rule or penalty.rule, message, penalty.confirm, penalty.to_json()
        )
        if not (penalty.points or penalty.effect or penalty.penalty_tiles or warning):
            return [alert]  # named for the record; nothing to apply
        if penalty.confirm:
            self.pending[alert.id] = penalty
            return [alert]
        return [alert] + self._apply(t, penalty, alert.id)

    def rule(self, ruling: ev.Ruling, hands=None) -> list[ev.Event]:
        """Apply or waive a proposed penalty; with `ruling.tiles`, the penalty tiles are the
        referee's choice of the offender's concealed tiles (`hands`, by seat) instead of the
        table's proposal (seed 000 錯鳴 3, 7: 裁判有權指定要揭露那些牌作為罰張)."""
        if ruling.alert in self.fines_asked:
            return chipless.rule(self, ruling)
        penalty = self.pending.get(ruling.alert)
        if penalty is None:
            return [
                self.alert(
                    ruling.t,
                    None,
                    "",
                    f"no penalty awaits a ruling under alert {ruling.alert} in this hand, nor "
                    "a win to score again (an earlier hand's alert cannot be ruled on: its table "
                    "is gone)",
                )
            ]
        if ruling.tiles:
            concealed = hands[penalty.seat] if hands else ()
            problem = choice_problem(penalty, ruling, concealed, self.penalty_tiles[penalty.seat])
            if problem:
                return [
                    self.alert(
                        ruling.t,
                        penalty.seat,
                        penalty.rule,
                        f"ruling on alert {ruling.alert} refused: {problem}; the penalty "
                        "still awaits a ruling",
                    )
                ]
            penalty = replace(penalty, penalty_tiles=tuple(ruling.tiles))
        if ruling.to is not None or ruling.dead:
            problem = allocation_problem(self.catalogue, penalty, ruling)
            if problem:
                refused = f"ruling on alert {ruling.alert} refused: {problem}"
                return [self.alert(ruling.t, penalty.seat, penalty.rule, refused)]
            penalty = replace(penalty, to=ruling.to, paid_to_others=not ruling.dead)
        del self.pending[ruling.alert]
        if not ruling.apply:
            self.waived[ruling.alert] = penalty  # as proposed: a waive names no tiles nor payee
            self.counts[(penalty.seat, penalty.offence)] -= 1  # a waived report is no offence
            return [ev.PenaltyWaived(ruling.t, penalty.seat, ruling.alert)]
        return self._apply(ruling.t, penalty, ruling.alert)

    def undo_waive(self, undone: ev.WaiveUndone) -> list[ev.Event]:
        """Take back the waive of the penalty under `undone.alert` (issue 36 item 2): it awaits
        a ruling again, as proposed, so applied it is the offence the report was (a first
        one stays a first one, seed 004/000: a waived report is no further offence)."""
        penalty = self.waived.pop(undone.alert, None)
        if penalty is None:
            return [
                self.alert(
                    undone.t,
                    None,
                    "",
                    f"no penalty waived under alert {undone.alert} in this hand: nothing to undo",
                )
            ]
        self.pending[undone.alert] = penalty
        self.counts[(penalty.seat, penalty.offence)] += 1  # the report counts again
        return [ev.PenaltyReopened(undone.t, penalty.seat, undone.alert, undone.reason)]

    def tiles_problem(self, seat: int, named, hand) -> str:
        """Why `named` cannot become the seat's penalty tiles, or "" (engine/penalty_tiles.py)."""
        return named_problem(seat, named, hand, self.penalty_tiles[seat])

    def _apply(self, t, penalty: Penalty, alert_id: int) -> list[ev.Event]:
        seat = penalty.seat
        self.in_force[alert_id] = penalty
        self.hand.paid_now("penalty", seat, penalty=penalty)
        no_win, no_calls, mechanical = EFFECTS[penalty.effect]
        self.no_win[seat] |= no_win
        self.no_calls[seat] |= no_calls
        self.mechanical[seat] |= mechanical
        for tile in penalty.penalty_tiles:
            self.penalty_tiles[seat].setdefault(tile, "live")  # a dead one stays dead
        out: list[ev.Event] = [
            ev.PenaltyApplied(
                t,
                seat,
                penalty.offence,
                penalty.rule,
                penalty.points,
                penalty.paid_to_others,
                penalty.effect,
                penalty.penalty_tiles,
                alert_id,
                penalty.to,
            )
        ]
        if penalty.offence.startswith("overtime"):
            self.time_points[seat] += penalty.points
            threshold = self.forfeit_threshold
            if threshold and self.time_points[seat] >= threshold and not self.forfeit_flagged[seat]:
                self.forfeit_flagged[seat] = True
                out += self.offence(
                    t,
                    seat,
                    "serious_overtime",
                    f"{letter(seat)} has "
                    f"{self.time_points[seat]} points of time penalty this "
                    "hand: serious overtime, a forfeit unless the referee "
                    "finds it justified",
                )
        return out

    def revoke(self, revoked: ev.PenaltyRevoked) -> list[ev.Event]:
        """Lift the penalty applied under `revoked.alert` (issue 16): it leaves the hand's
        spot payments, so every later check and the settlement go without it; what it took
        away is given back where no other penalty in force takes it too; its penalty tiles
        still held are ordinary again (those discarded stay discarded); its offence no longer
        counts towards the next one's penalty, nor its time towards a serious overtime."""
        penalty = self.in_force.pop(revoked.alert, None)
        if penalty is None:
            return [
                self.alert(
                    revoked.t,
                    None,
                    "",
                    f"no penalty applied under alert {revoked.alert} is in force in this hand "
                    "(an earlier hand's penalty cannot be revoked: its table is gone)",
                )
            ]
        seat = penalty.seat
        self.hand.spot = [s for s in self.hand.spot if s.penalty is not penalty]
        others = [p for p in self.in_force.values() if p.seat == seat]
        self.no_win[seat], self.no_calls[seat], self.mechanical[seat] = (
            any(EFFECTS[p.effect][n] for p in others) for n in range(3)
        )
        kept = {tile for p in others for tile in p.penalty_tiles}
        freed = tuple(
            t for t in penalty.penalty_tiles if t in self.penalty_tiles[seat] and t not in kept
        )
        for tile in freed:
            del self.penalty_tiles[seat][tile]
        self.counts[(seat, penalty.offence)] -= 1
        if penalty.offence.startswith("overtime"):
            self.time_points[seat] -= penalty.points
        return [
            ev.PenaltyLifted(
                revoked.t,
                seat,
                revoked.alert,
                penalty.offence,
                penalty.points,
                freed,
                revoked.reason,
            )
        ]

    # -- penalty tiles (RULES.md 3.9) ---------------------------------------------------------

    def may_discard(self, seat: int, tile: int) -> bool:
        """Not a dead penalty tile (3.9); where penalty tiles must be discarded (seed 004 七(一)),
        one of them while he holds any, unless he plays mechanically: he discards what he
        draws, and that rule wins (a hand he can never win has nothing to hide)."""
        held = self.penalty_tiles[seat]
        if self._must_discard():
            return not held or tile in held or self.mechanical[seat]
        return held.get(tile) != "dead"

    def discarded(self, seat: int, tile: int) -> None:
        """A discard uses up the chance to discard live penalty tiles: the rest are dead; where
        they must be discarded, the rest are owed at his next discards."""
        held = self.penalty_tiles[seat]
        held.pop(tile, None)
        if self._must_discard():
            return
        for other in held:
            held[other] = "dead"

    def konged(self, seat: int, used) -> None:
        """A penalty tile used in a concealed kong stops being one."""
        for tile in used:
            self.penalty_tiles[seat].pop(tile, None)

    def in_call(self, seat: int, own) -> bool:
        """A call would put a penalty tile into a called set."""
        return any(t in self.penalty_tiles[seat] for t in own)

    def bars_discard_win(self, seat: int, hand: list[int], tile: int) -> str:
        """Why penalty tiles forbid winning on this discard, or "" (RULES.md 3.9)."""
        return win_barred(self.penalty_tiles[seat], hand, tile)

    def _must_discard(self) -> bool:
        return self.catalogue is not None and self.catalogue.penalty_tile_mode == MUST_DISCARD

    def discard_refusal(self, seat: int) -> tuple[str, str]:
        """(offence, message) of a discard his penalty tiles forbid (engine/turns.py)."""
        return refused_discard(seat, self.penalty_tiles[seat], self._must_discard())
