"""The simulated table: two tagged tile sets, the machine, the readers and four players.

Everything the service would meet at a real table, and nothing more: the players press
buttons and move tagged tiles between the zones above the antennas; the machine answers the
shuffler's pins; the zone reader and the stacker reader speak the serial protocol on ptys.
The players decide with their own copy of the hand (the truth: `self.truth`), as people at a
table know what they did; the service must work it out from the sensors. Every true movement
is recorded, so a run can say how much of it the tracking got right.

Time is table time, advanced by `tick(dt)`; the players' pace is a generator that yields the
seconds until their next action. Faults are injected on request (`faults`): reads dropped or
ghosted by the zone reader, a jammed lane, a lost tile, a foreign tile, an unplugged reader,
a slow player.
"""

import copy
import random
from dataclasses import dataclass, field
from typing import Protocol

from drivers.sim.mechanism import SimMechanism
from drivers.sim.players import SimPlayer
from engine import events as ev
from engine import tiles
from engine.session import Session
from engine.wall import dice_seat

SIDES = "ESWN"
ZONES = [f"{kind}_{side}" for kind in ("wall", "hand", "river", "melds") for side in SIDES]
PACE = 1.2  # seconds between two moves at the table: a brisk human pace
CALL_DELAY = 0.8  # a caller lays out his tiles this long after the discard


@dataclass
class Faults:
    """What to break, from `--faults drop=0.05,ghost=0.01,jam=1,lost=1,foreign=1,unplug=1,
    slow=S`: rates per read for drop and ghost, how many times for the others, a side for slow."""

    drop: float = 0.0
    ghost: float = 0.0
    jam: int = 0
    lost: int = 0
    foreign: int = 0
    unplug: int = 0
    slow: str = ""
    injected: dict = field(default_factory=dict)

    def count(self, name: str) -> None:
        self.injected[name] = self.injected.get(name, 0) + 1


class Panel(Protocol):
    """What the players and the technician see and press besides the tiles: the lamps of the
    machine and the display, and the buttons. The service provides it."""

    def walls_ready(self) -> bool: ...
    def machine_fault(self) -> bool: ...
    def readers_online(self) -> bool: ...
    def retry(self) -> None: ...
    def press(self, side: int, button: str) -> None: ...
    def dice(self, side: int, values: tuple[int, int]) -> None: ...
    def session(self) -> Session: ...
    def void(self, reason: str) -> None: ...


class SimClock:
    """Table time: the simulated table advances it; the service and the drivers read it."""

    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


