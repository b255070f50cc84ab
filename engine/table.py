"""One hand as a state machine: dice, deal, turns, calls, kongs, flowers, a win or a draw.

Built with `transitions` (auto_transitions off: nothing can jump to a state by name). The
states and triggers are the game's own words; the guards check each input against the rule
book. An input that breaks a rule yields an Alert naming the rule and changes nothing.
Seats are the winds of this hand: 0..3 = E S W N, East deals. Tiles are physical ids.
"""

from transitions import Machine

from engine import events as ev
from engine import tiles
from engine.calls import Call, Calls, ExposedMeld
from engine.calls import seat_name as _seat
from engine.clocks import UNTIMED, Clocks
from engine.referee import Referee
from engine.rulesets import Ruleset
from engine.wall import Wall, table_break, wsom_break
from engine.winning import Winning, WinResult

STATES = [
    "dice",
    "second_roll",
    "draw",
    "discard",
    "claim_window",
    "rob_window",
    "won",
    "exhausted",
]
TRIGGERS = {
    ev.DiceRolled: "roll_dice",
    ev.TileDrawn: "draw",
    ev.TileDiscarded: "discard",
    ev.ClaimDeclared: "claim",
    ev.ClaimWindowClosed: "close_window",
    ev.KongDeclared: "kong",
    ev.FlowerExposed: "flower",
    ev.WinDeclared: "win",
}
TRANSITIONS = [
    ("roll_dice", "dice", "second_roll", ["dice_ok", "needs_second_roll"], "keep_first_roll"),
    ("roll_dice", "dice", "discard", "dice_ok", "break_and_deal"),
    ("roll_dice", "second_roll", "discard", "second_roll_ok", "break_and_deal"),
    ("draw", "draw", "discard", "live_draw_ok", "take_live"),
    ("draw", "discard", "exhausted", ["replacement_ok", "wall_spent"], "end_drawn"),
    ("draw", "discard", "discard", "replacement_ok", "take_replacement"),
    ("discard", "discard", "claim_window", "discard_ok", "lay_discard"),
    ("discard", "draw", None, "discard_before_draw", None),
    ("claim", ["claim_window", "rob_window"], None, "claim_ok", "record_claim"),
    ("claim", ["draw", "discard"], None, "call_after_window", None),
    ("close_window", ["claim_window", "rob_window"], "won", "has_winners", "settle_wins"),
    ("close_window", "claim_window", "discard", "has_granted_call", "expose_call"),
    ("close_window", "claim_window", "exhausted", "wall_spent", "end_drawn"),
    ("close_window", "claim_window", "draw", None, "pass_turn"),
    ("close_window", "rob_window", "discard", None, "complete_added_kong"),
    ("kong", "discard", "rob_window", ["kong_ok", "is_added_kong"], "offer_added_kong"),
    ("kong", "discard", "discard", "kong_ok", "make_concealed_kong"),
    ("flower", "discard", "discard", "flower_ok", "expose_flower"),
    ("win", "discard", "won", "self_draw_win_ok", "settle_wins"),
]


