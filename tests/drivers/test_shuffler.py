"""The shuffler's cycle against the simulated machine, on a fake clock (issue 4; HARDWARE.md
§0 cycle times, §1.1 two sets, §1.4 faults)."""

import pytest

from drivers.shuffler import (
    SIDES,
    FaultCleared,
    Shuffler,
    ShufflerFault,
    ShufflerPins,
    ShufflerRefused,
    ShufflerStep,
    ShufflerTiming,
    WallsRaised,
    WallsReady,
)
from drivers.sim.mechanism import SimMechanism
from drivers.sim.pins import SimulatedGPIO

PINS = ShufflerPins(
    drop=5,
    plate=6,
    lanes=(12, 13, 16, 19),
    lift=20,
    centre_closed=21,
    counters=(22, 23, 24, 25),
    heads=(26, 27, 4, 17),
    lift_top=18,
)
MOTORS = (PINS.drop, PINS.plate, *PINS.lanes, PINS.lift)
DT = 0.05
DEFAULT_TIMING = ShufflerTiming()  # a 4-port table (HARDWARE.md §0)


class Rig:
    """A shuffler, its simulated machine and a fake clock advanced DT at a time."""

    def __init__(self, per_lane=34, timing=DEFAULT_TIMING):
        self.per_lane, self.tick, self.t = per_lane, 0, 0.0
        self.gpio = SimulatedGPIO()
        self.records, self.stacked = [], []
        self.shuffler = Shuffler(
            self.gpio, PINS, timing, per_lane, self.records.append, clock=lambda: self.t
        )
        self.mechanism = SimMechanism(self.gpio, PINS, per_lane, self.on_stacked)
        self.tile_times = {}  # position -> when it was first stacked
        for name in "AB":
            self.mechanism.load(name, self.tags(name))

    def on_stacked(self, position, tag):
        self.stacked.append((position, tag))
        self.tile_times.setdefault(position, self.t)

    def tags(self, name):
        return [f"{name}{i:03d}".encode() for i in range(4 * self.per_lane)]

    def run(self, until, limit=200.0):
        """Advance until `until(rig)` holds; the records seen meanwhile."""
        first, end = len(self.records), self.t + limit
        while not until(self):
            assert self.t < end, f"nothing happened in {limit} s: {self.records[first:]}"
            self.tick += 1
            self.t = round(self.tick * DT, 6)
            self.mechanism.step(self.t)
            self.shuffler.poll(self.t)
        return self.records[first:]

    def run_to(self, *states, limit=200.0):
        return self.run(lambda rig: rig.shuffler.state in states, limit)

    def motors_on(self):
        return [pin for pin in MOTORS if self.gpio.input(pin)]


def of(kind, records):
    return [r for r in records if isinstance(r, kind)]


def started(per_lane=34, timing=DEFAULT_TIMING):
    rig = Rig(per_lane, timing)
    rig.shuffler.start(rig.t)
    return rig


@pytest.mark.parametrize("per_lane", [34, 36])
def test_a_cycle_builds_four_full_walls_in_a_normal_time(per_lane):
    """HARDWARE.md §0: a 4-port cycle takes 18-35 s; every tile is counted in its lane and
    read by the stacker once, at its place in wall order (136 and 144 tiles)."""
    rig = started(per_lane)
    rig.run_to("ready")
    records = rig.records
    ready = of(WallsReady, records)
    assert [r.tile_set for r in ready] == ["A"] and ready[0].counts == (per_lane,) * 4
    assert 18 <= ready[0].seconds <= 35
    assert [s.step for s in of(ShufflerStep, records)] == [
        "dropping",
        "shuffling",
        "stacking",
        "ready",
    ]
    positions = sorted(p for p, _ in rig.stacked)
    assert positions == list(range(4 * per_lane))
    assert sorted(tag for _, tag in rig.stacked) == sorted(rig.tags("A"))
    assert rig.motors_on() == [] and not of(ShufflerFault, records)
    assert rig.shuffler.set_ready == "A" and rig.shuffler.set_in_play is None


def test_each_step_runs_only_its_own_motor():
    """issue 4: the drop motor, the plate, the lanes and the lift each run only in their step
    and are off at its end."""
    rig = started()
    seen = {}

    def note(r):
        seen.setdefault(r.shuffler.state, set()).add(tuple(r.motors_on()))
        return r.shuffler.state == "ready"

    rig.run(note)
    assert seen == {
        "dropping": {(PINS.drop,)},
        "shuffling": {(PINS.plate,)},
        "stacking": {PINS.lanes},
        "ready": {()},
    }


