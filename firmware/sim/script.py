"""The simulated players' play script: `next_move` says what comes next in a hand, for
`mjtable simulate` (straight against the engine, firmware/sim/simulate.py) and for the simulated
table (`SimHand`), so both play a hand by the same rules of order.

`SimHand` plays one hand at the simulated table as its four players do: the dice, the deal, the
turns and the calls, in tiles moved between zones and buttons pressed (firmware/sim/world.py is
the table around them: the tiles, the machine, the readers). The players decide with their own
copy of the hand (`truth`), as people at a table know what they did; their pace is the generator
`play`, which yields the seconds until the next action.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine import events as ev
from engine import tiles
from engine.seats import LETTERS, side_of, zone
from engine.table import Table
from engine.wall import dice_seat

if TYPE_CHECKING:
    from firmware.sim.world import SimTable

PACE = 1.2  # seconds between two moves at the table: a brisk human pace
CALL_DELAY = 0.8  # a caller lays out his tiles this long after the discard
REFEREE = 3.0  # seconds the referee takes to come and look at the table
PLAY_FAULTS = ("foreign", "unplug")  # the faults that come at a random turn of the play


@dataclass(frozen=True)
class Next:
    """What comes next in a hand: `what` is "roll" (the dice, by `seat`), "draw" (his turn's
    draw), "owed" (a replacement he owes), "flower" (`tile`, exposed by a player waiting to do so
    before the first discard), "turn" (his move: discard, kong, flower or win) or "calls" (the
    others' calls on `seat`'s discard, or on his added kong when `robbing`)."""

    what: str
    seat: int
    tile: int | None = None
    robbing: bool = False


def next_move(table: Table) -> Next:
    """What the players do next on `table`, as they take turns (RULES.md 3.5-3.7): an owed
    replacement first; before the first discard, a flower of another player before the turn's
    own move unless the player in turn has one himself."""
    state, turn = table.state, table.turn
    if state in ("dice", "second_roll"):
        return Next("roll", 0 if state == "dice" else dice_seat(sum(table.first_dice), 0))
    if state == "draw":
        return Next("draw", turn)
    if state == "discard":
        owing = next((s for s in range(4) if table.owes[s]), None)
        if owing is not None:
            return Next("owed", owing)
        if not table.discards and not flowers(table, turn):
            waiting = next((s for s in range(4) if s != turn and flowers(table, s)), None)
            if waiting is not None:
                return Next("flower", waiting, flowers(table, waiting)[0])
        return Next("turn", turn)
    kong = table.added_kong if state == "rob_window" else None
    return Next("calls", kong[0] if kong else table.discarder, robbing=kong is not None)


def flowers(table: Table, seat: int) -> list[int]:
    """The flowers in `seat`'s hand, in its order."""
    return [x for x in table.hands[seat] if tiles.is_flower(tiles.kind_of(x))]


def others(seat: int) -> tuple[int, ...]:
    """The other three seats in turn order after `seat`: the order of the calls."""
    return tuple((seat + k) % 4 for k in (1, 2, 3))