class SimTable:
    """The table's physical world. `tags` maps (set, tile id) -> tag for both sets."""

    def __init__(
        self,
        ruleset,
        tags: dict[tuple[str, int], bytes],
        gpio,
        pins,
        zone_reader,
        stacker_reader,
        antennas: dict[int, str],
        panel: Panel,
        seed: int,
        faults: Faults,
        sweep_seconds: float,
        claim_window: float,
        clock: SimClock,
    ):
        self.clock = clock
        self.ruleset, self.tags, self.panel, self.faults = ruleset, tags, panel, faults
        self.tile_of = {tag: tile for (_, tile), tag in tags.items()}
        self.zone_reader, self.stacker_reader = zone_reader, stacker_reader
        self.antennas = antennas
        self.sweep_seconds, self.claim_window = sweep_seconds, claim_window
        self.rng = random.Random(f"table-{seed}")
        self.read_rng = random.Random(f"reads-{seed}")
        self.players = [SimPlayer(p, random.Random(f"player-{seed}-{p}")) for p in range(4)]
        self.session = Session(ruleset)
        flowers = ruleset.table_rules.flowers
        self.per_lane = len(tiles.physical_set(flowers)) // 4
        self.sets = {
            name: [tags[(name, t)] for t in tiles.physical_set(flowers)] for name in ("A", "B")
        }
        self.zones: dict[str, list[bytes]] = {zone: [] for zone in ZONES}
        self.stacked: dict[int, bytes] = {}
        self.mechanism = SimMechanism(gpio, pins, self.per_lane, self._stacked)
        self.pins, self.gpio = pins, gpio
        self.next_sweep = self.next_heartbeat = 0.0
        self.true_moves: list[tuple[int, float, int, str, str]] = []  # hand, t, tile, from, to
        self.hands_lifted = 0
        self.truth = None
        self.dealer_side = 0
        self._lifted = False
        self._plan_faults()
        self._scripts = [self._play(), self._technician()]
        self._wake = [0.0, 0.0]

    # -- the clock -----------------------------------------------------------------------

    @property
    def t(self) -> float:
        return self.clock.t

    def tick(self, dt: float) -> None:
        """Advance table time by dt: the machine moves, the players act, the reader sweeps."""
        self.clock.t += dt
        self.mechanism.step(self.t)
        lifted = bool(self.gpio.input(self.pins.lift_top))
        if lifted and not self._lifted:
            self.hands_lifted += 1
            self._walls_up()
        self._lifted = lifted
        for n, script in enumerate(self._scripts):
            while self.t >= self._wake[n]:
                self._wake[n] = self.t + next(script)
        if self.t >= self.next_heartbeat:  # the stacker says it is alive when idle
            self.next_heartbeat = self.t + 0.5
            self.stacker_reader.heartbeat()
        if self.t >= self.next_sweep:
            self.next_sweep = self.t + self.sweep_seconds
            seen = {antenna: list(self.zones[zone]) for antenna, zone in self.antennas.items()}
            for name, n in self.zone_reader.sweep(
                seen, self.read_rng, self.faults.drop, self.faults.ghost
            ).items():
                self.faults.injected[name] = self.faults.injected.get(name, 0) + n
            self.zone_reader.heartbeat()  # marks the sweep's end for flow control

    # -- the machine ---------------------------------------------------------------------

    def _stacked(self, position: int, tag: bytes) -> None:
        if position == 0:
            self.stacked = {}
        self.stacked[position] = tag
        self.stacker_reader.stacked(position, tag)

    def _walls_up(self) -> None:
        """The lift raised the stacked set: its lanes are now the four walls on the table,
        and the other set, pushed into the centre, goes round the machine."""
        for lane in range(4):
            self.zones[f"wall_{SIDES[lane]}"] = [
                self.stacked[p]
                for p in range(lane * self.per_lane, (lane + 1) * self.per_lane)
                if p in self.stacked
            ]
        self.lanes = [
            [self.tile_of[tag] for tag in self.zones[f"wall_{SIDES[lane]}"]] for lane in range(4)
        ]
        self.in_play = "B" if self.in_play == "A" else "A"
        self._load_bin("B" if self.in_play == "A" else "A")

    def _load_bin(self, tile_set: str) -> None:
        """The plate will stack `tile_set` in a random order, with this cycle's planned fault."""
        order = list(self.sets[tile_set])
        self.rng.shuffle(order)
        fault = self.cycle_faults.pop(0) if self.cycle_faults else None
        if fault == "jam":
            self.mechanism.jam(self.rng.randrange(4), self.rng.randint(3, self.per_lane - 3))
        elif fault == "lost":
            self.mechanism.lose_tile(self.rng.randrange(4))
        if fault:
            self.faults.count(fault)
            self.repair = fault
        self.mechanism.load(tile_set, order)

    def _plan_faults(self) -> None:
        """Machine faults in the cycles after the first; play faults in the first hands."""
        f = self.faults
        self.cycle_faults = [None] + ["jam"] * f.jam + ["lost"] * f.lost
        self.play_faults = ["foreign"] * f.foreign + ["unplug"] * f.unplug
        self.repair = None
        self.in_play = "B"  # so that the first set raised is A

    # -- the players ---------------------------------------------------------------------

    def _play(self):
        """The whole session as one script: it yields the seconds to wait before going on."""
        self._load_bin("A")
        while True:
            yield from self._raise_walls()
            yield from self._hand()
            yield 2.0
            for zone in ZONES:  # the players push the tiles into the centre
                self.zones[zone] = []

    def _technician(self):
        """The venue's technician: when the machine reports a fault he comes over, puts
        right what was planned to go wrong, and presses retry."""
        while True:
            if self.panel.machine_fault():
                yield 4.0
                if self.repair == "jam":
                    self.mechanism.clear_jam()
                elif self.repair == "lost":
                    self.mechanism.return_tile()
                self.repair = None
                self.panel.retry()
            yield 0.5

    def _raise_walls(self):
        """Press raise once the ready lamp is lit; if the walls will not rise because the
        table thinks the last hand goes on, the referee is called and voids it."""
        waited = 0.0
        while True:
            if self.panel.walls_ready():
                self.session = copy.deepcopy(self.panel.session())  # the scoreboard
                lifted = self.hands_lifted
                self.panel.press(self.session.player_at(0), "dice")
                for _ in range(20):
                    if self.hands_lifted != lifted:
                        return
                    yield 0.5
                waited += 10.0
                if waited >= 20.0:
                    self.panel.void("the players pushed the tiles in: the hand was over")
                    waited = 0.0
            yield 0.5

    def _hand(self):
        """One hand: the dice, the deal, the turns, until a win or the wall runs out."""
        dealer_side = self.session.player_at(0)
        walls = [self.lanes[(dealer_side + seat) % 4] for seat in range(4)]
        truth = self.truth = self.session.new_table(walls, self.t)
        self.dealer_side = dealer_side
        fault = self.play_faults.pop(0) if self.play_faults else None
        fault_turn = self.rng.randint(4, 20)
        yield PACE
        while truth.state in ("dice", "second_roll"):
            roller = 0 if truth.state == "dice" else dice_seat(sum(truth.first_dice), 0)
            self.panel.press(self.side(roller), "dice")
            yield 0.5
            values = (self.rng.randint(1, 6), self.rng.randint(1, 6))
            self.panel.dice(self.side(roller), values)
            self.apply(ev.DiceRolled(self.t, roller, values, "physical"))
            yield PACE
        for start in range(0, 16, 4):  # blocks of four, then the last tiles
            for seat in range(4):
                block = (
                    truth.hands[seat][start : start + 4] if start < 12 else truth.hands[seat][12:]
                )
                self.move(block, f"hand_{SIDES[self.side(seat)]}")
                yield 0.6
        turns = 0
        while not truth.ended:
            turns += 1
            if fault and turns == fault_turn:
                yield from self._play_fault(fault)
            yield from self._step(truth)
        self.session.record(truth)

    def side(self, seat: int) -> int:
        return (seat + self.dealer_side) % 4

    def apply(self, event) -> list:
        return self.truth.apply(event)

    def move(self, tile_ids, target: str) -> None:
        """Players move these tiles to `target`; each move is recorded as the truth."""
        for tile in tile_ids:
            tag = self.tags[(self.in_play, tile)]
            source = next(z for z, held in self.zones.items() if tag in held)
            self.zones[source].remove(tag)
            self.zones[target].append(tag)
            if not self.truth.ended:  # afterwards the tiles only go back to the machine
                self.true_moves.append((self.session.hand_number, self.t, tile, source, target))

    def _step(self, truth):
        """The next thing that happens at the table, as simulate.Game does it, in tiles."""
        state, turn = truth.state, truth.turn
        if state == "draw":
            yield from self._draw(turn)
        elif state == "discard":
            owing = next((s for s in range(4) if truth.owes[s]), None)
            waiting = (
                None
                if truth.discards
                else next((s for s in range(4) if s != turn and self._flowers(s)), None)
            )
            if owing is not None:
                yield from self._draw(owing)
            elif waiting is not None and not self._flowers(turn):
                yield from self._expose(waiting, self._flowers(waiting)[:1])
            else:
                yield from self._own_turn(truth, turn)
        else:
            yield from self._calls(truth)

    def _flowers(self, seat):
        return [x for x in self.truth.hands[seat] if tiles.is_flower(tiles.kind_of(x))]

    def _draw(self, seat):
        out = self.apply(ev.TileDrawn(self.t, seat))
        drew = next((o for o in out if isinstance(o, ev.Drew)), None)
        if drew:
            self.move([drew.tile], f"hand_{SIDES[self.side(seat)]}")
        yield PACE

    def _expose(self, seat, tile_ids):
        event = (
            ev.FlowerExposed(self.t, seat, tile_ids[0])
            if len(tile_ids) == 1 and tiles.is_flower(tiles.kind_of(tile_ids[0]))
            else ev.KongDeclared(self.t, seat, tuple(tile_ids))
        )
        self.move(tile_ids, f"melds_{SIDES[self.side(seat)]}")
        self.apply(event)
        yield PACE

    def _own_turn(self, truth, seat):
        player = self.players[self.side(seat)]
        player.seat = seat
        move = player.turn(truth, self.t)
        if isinstance(move, ev.WinDeclared):
            self.panel.press(self.side(seat), "win")
            self.apply(ev.WinDeclared(self.t, seat))
            yield PACE
        elif isinstance(move, ev.FlowerExposed):
            yield from self._expose(seat, [move.tile])
        elif isinstance(move, ev.KongDeclared):
            yield from self._expose(seat, list(move.tiles))
        else:
            if self.faults.slow and SIDES[self.side(seat)] == self.faults.slow:
                self.faults.count("slow")
                yield 20.0
            self.move([move.tile], f"river_{SIDES[self.side(seat)]}")
            self.apply(ev.TileDiscarded(self.t, seat, move.tile))
            yield CALL_DELAY

    def _calls(self, truth):
        """The others' calls on the discard (or on a tile added to a kong)."""
        robbing = truth.state == "rob_window"
        source = truth.added_kong[0] if robbing else truth.discarder
        callers = []
        for k in (1, 2, 3):
            seat = (source + k) % 4
            player = self.players[self.side(seat)]
            player.seat = seat
            call = player.call(truth, self.t, robbing)
            if call:
                callers.append(call)
        if not callers:
            if robbing:
                self.apply(ev.ClaimWindowClosed(self.t, None))
            else:
                yield PACE - CALL_DELAY
                yield from self._draw((source + 1) % 4)
            return
        for call in callers:
            if call.claim == "win":
                self.panel.press(self.side(call.seat), "win")
            else:
                self.move(call.tiles, f"melds_{SIDES[self.side(call.seat)]}")
            self.apply(call)
        yield self.claim_window + 0.3
        out = self.apply(ev.ClaimWindowClosed(self.t, None))
        granted = next((o for o in out if isinstance(o, ev.Claimed)), None)
        for call in callers:
            if call.claim != "win" and (granted is None or granted.seat != call.seat):
                self.move(call.tiles, f"hand_{SIDES[self.side(call.seat)]}")  # taken back
        if granted:
            yield 0.5
            self.move([granted.claimed_tile], f"melds_{SIDES[self.side(granted.seat)]}")
        yield PACE

    def _play_fault(self, fault):
        """A foreign tile on a hand rack for a while, or the zone reader unplugged."""
        self.faults.count(fault)
        if fault == "foreign":
            zone = f"hand_{SIDES[self.rng.randrange(4)]}"
            stranger = bytes([0xE0, 0x04]) + self.rng.randbytes(6)
            self.zones[zone].append(stranger)
            yield 6.0
            self.zones[zone].remove(stranger)
        else:
            self.zone_reader.unplug()
            yield 3.0
            self.zone_reader.replug()
            while not self.panel.readers_online():
                yield 0.5
            yield PACE
