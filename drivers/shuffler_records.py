"""What the shuffler is given and what it reports (drivers/shuffler.py is the machine itself).

Given, from the table profile: its pins and its step times. Reported: each step entered, the
walls ready and raised, the commands refused, and its faults in the referee's words: what went
wrong, on which side of the table, and what to do about it (HARDWARE.md §1.4).

The lanes lie on the table's sides E S W N and a fault is told by its side ("the West lane
stopped"). A driver imports nothing outside drivers/ (DESIGN.md: it speaks pins, not the
game), so the side names are this module's own `SIDES` rather than engine/seats.py's, which
names the same four sides the same way.
"""

from dataclasses import dataclass, fields

SIDES = ("East", "South", "West", "North")  # the lanes' sides, as the referee is told them


@dataclass(frozen=True)
class ShufflerPins:
    """BCM pins from the table profile; lane lists are per side E S W N."""

    drop: int
    plate: int
    lanes: tuple[int, ...]
    lift: int
    centre_closed: int
    counters: tuple[int, ...]
    heads: tuple[int, ...]
    lift_top: int

    def __post_init__(self):
        used: dict[int, str] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            many = f.name in ("lanes", "counters", "heads")
            pins = tuple(value) if many and isinstance(value, (list, tuple)) else (value,)
            if many and len(pins) != 4:
                raise ValueError(f"shuffler pins: {f.name} needs 4 pins (E S W N), got {value!r}")
            for pin in pins:
                if not isinstance(pin, int) or isinstance(pin, bool) or pin < 0:
                    raise ValueError(f"shuffler pins: {f.name} {pin!r} is not a pin number")
                if pin in used:
                    raise ValueError(f"shuffler pins: pin {pin} is both {used[pin]} and {f.name}")
                used[pin] = f.name
            if many:
                object.__setattr__(self, f.name, pins)


@dataclass(frozen=True)
class ShufflerTiming:
    """Step limits in seconds, from the table profile (defaults: a 4-port table, §0)."""

    drop_timeout: float = 4.0  # the centre must close again within this
    shuffle: float = 6.0  # how long the plate runs
    lane_stall: float = 3.0  # a lane short of tiles with no tile counted this long: jam
    head_blocked: float = 2.0  # a stacking head blocked this long: jam
    settle: float = 2.0  # no tile counted on any lane this long ends stacking
    stack_timeout: float = 40.0  # stacking must end within this
    raise_timeout: float = 5.0  # the walls must reach the top within this
    cycle_limit: float = 80.0  # a longer cycle is slow (a warning); only reachable when
    # drop_timeout + shuffle + stack_timeout exceed it

    def __post_init__(self):
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise ValueError(
                    f"shuffler timing: {f.name} must be a positive number of seconds, not {value!r}"
                )


@dataclass(frozen=True)
class ShufflerStep:
    t: float
    step: str  # the state entered
    tile_set: str | None  # the set that step works on


@dataclass(frozen=True)
class WallsReady:
    t: float
    tile_set: str
    counts: tuple[int, ...]  # tiles per lane E S W N
    seconds: float  # the cycle, from the drop to ready


@dataclass(frozen=True)
class WallsRaised:
    t: float
    tile_set: str


@dataclass(frozen=True)
class ShufflerFault:
    t: float
    kind: str  # jam, count, timeout, or slow (a warning: the cycle goes on)
    step: str
    lane: int | None
    count: int | None
    expected: int | None
    message: str
    advice: str


@dataclass(frozen=True)
class FaultCleared:
    t: float
    kind: str


@dataclass(frozen=True)
class ShufflerRefused:
    """A command the shuffler cannot carry out now, and why."""

    t: float
    action: str  # start, raise or retry
    message: str


# -- the faults and refusals, in the referee's words -----------------------------------------


def walls_cannot_rise(state: str, tile_set: str) -> str:
    """Why raise is refused in `state`, when that is not a fault."""
    if state == "idle":
        return "the walls cannot rise: the shuffler has not started"
    if state == "raising":
        return "the walls cannot rise: they are already rising"
    return f"the walls cannot rise: set {tile_set} is not ready yet ({state})"


def slow(t: float, step: str, tile_set: str, timing: ShufflerTiming) -> ShufflerFault:
    return ShufflerFault(
        t,
        "slow",
        step,
        None,
        None,
        None,
        f"the cycle of set {tile_set} has taken over {timing.cycle_limit:g} s (now {step})",
        "the walls still come up; after this hand have the "
        "technician check the plate, the magnet ring and the lanes",
    )


def drop_timeout(t: float, timing: ShufflerTiming) -> ShufflerFault:
    return ShufflerFault(
        t,
        "timeout",
        "dropping",
        None,
        None,
        None,
        f"the centre did not close within {timing.drop_timeout:g} s of the drop",
        "look for a tile or an object caught in the centre opening, clear it, then press retry",
    )


def raise_timeout(t: float, tile_set: str | None, timing: ShufflerTiming) -> ShufflerFault:
    return ShufflerFault(
        t,
        "timeout",
        "raising",
        None,
        None,
        None,
        f"the walls of set {tile_set} did not reach the top within {timing.raise_timeout:g} s",
        "look for something caught under a lift tray (the usual cause) or a wall not level, "
        "clear it, then press retry",
    )


def head_jam(t: float, lane: int, count: int, expected: int) -> ShufflerFault:
    side = SIDES[lane]
    return ShufflerFault(
        t,
        "jam",
        "stacking",
        lane,
        count,
        expected,
        f"a tile is stuck at the {side} stacking head; the {side} wall has {count} of "
        f"{expected} tiles",
        f"clear the tile stuck at the {side} stacking head, then press retry",
    )


def lane_stall(
    t: float, lane: int, count: int, expected: int, timing: ShufflerTiming
) -> ShufflerFault:
    side = SIDES[lane]
    return ShufflerFault(
        t,
        "jam",
        "stacking",
        lane,
        count,
        expected,
        f"the {side} lane stopped at {count} of {expected} tiles "
        f"(no tile for {timing.lane_stall:g} s)",
        f"check the {side} lane: clear any tile stuck in it or at its stacking head, check its "
        "push motor, then press retry",
    )


def stack_timeout(
    t: float, tile_set: str, lane: int, count: int, expected: int, timing: ShufflerTiming
) -> ShufflerFault:
    side = SIDES[lane]
    return ShufflerFault(
        t,
        "timeout",
        "stacking",
        lane,
        count,
        expected,
        f"stacking set {tile_set} took over {timing.stack_timeout:g} s; the {side} wall has "
        f"{count} of {expected} tiles",
        f"watch the {side} lane, the slowest: clean its counting sensor and check its push "
        "motor, then press retry",
    )


def miscount(t: float, lane: int, count: int, expected: int) -> ShufflerFault:
    side, n = SIDES[lane], expected
    if count < n:
        advice = (
            f"the {side} wall has {count} of {n} tiles: look for the missing tile "
            "in the bin and under the table, put it in the centre, press retry"
        )
    else:
        advice = (
            f"the {side} wall has {count} tiles, {n} expected: a tile from the "
            "other set or a foreign tile? remove it, press retry"
        )
    return ShufflerFault(
        t,
        "count",
        "stacking",
        lane,
        count,
        n,
        f"the {side} lane stacked {count} tiles, {n} expected: the walls stay down",
        advice,
    )
