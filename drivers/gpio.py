"""GPIO pins through the RPi.GPIO interface: rpi-lgpio on a Pi (4 and 5), simulated pins
elsewhere (SOFTWARE.md §3).

Drivers ask `open_pins()` for a module-like object with the RPi.GPIO subset they use
(setmode, setup, output, input, add_event_detect, remove_event_detect, cleanup). On a Pi that
is `RPi.GPIO` as rpi-lgpio provides it (never the old RPi.GPIO, which dies on a Pi 5); off a
Pi, or with MJTABLE_GPIO=sim, the simulated pins of drivers/sim/pins.py. Edge callbacks come
on the GPIO library's own thread: the table's service hands them to its asyncio loop
(firmware/table/service.py).
"""

import os


class GPIOUnavailable(RuntimeError):
    """The requested pin backend cannot be used here; the message says what to install."""


def open_pins(backend: str | None = None):
    """The pin module for `backend` ("rpi" or "sim"); by default MJTABLE_GPIO, else "rpi"
    when RPi.GPIO imports, else "sim"."""
    backend = backend or os.environ.get("MJTABLE_GPIO")
    if backend in (None, "rpi"):
        try:
            from RPi import GPIO  # rpi-lgpio on every Pi

            return GPIO
        except (ImportError, RuntimeError) as err:
            if backend == "rpi":
                raise GPIOUnavailable(
                    f"no RPi.GPIO here ({err}); on a Pi install rpi-lgpio (never RPi.GPIO itself)"
                ) from None
    if backend in (None, "sim"):
        from drivers.sim.pins import SimulatedGPIO

        return SimulatedGPIO()
    raise GPIOUnavailable(f"unknown GPIO backend {backend!r} (rpi or sim)")