def test_raising_starts_the_other_sets_cycle_and_the_sets_alternate():
    """HARDWARE.md §1.1: the raised set is played while the other is shuffled; A, B, A."""
    rig = started()
    rig.run_to("ready")
    assert rig.shuffler.raise_walls(rig.t)
    raised = rig.run(lambda r: of(WallsRaised, r.records))
    assert [r.tile_set for r in of(WallsRaised, raised)] == ["A"]
    assert rig.shuffler.set_in_play == "A" and rig.shuffler.state == "dropping"
    records = rig.run_to("ready")
    assert [r.tile_set for r in of(WallsReady, records)] == ["B"]
    rig.mechanism.load("A", rig.tags("A")[::-1])  # the players push set A in
    rig.shuffler.raise_walls(rig.t)
    records = rig.run_to("ready")
    assert [r.tile_set for r in of(WallsRaised, records)] == ["B"]
    assert [r.tile_set for r in of(WallsReady, records)] == ["A"]
    assert rig.shuffler.set_in_play == "B" and rig.shuffler.set_ready == "A"


def test_walls_cannot_rise_before_they_are_ready():
    """HARDWARE.md §6.3: raising is gated on full walls; a refused raise says why."""
    rig = started()
    rig.run_to("stacking")
    assert rig.shuffler.raise_walls(rig.t) is False
    refused = of(ShufflerRefused, rig.records)[-1]
    assert refused.action == "raise" and "not ready" in refused.message
    assert not rig.gpio.input(PINS.lift)


def test_a_jammed_lane_stops_everything_and_names_its_side():
    """HARDWARE.md §1.4 head jams; issue 4: the jam is reported within head_blocked or
    lane_stall, every motor stops, the walls cannot rise, retry after clearing completes."""
    rig = Rig()
    rig.mechanism.jam(1, 10)
    rig.shuffler.start(rig.t)
    records = rig.run_to("fault")
    fault = of(ShufflerFault, records)[0]
    assert (fault.kind, fault.lane, fault.count, fault.step) == ("jam", 1, 10, "stacking")
    assert "South" in fault.message and "South stacking head" in fault.advice
    last_tile = rig.tile_times[34 + 9]  # the South lane's tenth
    timing = ShufflerTiming()
    assert (
        fault.t - last_tile
        <= min(timing.lane_stall, rig.mechanism.tile_seconds + timing.head_blocked) + DT
    )
    assert rig.motors_on() == [] and rig.shuffler.fault == fault
    assert rig.shuffler.raise_walls(rig.t) is False and not rig.gpio.input(PINS.lift)
    assert rig.shuffler.retry(rig.t) is False  # the tile is still stuck
    assert "South" in of(ShufflerRefused, rig.records)[-1].message
    rig.mechanism.clear_jam()
    rig.stacked.clear()
    rig.tile_times.clear()
    assert rig.shuffler.retry(rig.t)
    records = rig.run_to("ready")
    assert of(WallsReady, records)[0].counts == (34,) * 4
    assert of(FaultCleared, records) == [FaultCleared(of(WallsReady, records)[0].t, "jam")]
    assert sorted(p for p, _ in rig.stacked) == list(range(136))


@pytest.mark.parametrize("per_lane", [34, 36])
def test_a_lost_tile_keeps_the_walls_down_until_it_is_back(per_lane):
    """HARDWARE.md §1.4 one side short; issue 4: a count fault names the side with n-1 of n
    tiles; retrying without the tile faults again; with it back the walls are ready."""
    rig = Rig(per_lane)
    rig.mechanism.lose_tile(2)
    rig.shuffler.start(rig.t)
    records = rig.run_to("fault")
    faults = of(ShufflerFault, records)
    assert [(f.kind, f.lane, f.count, f.expected) for f in faults] == [
        ("count", 2, per_lane - 1, per_lane)
    ]
    assert f"West wall has {per_lane - 1} of {per_lane} tiles" in faults[0].advice
    assert "missing tile" in faults[0].advice and rig.motors_on() == []
    assert rig.shuffler.raise_walls(rig.t) is False
    rig.shuffler.retry(rig.t)  # the tile is still lost
    records = rig.run_to("fault", "ready")
    assert rig.shuffler.state == "fault" and not of(WallsReady, records)
    rig.mechanism.return_tile()
    rig.shuffler.retry(rig.t)
    records = rig.run_to("ready")
    assert of(WallsReady, records)[0].counts == (per_lane,) * 4
    assert [c.kind for c in of(FaultCleared, records)] == ["count"]


