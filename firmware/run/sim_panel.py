"""The lamps and buttons the simulated people use (firmware/sim/world.py's `Panel`), wired to
the service as a real table's are: a button is a pin driven to ground or, where the profile's
[buttons] kind is "zone_reader", a SeatButton frame from the zone reader's board; the machine's
retry is the button the profile names, or the referee's retry at the desk (issue 29)."""

from drivers.sim.reader import SimReader
from engine.events import ClocksResumed
from firmware.table.service import DiceReport


class SimPanel:
    """The lamps and buttons the simulated people use, wired to the service and the pins."""

    def __init__(self, service, shuffler, gpio, profile, zone_reader: SimReader | None = None):
        self.service, self.shuffler, self.gpio = service, shuffler, gpio
        self.pins = {(side, name): pin for pin, (side, name) in profile.buttons.items()}
        self.held: list[tuple[float, int]] = []
        self.retry_button = profile.shuffler_retry
        # [buttons] kind = "zone_reader": the buttons are wired to the zone reader's board
        self.board = zone_reader if profile.kinds["buttons"] == "zone_reader" else None

    def walls_ready(self) -> bool:
        return self.service.status().walls_ready

    def machine_fault(self) -> object | None:
        """The machine's open fault (the same object until it is retried), or None."""
        return self.shuffler.fault

    def readers_online(self) -> bool:
        return all(self.service.status().readers_online.values())

    def retry(self) -> None:
        """The technician starts the machine again as at a real table (issue 29): by the
        button the profile names, else by the referee's retry at the desk."""
        if self.retry_button is not None:
            self.press(*self.retry_button)
        else:
            self.service.actor.submit(lambda t: self.service.retry_shuffler(t, "desk"))

    def press(self, side: int, button: str) -> None:
        if self.board is not None:  # a SeatButton frame, debounced on the board
            self.board.button(side, button)
            return
        pin, t = self.pins[(side, button)], self.service.clock()
        self.gpio.drive(pin, 0, t)
        self.held.append((t + 0.1, pin))

    def release(self, t: float) -> None:
        for due, pin in [h for h in self.held if h[0] <= t]:
            self.gpio.drive(pin, 1, t)
            self.held.remove((due, pin))

    def dice(self, side: int, values) -> None:
        self.service.actor.record(DiceReport(side, tuple(values)))

    def session(self):
        return self.service.status().session

    def hand_over(self) -> bool:
        return not self.service.status().in_play

    def void(self, reason: str) -> None:
        """The referee voids the hand: his action, queued like every other."""
        port = self.service.commands
        port.submit(lambda t: port.void(t, reason))

    def interrupted(self) -> list[int] | None:
        """The tiles the display lists as not where the hand has them, while a hand taken
        up after a power cut waits for the referee and once every zone has been read; else
        None."""
        status = self.service.status()
        if status.interruption is None or not status.fully_read:
            return None
        return [d["tile"] for d in status.displaced]

    def halted(self) -> bool:
        """A hand taken up after a power cut waits for the referee to resume the clocks."""
        return self.service.status().interruption is not None

    def resume_play(self) -> None:
        """The referee resumes the clocks: every tile lies where the hand has it."""
        port = self.service.commands
        port.submit(lambda t: port.apply(ClocksResumed(t, None)))

    def out_of_step(self) -> bool:
        """The display says the hand refused a move the table made (issue 20)."""
        table = self.service.status().table
        return table is not None and not table.ended and table.out_of_step

    def accept_table(self) -> None:
        """The referee accepts the table as it lies: his action, queued like every other."""
        port = self.service.commands
        port.submit(port.accept_table)
