"""The players' buttons: one set per side of the table (dice/raise, claim, win, call the referee).

The buttons are fixed to the table's sides (0..3, E S W N of the table itself), not to seats:
which wind sits on a side changes every hand, and saying so is the firmware's job. Each button
is a GPIO input pulled up and pressed to ground. A press is reported once: edges that follow
an accepted press within the debounce time are contact bounce, and a button must be released
before it presses again. Which pin is which button comes from the table profile.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

BUTTONS = ("dice", "claim", "win", "referee")


@dataclass(frozen=True)
class ButtonPress:
    side: int
    button: str
    t: float


class Buttons:
    """Watches the pins of `layout` ({pin: (side, button)}) and reports presses to `report`."""

    def __init__(
        self,
        gpio: Any,
        layout: dict[int, tuple[int, str]],
        report: Callable[[ButtonPress], object],
        clock: Callable[[], float],
        debounce: float = 0.03,
    ) -> None:
        for pin, (side, button) in layout.items():
            if button not in BUTTONS or side not in range(4):
                raise ValueError(
                    f"pin {pin}: {button!r} of side {side} is not a button "
                    f"(buttons are {', '.join(BUTTONS)} of sides 0..3)"
                )
        self.gpio, self.layout, self.report, self.clock = gpio, layout, report, clock
        self.debounce = debounce
        self._last: dict[int, float] = {}
        self._down: dict[int, bool] = {}
        for pin in layout:
            gpio.setup(pin, gpio.IN, pull_up_down=gpio.PUD_UP)
            gpio.add_event_detect(pin, gpio.BOTH, callback=self._edge)

    def _edge(self, pin: int) -> None:
        now = self.clock()
        pressed = self.gpio.input(pin) == self.gpio.LOW
        last = self._last.get(pin)
        if last is not None and now - last < self.debounce:
            return
        self._last[pin] = now
        if pressed and not self._down.get(pin):
            self._down[pin] = True
            side, button = self.layout[pin]
            self.report(ButtonPress(side, button, now))
        elif not pressed:
            self._down[pin] = False

    def close(self) -> None:
        for pin in self.layout:
            self.gpio.remove_event_detect(pin)