def test_a_foreign_tile_is_one_over_on_its_side():
    """HARDWARE.md §1.2: a table that halts on a wrong count catches hidden tiles; issue 4:
    a tile of no set in the North lane is a count fault of 35 for 34, named North."""
    rig = Rig()
    rig.mechanism.add_foreign(3, b"XXXX")
    rig.shuffler.start(rig.t)
    records = rig.run_to("fault")
    fault = of(ShufflerFault, records)
    assert [(f.kind, f.lane, f.count, f.expected) for f in fault] == [("count", 3, 35, 34)]
    assert "North wall has 35 tiles" in fault[0].advice and "remove it" in fault[0].advice
    rig.mechanism.remove_foreign()
    rig.shuffler.retry(rig.t)
    records = rig.run_to("ready")
    assert of(WallsReady, records)[0].counts == (34,) * 4


def test_a_centre_that_never_closes_times_out():
    """HARDWARE.md §1.4; issue 4: a drop not closed within drop_timeout is a timeout fault,
    motors off; once cleared, retry runs the whole cycle."""
    rig = Rig()
    rig.mechanism.drop_seconds = float("inf")
    rig.shuffler.start(rig.t)
    records = rig.run_to("fault")
    fault = of(ShufflerFault, records)[0]
    assert (fault.kind, fault.step) == ("timeout", "dropping")
    assert fault.t == pytest.approx(ShufflerTiming().drop_timeout, abs=DT)
    assert "centre" in fault.message and rig.motors_on() == []
    rig.mechanism.drop_seconds = 2.0
    rig.shuffler.retry(rig.t)
    assert of(WallsReady, rig.run_to("ready"))[0].tile_set == "A"


def test_walls_the_stacker_did_not_read_are_rejected_and_built_again():
    """issue 4: walls whose tiles the stacker did not all read cannot be played (nobody knows
    where each tile lies): the service rejects them, they never rise, and retry dumps and
    builds them again; each tile is read again in the new cycle."""
    rig = started()
    rig.run_to("ready")
    rig.stacked.clear()
    assert rig.shuffler.reject_walls(rig.t, "the stacker read 19 of 136 tiles", "press retry")
    assert rig.shuffler.state == "fault" and rig.shuffler.set_ready is None
    assert rig.shuffler.fault.kind == "stacker" and not rig.shuffler.raise_walls(rig.t)
    assert rig.shuffler.retry(rig.t)
    ready = of(WallsReady, rig.run_to("ready"))[0]
    assert ready.tile_set == "A" and sorted(p for p, _ in rig.stacked) == list(range(136))
    building = started()
    assert not building.shuffler.reject_walls(0.0, "x", "y")  # nothing ready to reject


def test_walls_stuck_on_the_way_up_time_out_and_rise_again_on_retry():
    """HARDWARE.md §1.4 lift tray stuck; issue 4: a raise past raise_timeout is a timeout;
    retry raises the same walls again."""
    rig = started()
    rig.run_to("ready")
    rig.mechanism.raise_seconds = 60.0
    rig.shuffler.raise_walls(rig.t)
    fault = of(ShufflerFault, rig.run_to("fault"))[0]
    assert (fault.kind, fault.step) == ("timeout", "raising") and rig.motors_on() == []
    rig.mechanism.raise_seconds = 2.0
    rig.shuffler.retry(rig.t)
    records = rig.run(lambda r: of(WallsRaised, r.records))
    assert of(WallsRaised, records)[0].tile_set == "A"
    assert [c.kind for c in of(FaultCleared, records)] == ["timeout"]


def test_a_slow_build_is_a_warning_and_the_walls_still_come():
    """HARDWARE.md §0: a build over 80 s is what repair guides call too slow; issue 4: it is
    reported as "slow" and the cycle goes on to ready (a table whose step limits allow it)."""
    timing = ShufflerTiming(stack_timeout=120.0, settle=4.0, lane_stall=6.0)
    rig = Rig(timing=timing)
    rig.mechanism.tile_seconds = 2.5
    rig.shuffler.start(rig.t)
    records = rig.run_to("ready")
    faults = of(ShufflerFault, records)
    assert [f.kind for f in faults] == ["slow"] and faults[0].step == "stacking"
    assert faults[0].t == pytest.approx(timing.cycle_limit, abs=2 * DT)
    ready = of(WallsReady, records)[0]
    assert ready.seconds > 80 and ready.counts == (34,) * 4


@pytest.mark.parametrize("inject", ["jam", "lose", "foreign", "drop"])
def test_every_fault_says_what_to_do_and_where(inject):
    """issue 4: the referee is told which side and what to do: advice is never empty, and a
    fault in a lane names its side in the message and the advice."""
    rig = Rig()
    {
        "jam": lambda m: m.jam(0, 5),
        "lose": lambda m: m.lose_tile(1),
        "foreign": lambda m: m.add_foreign(2, b"ZZZZ"),
        "drop": lambda m: setattr(m, "drop_seconds", 9.0),
    }[inject](rig.mechanism)
    rig.shuffler.start(rig.t)
    for fault in of(ShufflerFault, rig.run_to("fault")):
        assert fault.advice and fault.message
        if fault.lane is not None:
            side = SIDES[fault.lane]
            assert side in fault.message and side in fault.advice


