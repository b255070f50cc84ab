"""One hand as a state machine: dice, deal, turns, calls, kongs, flowers, a win or a draw.

Built with `transitions` (auto_transitions off: nothing can jump to a state by name). The
states and triggers are the game's own words; the guards check each input against the rule
book. An input that breaks a rule yields an Alert naming the rule and changes nothing.
Seats are the winds of this hand: 0..3 = E S W N, East deals. Tiles are physical ids.
"""

from dataclasses import dataclass
from typing import NamedTuple

from transitions import Machine

from engine import events as ev
from engine import tiles
from engine.claims import Call, check_call, nearest_first
from engine.clocks import UNTIMED, Clocks
from engine.hand import CHOW, KONG, PUNG, Meld, counts, waits
from engine.referee import Referee
from engine.rulesets import Ruleset
from engine.rulesets.wsom2006.payments import responsible_seat
from engine.scoring import Score, Win, WinError, check
from engine.wall import Wall, table_break, wsom_break

STATES = ["dice", "second_roll", "draw", "discard", "claim_window", "rob_window", "won",
          "exhausted"]
TRIGGERS = {ev.DiceRolled: "roll_dice", ev.TileDrawn: "draw", ev.TileDiscarded: "discard",
            ev.ClaimDeclared: "claim", ev.ClaimWindowClosed: "close_window",
            ev.KongDeclared: "kong", ev.FlowerExposed: "flower", ev.WinDeclared: "win"}
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


class WinResult(NamedTuple):
    winner: int
    from_seat: int | None
    score: dict                   # the ruleset's Score.to_json()
    tile: int
    robbed: bool = False          # the tile was robbed from an added kong


@dataclass(frozen=True)
class ExposedMeld:
    kind: str                     # chow, pung, kong
    tiles: tuple[int, ...]        # physical ids, the claimed one included
    concealed: bool = False       # a concealed kong
    claimed: int | None = None    # the tile taken from another seat
    from_seat: int | None = None

    def as_meld(self) -> Meld:
        return Meld(self.kind, tuple(tiles.kind_of(t) for t in self.tiles), self.concealed)


