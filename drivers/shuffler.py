"""The shuffler: one machine cycle per tile set, with its faults (HARDWARE.md §0, §1, §1.4).

The table has two tile sets, "A" and "B": one is played while the other is dropped into the
bin, shuffled by the plate and stacked by four lanes (E S W N) into walls hidden below. A
counter per lane counts each tile; a lane that stops is a jam, a wall short or over its tiles
is a count fault, and then the walls must not rise: the referee is told which side and what
to do, and `retry` starts the cycle again once the technician has fixed it.

No threads, sleeps or clock reads of its own: every call carries the caller's time `t`. The
GPIO callbacks only record edges (stamped with `clock()`); `poll(t)` applies them in order,
so a GPIO thread never touches the state machine. Motors are switched off at every step end
and in every fault, before the new state is entered. Its pins, step times and records, and
the referee's words for each fault, are drivers/shuffler_records.py's.
"""

import time
from collections import deque
from typing import TYPE_CHECKING

from transitions import Machine

from drivers import shuffler_records as words
from drivers.shuffler_records import (
    SIDES,
    FaultCleared,
    ShufflerFault,
    ShufflerPins,
    ShufflerRefused,
    ShufflerStep,
    ShufflerTiming,
    WallsRaised,
    WallsReady,
)

if TYPE_CHECKING:
    from transitions.core import StateIdentifier

CYCLE = ("dropping", "shuffling", "stacking")
STATES = ["idle", *CYCLE, "ready", "raising", "fault"]
TRANSITIONS: list[tuple[str, "StateIdentifier | list[StateIdentifier]", str]] = [
    ("drop", ["idle", "raising", "fault"], "dropping"),
    ("shuffle", "dropping", "shuffling"),
    ("stack", "shuffling", "stacking"),
    ("finish", "stacking", "ready"),
    ("lift", ["ready", "fault"], "raising"),
    ("fail", [*CYCLE, "ready", "raising"], "fault"),
]


