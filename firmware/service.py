"""The table's service: device records -> tile tracking -> the hand's engine -> journal, console
and display.

One asyncio loop and one actor. Every record a device makes (a reader frame, a button, the
shuffler, the dice) is stamped where it was seen and put on one queue; a single task takes
them in order and does what they mean, so the engine sees one input at a time and every
input is journaled (committed) before it is applied (DESIGN.md). Timers (the shuffler's
timeouts, the claim window) are polled by a ticker on the same loop.
"""

import asyncio
import logging
from dataclasses import dataclass

from drivers import readers
from drivers.buttons import ButtonPress, Buttons
from drivers.dice import DiceError, ElectronicDice, PhysicalDice
from drivers.shuffler import (
    FaultCleared,
    Shuffler,
    ShufflerFault,
    ShufflerRefused,
    ShufflerStep,
    WallsRaised,
    WallsReady,
)
from engine import events as ev
from engine import tiles
from engine.moves import SIDES, Interpreter, Irregular
from engine.session import Session
from engine.tracking import Move, Tracker, TrackingAlert
from firmware.console import describe

log = logging.getLogger("mjtable.service")
STACKER_WAIT = 5.0  # seconds the stacker's last frames may trail the machine
TICK = 0.05  # seconds of table time between two polls of the timers


@dataclass(frozen=True)
class DiceReport:
    """The dice sensor read a roll (physical dice)."""

    side: int
    values: tuple[int, ...]


