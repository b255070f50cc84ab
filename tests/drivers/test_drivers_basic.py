"""GPIO pins (SOFTWARE.md §3) and the dice (DESIGN.md drivers/dice.py)."""

import random

import pytest

from drivers.dice import DiceError, ElectronicDice, PhysicalDice
from drivers.gpio import GPIOUnavailable, open_pins


def test_simulated_pins_record_outputs_and_fire_edges():
    """SOFTWARE.md §3.2: the simulated pins keep the RPi.GPIO interface; driving an input
    fires the edge callback as a real pin would."""
    gpio = open_pins("sim")
    gpio.setmode(gpio.BCM)
    gpio.setup(17, gpio.OUT)
    gpio.setup(27, gpio.IN, pull_up_down=gpio.PUD_UP)
    gpio.output(17, gpio.HIGH)
    assert gpio.writes == [(17, 1)] and gpio.input(27) == 1
    seen = []
    gpio.add_event_detect(27, gpio.FALLING, callback=seen.append, bouncetime=50)
    assert gpio.drive(27, 0, t=1.0) and seen == [27]
    assert not gpio.drive(27, 1, t=1.01)  # a rising edge: not watched
    assert not gpio.drive(27, 0, t=1.02)  # within the 50-ms bounce time
    assert gpio.drive(27, 1, t=1.5) is False and gpio.drive(27, 0, t=1.6) and seen == [27, 27]


def test_pins_refuse_misuse_with_a_clear_message():
    """A driver bug (writing an input, reading an unset pin) is named, not silent."""
    gpio = open_pins("sim")
    with pytest.raises(RuntimeError, match="setmode"):
        gpio.setup(4, gpio.IN)
    gpio.setmode(gpio.BCM)
    gpio.setup(4, gpio.IN)
    with pytest.raises(RuntimeError, match="not set up as an output"):
        gpio.output(4, 1)
    with pytest.raises(GPIOUnavailable, match="unknown GPIO backend"):
        open_pins("pigpio")


def test_electronic_dice_record_their_source():
    """DESIGN.md: every roll records its source; electronic dice give two values 1..6."""
    rolls = [ElectronicDice(source=random.Random(3)).roll() for _ in range(50)]
    assert all(r.source == "electronic" and len(r.values) == 2 for r in rolls)
    assert all(2 <= r.total <= 12 for r in rolls)
    assert ElectronicDice().roll().source == "electronic"  # the OS source by default


@pytest.mark.parametrize(
    "values,problem",
    [((3,), "2 dice"), ((0, 4), "1 to 6"), ((7, 1), "1 to 6"), ((True, 2), "1 to 6")],
)
def test_physical_dice_reject_impossible_reports(values, problem):
    """A sensor or referee report that no two dice can show is refused, naming why."""
    with pytest.raises(DiceError, match=problem):
        PhysicalDice().report(values)
    assert PhysicalDice().report((6, 6)).source == "physical"


def test_button_press_reported_once_through_contact_bounce():
    """DESIGN.md drivers/buttons.py: a press bouncing for a few ms is one press; a second
    press needs a release first."""
    from drivers.buttons import ButtonPress, Buttons

    gpio = open_pins("sim")
    gpio.setmode(gpio.BCM)
    now = [0.0]
    presses = []
    Buttons(gpio, {22: (1, "claim")}, presses.append, clock=lambda: now[0])
    for t, level in [(1.000, 0), (1.004, 1), (1.008, 0), (1.012, 1), (1.015, 0)]:
        now[0] = t
        gpio.drive(22, level, t)
    assert presses == [ButtonPress(1, "claim", 1.0)]
    for t, level in [(1.5, 1), (2.0, 0)]:
        now[0] = t
        gpio.drive(22, level, t)
    assert presses == [ButtonPress(1, "claim", 1.0), ButtonPress(1, "claim", 2.0)]


def test_button_layout_errors_are_named():
    """A table profile naming an unknown button or side is refused with the pin named."""
    from drivers.buttons import Buttons

    gpio = open_pins("sim")
    gpio.setmode(gpio.BCM)
    with pytest.raises(ValueError, match="pin 9: 'chow' of side 0"):
        Buttons(gpio, {9: (0, "chow")}, print, clock=lambda: 0.0)
