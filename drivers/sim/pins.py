"""Simulated GPIO pins with the RPi.GPIO interface, for tests and the simulated table.

Outputs are recorded in the order they were set, until the simulated machine takes them
(`take_writes`); inputs are driven by the simulation (`drive`), which fires the edge
callbacks a real pin would. A bounce time suppresses edges that follow an accepted one too
closely, in the simulation's own clock, as RPi.GPIO does.
"""

from collections.abc import Callable

EdgeCallback = Callable[[int], object]

BCM, BOARD = 11, 10
IN, OUT = 1, 0
LOW, HIGH = 0, 1
RISING, FALLING, BOTH = 31, 32, 33
PUD_OFF, PUD_DOWN, PUD_UP = 20, 21, 22


class SimulatedGPIO:
    BCM, BOARD, IN, OUT, LOW, HIGH = BCM, BOARD, IN, OUT, LOW, HIGH
    RISING, FALLING, BOTH = RISING, FALLING, BOTH
    PUD_OFF, PUD_DOWN, PUD_UP = PUD_OFF, PUD_DOWN, PUD_UP

    def __init__(self) -> None:
        self.mode: int | None = None
        self.modes: dict[int, int] = {}
        self.levels: dict[int, int] = {}
        self.writes: list[tuple[int, int]] = []
        self._detect: dict[int, tuple[int, EdgeCallback | None, float]] = {}
        self._last_edge: dict[int, float] = {}

    def setmode(self, mode: int) -> None:
        self.mode = mode

    def setup(
        self, pin: int, direction: int, pull_up_down: int = PUD_OFF, initial: int = LOW
    ) -> None:
        if self.mode is None:
            raise RuntimeError("call setmode(BCM) before setup")
        self.modes[pin] = direction
        self.levels[pin] = (
            HIGH
            if (direction == IN and pull_up_down == PUD_UP)
            else (initial if direction == OUT else LOW)
        )

    def output(self, pin: int, level: int) -> None:
        if self.modes.get(pin) != OUT:
            raise RuntimeError(f"pin {pin} is not set up as an output")
        self.levels[pin] = int(bool(level))
        self.writes.append((pin, self.levels[pin]))

    def take_writes(self) -> list[tuple[int, int]]:
        """The output writes recorded since the last take, forgotten here: the machine that
        reads them runs for days in a soak, and keeps none."""
        writes, self.writes = self.writes, []
        return writes

    def input(self, pin: int) -> int:
        if pin not in self.modes:
            raise RuntimeError(f"pin {pin} is not set up")
        return self.levels[pin]

    def add_event_detect(
        self, pin: int, edge: int, callback: EdgeCallback | None = None, bouncetime: int = 0
    ) -> None:
        if self.modes.get(pin) != IN:
            raise RuntimeError(f"pin {pin} is not set up as an input")
        self._detect[pin] = (edge, callback, bouncetime / 1000)

    def remove_event_detect(self, pin: int) -> None:
        self._detect.pop(pin, None)

    def cleanup(self) -> None:
        self.modes.clear()
        self._detect.clear()

    def drive(self, pin: int, level: int, t: float = 0.0) -> bool:
        """The outside world sets an input's level at time t; True if a callback fired."""
        if self.modes.get(pin) != IN:
            raise RuntimeError(f"pin {pin} is not set up as an input")
        before, self.levels[pin] = self.levels[pin], int(bool(level))
        if before == self.levels[pin] or pin not in self._detect:
            return False
        edge, callback, bounce = self._detect[pin]
        rising = self.levels[pin] == HIGH
        if (edge == RISING and not rising) or (edge == FALLING and rising):
            return False
        last = self._last_edge.get(pin)
        if last is not None and t - last < bounce:
            return False
        self._last_edge[pin] = t
        if callback:
            callback(pin)
        return True
