"""The players' buttons: one set per seat (dice/raise, claim, win, call the referee).

Each button is a GPIO input pulled up and pressed to ground. A press is reported once: edges
that follow an accepted press within the debounce time are contact bounce, and a button must
be released before it presses again. Which pin is which button comes from the table profile.
"""

from dataclasses import dataclass

BUTTONS = ("dice", "claim", "win", "referee")


@dataclass(frozen=True)
class ButtonPress:
    seat: int
    button: str
    t: float


class Buttons:
    """Watches the pins of `layout` ({pin: (seat, button)}) and reports presses to `report`."""

    def __init__(
        self, gpio, layout: dict[int, tuple[int, str]], report, clock, debounce: float = 0.03
    ):
        for pin, (seat, button) in layout.items():
            if button not in BUTTONS or seat not in range(4):
                raise ValueError(
                    f"pin {pin}: {button!r} of seat {seat} is not a button "
                    f"(buttons are {', '.join(BUTTONS)} of seats 0..3)"
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
            seat, button = self.layout[pin]
            self.report(ButtonPress(seat, button, now))
        elif not pressed:
            self._down[pin] = False

    def close(self) -> None:
        for pin in self.layout:
            self.gpio.remove_event_detect(pin)
