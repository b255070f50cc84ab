"""One hand as a state machine: dice, deal, turns, calls, kongs, flowers, a win or a draw.

Built with `transitions` (auto_transitions off: nothing jumps to a state by name but the
table accepted as it lies, engine/resync.py). The states and triggers are the game's words.
The table is the hand's state (HandState) with its rules composed around it: the deal
(engine/dealing.py), the turns (engine/turns.py), the calls, kongs and flowers
(engine/calls.py) and the wins (engine/winning.py) give the machine its guards and actions.
An input that breaks a rule yields an Alert naming the rule and changes nothing.
Seats are the winds of this hand: 0..3 = E S W N, East deals. Tiles are physical ids.
"""

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from transitions import EventData, Machine

from engine import events as ev
from engine import invariants, reports, resync
from engine.calls import CallRules
from engine.clocks import UNTIMED, Clocks
from engine.dealing import Dealing
from engine.hand_state import HandState, Refusal, WinResult
from engine.referee import Referee
from engine.rulebook import HandOutcome, Ruleset
from engine.scoring import Score
from engine.seats import letter
from engine.turns import Turns
from engine.wall_touch import Touches
from engine.winning import WinRules

if TYPE_CHECKING:
    from transitions.core import CallbackList  # the stubs' name for a list of guards

STATES = [
    "dice",
    "second_roll",
    "draw",
    "discard",
    "claim_window",
    "rob_window",
    "won",
    "exhausted",
    "game_over",  # CCM: two players without chips in the middle of the hand (seed 004 第一條三十一)
]
ENDED = ("won", "exhausted", "game_over")
WINDOWS = ("claim_window", "rob_window")  # calls on the latest tile are open
TRIGGERS = {
    ev.DiceRolled: "roll_dice",
    ev.TileDrawn: "draw",
    ev.TileDiscarded: "discard",
    ev.ClaimDeclared: "claim",
    ev.ClaimWindowClosed: "close_window",
    ev.KongDeclared: "kong",
    ev.FlowerExposed: "flower",
    ev.WinDeclared: "win",
    ev.WallTouched: "touch",
}
UNSEATED = ("roll_dice", "close_window")  # the triggers whose rules never index by seat
MOVES = ("draw", "discard", "claim", "kong", "flower", "win")  # what players did at the table
REFEREE_INPUTS = (
    ev.ClocksPaused,
    ev.ClocksResumed,
    ev.Ruling,
    ev.ViolationReported,
    ev.DealerKept,
    ev.PenaltyRevoked,
    ev.WaiveUndone,
    ev.BreakMade,  # the interpreter's too, as WallTouched is (engine/deal_order.py)
)

Check = Callable[[Any], Refusal | None]  # an input's event -> why a rule refuses it, or None
Action = Callable[[Any], list[ev.Event]]  # an input's event -> the outputs it makes
Guard = Callable[[EventData], bool]
Callback = Callable[[EventData], None]
Row = tuple[str, Any, str | None, "CallbackList", Callback | None]  # from: a state or states


def _one_tile(event: ev.KongDeclared) -> bool:
    """A kong of one tile is added to an exposed pung: the others may rob it first."""
    return len(event.tiles) == 1