class Table:
    """One hand under one rule book. Feed inputs to `apply`; it returns the outputs."""

    def __init__(self, ruleset: Ruleset, walls: list[list[int]], hand_number: int = 0,
                 t: float = 0.0, chips: list[int] | None = None):
        self.ruleset, self.rules = ruleset, ruleset.table_rules
        self.walls = walls
        self.wall: Wall | None = None
        self.hands: list[list[int]] = [[] for _ in range(4)]
        self.melds: list[list[ExposedMeld]] = [[] for _ in range(4)]
        self.flowers: list[list[int]] = [[] for _ in range(4)]
        self.rivers: list[list[int]] = [[] for _ in range(4)]   # discards still lying there
        self.discards: list[tuple[int, int]] = []               # every discard, in order
        self.turn = 0
        self.owes = [0, 0, 0, 0]          # replacements due
        self.owed_for = [""] * 4          # why: "kong" or "flower"
        self.calls: dict[int, Call] = {}  # calls on the open window, by seat
        self.added_kong: tuple[int, int] | None = None        # (seat, tile) open to robbing
        self.first_dice: tuple[int, ...] = ()
        self.calls_made = False           # any call or kong yet (A-W9)
        self.last_draw = "deal"           # deal, live, kong, flower, claim
        self.seabed_drawn = False         # the last live tile has been drawn
        self.results: list[WinResult] = []
        # What the settlement needs beyond the wins (CCM 4.10, 4.12): kongs (seat, kind,
        # feeder), flower kongs (seat), calls (claimer, feeder, kinds).
        self.kongs: list[tuple[int, str, int | None]] = []
        self.flower_kongs: list[int] = []
        self.claims_log: list[tuple[int, int, tuple[int, ...]]] = []
        self.chips = chips                # seat order; None where the rule book has none
        self.discard_times: list[float] = []
        self.clocks = Clocks(self.rules.timing or UNTIMED)
        self.referee = Referee(self.rules.penalties, self.rules.forfeit_threshold)
        self._now = t
        self._out: list[ev.Event] = []
        self._refusal: ev.Alert | None = None
        self.machine = Machine(model=self, states=STATES, initial="dice",
                               auto_transitions=False, send_event=True,
                               ignore_invalid_triggers=True)
        for trigger, source, dest, conditions, after in TRANSITIONS:
            self.machine.add_transition(trigger, source, dest, conditions=conditions or [],
                                        after=after)

    # -- the one entry point ------------------------------------------------------------

    def apply(self, event: ev.Event) -> list[ev.Event]:
        """Apply one input; return what happened (outputs in order, Alerts for refusals)."""
        self._out, self._refusal, self._now = [], None, event.t
        if isinstance(event, (ev.ClocksPaused, ev.ClocksResumed, ev.Ruling,
                              ev.ViolationReported)):
            return self._referee_input(event)
        trigger = TRIGGERS.get(type(event))
        if trigger is None:
            return [self._alert(event, "turn", f"{type(event).__name__} is not a game input")]
        if self.state in ("claim_window", "rob_window") and trigger not in ("claim",
                                                                           "close_window"):
            # RULES.md 3.6: the next player's reach for the wall ends the calls (the konger's
            # replacement draw after an added kong); any other input is refused meanwhile.
            if trigger != "draw" or event.seat != self._next_to_draw():
                return [self._alert(event, "claim", f"{type(event).__name__} from "
                                    f"{_seat(event.seat)} while calls on the latest tile are "
                                    "still open")]
            self.trigger("close_window", event=ev.ClaimWindowClosed(event.t, None))
        if not self.trigger(trigger, event=event):
            if self._refusal is None:
                self._refuse(event, "turn", f"{type(event).__name__} from "
                             f"{_seat(event.seat)} is not allowed now "
                             f"({self.state.replace('_', ' ')})")
            situation, message, needs_ruling, offence, named = self._refusal
            if offence and event.seat is not None:
                self._out += self.referee.offence(
                    event.t, event.seat, offence, message, self.rules.refs.get(situation, ""),
                    self.hands[event.seat], named)
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
            return self.referee.offence(event.t, event.seat, event.offence,
                                        f"{_seat(event.seat)}: {event.offence.replace('_', ' ')}"
                                        " (reported by the referee)",
                                        hand=self.hands[event.seat])
        done = self.clocks.pause(event.t) if isinstance(event, ev.ClocksPaused) else \
            self.clocks.resume(event.t)
        return [] if done else [self._alert(event, "turn", "the clocks are already "
                                            + ("paused" if isinstance(event, ev.ClocksPaused)
                                               else "running"))]

    def _next_to_draw(self) -> int:
        if self.state == "rob_window":
            return self.added_kong[0]
        return (self.discarder + 1) % 4

    @property
    def ended(self) -> bool:
        return self.state in ("won", "exhausted")

    # -- helpers -------------------------------------------------------------------------

    def _alert(self, event, situation: str, message: str, needs_ruling=False) -> ev.Alert:
        return self.referee.alert(self._now, event.seat if event is not None else None,
                                  self.rules.refs.get(situation, ""), message, needs_ruling)

    def _refuse(self, event, situation: str, message: str, needs_ruling=False,
                offence: str = "", named=()) -> bool:
        """Refuse the input: an alert naming the rule, and the offence's penalty if any."""
        self._refusal = (situation, message, needs_ruling, offence, tuple(named))
        return False

    def _emit(self, event: ev.Event) -> None:
        self._out.append(event)

    def kinds(self, seat: int) -> list[int]:
        return [tiles.kind_of(t) for t in self.hands[seat]]

    def hand_size(self, seat: int) -> int:
        """Concealed tiles plus 3 per meld (a kong counts as 3), flowers excluded."""
        return (sum(not tiles.is_flower(tiles.kind_of(t)) for t in self.hands[seat])
                + 3 * len(self.melds[seat]))

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
            return self._refuse(event, "dice", f"the second roll is {_seat(breaker)}'s, who "
                                "was counted by East's roll")
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
            return self._refuse(event, "turn", f"{_seat(event.seat)} drew out of turn: it is "
                                f"{_seat(self.turn)}'s draw", offence="early_draw")
        return self._expected_tile(event, self.wall.next_draw_position)

    def _expected_tile(self, event, position) -> bool:
        expected = self.wall.tile_at(position)
        if event.tile is not None and event.tile != expected:
            return self._refuse(event, "wall", f"{_seat(event.seat)} took tile {event.tile} "
                                f"but the next tile is {expected} at {position}: drawn from "
                                "the wrong place", needs_ruling=True)
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
                return self._refuse(event, "turn", f"{_seat(event.seat)} drew again before "
                                    "discarding: too many tiles (大相公)",
                                    offence="wrong_count_high")
            return self._refuse(event, "turn", f"{_seat(event.seat)} drew out of turn: it is "
                                f"{_seat(self.turn)}'s turn to discard", offence="early_draw")
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
            self.clocks.start(seat, self._now)          # a kong's replacement: a new turn
        elif not self.discards and seat == 0:
            self.clocks.start(0, self._now, first=True)  # the deal ends with the flowers
        self._emit(ev.Drew(self._now, seat, tile, True))

    # -- discarding and calls ------------------------------------------------------------

    def discard_ok(self, e) -> bool:
        event = e.kwargs["event"]
        if event.seat != self.turn:
            return self._refuse(event, "turn", f"{_seat(event.seat)} discarded out of turn: "
                                f"it is {_seat(self.turn)}'s turn: too few tiles (小相公)",
                                offence="wrong_count_low")
        if event.tile not in self.hands[event.seat]:
            return self._refuse(event, "turn", f"tile {event.tile} is not in "
                                f"{_seat(event.seat)}'s hand", needs_ruling=True)
        if self.owes[event.seat]:
            return self._refuse(event, self.owed_for[event.seat], f"{_seat(event.seat)} must "
                                "draw a replacement before discarding")
        if tiles.is_flower(tiles.kind_of(event.tile)):
            return self._refuse(event, "flower", "a flower is never discarded: expose it and "
                                "draw a replacement (discarding it makes a dead hand)",
                                needs_ruling=True, offence="flower_discarded")
        if not self.referee.may_discard(event.seat, event.tile):
            return self._refuse(event, "penalty_tile", "a dead penalty tile may never be "
                                "discarded", offence="penalty_tile_discard")
        if self.referee.mechanical[event.seat] and event.tile != self.hands[event.seat][-1]:
            return self._refuse(event, "turn", f"{_seat(event.seat)} plays mechanically: he "
                                "discards the tile he drew")
        if any(tiles.is_flower(tiles.kind_of(t)) for t in self.hands[event.seat]):
            return self._refuse(event, "flower", f"{_seat(event.seat)} holds a flower: it is "
                                "exposed and replaced at once, before the discard")
        if not self.discards and (any(self.owes) or any(
                tiles.is_flower(tiles.kind_of(t)) for h in self.hands for t in h)):
            return self._refuse(event, "flower", "flowers are replaced, East first, before "
                                "East's first discard")
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
            limit = self.clocks.turn_limit(event.seat) if over.limit == "discard" else \
                self.rules.timing.hand_limit
            blocks = "" if over.blocks == 1 else \
                f" ({over.blocks} started {self.rules.timing.block:g}-s blocks)"
            self._out += self.referee.offence(
                self._now, event.seat, name, f"{_seat(event.seat)} ran {over.seconds:.1f} s "
                f"over the {limit:g}-s {over.limit} limit{blocks}", blocks=over.blocks)

    def discard_before_draw(self, e) -> bool:
        event = e.kwargs["event"]
        if event.seat == self.turn:
            return self._refuse(event, "turn", f"{_seat(event.seat)} discarded before drawing: "
                                "too few tiles (小相公)", offence="wrong_count_low")
        return self._refuse(event, "turn", f"{_seat(event.seat)} discarded out of turn: too "
                            "few tiles (小相公)", offence="wrong_count_low")

    def call_after_window(self, e) -> bool:
        event = e.kwargs["event"]
        return self._refuse(event, "claim", f"{_seat(event.seat)} called {event.claim} after "
                            "the calls on that tile were over", offence="late_call")

    def claim_ok(self, e) -> bool:
        event = e.kwargs["event"]
        if self.state == "rob_window":
            konger, tile = self.added_kong
            if event.claim != "win":
                return self._refuse(event, "kong", "only a win may be called on a tile added "
                                    "to a kong (robbing the kong)")
            return self._win_call_ok(event, konger, tile, robbing=True)
        seat, tile = self.discards[-1]
        if event.claim == "win":
            return self._win_call_ok(event, seat, tile, robbing=False)
        if self.referee.no_calls[event.seat]:
            return self._refuse(event, "claim", f"{_seat(event.seat)} has lost the right to "
                                "call this hand")
        if self.wall.live_count == 0:
            return self._refuse(event, "last_tile", "the last discard may only be won on")
        problem = check_call(event, seat, tile, self.hands[event.seat], self.rules.chow_allowed)
        if problem:
            situation, offence, message = problem
            return self._refuse(event, situation, message, True, offence, event.tiles)
        if self.referee.in_call(event.seat, event.tiles):
            return self._refuse(event, "penalty_tile", "a penalty tile may not go into a "
                                "called set", True, "wrong_call", event.tiles)
        if event.claim in (PUNG, KONG) and self.clocks.call_is_late(self.discard_times[-1],
                                                                    event.t):
            return self._refuse(event, "claim", f"{_seat(event.seat)} called {event.claim} "
                                f"more than {self.rules.timing.call_limit:g} s after the "
                                "discard (延時碰牌)", offence="late_pung")
        return True

    def _win_call_ok(self, event, from_seat: int, tile: int, robbing: bool) -> bool:
        if event.seat == from_seat:
            return self._refuse(event, "claim", "a player cannot call his own tile")
        if self.chips is not None and self.rules.block_win_from_chipless and \
                self.chips[from_seat] <= 0:
            return self._refuse(event, "chips", f"no win on the tile of {_seat(from_seat)}, "
                                "who has no chips left")
        barred = self.referee.bars_discard_win(event.seat, self.hands[event.seat], tile)
        return self._win_ok(event, self.score_for(event.seat, from_seat, tile, robbing),
                            tile, barred)

    def _win_ok(self, event, score, tile: int, barred: str = "") -> bool:
        """A declared win stands if it scores, the winner may still win, no penalty tile
        bars it; otherwise it is a false win (錯和 / 詐和)."""
        seat = event.seat
        if self.referee.no_win[seat]:
            return self._refuse(event, "win", f"{_seat(seat)} has lost the right to win "
                                "this hand")
        if barred:
            return self._refuse(event, "penalty_tile", f"{_seat(seat)} may not win on this "
                                f"tile: {barred}", True, "wrong_call")
        if score.legal:
            return True
        return self._refuse(event, "win", f"false win by {_seat(seat)}: {score.reason}", True,
                            self._false_win_kind(seat, tile))

    def _false_win_kind(self, seat: int, tile: int) -> str:
        """錯和: the tiles make a winning shape that breaks a condition (no pattern, no fan);
        詐和: one tile short or the wrong tile; two or more short: intentional (A-C19)."""
        held = list(self.hands[seat])
        if tile in held:
            held.remove(tile)
        hand_waits = waits(counts(tiles.kind_of(t) for t in held
                                  if not tiles.is_flower(tiles.kind_of(t))),
                           len(self.melds[seat]))
        if tiles.kind_of(tile) in hand_waits:
            return "false_win"
        if hand_waits or not self.rules.penalties or \
                "intentional_false_win" not in self.rules.penalties.offences:
            return "incomplete_win"
        return "intentional_false_win"

    def record_claim(self, e) -> None:
        event = e.kwargs["event"]
        self.calls[event.seat] = Call(event.seat, event.claim, event.tiles)

    def has_winners(self, e) -> bool:
        return any(c.claim == "win" for c in self.calls.values())

    def has_granted_call(self, e) -> bool:
        return any(c.claim in (PUNG, KONG, CHOW) for c in self.calls.values())

    def expose_call(self, e) -> None:
        calls = sorted(self.calls.values(), key=lambda c: c.claim == CHOW)   # pung/kong first
        call = calls[0]
        seat, tile = self.discards[-1]
        self.rivers[seat].remove(tile)
        for t in call.tiles:
            self.hands[call.seat].remove(t)
        meld = ExposedMeld(call.claim, tuple(sorted(call.tiles + (tile,))), False, tile, seat)
        self.melds[call.seat].append(meld)
        self.turn, self.calls_made, self.last_draw = call.seat, True, "claim"
        self.clocks.start(call.seat, self.discard_times[-1])
        self._emit(ev.Claimed(self._now, call.seat, call.claim, meld.tiles, tile, seat))
        self.claims_log.append((call.seat, seat, tuple(tiles.kind_of(t) for t in meld.tiles)))
        if call.claim == KONG:
            self.kongs.append((call.seat, "melded", seat))
            self._owe(call.seat, "kong")
            self._emit(ev.Konged(self._now, call.seat, "melded", meld.tiles))
        self.calls = {}

    def pass_turn(self, e) -> None:
        self.turn = (self.discarder + 1) % 4
        self.clocks.start(self.turn, self.discard_times[-1])
        self.calls = {}

    def end_drawn(self, e) -> None:
        self._emit(ev.ExhaustiveDraw(self._now, None))

    # -- kongs and flowers -----------------------------------------------------------------

    def kong_ok(self, e) -> bool:
        event = e.kwargs["event"]
        seat = event.seat
        if seat != self.turn or self.owes[seat]:
            return self._refuse(event, "turn", f"{_seat(seat)} may kong only on his own turn, "
                                "after drawing")
        if self.referee.no_calls[seat]:
            return self._refuse(event, "kong", f"{_seat(seat)} has lost the right to kong "
                                "this hand")
        if self.last_draw == "claim":
            return self._refuse(event, "kong", "no kong right after a chow or pung: discard "
                                "first")
        if self.wall.live_count == 0 and not self.rules.kong_after_last_tile:
            return self._refuse(event, "last_tile", "no kong after drawing the last tile",
                                offence="kong_after_last_tile")
        if not set(event.tiles) <= set(self.hands[seat]) or len(set(event.tiles)) != len(
                event.tiles):
            return self._refuse(event, "kong", f"{_seat(seat)} declared a kong with tiles he "
                                "does not hold (空槓)", True, "empty_kong")
        kinds = {tiles.kind_of(t) for t in event.tiles}
        if len(kinds) != 1 or tiles.is_flower(next(iter(kinds))):
            return self._refuse(event, "kong", "a kong is four of one kind")
        if len(event.tiles) == 4:
            return True
        if len(event.tiles) == 1 and any(m.kind == PUNG and tiles.kind_of(m.tiles[0]) in kinds
                                         for m in self.melds[seat]):
            return True
        return self._refuse(event, "kong", "a kong is four concealed tiles, or one tile added "
                            "to one's own exposed pung")

    def is_added_kong(self, e) -> bool:
        return len(e.kwargs["event"].tiles) == 1

    def offer_added_kong(self, e) -> None:
        event = e.kwargs["event"]
        self.added_kong = (event.seat, event.tiles[0])
        self.calls = {}

    def complete_added_kong(self, e) -> None:
        seat, tile = self.added_kong
        kind = tiles.kind_of(tile)
        index = next(i for i, m in enumerate(self.melds[seat])
                     if m.kind == PUNG and tiles.kind_of(m.tiles[0]) == kind)
        old = self.melds[seat][index]
        self.hands[seat].remove(tile)
        self.melds[seat][index] = ExposedMeld(KONG, tuple(sorted(old.tiles + (tile,))), False,
                                              old.claimed, old.from_seat)
        self.added_kong, self.calls_made = None, True
        self.kongs.append((seat, "added", None))
        self._owe(seat, "kong")
        self._emit(ev.Konged(self._now, seat, "added", self.melds[seat][index].tiles))

    def make_concealed_kong(self, e) -> None:
        event = e.kwargs["event"]
        for t in event.tiles:
            self.hands[event.seat].remove(t)
        self.melds[event.seat].append(ExposedMeld(KONG, tuple(sorted(event.tiles)), True))
        self.referee.konged(event.seat, event.tiles)
        self.kongs.append((event.seat, "concealed", None))
        self._owe(event.seat, "kong")
        self.calls_made = True
        self._emit(ev.Konged(self._now, event.seat, "concealed", tuple(sorted(event.tiles))))

    def flower_ok(self, e) -> bool:
        event = e.kwargs["event"]
        if not self.rules.flowers:
            return self._refuse(event, "flower", "this rule book has no flowers")
        if event.tile not in self.hands[event.seat] or not tiles.is_flower(
                tiles.kind_of(event.tile)):
            return self._refuse(event, "flower", f"{_seat(event.seat)} has no flower {event.tile}"
                                " in hand", needs_ruling=True)
        if event.seat != self.turn and self.discards:
            return self._refuse(event, "flower", "a flower is exposed on one's own turn")
        if not self.discards:
            earlier = next((s for s in range(event.seat) if self.owes[s] or any(
                tiles.is_flower(tiles.kind_of(t)) for t in self.hands[s])), None)
            if earlier is not None:
                return self._refuse(event, "flower", f"opening flowers are replaced East "
                                    f"first, then S, W, N: {_seat(earlier)} goes before "
                                    f"{_seat(event.seat)}")
        return True

    def _owe(self, seat: int, why: str) -> None:
        """A kong or flower is replaced from the tail before the player may discard."""
        self.owes[seat] += 1
        self.owed_for[seat] = why

    def expose_flower(self, e) -> None:
        event = e.kwargs["event"]
        self.hands[event.seat].remove(event.tile)
        self.flowers[event.seat].append(event.tile)
        kinds = {tiles.kind_of(t) - tiles.KINDS for t in self.flowers[event.seat]}
        group = (tiles.kind_of(event.tile) - tiles.KINDS) // 4
        if {4 * group + i for i in range(4)} <= kinds:
            self.flower_kongs.append(event.seat)       # 花槓: all four of one group (A-C3)
        self._owe(event.seat, "flower")
        self._emit(ev.FlowerReplaced(self._now, event.seat, event.tile))

    # -- winning ---------------------------------------------------------------------------

    def self_draw_win_ok(self, e) -> bool:
        event = e.kwargs["event"]
        if event.seat != self.turn or self.owes[event.seat] or self.last_draw == "claim":
            return self._refuse(event, "turn", f"{_seat(event.seat)} may declare a self-drawn "
                                "win only on his own turn, after drawing")
        tile = self.hands[event.seat][-1]
        return self._win_ok(event, self.score_for(event.seat, None, tile, False), tile=tile)

    def settle_wins(self, e) -> None:
        if e.event.name == "win":
            seat = e.kwargs["event"].seat
            winners = [(seat, None, self.hands[seat][-1], False)]
        elif self.added_kong:
            konger, tile = self.added_kong
            winners = [(s, konger, tile, True) for s in self._winning_seats(konger)]
        else:
            seat, tile = self.discards[-1]
            winners = [(s, seat, tile, False) for s in self._winning_seats(seat)]
        for winner, from_seat, tile, robbing in winners:
            responsible, proposed = self._responsible(winner, from_seat, tile, robbing)
            if proposed != responsible:
                self._emit(self._alert(None, "exemption", "follow-tile exemption (跟張免責): "
                           f"{_seat(proposed)} rather than {_seat(responsible)} would pay for "
                           f"{_seat(winner)}'s win if the discarder claims it", True))
            score = self.score_for(winner, from_seat, tile, robbing)
            self.results.append(WinResult(winner, from_seat, score.to_json(), tile, robbing))
            self._emit(ev.Won(self._now, winner, from_seat, tile,
                              tuple(sorted(self._flags(winner, from_seat, robbing))),
                              score.to_json()))

    def _winning_seats(self, from_seat: int) -> list[int]:
        """RULES.md 3.7: one winner, the nearest after the discarder (截和); CCM (4.11): all,
        in counter-clockwise order from the discarder."""
        seats = nearest_first([s for s, c in self.calls.items() if c.claim == "win"], from_seat)
        return seats if self.rules.multiple_winners else seats[:1]

    def _flags(self, winner: int, from_seat: int | None, robbing: bool) -> set[str]:
        situations = set()
        if from_seat is None:
            if self.seabed_drawn:
                situations.add("last_tile_draw")
            if self.last_draw in ("kong", "flower"):
                situations.add(f"{self.last_draw}_replacement")
            if winner == 0 and not self.discards and not (
                    self.calls_made and self.rules.heaven_cancelled_by_kong):
                situations.add("heaven")
        else:
            if robbing:
                situations.add("robbing_kong")
            elif self.wall.live_count == 0:
                situations.add("last_tile_discard")
            if (len(self.discards) == 1 and from_seat == 0 and not robbing
                    and not (self.calls_made and self.rules.earth_cancelled_by_call)):
                situations.add("earth")
        return {self.rules.win_flags[s] for s in situations if s in self.rules.win_flags}

    def score_for(self, winner: int, from_seat: int | None, tile: int, robbing: bool = False):
        """The score a win would get now: the check behind every win call (and a dry run
        for simulated players)."""
        held = list(self.hands[winner])
        if from_seat is None:
            held.remove(tile)
        if any(tiles.is_flower(tiles.kind_of(t)) for t in held + [tile]):
            return Score(False, reason="a flower in hand: flowers are exposed and replaced "
                                       "before a win (RULES.md 4.5)")
        responsible = self._responsible(winner, from_seat, tile, robbing)[0]
        win = Win(tuple(tiles.kind_of(t) for t in held),
                  tuple(m.as_meld() for m in self.melds[winner]), tiles.kind_of(tile),
                  from_seat is None, winner, from_seat, responsible,
                  frozenset(self._flags(winner, from_seat, robbing)),
                  tuple(tiles.kind_of(t) for t in self.flowers[winner]))
        try:
            check(win)
        except WinError as err:          # the hand cannot be a win: wrong count, 5 alike
            return Score(False, reason=str(err))
        return self.ruleset.score(win)

    def _responsible(self, winner: int, from_seat: int | None, tile: int,
                     robbing: bool) -> tuple[int | None, int | None]:
        """(who pays for a discard win, who would under the follow-tile exemption).

        A-W3: the table proposes the exemption; it applies only if the option says so."""
        if from_seat is None or self.rules.auto_exemption is None:
            return from_seat, from_seat
        history = self.discards if not robbing else self.discards + [(from_seat, tile)]
        proposed = responsible_seat(
            history, winner, robbing, self.rules.exemption_window_includes_winner_discard,
            self.rules.exemption_on_robbed_kong)
        return (proposed if self.rules.auto_exemption else from_seat), proposed


def _seat(seat) -> str:
    return "ESWN"[seat] if isinstance(seat, int) and 0 <= seat < 4 else "nobody"