def test_a_lane_that_stops_without_a_blocked_head_is_a_jam():
    """issue 4: a lane short of tiles with no tile counted for lane_stall seconds is a jam
    (a stuck push motor) even with its head sensor clear; the pins are driven by hand."""
    gpio, records, now = SimulatedGPIO(), [], [0.0]
    shuffler = Shuffler(gpio, PINS, ShufflerTiming(), 34, records.append, clock=lambda: now[0])

    def at(t, pin=None, level=None):
        now[0] = t
        if pin is not None:
            gpio.drive(pin, level, t)
        shuffler.poll(t)

    gpio.drive(PINS.centre_closed, 1)
    shuffler.start(0.0)
    at(1.0, PINS.centre_closed, 0)
    at(2.0, PINS.centre_closed, 1)
    at(8.0)
    assert shuffler.state == "stacking"
    tick = 160  # 8.0 s: stacking began
    while shuffler.state == "stacking":
        tick += 1
        k, beat = divmod(tick - 162, 6)  # a tile every 0.3 s from 8.1 s
        for lane in range(4):
            if beat == 0 and 0 <= k < (34 if lane < 3 else 20):
                at(tick * DT, PINS.counters[lane], 1)
                at(tick * DT, PINS.counters[lane], 0)
        at(tick * DT)
    fault, last_north = shuffler.fault, (162 + 6 * 19) * DT
    assert fault.t == pytest.approx(last_north + 3.0, abs=DT)
    assert all(n < 34 for n in shuffler.counts[:3])  # the other lanes were still going
    assert (fault.kind, fault.lane, fault.count) == ("jam", 3, 20) and "North" in fault.advice
    assert not any(gpio.input(pin) for pin in MOTORS)


def test_commands_out_of_turn_are_refused_with_a_reason():
    """Bad input never crashes: start twice, retry with no fault, raise before start."""
    rig = Rig()
    assert rig.shuffler.raise_walls(0.0) is False
    assert rig.shuffler.retry(0.0) is False
    assert rig.shuffler.start(0.0) and rig.shuffler.start(0.1) is False
    assert [r.action for r in of(ShufflerRefused, rig.records)] == ["raise", "retry", "start"]
    assert all(r.message for r in of(ShufflerRefused, rig.records))


@pytest.mark.parametrize(
    "change,problem",
    [
        ({"lanes": (1, 2, 3)}, "lanes needs 4 pins"),
        ({"lift": 21}, "pin 21 is both lift and centre_closed"),
        ({"plate": -1}, "plate -1 is not a pin number"),
    ],
)
def test_a_wrong_pin_layout_is_refused_by_name(change, problem):
    """A profile mistake is named at start-up, not found at the table."""
    fields = dict(
        drop=5,
        plate=6,
        lanes=(12, 13, 16, 19),
        lift=20,
        centre_closed=21,
        counters=[22, 23, 24, 25],
        heads=(26, 27, 4, 17),
        lift_top=18,
    )
    with pytest.raises(ValueError, match=problem):
        ShufflerPins(**{**fields, **change})
    assert ShufflerPins(**fields).counters == (22, 23, 24, 25)


def test_wrong_timings_and_wall_sizes_are_refused_by_name():
    """A profile's timing or a wall size that cannot be is named, not run with."""
    with pytest.raises(ValueError, match="settle must be a positive number"):
        ShufflerTiming(settle=0)
    with pytest.raises(ValueError, match="tiles_per_lane"):
        Shuffler(SimulatedGPIO(), PINS, ShufflerTiming(), 0, print)


def test_after_a_power_cut_the_set_half_stacked_is_built_again():
    """Issue 14: after a cut the machine's state is unknown. With set B on the table (the
    journal says so) and set A half stacked when the power went, the new service's shuffler
    drops what it held of A into the bin and builds A again, every tile counted once."""
    rig = started()
    rig.run_to("stacking")
    rig.run(lambda r: len(r.stacked) >= 40)  # the power goes mid-stack
    rig.shuffler.close()
    rig.records.clear()
    rig.stacked.clear()
    rig.shuffler = Shuffler(rig.gpio, PINS, DEFAULT_TIMING, 34, rig.records.append, lambda: rig.t)
    assert rig.shuffler.start(rig.t, "B")
    assert rig.shuffler.set_in_play == "B"
    rig.run_to("ready")
    ready = of(WallsReady, rig.records)
    assert [r.tile_set for r in ready] == ["A"] and ready[0].counts == (34,) * 4
    assert sorted(p for p, _ in rig.stacked) == list(range(136))