class Table(HandState):
    """One hand under one rule book. Feed inputs to `apply`; it returns the outputs."""

    state: str  # the machine's state, kept on the table by `transitions`
    trigger: Callable[..., bool]

    def __init__(
        self,
        ruleset: Ruleset,
        walls: list[list[int]],
        chips: list[int] | None = None,
        doubling: bool = False,
        last_deal: bool = False,
    ):
        super().__init__(walls, chips, doubling, last_deal)
        self.ruleset, self.rules = ruleset, ruleset.table_rules
        self.clocks = Clocks(self.rules.timing or UNTIMED)
        self.referee = Referee(self.rules.penalties, self, self.rules.forfeit_threshold)
        self.touches = Touches(self, self.referee, self.rules)
        self.winning = WinRules(self, ruleset, self.referee)
        self.dealing = Dealing(self, self.rules, self.referee, self.clocks)
        self.turns = Turns(
            self, self.rules, self.referee, self.clocks, self.touches, self.winning.held_now
        )
        self.calling = CallRules(
            self, self.rules, self.referee, self.clocks, self.winning, self.touches
        )
        self._out: list[ev.Event] = []
        self._refusal: Refusal | None = None
        # A move refused, made at the table all the same: the hand and the table parted until
        # a move is taken or the table accepted as it lies (issue 20, engine/resync.py).
        self.out_of_step = False
        self.machine = Machine(
            model=self,
            states=STATES,
            initial="dice",
            auto_transitions=False,
            send_event=True,
            ignore_invalid_triggers=True,
        )
        for trigger, source, dest, conditions, after in self._transitions():
            self.machine.add_transition(trigger, source, dest, conditions=conditions, after=after)

    def _transitions(self) -> list[Row]:
        deal, turns, calls, wins = self.dealing, self.turns, self.calling, self.winning
        ok, when, given, do = self._ok, self._when, self._given, self._do
        windows = list(WINDOWS)
        two_rolls, spent = when(lambda: self.rules.two_roll_break), when(turns.wall_spent)
        return [  # (trigger, from, to, guards, action): the first whose guards pass is taken
            ("roll_dice", "dice", "second_roll", [ok(deal.dice), two_rolls],
             do(deal.keep_first_roll)),
            ("roll_dice", "dice", "discard", [ok(deal.dice)], do(deal.break_and_deal)),
            ("roll_dice", "second_roll", "discard", [ok(deal.second_roll)],
             do(deal.break_and_deal)),
            ("draw", "draw", "discard", [ok(turns.live_draw)], do(turns.take_live)),
            ("draw", "discard", "exhausted", [ok(turns.replacement), spent], do(self._end_drawn)),
            ("draw", "discard", "discard", [ok(turns.replacement)], do(turns.take_replacement)),
            ("discard", "discard", "claim_window", [ok(turns.discard)], do(turns.lay_discard)),
            ("discard", "draw", None, [ok(turns.discard_before_draw)], None),
            ("claim", windows, None, [ok(calls.claim)], do(calls.record_claim)),
            ("claim", ["draw", "discard"], None, [ok(calls.late_call)], None),
            ("close_window", windows, "won", [when(calls.has_winners)], do(wins.settle)),
            ("close_window", "claim_window", "discard", [when(calls.has_granted_call)],
             do(calls.expose_call)),
            ("close_window", "claim_window", "exhausted", [spent], do(self._end_drawn)),
            ("close_window", "claim_window", "draw", [], do(turns.pass_turn)),
            ("close_window", "rob_window", "discard", [], do(calls.complete_added_kong)),
            ("kong", "discard", "rob_window", [ok(calls.kong), given(_one_tile)],
             do(calls.offer_added_kong)),
            ("kong", "discard", "discard", [ok(calls.kong)], do(calls.make_concealed_kong)),
            ("flower", "discard", "discard", [ok(calls.flower)], do(calls.expose_flower)),
            ("touch", STATES, None, [ok(self._touch)], do(self.touches.touch)),
            ("win", "discard", "won", [ok(wins.self_draw)],
             do(wins.settle, turns.won_on_wrong_draw, turns.charge_owing)),
            ("end_game", [s for s in STATES if s not in ENDED], "game_over", [],
             do(lambda event: [event])),
        ]  # fmt: skip

    # The machine's guards and actions from the rules, each given the input's event: `_ok`
    # keeps a rule's refusal for `apply` to report, `_when` asks the hand a question,
    # `_given` asks one of the input, `_do` collects its actions' outputs, in order.

    def _ok(self, check: Check) -> Guard:
        def condition(e: EventData) -> bool:
            refusal = check(e.kwargs["event"])
            if refusal is not None:
                self._refusal = refusal
            return refusal is None

        return condition

    def _when(self, question: Callable[[], bool]) -> Guard:
        return lambda e: question()

    def _given(self, test: Callable[[Any], bool]) -> Guard:
        return lambda e: test(e.kwargs["event"])

    def _do(self, *actions: Action) -> Callback:
        def callback(e: EventData) -> None:
            for action in actions:
                self._out += action(e.kwargs["event"])

        return callback

    # -- the one entry point ------------------------------------------------------------

    def apply(self, event: ev.Event) -> list[ev.Event]:
        """Apply one input; return what happened (outputs in order, Alerts for refusals)."""
        out = self._input(event)
        return out + self._chips_out(event.t)

    def _chips_out(self, t: float) -> list[ev.Event]:
        """Seed 004 第一條三十一 第三種是兩家無分即告結束: a payment on the spot (a kong's, 十五,
        三十六) left two players without chips: the game ends there, and the hand with it (one
        that would do so with its maker not first was held outside the table, §32)."""
        if self.chips is None or self.ended:
            return []
        now = self.winning.chips_now()
        reason = now is not None and self.ruleset.game_end(list(now), 0)
        if not reason:
            return []
        self.game_over, self._out = reason, []
        self.trigger("end_game", event=ev.GameEnded(t, None, reason))
        return self._out

    def _input(self, event: ev.Event) -> list[ev.Event]:
        self._out, self._refusal = [], None
        if isinstance(event, REFEREE_INPUTS):
            return self._referee_input(event)
        if isinstance(event, ev.TableAccepted):
            return resync.accept(self, event)
        if isinstance(event, ev.GameTimeUp):  # the hand in play is the game's last
            self.time_up = self.time_up or not self.ended
            return []
        trigger = TRIGGERS.get(type(event))
        if trigger is None:
            return [self._alert(event, "turn", f"{type(event).__name__} is not a game input")]
        if trigger not in UNSEATED and event.seat not in range(4):
            return [self._alert(event, "turn", f"{type(event).__name__} names no seat 0..3")]
        name, who = type(event).__name__, letter(event.seat)
        if self.state in WINDOWS and trigger not in ("claim", "close_window", "touch"):
            # RULES.md 3.6: the next player's reach for the wall ends the calls (the konger's
            # replacement draw after an added kong); any other input is refused meanwhile.
            if trigger != "draw" or event.seat != self.next_to_draw():
                message = f"{name} from {who} while calls on the latest tile are still open"
                self._refusal = Refusal("claim", message)
            else:
                self.trigger("close_window", event=ev.ClaimWindowClosed(event.t, None))
        if self._refusal is None and self.trigger(trigger, event=event):
            self.out_of_step = self.out_of_step and trigger not in MOVES
            self.follow_hung()
        else:
            self._out += self._refused(event)
            self.out_of_step = self.out_of_step or trigger in MOVES
        return self._out

    def _refused(self, event: ev.Event) -> list[ev.Event]:
        """The alert for a refused input: the offence's, when the rule book names one."""
        refusal = self._refusal or Refusal(
            "turn",
            f"{type(event).__name__} from {letter(event.seat)} is not allowed now "
            f"({self.state.replace('_', ' ')})",
        )
        if refusal.offence and event.seat is not None:
            return self.referee.offence(
                event.t,
                event.seat,
                refusal.offence,
                refusal.message,
                self.rules.refs.get(refusal.situation, ""),
                self.hands[event.seat],
                refusal.named,
            )
        return [self._alert(event, refusal.situation, refusal.message, refusal.needs_ruling)]

    def _referee_input(self, event: ev.Event) -> list[ev.Event]:
        """Pause and resume the clocks, rule on a proposed penalty or revoke one, report an
        offence, keep a wrong dealer or a wrong break."""
        if isinstance(event, ev.Ruling):
            if event.alert in self.referee.rescorings:
                return self.winning.rescore(event)
            return self.referee.rule(event, self.hands)
        if isinstance(event, ev.PenaltyRevoked):
            return self.referee.revoke(event)
        if isinstance(event, ev.WaiveUndone):
            return self.referee.undo_waive(event)
        if isinstance(event, ev.DealerKept):
            return self.dealing.keep_dealer(event, self.ended, self.state)
        if isinstance(event, ev.BreakMade):
            return self.dealing.break_made(event, self.state)
        if isinstance(event, ev.ViolationReported):
            if event.seat is None or event.seat not in range(4):
                return [self._alert(event, "turn", "a reported offence names a seat 0..3")]
            if self.ended and not reports.of_the_win(self.referee, event, bool(self.results)):
                return reports.hold(self.referee, event)  # between hands (engine/reports.py)
            wall = self.wall
            drawing = wall is not None and event.seat == self.live_drawer()
            return reports.report(
                self.referee,
                event,
                self.hands[event.seat],
                wall.tile_at(wall.next_draw_position) if wall is not None and drawing else None,
                lambda tile: wall is not None and wall.position_of(tile) is not None,
            )
        paused = isinstance(event, ev.ClocksPaused)
        if self.clocks.pause(event.t) if paused else self.clocks.resume(event.t):
            return []
        already = "paused" if paused else "running"
        return [self._alert(event, "turn", f"the clocks are already {already}")]

    def _touch(self, event: ev.WallTouched) -> Refusal | None:
        return self.touches.check(event, self.state == "claim_window")

    # -- what the hand's readers ask (moves.py, the simulated players, the display) ------

    @property
    def ended(self) -> bool:
        return self.state in ENDED

    def live_drawer(self) -> int | None:
        """Who takes the next tile from the live wall, once it is his to take, or None."""
        if self.state == "claim_window":
            return self.after_discarder
        return self.turn if self.state == "draw" else None

    def next_to_draw(self) -> int | None:
        """Who draws next when the calls close: the live drawer, or after an added kong the
        konger his replacement."""
        if self.state == "rob_window" and self.added_kong is not None:
            return self.added_kong[0]
        return self.live_drawer()

    def owes_replacement(self, seat: int) -> bool:
        """The seat must draw a kong's or a flower's replacement before anything else."""
        return self.state == "discard" and bool(self.owes[seat])

    def in_turn(self, seat: int) -> bool:
        """The seat may discard now (or kong, or win on his own draw)."""
        return self.state == "discard" and self.holds_turn(seat)

    def score_for(
        self, winner: int, from_seat: int | None, tile: int, robbing: bool = False
    ) -> Score:
        """The score the win would get now: the simulator's check of a player's claim."""
        return self.winning.score_for(winner, from_seat, tile, robbing)

    def would_win(
        self, winner: int, from_seat: int | None, tile: int, robbing: bool = False
    ) -> bool:
        """The win scores and is allowed now: what a simulated player asks before he calls."""
        return self.winning.would_win(winner, from_seat, tile, robbing)

    def outcome(self, proposed: WinResult | None = None) -> HandOutcome:
        """The hand, frozen, as the session's rule book settles it."""
        return self.winning.outcome(proposed)

    def check_invariants(self) -> list[str]:
        """What is physically impossible in the hand now (engine/invariants.py)."""
        return invariants.problems(self)

    # -- helpers -------------------------------------------------------------------------

    def _end_drawn(self, event: ev.Event) -> list[ev.Event]:
        return [ev.ExhaustiveDraw(event.t, None)]

    def _alert(
        self, event: ev.Event, situation: str, message: str, needs_ruling: bool = False
    ) -> ev.Alert:
        return self.referee.alert(
            event.t, event.seat, self.rules.refs.get(situation, ""), message, needs_ruling
        )