class Shuffler:
    """Drives the cycle over `gpio` (RPi.GPIO-like); reports every record to `on_record`."""

    def __init__(
        self,
        gpio,
        pins: ShufflerPins,
        timing: ShufflerTiming,
        tiles_per_lane: int,
        on_record,
        clock=time.monotonic,
    ):
        if type(tiles_per_lane) is not int or tiles_per_lane <= 0:  # bool is no count either
            raise ValueError(
                f"tiles_per_lane must be a positive whole number (34 for 136 "
                f"tiles, 36 for 144), not {tiles_per_lane!r}"
            )
        self.gpio, self.pins, self.timing = gpio, pins, timing
        self.expected, self.on_record = tiles_per_lane, on_record
        self._motors = {
            "dropping": (pins.drop,),
            "shuffling": (pins.plate,),
            "stacking": pins.lanes,
            "raising": (pins.lift,),
        }
        self._edges: deque = deque()
        self._machine = Machine(
            states=STATES,
            initial="idle",
            auto_transitions=False,
            send_event=True,
            before_state_change=self._switch_motors,
            after_state_change=self._entered,
        )
        for trigger, source, dest in TRANSITIONS:
            self._machine.add_transition(trigger, source, dest)
        self.set_in_play: str | None = None
        self.set_ready: str | None = None
        self._cycling = "A"
        self._working: str | None = None  # the set the current step works on
        self._faults: list[ShufflerFault] = []
        self._clears: str | None = None  # the fault kind a retry is clearing
        self._since = self._cycle_start = 0.0
        self._slow_told = False
        self._counts, self._last_tile = [0] * 4, [0.0] * 4
        self._last_any: float | None = None  # the last tile in any lane
        self._head_since: list[float | None] = [None] * 4  # when each head was blocked
        gpio.setmode(gpio.BCM)
        for pin in (pins.drop, pins.plate, *pins.lanes, pins.lift):
            gpio.setup(pin, gpio.OUT, initial=gpio.LOW)
        inputs = (pins.centre_closed, *pins.counters, *pins.heads, pins.lift_top)
        for pin in inputs:
            gpio.setup(pin, gpio.IN, pull_up_down=gpio.PUD_DOWN)
        self._levels = {pin: gpio.input(pin) for pin in inputs}
        # A counter pulse may be over before its level can be read: count rising edges.
        for pin in pins.counters:
            gpio.add_event_detect(pin, gpio.RISING, callback=lambda p: self._recorded(p, 1, clock))
        for pin in (pins.centre_closed, *pins.heads, pins.lift_top):
            gpio.add_event_detect(
                pin, gpio.BOTH, callback=lambda p: self._recorded(p, gpio.input(p), clock)
            )

    # -- views -----------------------------------------------------------------------------

    @property
    def state(self) -> str:
        return self._machine.state

    @property
    def counts(self) -> tuple[int, ...]:
        return tuple(self._counts)

    @property
    def fault(self) -> ShufflerFault | None:
        return self._faults[0] if self.state == "fault" else None

    # -- commands --------------------------------------------------------------------------

    def start(self, t: float, in_play: str | None = None) -> bool:
        """Power-up: cycle set A (the drop only waits for the centre), or, after a power cut
        with set `in_play` on the table, the other set: whatever the machine held of it, half
        stacked or ready, is dropped into the bin and built again (nobody knows its state)."""
        self.poll(t)
        if self.state != "idle":
            return self._refuse(t, "start", f"the shuffler has already started ({self.state})")
        if in_play not in (None, "A", "B"):
            raise ValueError(f"the tile sets are A and B, not {in_play!r}")
        self.set_in_play = in_play
        self._cycling = "B" if in_play == "A" else "A"
        self._machine.drop(t=t)
        return True

    def raise_walls(self, t: float) -> bool:
        """Raise the ready walls; once up, the other set (pushed in) goes round the machine."""
        self.poll(t)
        fault = self.fault
        if fault is not None:
            return self._refuse(t, "raise", f"the walls stay down: {fault.message}; {fault.advice}")
        if self.state != "ready":
            return self._refuse(t, "raise", words.walls_cannot_rise(self.state, self._cycling))
        self._machine.lift(t=t)
        return True

    def retry(self, t: float) -> bool:
        """After a fault the technician fixed: a failed cycle starts again from the drop (the
        stacked tiles are dumped back into the bin); a failed raise raises again."""
        self.poll(t)
        if self.state != "fault":
            return self._refuse(t, "retry", f"there is no fault to retry ({self.state})")
        blocked = [SIDES[lane] for lane, pin in enumerate(self.pins.heads) if self._levels[pin]]
        if blocked:
            return self._refuse(
                t,
                "retry",
                f"the {' and '.join(blocked)} stacking head is "
                "still blocked: clear the stuck tile first",
            )
        self._clears = self._faults[0].kind
        if self._faults[0].step == "raising":
            self._machine.lift(t=t)
        else:
            self._machine.drop(t=t)
        return True

    def reject_walls(self, t: float, message: str, advice: str) -> bool:
        """The ready walls cannot be played (the stacker did not read every tile, so nobody
        knows where each lies): a fault; retry builds them again from the drop."""
        self.poll(t)
        if self.state != "ready":
            return self._refuse(t, "reject", f"no walls are ready to reject ({self.state})")
        self.set_ready = None
        self._fail(t, ShufflerFault(t, "stacker", "stacking", None, None, None, message, advice))
        return True

    def poll(self, t: float) -> None:
        """Apply the edges the GPIO callbacks recorded, then check step times at t."""
        while self._edges:
            self.edge(*self._edges.popleft())
        self._check(t)

    def edge(self, pin: int, level: int, t: float) -> None:
        """An input edge seen at t (a counter edge with level 1 is one tile)."""
        self._check(t)
        level = int(bool(level))
        pins = self.pins
        if pin in pins.counters:
            lane = pins.counters.index(pin)
            if level and self.state == "stacking":
                self._counts[lane] += 1
                self._last_tile[lane] = self._last_any = t
            return
        if pin not in self._levels or self._levels[pin] == level:
            return  # not ours, or no change (a repeated report)
        self._levels[pin] = level
        if pin in pins.heads:
            self._head_since[pins.heads.index(pin)] = t if level else None
        elif pin == pins.centre_closed and level and self.state == "dropping":
            self._machine.shuffle(t=t)  # closed again: the used set is in the bin
        elif pin == pins.lift_top and level and self.state == "raising":
            raised = self._cycling  # the set that became ready and is rising
            self.set_in_play, self.set_ready = raised, None
            self.on_record(WallsRaised(t, raised))
            self._cleared(t)
            self._cycling = "B" if self.set_in_play == "A" else "A"
            self._machine.drop(t=t)

    def close(self) -> None:
        """Motors off and edges no longer watched (service shutdown)."""
        for pin in (self.pins.drop, self.pins.plate, *self.pins.lanes, self.pins.lift):
            self.gpio.output(pin, self.gpio.LOW)
        for pin in self._levels:
            self.gpio.remove_event_detect(pin)

    # -- the machine's callbacks -----------------------------------------------------------

    def _recorded(self, pin: int, level: int, clock) -> None:
        self._edges.append((pin, level, clock()))  # deque.append is thread-safe

    def _switch_motors(self, event) -> None:
        on = self._motors.get(event.transition.dest, ())
        for pins in self._motors.values():
            for pin in pins:
                if pin not in on:
                    self.gpio.output(pin, self.gpio.LOW)
        for pin in on:
            self.gpio.output(pin, self.gpio.HIGH)

    def _entered(self, event) -> None:
        t, state = event.kwargs["t"], self.state
        self._since = t
        if state == "ready":
            self.set_ready = self._cycling
        if state != "fault":
            self._working = self.set_ready if state in ("ready", "raising") else self._cycling
        self.on_record(ShufflerStep(t, state, self._working))
        if state == "dropping":
            self._cycle_start, self._slow_told = t, False
        elif state == "stacking":
            self._counts, self._last_tile, self._last_any = [0] * 4, [t] * 4, None
        elif state == "ready":
            self.on_record(
                WallsReady(t, self._cycling, self.counts, round(t - self._cycle_start, 3))
            )
            self._cleared(t)
        elif state == "fault":
            for fault in self._faults:
                self.on_record(fault)

    def _cleared(self, t: float) -> None:
        if self._clears:
            self.on_record(FaultCleared(t, self._clears))
            self._clears = None

    def _refuse(self, t: float, action: str, message: str) -> bool:
        self.on_record(ShufflerRefused(t, action, message))
        return False

    # -- step times and faults -------------------------------------------------------------

    def _check(self, t: float) -> None:
        state, timing, spent = self.state, self.timing, t - self._since
        if state in CYCLE and not self._slow_told and t - self._cycle_start > timing.cycle_limit:
            self._slow_told = True
            self.on_record(words.slow(t, state, self._cycling, timing))
        if state == "dropping" and spent >= timing.drop_timeout:
            self._fail(t, words.drop_timeout(t, timing))
        elif state == "shuffling" and spent >= timing.shuffle:
            self._machine.stack(t=t)
        elif state == "stacking":
            self._check_stacking(t, spent)
        elif state == "raising" and spent >= timing.raise_timeout:
            self._fail(t, words.raise_timeout(t, self.set_ready, timing))

    def _check_stacking(self, t: float, spent: float) -> None:
        timing, counts, n = self.timing, self._counts, self.expected
        for lane, since in enumerate(self._head_since):
            if since is not None and t - max(since, self._since) >= timing.head_blocked:
                return self._fail(t, words.head_jam(t, lane, counts[lane], n))
        for lane, last in enumerate(self._last_tile):
            if counts[lane] < n and t - last >= timing.lane_stall:
                return self._fail(t, words.lane_stall(t, lane, counts[lane], n, timing))
        if spent >= timing.stack_timeout:
            lane = counts.index(min(counts))
            fault = words.stack_timeout(t, self._cycling, lane, counts[lane], n, timing)
            return self._fail(t, fault)
        if self._last_any is None or t - self._last_any < timing.settle:
            return None
        wrong = [lane for lane in range(4) if counts[lane] != n]
        if not wrong:
            return self._machine.finish(t=t)
        self._fail(t, *(words.miscount(t, lane, counts[lane], n) for lane in wrong))

    def _fail(self, t: float, *faults: ShufflerFault) -> None:
        self._faults = list(faults)
        self._machine.fail(t=t)
