"""The simulated table: two tagged tile sets, the machine, the readers and four players.

Everything the service would meet at a real table, and nothing more: the players press
buttons and move tagged tiles between the zones above the antennas; the machine answers the
shuffler's pins; the zone reader and the stacker reader speak the serial protocol on ptys.
The players decide with their own copy of the hand (the truth: `self.truth`; how they play it
is firmware/sim/script.py), as people at a table know what they did; the service must work it out
from the sensors. Every true movement of the hand in play is recorded (the next hand starts
afresh), so a run can say hand by hand how much of it the tracking got right.

Time is table time, advanced by `tick(dt)`; the people's pace is a generator that yields the
seconds until their next action. Faults are injected on request (`faults`): reads dropped or
ghosted by the zone reader, a jammed lane, a lost tile, a foreign tile, an unplugged reader,
a slow player, a rigged machine (drivers/sim/mechanism.py's ProgramChip).
"""

import copy
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Protocol

from drivers.sim.clock import SimClock
from drivers.sim.mechanism import ProgramChip, Rigging, SimMechanism
from engine import tiles
from engine.seats import AREAS, zone
from engine.session import Session
from engine.table import Table
from firmware.sim.players import SimPlayer
from firmware.sim.script import SimHand

# Every zone, area by area (all walls first, not engine.seats.ZONES's side by side): the
# simulated table's order of looking for a tile, kept so that a seed plays the same game.
ZONES = [zone(area, side) for area in AREAS for side in range(4)]


@dataclass
class Faults:
    """What to break, from `--faults drop=0.05,ghost=0.01,jam=1,lost=1,foreign=1,unplug=1,
    slow=S,moved=1,wrong_break=1,rigged=S:medium`: rates per read for drop and ghost, how many
    times for the others, a side for slow; `moved`: a player lifts a tile off the table while
    a power cut has the table off, and puts it back when the referee's list shows it (issue
    14); `wrong_break`: East takes the deal two stacks past the dice's break and the others
    follow him (seed 000 開錯門, issue 30); `rigged`: the machine's walls favour a side (issue
    17)."""

    drop: float = 0.0
    ghost: float = 0.0
    jam: int = 0
    lost: int = 0
    foreign: int = 0
    unplug: int = 0
    slow: str = ""
    moved: int = 0
    wrong_break: int = 0
    rigged: Rigging | None = None
    injected: dict = field(default_factory=dict)

    def count(self, name: str) -> None:
        self.injected[name] = self.injected.get(name, 0) + 1