class SimHand:
    """One hand on `table`, dealt with East on `dealer_side`; `truth` is the players' copy."""

    def __init__(self, table: SimTable, truth: Table, dealer_side: int) -> None:
        self.table, self.truth, self.dealer_side = table, truth, dealer_side

    @property
    def t(self) -> float:
        return self.table.t

    def play(self, fault: str | None):
        """The dice, the deal, the turns, until a win or the wall runs out; `fault` (a play
        fault, or None) comes at a random turn."""
        truth = self.truth
        fault_turn = self.table.rng.randint(4, 20)
        yield PACE
        broken: list[ev.Event] = []
        while (move := next_move(truth)).what == "roll":
            roller = move.seat
            self.table.panel.press(self.side(roller), "dice")
            yield 0.5
            values = self.table.roll()
            self.table.panel.dice(self.side(roller), values)
            broken = self.apply(ev.DiceRolled(self.t, roller, values, "physical"))
            yield PACE
        if fault == "wrong_break":
            self._break_made(broken)
        for start in range(0, 16, 4):  # blocks of four, then the last tiles
            for seat in range(4):
                block = (
                    truth.hands[seat][start : start + 4] if start < 12 else truth.hands[seat][12:]
                )
                self.table.move(block, zone("hand", self.side(seat)))
                yield 0.6
        turns = 0
        while not truth.ended:
            if truth.state in ("draw", "discard"):  # calls on the last discard are made
                yield from self._halted()
            turns += 1
            if fault in PLAY_FAULTS and turns == fault_turn:
                yield from self._play_fault(fault)
            if self.table.panel.out_of_step():
                yield from self._referee()
            yield from self._step(truth)
        if self.table.panel.out_of_step():  # the table refused the hand's end: its win
            yield from self._referee()
            for result in truth.results:  # declared again
                self.table.panel.press(self.side(result.winner), "win")

    def _break_made(self, outputs: list[ev.Event]) -> None:
        """East begins the deal two stacks past the dice's break and the others follow him
        (seed 000 開錯門): the players' copy of the hand goes on from the break made, as the
        table's must once all four have their first four tiles."""
        self.table.faults.count("wrong_break")
        broken = next(o for o in outputs if isinstance(o, ev.WallBroken))
        ring = 4 * self.truth.rules.stacks_per_side
        self.apply(ev.BreakMade(self.t, broken.seat, (broken.stacks + 2) % ring))

    def _referee(self):
        """The display says the hand refused a move the players made: they wait for the
        referee, who comes over and accepts the table as it lies (issue 20)."""
        yield REFEREE
        self.table.panel.accept_table()
        yield PACE

    def _halted(self):
        """After a power cut each player finishes the move in his hands (and calls on the
        discard before the cut are made), then all wait, before the next draw or discard,
        until the referee has checked the table and resumed the clocks (issue 14)."""
        while self.table.panel.halted():
            yield 0.1  # the referee's resume is seen at once: a claim window goes on

    def side(self, seat: int) -> int:
        return side_of(seat, self.dealer_side)

    def apply(self, event) -> list:
        return self.truth.apply(event)

    def _step(self, truth):
        """The next thing that happens at the table (`next_move`), in tiles."""
        move = next_move(truth)
        if move.what in ("draw", "owed"):
            yield from self._draw(move.seat)
        elif move.what == "flower":
            yield from self._expose(move.seat, [move.tile])
        elif move.what == "turn":
            yield from self._own_turn(truth, move.seat)
        else:
            yield from self._calls(move.seat, move.robbing)

    def _draw(self, seat):
        out = self.apply(ev.TileDrawn(self.t, seat))
        drew = next((o for o in out if isinstance(o, ev.Drew)), None)
        if drew:
            self.table.move([drew.tile], zone("hand", self.side(seat)))
        yield PACE

    def _expose(self, seat, tile_ids):
        event = (
            ev.FlowerExposed(self.t, seat, tile_ids[0])
            if len(tile_ids) == 1 and tiles.is_flower(tiles.kind_of(tile_ids[0]))
            else ev.KongDeclared(self.t, seat, tuple(tile_ids))
        )
        self.table.move(tile_ids, zone("melds", self.side(seat)))
        self.apply(event)
        yield PACE

    def _own_turn(self, truth, seat):
        player = self.table.players[self.side(seat)]
        player.seat = seat
        move = player.turn(truth, self.t)
        if isinstance(move, ev.WinDeclared):
            self.table.panel.press(self.side(seat), "win")
            self.apply(ev.WinDeclared(self.t, seat))
            yield PACE
        elif isinstance(move, ev.FlowerExposed):
            yield from self._expose(seat, [move.tile])
        elif isinstance(move, ev.KongDeclared):
            yield from self._expose(seat, list(move.tiles))
        else:
            if self.table.faults.slow and LETTERS[self.side(seat)] == self.table.faults.slow:
                self.table.faults.count("slow")
                yield 20.0
            self.table.move([move.tile], zone("river", self.side(seat)))
            self.apply(ev.TileDiscarded(self.t, seat, move.tile))
            yield CALL_DELAY

    def _calls(self, source, robbing):
        """The others' calls on `source`'s discard (or on a tile he added to a kong)."""
        truth = self.truth
        callers: list[tuple[int, ev.ClaimDeclared]] = []  # (seat, call)
        for seat in others(source):
            player = self.table.players[self.side(seat)]
            player.seat = seat
            call = player.call(truth, self.t, robbing)
            if call:
                callers.append((seat, call))
        if not callers:
            if robbing:
                self.apply(ev.ClaimWindowClosed(self.t, None))
            else:
                yield PACE - CALL_DELAY
                yield from self._draw((source + 1) % 4)
            return
        for seat, call in callers:
            if call.claim == "win":
                self.table.panel.press(self.side(seat), "win")
            else:
                self.table.move(call.tiles, zone("melds", self.side(seat)))
            self.apply(call)
        yield self.table.claim_window + 0.3
        out = self.apply(ev.ClaimWindowClosed(self.t, None))
        granted = next((o for o in out if isinstance(o, ev.Claimed)), None)
        for seat, call in callers:
            if call.claim != "win" and (granted is None or granted.seat != seat):
                self.table.move(call.tiles, zone("hand", self.side(seat)))  # taken back
        if granted is not None and granted.seat is not None:
            yield 0.5
            self.table.move([granted.claimed_tile], zone("melds", self.side(granted.seat)))
        yield PACE

    def _play_fault(self, fault):
        """A foreign tile on a hand rack for a while, or the zone reader unplugged."""
        self.table.faults.count(fault)
        if fault == "foreign":
            rack = zone("hand", self.table.rng.randrange(4))
            stranger = bytes([0xE0, 0x04]) + self.table.rng.randbytes(6)
            self.table.zones[rack].append(stranger)
            yield 6.0
            self.table.zones[rack].remove(stranger)
        else:
            self.table.zone_reader.unplug()
            yield 3.0
            self.table.zone_reader.replug()
            while not self.table.panel.readers_online():
                yield 0.5
            yield PACE