class Service:
    """Referees one table. `clock()` is the table's monotonic clock (scaled in simulation).

    `journal` is a firmware.journal.Journal; `out(line)` prints a readable line per event;
    `publish(outputs)` (optional) fans events out to the display.
    """

    def __init__(
        self,
        profile,
        ruleset,
        registry,
        journal,
        clock,
        shuffler,
        dice=None,
        out=print,
        hands: int | None = None,
    ):
        self.profile, self.ruleset, self.registry = profile, ruleset, registry
        self.journal, self.clock, self.shuffler, self.out = journal, clock, shuffler, out
        self.dice = dice or ElectronicDice()
        self.dice_source = "physical" if isinstance(self.dice, PhysicalDice) else "electronic"
        self.hands_wanted = hands
        self.session = Session(ruleset)
        self.tracker = Tracker()
        self.table = None
        self.recorded = False  # the hand on the table is on the score sheet
        self.interpreter = None
        self.queue: asyncio.Queue = asyncio.Queue()
        self.stacks: dict[int, bytes] = {}
        self.walls_ready: list[list[int]] | None = None
        self.set_in_play = None
        self.readers_online: dict[str, bool] = {}
        self.heartbeats: dict[str, int] = {}
        self.zones_path = profile.zones_reader.path  # the run may put simulated ones
        self.stacker_path = profile.stacker_reader.path
        self.built = None  # (WallsReady, stacker heartbeat then) being judged
        self.last_tick = 0.0  # when the actor last took a tick (the watchdog's sign)
        self.faults: list[ev.Fault] = []
        self.open_faults: dict[tuple[str, str], ev.Fault] = {}
        self.inferred: list[tuple[int, Move]] = []  # (hand number, move)
        self.flagged_tiles: set[tuple[int, int]] = set()  # (hand number, tile) told the referee
        self.counts = {"hands": 0, "events": 0, "alerts": 0, "overtime": 0}
        self.listeners = []
        self.done = asyncio.Event()

    # -- feeding the actor ---------------------------------------------------------------

    def record(self, item, t: float | None = None) -> None:
        """Queue a device record seen at time t (now if None); call on the loop thread."""
        self.queue.put_nowait((self.clock() if t is None else t, item))

    def from_thread(self, loop, source: str = ""):
        """A callback for a driver thread (a serial reader): stamp now, queue on the loop.
        The latest heartbeat seen from each source is kept, so a simulation can tell how far
        behind the readers the service is."""

        def on_record(item):
            if isinstance(item, readers.Heartbeat):
                self.heartbeats[source] = item.seq
            loop.call_soon_threadsafe(self.queue.put_nowait, (self.clock(), item))

        return on_record

    async def run(self) -> None:
        """Take records in order until stopped or the hands wanted are played."""
        while not self.done.is_set():
            t, item = await self.queue.get()
            try:
                self.handle(t, item)
            except Exception as err:  # a bug must not stop the table: tell and go on
                log.exception("service: %r failed", item)
                self.fault(
                    t,
                    "service",
                    "internal",
                    f"the service failed on a "
                    f"{type(item).__name__} record ({type(err).__name__}: {err})",
                    "call the technician; play on under the referee's control",
                    transient=True,
                )

    async def ticker(self, period: float) -> None:
        while not self.done.is_set():
            await asyncio.sleep(period)
            self.record(("tick",))

    # -- what each record means ----------------------------------------------------------

    def handle(self, t: float, item) -> None:
        if isinstance(item, tuple) and item == ("tick",):
            self.last_tick = t
            self.shuffler.poll(t)
            if self.built is not None:
                self._judge_walls(t)
            if self.interpreter is not None:
                self.apply_all(self.interpreter.poll(t))
        elif isinstance(item, readers.Inventory):
            self._inventory(t, item)
        elif isinstance(item, readers.Stacked):
            if item.position == 0:
                self.stacks = {}
            self.stacks[item.position] = item.tag
        elif isinstance(item, readers.ReaderLost):
            self._reader(t, item.path, False, item.reason)
        elif isinstance(item, readers.ReaderBack):
            self._reader(t, item.path, True, "")
        elif isinstance(item, readers.ReaderError):
            self.fault(
                t,
                "reader",
                f"error {item.code}",
                f"the tile reader reports error {item.code} on antenna {item.antenna}",
                "call the technician if it repeats",
                transient=True,
            )
        elif isinstance(item, ButtonPress):
            self._button(t, item)
        elif isinstance(item, readers.SeatButton):  # a panel wired to the reader's board
            self._button(t, ButtonPress(item.side, item.button, t))
        elif isinstance(item, DiceReport):
            self._dice(t, item.side, item.values, physical=True)
        elif isinstance(item, ShufflerFault):
            self.fault(
                t, "shuffler", item.kind, item.message, item.advice, transient=item.kind == "slow"
            )
        elif isinstance(item, FaultCleared):
            self.clear(t, "shuffler", item.kind)
        elif isinstance(item, WallsReady):
            self._walls_ready(t, item)
        elif isinstance(item, WallsRaised):
            self._new_hand(t, item.tile_set)
        elif isinstance(item, ShufflerRefused):
            self.out(f"{t:9.1f}  shuffler: {item.message}")
        elif isinstance(item, ShufflerStep):
            self.publish([])

    def _inventory(self, t, frame) -> None:
        zone = self.profile.zones.get(frame.antenna)
        if zone is None or self.table is None or self.table.ended:
            return
        seen, unknown = set(), set()
        for tag in frame.tags:
            owner = self.registry.get(tag)
            if owner is not None and owner[0] == self.set_in_play:
                seen.add(owner[1])
            else:
                unknown.add(tag)
        for result in self.tracker.sweep(t, zone, seen, unknown):
            hand = self.session.hand_number
            if isinstance(result, TrackingAlert):
                self._tracking_alert(t, hand, result)
                continue
            self.inferred.append((hand, result))
            for meaning in self.interpreter.move(t, result.tile, result.source, result.target):
                if isinstance(meaning, Irregular):
                    self.flagged_tiles.add((hand, meaning.tile))
                    self.fault(
                        t,
                        "tracking",
                        "irregular",
                        meaning.message,
                        "check the tiles and correct the tracking",
                        tile=meaning.tile,
                        transient=True,
                    )
                else:
                    self.apply(meaning)

    def _forget_tracking(self, t) -> None:
        """The hand is over or void: the tiles go back into the machine, nothing is missing."""
        self.tracker.clear()
        for device, key in [k for k in self.open_faults if k[0] == "tracking"]:
            self.clear(t, device, "missing", key=key)

    def _tracking_alert(self, t, hand, alert) -> None:
        """A missing tile's fault stays open until the tile is found; the others are told."""
        if alert.kind == "found":
            self.clear(t, "tracking", "missing", key=f"missing {alert.tile}")
            return
        self.flagged_tiles.add((hand, alert.tile))
        missing = alert.kind == "missing"
        self.fault(
            t,
            "tracking",
            alert.kind,
            alert.message,
            _ADVICE[alert.kind],
            tile=alert.tile,
            transient=not missing,
            key=f"missing {alert.tile}" if missing else None,
        )

    def _reader(self, t, path, online: bool, reason: str) -> None:
        """A reader gone or back. Without the zone reader nobody sees the tiles move: the
        tracking waits and the clocks stop until it is back (the stacker matters only when
        walls are built, and the wall check catches what it missed)."""
        was = self.readers_online.get(path, True)
        self.readers_online[path] = online
        if online == was:
            return
        zones = path == self.zones_path
        device = "zone reader" if zones else "stacker reader"
        running = self.table is not None and not self.table.ended
        if not online:
            self.fault(
                t,
                device,
                "offline",
                f"the tile reader at {path} is offline ({reason})",
                "play stops and the clocks are paused: check the "
                "reader's USB cable; play goes on when it is back"
                if zones
                else "check the reader's USB cable before the next walls are built",
            )
            if zones:
                self.tracker.suspend(t)
                if running and self.table.clocks.paused_at is None:
                    self.apply(ev.ClocksPaused(t, None))
        else:
            self.clear(t, device, "offline")
            if zones:
                self.tracker.resume(t)
                if running and self.table.clocks.paused_at is not None:
                    self.apply(ev.ClocksResumed(t, None))

    def _button(self, t, press: ButtonPress) -> None:
        side = press.seat
        if press.button == "referee":
            self.fault(
                t,
                "table",
                "referee",
                f"the {SIDES[side]} player calls the referee",
                "go to the table",
                transient=True,
            )
        elif press.button == "dice":
            if self.table is None or self.table.ended:
                if self.walls_ready is not None:
                    self.shuffler.raise_walls(t)
            elif self.table.state not in ("dice", "second_roll") and self.walls_ready is not None:
                self.fault(
                    t,
                    "table",
                    "raise refused",
                    "raise was pressed but the hand on the table is not over here",
                    "the referee finishes the hand or voids "
                    "it (void_hand), then the walls can rise",
                    transient=True,
                )
            elif not isinstance(self.dice, PhysicalDice):
                self._dice(t, side, None, physical=False)
        elif self.interpreter is not None:
            self.apply_all(self.interpreter.button(t, side, press.button))

    def _dice(self, t, side, values, physical: bool) -> None:
        if self.table is None or self.table.state not in ("dice", "second_roll"):
            return
        try:
            roll = self.dice.report(values) if physical else self.dice.roll()
        except DiceError as err:
            self.fault(
                t, "dice", "bad roll", f"the dice sensor read {err}", "roll again", transient=True
            )
            return
        self.apply(ev.DiceRolled(t, self.interpreter.seat(side), roll.values, roll.source))

    def _walls_ready(self, t, ready) -> None:
        """The machine says the walls are built; the stacker's frames about them may still be
        on their way (they come through the reader thread, the machine's word through the
        pins), so they are judged once two more stacker heartbeats have come in (at most
        `STACKER_WAIT` seconds later)."""
        self.built = (ready, self.heartbeats.get(self.stacker_path), t)

    def _judge_walls(self, t) -> None:
        """Every tile of the built walls read, in wall order, or the walls cannot be played:
        the engine must know where each tile lies. Then the shuffler builds them again."""
        ready, beat, since = self.built
        now = self.heartbeats.get(self.stacker_path)
        if (
            self.readers_online.get(self.stacker_path, True)
            and t - since < STACKER_WAIT
            and (now is None or (now - (beat or 0)) % 256 < 2)
        ):
            return
        self.built = None
        expected = sum(ready.counts)
        per_lane = expected // 4
        sets = {self.registry.get(tag, ("?",))[0] for tag in self.stacks.values()}
        if sorted(self.stacks) != list(range(expected)) or sets != {ready.tile_set}:
            self.shuffler.reject_walls(
                t,
                f"the stacker read {len(self.stacks)} of {expected} tiles of set "
                f"{ready.tile_set}: where each tile lies is not known",
                "press retry to build "
                "the walls again; if it repeats, clean the stacker reader's antenna",
            )
            return
        order = [self.registry[self.stacks[p]][1] for p in range(expected)]
        self.walls_ready = [order[lane * per_lane : (lane + 1) * per_lane] for lane in range(4)]
        self.out(f"{t:9.1f}  walls of set {ready.tile_set} ready ({ready.seconds:.0f} s)")

    def _new_hand(self, t, tile_set: str) -> None:
        lanes, self.walls_ready = self.walls_ready, None
        if lanes is None:
            return
        self.set_in_play = tile_set
        dealer_side = self.session.player_at(0)
        walls = [lanes[(dealer_side + seat) % 4] for seat in range(4)]
        self.table = self.session.new_table(walls, t)
        self.recorded = False
        self.journal.hand(
            self.ruleset.name,
            self.session.hand_number,
            walls,
            t,
            self.table.chips,
            self.table.doubling,
            self.table.last_deal,
        )
        self.tracker.place(
            {tile: f"wall_{SIDES[lane]}" for lane in range(4) for tile in lanes[lane]}
        )
        sweep = self.profile.zones_reader.sweep_seconds or 0.25
        self.interpreter = Interpreter(
            self.table,
            dealer_side,
            self.profile.claim_window_seconds,
            settle=(self.tracker.confirm + 1) * sweep,
        )
        self.out(
            f"{t:9.1f}  hand {self.session.hand_number}: East sits on the "
            f"{SIDES[dealer_side]} side; walls of set {tile_set} up"
        )
        self.publish([])

    # -- applying inputs -----------------------------------------------------------------

    def apply_all(self, inputs) -> None:
        for event in inputs:
            self.apply(event)

    def apply(self, event: ev.Event) -> list[ev.Event]:
        """Journal the input (committed), apply it, journal and show what it did."""
        table = self.table
        self.journal.input(event)
        outputs = table.apply(event)
        self.journal.outputs(outputs)
        self.interpreter.outputs(event.t, outputs)
        self.counts["events"] += 1 + len(outputs)
        for out in outputs:
            self.counts["alerts"] += isinstance(out, ev.Alert)
            self.counts["overtime"] += isinstance(
                out, ev.PenaltyApplied
            ) and out.offence.startswith("overtime")
            line = describe(out, self.ruleset)
            if line:
                self.out(f"{out.t:9.1f}  {line}")
        self.publish(outputs)
        if table.ended and not self.recorded:
            self._hand_over(event.t)
        return outputs

    def _hand_over(self, t) -> None:
        self.recorded = True
        row = self.session.record(self.table)
        self._forget_tracking(t)
        self.counts["hands"] += 1
        self.out(
            f"{t:9.1f}  hand {row.number} over: {row.result}; scores "
            + " ".join(f"{SIDES[p]} {s:+d}" for p, s in enumerate(row.totals))
        )
        if self.hands_wanted is not None and self.counts["hands"] >= self.hands_wanted:
            self.done.set()

    def resume(self, played) -> int:
        """Go on with the session a journal holds (firmware.replay's `played`): every hand
        that ended is settled again in order, so scores, dealer and games are as they were;
        a hand left unfinished (a crash, a power cut) is void: its tiles went back into the
        machine, and the same dealer deals it again. Returns the hands settled."""
        settled = 0
        for number, table, voided in played:
            if voided:
                continue
            if not table.ended:
                self.journal.device(
                    {
                        "type": "HandVoided",
                        "t": self.clock(),
                        "hand_number": number,
                        "reason": "the service restarted before the hand ended",
                    }
                )
                self.out(
                    f"hand {number} was not finished when the service stopped: void, "
                    "it is dealt again"
                )
                continue
            self.session.hand_number = number
            self.session.record(table)
            settled += 1
        if played:
            self.session.hand_number = (
                max(row.number for row in self.session.sheet) if self.session.sheet else 0
            )
            self.out(
                f"resumed after hand {self.session.hand_number}: scores "
                + " ".join(f"{SIDES[p]} {s:+d}" for p, s in enumerate(self.session.scores))
            )
        return settled

    def void_hand(self, t, reason: str) -> bool:
        """The referee voids the hand in play: it does not count, the same dealer deals again
        on the next walls. Journaled for the audit."""
        if self.table is None or self.table.ended:
            return False
        number = self.session.hand_number
        self.session.hand_number -= 1  # the redeal takes the same number
        self.journal.device({"type": "HandVoided", "t": t, "hand_number": number, "reason": reason})
        self.table = self.interpreter = None
        self._forget_tracking(t)
        self.counts["voided"] = self.counts.get("voided", 0) + 1
        self.out(f"{t:9.1f}  hand {number} VOIDED by the referee: {reason}")
        self.publish([])
        return True

    def status(self) -> str:
        """One line for `systemctl status`."""
        if self.table is None or self.table.ended:
            return (
                f"between hands ({self.session.hand_number} played); shuffler {self.shuffler.state}"
            )
        return f"hand {self.session.hand_number}: {self.table.state.replace('_', ' ')}"

    # -- faults --------------------------------------------------------------------------

    def fault(self, t, device, kind, message, advice, tile=None, transient=False, key=None) -> None:
        """Tell the referee; a lasting fault stays open until `clear` ends it (`key` tells
        apart lasting faults of one kind, e.g. each missing tile)."""
        key = (device, key or kind)
        if not transient and key in self.open_faults:
            return
        record = ev.Fault(t, None, device, kind, message, advice, len(self.faults) + 1, False, tile)
        self.faults.append(record)
        if not transient:
            self.open_faults[key] = record
        self.journal.device(record.to_json())
        self.out(f"{t:9.1f}  FAULT {device} {kind}: {message} -> {advice}")
        self.publish([record])

    def clear(self, t, device, kind, key=None) -> None:
        record = self.open_faults.pop((device, key or kind), None)
        if record is None:
            return
        cleared = ev.Fault(t, None, device, kind, f"cleared: {record.message}", "", record.id, True)
        self.faults.append(cleared)
        self.journal.device(cleared.to_json())
        self.out(f"{t:9.1f}  cleared {device} {kind}")
        self.publish([cleared])

    def publish(self, events) -> None:
        for listener in self.listeners:
            listener(events)


_ADVICE = {
    "missing": "find the tile and put it back where it belongs, or correct the tracking",
    "two_places": "a tag is read in two zones: check both and correct the tracking",
    "foreign": "remove the tile that is not of this table's sets",
    "jump": "the move was not seen step by step: check it and correct if wrong",
    "unexpected_tile": "a tile of the set below the table is on it: remove it",
}


def build_service(profile, ruleset, journal, gpio, clock, dice, out, hands=None, loop=None):
    """The service with the shuffler and the buttons its profile wires to it. With `loop`,
    button edges (which come on the GPIO library's thread) are handed to it safely."""
    per_lane = len(tiles.physical_set(ruleset.table_rules.flowers)) // 4
    shuffler = Shuffler(
        gpio,
        profile.shuffler_pins,
        profile.shuffler_timing,
        per_lane,
        lambda record: service.record(record, record.t),
        clock,
    )
    service = Service(profile, ruleset, profile.tags, journal, clock, shuffler, dice, out, hands)
    if loop is None:

        def report(press):
            service.record(press, press.t)
    else:

        def report(press):
            loop.call_soon_threadsafe(service.record, press, press.t)

    Buttons(gpio, profile.buttons, report, clock, profile.debounce_seconds)
    return service