class Panel(Protocol):
    """What the players and the technician see and press besides the tiles: the lamps of the
    machine and the display, and the buttons. The service provides it."""

    def walls_ready(self) -> bool: ...
    def hand_over(self) -> bool: ...
    def machine_fault(self) -> object | None: ...
    def readers_online(self) -> bool: ...
    def retry(self) -> None: ...
    def press(self, side: int, button: str) -> None: ...
    def dice(self, side: int, values: tuple[int, int]) -> None: ...
    def session(self) -> Session: ...
    def void(self, reason: str) -> None: ...
    def interrupted(self) -> list[int] | None: ...
    def halted(self) -> bool: ...
    def resume_play(self) -> None: ...
    def out_of_step(self) -> bool: ...
    def accept_table(self) -> None: ...


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
        self.zones: dict[str, list[bytes]] = {name: [] for name in ZONES}
        self.stacked: dict[int, bytes] = {}
        self.mechanism = SimMechanism(gpio, pins, self.per_lane, self._stacked)
        self.chip = (
            ProgramChip(faults.rigged, ruleset.table_rules, random.Random(f"rig-{seed}"))
            if faults.rigged
            else None
        )
        self.forced: dict[str, list[tuple[int, int]]] = {}  # each set's dice the chip forces
        self.rolls: list[tuple[int, int]] = []  # the hand in play's, still to be thrown
        self.pins, self.gpio = pins, gpio
        self.next_sweep = self.next_heartbeat = 0.0
        # the hand's number, its true movements ((tile, from, to) -> times) and those made once
        # it was over (a call taken back after a win): real, if not the hand's
        self.true_moves: tuple[int, Counter, Counter] = (0, Counter(), Counter())
        self.hands_lifted = 0
        self.in_play = "B"  # so that the first set raised is A
        self.cycle_faults: list[str | None] = []  # machine faults, one per cycle to come
        self.play_faults: list[str] = []  # play faults, one per hand to come
        self.repair: str | None = None  # the fault the technician will put right
        self.truth: Table  # the hand being played, as the players know it (from the first deal)
        self.lanes: list[list[int]] = []  # the tile ids of the walls on the table, per lane
        self._lifted = False
        self._plan_faults()
        self.off_table: tuple[bytes, str] | None = None  # a tile lifted during a power cut
        self._scripts = [self._play(), self._technician(), self._referee()]
        self._wake = [0.0, 0.0, 0.0]

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
        for reader in (self.zone_reader, self.stacker_reader):
            reader.mark()  # the end of this tick's frames, for the simulation's lockstep

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
            self.zones[zone("wall", lane)] = [
                self.stacked[p]
                for p in range(lane * self.per_lane, (lane + 1) * self.per_lane)
                if p in self.stacked
            ]
        self.lanes = [
            [self.tile_of[tag] for tag in self.zones[zone("wall", lane)]] for lane in range(4)
        ]
        self.in_play = "B" if self.in_play == "A" else "A"
        self.rolls = self.forced.pop(self.in_play, [])
        dealer = self.session.player_at(0)  # the next hand's East: the deal passes, or stays
        stays = {dealer} if self.ruleset.table_rules.dealer_repeats else set()
        self._load_bin("B" if self.in_play == "A" else "A", {(dealer + 1) % 4} | stays)

    def _load_bin(self, tile_set: str, dealers: set[int]) -> None:
        """The plate will stack `tile_set` in a random order, with this cycle's planned fault;
        a rigged machine's chip orders it for the hand `dealers` (the sides East may sit on)."""
        order = list(self.sets[tile_set])
        self.rng.shuffle(order)
        if self.chip:
            ids, rolls = self.chip.build([self.tile_of[tag] for tag in order], dealers)
            order = [self.tags[(tile_set, tile)] for tile in ids]
            self.forced[tile_set] = list(rolls or ())
            if rolls:
                self.faults.count("rigged")
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
        self.play_faults = (
            ["wrong_break"] * f.wrong_break + ["foreign"] * f.foreign + ["unplug"] * f.unplug
        )

    # -- the players ---------------------------------------------------------------------

    def _play(self):
        """The whole session as one script: it yields the seconds to wait before going on."""
        self._load_bin("A", {self.session.player_at(0)})
        while True:
            yield from self._raise_walls()
            yield from self._hand()
            yield 2.0
            while self.panel.halted():  # cut short after the last move: the referee first
                yield 0.5
            for name in ZONES:  # the players push the tiles into the centre
                self.zones[name] = []

    def _technician(self):
        """The venue's technician: when the machine reports a fault he comes over, puts
        right what was planned to go wrong, and presses retry once for that fault, then waits
        for the machine to take it: a button on the reader's board reaches the service a
        sweep or more later (later still on a busy machine), and a second press reaching it
        after the retry would be a call for the referee."""
        while True:
            fault = self.panel.machine_fault()
            if fault is not None:
                yield 4.0
                if self.repair == "jam":
                    self.mechanism.clear_jam()
                elif self.repair == "lost":
                    self.mechanism.return_tile()
                self.repair = None
                self.panel.retry()
                while self.panel.machine_fault() is fault:
                    yield 0.5
            yield 0.5

    def _referee(self):
        """After a power cut the referee checks the tiles the display lists against the
        hand: the player who lifted one puts it back; once none is listed, play goes on."""
        while True:
            listed = self.panel.interrupted()
            if listed is not None and self.off_table and self.tile_of[self.off_table[0]] in listed:
                tag, home = self.off_table
                self.zones[home].append(tag)
                self.off_table = None
            elif listed == [] and self.off_table is None:
                self.panel.resume_play()
                yield 1.0
            yield 0.5

    def roll(self) -> tuple[int, int]:
        """Two dice thrown: as they fall, or as a rigged machine's magnets make them fall."""
        if self.rolls:
            return self.rolls.pop(0)
        return (self.rng.randint(1, 6), self.rng.randint(1, 6))

    def move_off_table(self) -> None:
        """While the table is off, a player lifts a tile from his rack (the first he holds
        on the first side that has any): it is on no antenna until he puts it back."""
        self.faults.count("moved")
        for name in ZONES:
            if name.startswith("hand") and self.zones[name]:
                tag = sorted(self.zones[name])[0]
                self.zones[name].remove(tag)
                self.off_table = (tag, name)
                return

    def _raise_walls(self):
        """Press raise once the ready lamp is lit and the display shows the last hand over
        (its scores: who deals next); if the walls will not rise because the table thinks
        the last hand goes on, the referee is called and voids it."""
        waited = 0.0
        while True:
            if self.panel.walls_ready() and not self.panel.hand_over():
                waited += 0.5  # the table has not yet seen the hand's last move
            elif self.panel.walls_ready():
                self.session = scoreboard(self.panel.session())
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
        truth = self.truth = self.session.new_table(walls)
        fault = self.play_faults.pop(0) if self.play_faults else None
        yield from SimHand(self, truth, dealer_side).play(fault)
        self.session.record(truth)

    def move(self, tile_ids, target: str) -> None:
        """Players move these tiles to `target`; each move is recorded as the truth."""
        for tile in tile_ids:
            tag = self.tags[(self.in_play, tile)]
            source = next(z for z, held in self.zones.items() if tag in held)
            self.zones[source].remove(tag)
            self.zones[target].append(tag)
            number = self.session.hand_number
            if self.true_moves[0] != number:
                self.true_moves = (number, Counter(), Counter())
            _, during, after = self.true_moves
            (after if self.truth.ended else during)[tile, source, target] += 1


def scoreboard(session: Session) -> Session:
    """The table's session as the players read it off the screen, for the world to play the
    next hand on: its own copy of what a hand changes (dealer, scores, the game's counts),
    sharing what it only reads: the rule book, the sheet's rows (frozen) and the last table
    (its held reports). A deep copy of them at every hand copied the whole sheet again each
    hand and kept a second one alive (issue 32 item 4, `mjtable bench soak`)."""
    shared = (session.ruleset, session.last, *session.sheet)
    return copy.deepcopy(session, {id(thing): thing for thing in shared})
