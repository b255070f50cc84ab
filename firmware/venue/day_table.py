"""A table of the simulated day (firmware/venue/day.py): a firmware/venue/demo.py FleetTable
that takes the venue's start_session, signed with the venue key, shows its players' names,
and has its referee sign the sheet after its last hand.
"""

import time

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from engine import events as ev
from firmware.bus.contract import COMMAND_BYTES, decode
from firmware.bus.signing import signed_by
from firmware.sim.simulate import Game
from firmware.venue.demo import FleetTable

SIGN_SECONDS = 30.0  # table time from a round's last hand to its referee's signature
REFEREE = "Floor referee (simulated)"


class DayTable(FleetTable):
    """A simulated table of the day: it takes the venue's start_session (signed with `key`)
    and signs its sheet after its last hand."""

    def __init__(
        self, name, seed, ruleset, hands, folder, offset, key: Ed25519PublicKey, mistakes: float
    ):
        super().__init__(name, seed, ruleset, hands, folder, offset)
        self.game = Game(ruleset, seed, mistakes, journal=self)  # players who slip now and then
        self.key, self.players, self.signed = key, None, False

    def take(self, payload: bytes) -> None:
        """A command from the bus (the uplink's on_command): a start_session signed with the
        venue key for this table is journaled and its names shown; any other is left."""
        try:
            command = decode(payload, COMMAND_BYTES)
            if not signed_by(command, self.key) or command.get("table") != self.name:
                return
        except ValueError:
            return
        if command.get("command") != "start_session":
            return
        args = command["args"]
        self._record(ev.VenueCommand(self.t, None, command["id"], "start_session", args))
        self.players = args["players"]

    def state(self) -> dict:
        state = super().state()
        if self.players:
            for shown, seated in zip(state["players"], self.players, strict=True):
                shown.update(name=seated["name"], federation_id=seated["federation_id"])
        return state

    def due(self) -> float | None:
        """After its last hand, the time its referee signs the sheet."""
        due = super().due()
        if due is None and not self.signed:
            return self.t + self.offset + SIGN_SECONDS
        return due

    def commit_until(self, now: float) -> float | None:
        due = super().commit_until(now)
        last = not self.rows and not self.hands_left and not self.signed
        if last and due is not None and due <= now:
            self.signed = True
            self.t = due - self.offset
            sheet = tuple(row.to_json() for row in self.game.session.sheet)
            hand = sheet[-1]["number"] if sheet else 0
            head = self.journal.head
            self._record(ev.SheetSigned(self.t, None, hand, REFEREE, sheet, head))
            return None
        return due

    def _record(self, event: ev.Event) -> None:
        """A record journaled now (it holds nothing concealed), the uplink woken."""
        self.journal.record(event)
        stamp = time.monotonic()
        self.committed.extend([stamp] * (self.journal.seq + 1 - len(self.committed)))
        if self.uplink is not None:
            self.uplink.changed()
