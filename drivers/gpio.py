"""GPIO pins through the RPi.GPIO interface: rpi-lgpio on a Pi (4 and 5), simulated pins
elsewhere (SOFTWARE.md §3).

Drivers ask `open_pins()` for a module-like object with the RPi.GPIO subset they use
(setmode, setup, output, input, add_event_detect, remove_event_detect, cleanup). On a Pi that
is `RPi.GPIO` as rpi-lgpio provides it (never the old RPi.GPIO, which dies on a Pi 5); off a
Pi, or with MJTABLE_GPIO=sim, the simulated pins of drivers/sim/pins.py. Edge callbacks come
on the GPIO library's own thread: `to_loop` hands them to the asyncio loop safely.
"""

import asyncio
import os
import time
from dataclasses import dataclass


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


@dataclass(frozen=True)
class Edge:
    """A level change on an input pin, stamped on the monotonic clock when it was seen."""

    pin: int
    level: int
    t: float


def to_loop(loop: asyncio.AbstractEventLoop, queue: asyncio.Queue, read_level, clock=None):
    """An edge callback for add_event_detect that queues an Edge on the asyncio loop.

    GPIO libraries call back on their own thread; only call_soon_threadsafe may touch the
    loop from there. `read_level(pin)` reads the level at the edge.
    """
    clock = clock or time.monotonic

    def on_edge(pin: int) -> None:
        loop.call_soon_threadsafe(queue.put_nowait, Edge(pin, read_level(pin), clock()))

    return on_edge