class Table(Calls, Winning):
    """One hand under one rule book. Feed inputs to `apply`; it returns the outputs.

    Calls, kongs and flowers are in engine/calls.py, declared wins in engine/winning.py."""

    def __init__(
        self,
        ruleset: Ruleset,
        walls: list[list[int]],
        hand_number: int = 0,
        t: float = 0.0,
        chips: list[int] | None = None,
        doubling: bool = False,
        last_deal: bool = False,
    ):
        self.ruleset, self.rules = ruleset, ruleset.table_rules
        self.walls = walls
        self.wall: Wall | None = None
        self.hands: list[list[int]] = [[] for _ in range(4)]
        self.melds: list[list[ExposedMeld]] = [[] for _ in range(4)]
        self.flowers: list[list[int]] = [[] for _ in range(4)]
        self.rivers: list[list[int]] = [[] for _ in range(4)]  # discards still lying there
        self.discards: list[tuple[int, int]] = []  # every discard, in order
        self.turn = 0
        self.owes = [0, 0, 0, 0]  # replacements due
        self.owed_for = [""] * 4  # why: "kong" or "flower"
        self.calls: dict[int, Call] = {}  # calls on the open window, by seat
        self.added_kong: tuple[int, int] | None = None  # (seat, tile) open to robbing
        self.first_dice: tuple[int, ...] = ()
        self.calls_made = False  # any call or kong yet (A-W9)
        self.last_draw = "deal"  # deal, live, kong, flower, claim
        self.seabed_drawn = False  # the last live tile has been drawn
        self.results: list[WinResult] = []
        # What the settlement needs beyond the wins (CCM 4.10, 4.12): kongs (seat, kind,
        # feeder), flower kongs (seat), calls (claimer, feeder, kinds).
        self.kongs: list[tuple[int, str, int | None]] = []
        self.flower_kongs: list[int] = []
        self.claims_log: list[tuple[int, int, tuple[int, ...]]] = []
        self.chips = chips  # seat order; None where the rule book has none
        self.doubling = doubling  # CCM 倍打: a winning dealer goes on (A-C13)
        self.last_deal = last_deal  # CCM: the game's scheduled end if the deal passes
        self.discard_times: list[float] = []
        self.clocks = Clocks(self.rules.timing or UNTIMED)
        self.referee = Referee(self.rules.penalties, self.rules.forfeit_threshold)
        self._now = t
        self._out: list[ev.Event] = []
        self._refusal: ev.Alert | None = None
        self.machine = Machine(
            model=self,
            states=STATES,
            initial="dice",
            auto_transitions=False,
            send_event=True,
            ignore_invalid_triggers=True,
        )
        for trigger, source, dest, conditions, after in TRANSITIONS:
            self.machine.add_transition(
                trigger, source, dest, conditions=conditions or [], after=after
            )

    # -- the one entry point ------------------------------------------------------------

    def apply(self, event: ev.Event) -> list[ev.Event]:
        """Apply one input; return what happened (outputs in order, Alerts for refusals)."""
        self._out, self._refusal, self._now = [], None, event.t
        if isinstance(event, (ev.ClocksPaused, ev.ClocksResumed, ev.Ruling, ev.ViolationReported)):
            return self._referee_input(event)
        trigger = TRIGGERS.get(type(event))
        if trigger is None:
            return [self._alert(event, "turn", f"{type(event).__name__} is not a game input")]
        if self.state in ("claim_window", "rob_window") and trigger not in (
            "claim",
            "close_window",
        ):
            # RULES.md 3.6: the next player's reach for the wall ends the calls (the konger's
            # replacement draw after an added kong); any other input is refused meanwhile.
            if trigger != "draw" or event.seat != self._next_to_draw():
                return [
                    self._alert(
                        event,
                        "claim",
                        f"{type(event).__name__} from "
                        f"{_seat(event.seat)} while calls on the latest tile are "
                        "still open",
                    )
                ]
            self.trigger("close_window", event=ev.ClaimWindowClosed(event.t, None))
        if not self.trigger(trigger, event=event):
            if self._refusal is None:
                self._refuse(
                    event,
                    "turn",
                    f"{type(event).__name__} from "
                    f"{_seat(event.seat)} is not allowed now "
                    f"({self.state.replace('_', ' ')})",
                )
            situation, message, needs_ruling, offence, named = self._refusal
            if offence and event.seat is not None:
                self._out += self.referee.offence(
                    event.t,
                    event.seat,
                    offence,
                    message,
                    self.rules.refs.get(situation, ""),
                    self.hands[event.seat],
                    named,
                )
            else:
                self._out.append(self._alert(event, situation, message, needs_ruling))
        return self._out

    def _referee_input(self, event) -> list[ev.Event]:
        """Pause and resume the clocks, rule on a proposed penalty, or report an offence."""
        if isinstance(event, ev.Ruling):
            return self.referee.rule(event)
        if isinstance(event, ev.ViolationReported):
            if event.seat not in range(4):
                return [self._alert(event, "turn", "a reported offence names a seat 0..3")]
            return self.referee.offence(
                event.t,
                event.seat,
                event.offence,
                f"{_seat(event.seat)}: {event.offence.replace('_', ' ')} (reported by the referee)",
                hand=self.hands[event.seat],
            )
        done = (
            self.clocks.pause(event.t)
            if isinstance(event, ev.ClocksPaused)
            else self.clocks.resume(event.t)
        )
        return (
            []
            if done
            else [
                self._alert(
                    event,
                    "turn",
                    "the clocks are already "
                    + ("paused" if isinstance(event, ev.ClocksPaused) else "running"),
                )
            ]
        )

    def _next_to_draw(self) -> int:
        if self.state == "rob_window":
            return self.added_kong[0]
        return (self.discarder + 1) % 4

    @property
    def ended(self) -> bool:
        return self.state in ("won", "exhausted")

    # -- helpers -------------------------------------------------------------------------

    def _alert(self, event, situation: str, message: str, needs_ruling=False) -> ev.Alert:
        return self.referee.alert(
            self._now,
            event.seat if event is not None else None,
            self.rules.refs.get(situation, ""),
            message,
            needs_ruling,
        )

    def _refuse(
        self, event, situation: str, message: str, needs_ruling=False, offence: str = "", named=()
    ) -> bool:
        """Refuse the input: an alert naming the rule, and the offence's penalty if any."""
        self._refusal = (situation, message, needs_ruling, offence, tuple(named))
        return False

    def _emit(self, event: ev.Event) -> None:
        self._out.append(event)

    def check_invariants(self) -> list[str]:
        """What is physically impossible: a tile in two places or none, a wrong hand size.

        The simulator checks these after every input; a real table reports them to the
        referee as contradictions of tracking.
        """
        if self.wall is None:
            return []
        problems = []
        places = [t for side in self.wall.remaining() for t in side if t is not None]
        for seat in range(4):
            places += self.hands[seat] + self.flowers[seat] + self.rivers[seat]
            places += [t for m in self.melds[seat] for t in m.tiles]
        expected = 4 * tiles.KINDS + (tiles.FLOWER_KINDS if self.rules.flowers else 0)
        if len(places) != expected or len(set(places)) != expected:
            problems.append(f"{len(places)} tiles in {len(set(places))} places, not {expected}")
        if not self.ended:
            for seat in range(4):
                active = seat == self.turn and self.state in ("discard", "rob_window")
                size = len(self.hands[seat]) + 3 * len(self.melds[seat])
                if size != 13 + active - self.owes[seat]:
                    problems.append(f"{_seat(seat)} holds {size} tiles counting kongs as 3")
        return problems

    @property
    def discarder(self) -> int:
        return self.discards[-1][0]

    # -- dice, break and deal ------------------------------------------------------------

    def dice_ok(self, e) -> bool:
        event = e.kwargs["event"]
        if event.seat != 0:
            return self._refuse(event, "dice", "East rolls the dice")
        if len(event.dice) != 2 or not all(1 <= d <= 6 for d in event.dice):
            return self._refuse(event, "dice", f"a roll is two dice 1..6, not {event.dice}")
        return True

    def needs_second_roll(self, e) -> bool:
        return self.rules.two_roll_break

    def keep_first_roll(self, e) -> None:
        self.first_dice = e.kwargs["event"].dice

    def second_roll_ok(self, e) -> bool:
        event = e.kwargs["event"]
        breaker = wsom_break(sum(self.first_dice), 2).seat
        if event.seat != breaker:
            return self._refuse(
                event,
                "dice",
                f"the second roll is {_seat(breaker)}'s, who was counted by East's roll",
            )
        if len(event.dice) != 2 or not all(1 <= d <= 6 for d in event.dice):
            return self._refuse(event, "dice", f"a roll is two dice 1..6, not {event.dice}")
        return True

    def break_and_deal(self, e) -> None:
        dice = e.kwargs["event"].dice
        if self.rules.two_roll_break:
            brk, dice = wsom_break(sum(self.first_dice), sum(dice)), self.first_dice + dice
        else:
            brk = table_break(sum(dice), 0, self.rules.start_offset)
        self.wall = Wall(self.walls, brk, self.rules.dead_wall)
        self.hands = self.wall.deal(0)
        self._emit(ev.WallBroken(self._now, brk.seat, brk.stacks, dice))
        self._emit(ev.Dealt(self._now, None, tuple(tuple(h) for h in self.hands)))
        self.turn = 0
        self.clocks.deal(self._now)

    # -- drawing -------------------------------------------------------------------------

    def live_draw_ok(self, e) -> bool:
        event = e.kwargs["event"]
        if event.seat != self.turn:
            return self._refuse(
                event,
                "turn",
                f"{_seat(event.seat)} drew out of turn: it is {_seat(self.turn)}'s draw",
                offence="early_draw",
            )
        return self._expected_tile(event, self.wall.next_draw_position)

    def _expected_tile(self, event, position) -> bool:
        expected = self.wall.tile_at(position)
        if event.tile is not None and event.tile != expected:
            return self._refuse(
                event,
                "wall",
                f"{_seat(event.seat)} took tile {event.tile} "
                f"but the next tile is {expected} at {position}: drawn from "
                "the wrong place",
                needs_ruling=True,
            )
        return True

    def take_live(self, e) -> None:
        tile = self.wall.draw()
        self.hands[self.turn].append(tile)
        self.last_draw = "live"
        self.seabed_drawn = self.wall.live_count == 0
        self._emit(ev.Drew(self._now, self.turn, tile, False))

    def replacement_ok(self, e) -> bool:
        event = e.kwargs["event"]
        if not self.owes[event.seat]:
            if event.seat == self.turn:
                return self._refuse(
                    event,
                    "turn",
                    f"{_seat(event.seat)} drew again before discarding: too many tiles (大相公)",
                    offence="wrong_count_high",
                )
            return self._refuse(
                event,
                "turn",
                f"{_seat(event.seat)} drew out of turn: it is {_seat(self.turn)}'s turn to discard",
                offence="early_draw",
            )
        return self._expected_tile(event, self.wall.next_replacement_position)

    def wall_spent(self, e) -> bool:
        return self.wall.live_count == 0

    def take_replacement(self, e) -> None:
        seat = e.kwargs["event"].seat
        tile = self.wall.draw_replacement()
        self.hands[seat].append(tile)
        self.owes[seat] -= 1
        self.last_draw = self.owed_for[seat]
        self.seabed_drawn = self.wall.live_count == 0
        if self.last_draw == "kong":
            self.clocks.start(seat, self._now)  # a kong's replacement: a new turn
        elif not self.discards and seat == 0:
            self.clocks.start(0, self._now, first=True)  # the deal ends with the flowers
        self._emit(ev.Drew(self._now, seat, tile, True))

    # -- discarding and calls ------------------------------------------------------------

    def discard_ok(self, e) -> bool:
        event = e.kwargs["event"]
        if event.seat != self.turn:
            return self._refuse(
                event,
                "turn",
                f"{_seat(event.seat)} discarded out of turn: "
                f"it is {_seat(self.turn)}'s turn: too few tiles (小相公)",
                offence="wrong_count_low",
            )
        if event.tile not in self.hands[event.seat]:
            return self._refuse(
                event,
                "turn",
                f"tile {event.tile} is not in {_seat(event.seat)}'s hand",
                needs_ruling=True,
            )
        if self.owes[event.seat]:
            return self._refuse(
                event,
                self.owed_for[event.seat],
                f"{_seat(event.seat)} must draw a replacement before discarding",
            )
        if tiles.is_flower(tiles.kind_of(event.tile)):
            return self._refuse(
                event,
                "flower",
                "a flower is never discarded: expose it and "
                "draw a replacement (discarding it makes a dead hand)",
                needs_ruling=True,
                offence="flower_discarded",
            )
        if not self.referee.may_discard(event.seat, event.tile):
            return self._refuse(
                event,
                "penalty_tile",
                "a dead penalty tile may never be discarded",
                offence="penalty_tile_discard",
            )
        if self.referee.mechanical[event.seat] and event.tile != self.hands[event.seat][-1]:
            return self._refuse(
                event,
                "turn",
                f"{_seat(event.seat)} plays mechanically: he discards the tile he drew",
            )
        if any(tiles.is_flower(tiles.kind_of(t)) for t in self.hands[event.seat]):
            return self._refuse(
                event,
                "flower",
                f"{_seat(event.seat)} holds a flower: it is "
                "exposed and replaced at once, before the discard",
            )
        if not self.discards and (
            any(self.owes) or any(tiles.is_flower(tiles.kind_of(t)) for h in self.hands for t in h)
        ):
            return self._refuse(
                event, "flower", "flowers are replaced, East first, before East's first discard"
            )
        return True

    def lay_discard(self, e) -> None:
        event = e.kwargs["event"]
        self.hands[event.seat].remove(event.tile)
        self.rivers[event.seat].append(event.tile)
        self.discards.append((event.seat, event.tile))
        self.discard_times.append(self._now)
        self.referee.discarded(event.seat, event.tile)
        self.calls = {}
        self._emit(ev.Discarded(self._now, event.seat, event.tile))
        for over in self.clocks.discard(event.seat, self._now):
            name = "overtime_discard" if over.limit == "discard" else "overtime_hand"
            limit = (
                self.clocks.turn_limit(event.seat)
                if over.limit == "discard"
                else self.rules.timing.hand_limit
            )
            blocks = (
                ""
                if over.blocks == 1
                else f" ({over.blocks} started {self.rules.timing.block:g}-s blocks)"
            )
            self._out += self.referee.offence(
                self._now,
                event.seat,
                name,
                f"{_seat(event.seat)} ran {over.seconds:.1f} s "
                f"over the {limit:g}-s {over.limit} limit{blocks}",
                blocks=over.blocks,
            )

    def discard_before_draw(self, e) -> bool:
        event = e.kwargs["event"]
        if event.seat == self.turn:
            return self._refuse(
                event,
                "turn",
                f"{_seat(event.seat)} discarded before drawing: too few tiles (小相公)",
                offence="wrong_count_low",
            )
        return self._refuse(
            event,
            "turn",
            f"{_seat(event.seat)} discarded out of turn: too few tiles (小相公)",
            offence="wrong_count_low",
        )

    def pass_turn(self, e) -> None:
        self.turn = (self.discarder + 1) % 4
        self.clocks.start(self.turn, self.discard_times[-1])
        self.calls = {}

    def end_drawn(self, e) -> None:
        self._emit(ev.ExhaustiveDraw(self._now, None))
