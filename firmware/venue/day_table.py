"""A table of the simulated day (firmware/venue/day.py): a firmware/venue/demo.py FleetTable
that takes the venue's start_session, signed with the venue key, shows its players' names,
calls the floor referee now and then (firmware/venue/day_referee.py), and has its referee sign
the sheet after its last hand.

It plays no service, so what a real table's service journals around each hand
(firmware/table/hands.py, walls.py) it journals itself, with the same functions: the walls
sealed before the hand's row (their tags the simulated table's, firmware/table/tags.py
sim_tag), revealed at the hand's end, then the journal's head signed with its device key.
So `mjtable verify` checks its seals and signatures, and the venue anchors them, as a real
table's.
"""

import time

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from engine import events as ev
from firmware.bus.contract import COMMAND_BYTES, decode
from firmware.bus.signing import signed_by
from firmware.journal import header, signing
from firmware.journal.device_key import DeviceKey
from firmware.journal.seals import reveal, seal, wall_entries
from firmware.table.profile import load_profile
from firmware.table.tags import TILE_SETS, sim_tag
from firmware.venue.day_referee import DayGame
from firmware.venue.demo import FleetTable

SIGN_SECONDS = 30.0  # table time from a round's last hand to its referee's signature
REFEREE = "Floor referee (simulated)"
TILE_SET = TILE_SETS[0]  # the set in the machine: a simulated table plays one


class DayTable(FleetTable):
    """A simulated table of the day: it takes the venue's start_session (signed with `key`),
    seals its walls and signs its head with `device_key` as a real table does, and signs its
    sheet after its last hand."""

    def __init__(
        self,
        name,
        seed,
        ruleset,
        hands,
        folder,
        offset,
        key: Ed25519PublicKey,
        mistakes: float,
        device_key: DeviceKey,
    ):
        super().__init__(name, seed, ruleset, hands, folder, offset)
        self.game: DayGame = DayGame(ruleset, seed, mistakes, self)  # players who slip
        self.key, self.players, self.signed = key, None, False
        self.device_key = device_key
        self.sealed: ev.WallSealed | None = None  # the seal of the hand in play's walls
        # the signed header a table writes at its journal's start, its dice electronic (drawn
        # from each hand's seal: DayGame.roll), closed after the sheet's signature (issue 35)
        self.opened = header.open_session(
            self.journal,
            device_key,
            self.t,
            table=name,
            venue="",
            rules=header.rules_digest(ruleset.config),
            profile=load_profile("sim").path,
            dice="electronic",
        )
        self._stamp()

    @property
    def late_rulings(self) -> int:
        """Rulings the floor referee made after their hand had ended, applied."""
        return self.game.late

    @property
    def waives_undone(self) -> int:
        """The floor referee's waives he undid (firmware/venue/day_referee.py)."""
        return self.game.undone

    # -- the journal as the Game writes it, with a table's seals and signatures ----------------

    def hand(self, ruleset, hand_number, walls, t, *rest) -> None:
        """The walls sealed, then the hand's row (its tile set named, as a real table's, for
        `verify` to check them against the seal); the floor referee comes now for the hand
        before's call, the walls having risen."""
        dealer_side = self.game.session.player_at(0)  # walls[seat] lies on side dealer + seat
        lanes = [walls[(side - dealer_side) % 4] for side in range(4)]
        tags = {tile: sim_tag(TILE_SET, tile) for lane in lanes for tile in lane}
        self.sealed = seal(t, TILE_SET, wall_entries(lanes, tags))
        self.rows.append((t, "record", (self.sealed,), None))
        super().hand(ruleset, hand_number, walls, t, *rest, TILE_SET, self.name)
        self.game.arrive()

    def checkpoint(self) -> None:
        """The hand is over: its walls revealed, the hand into the journal's main file, the
        head signed (firmware/table/hands.py _settle); after the round's last hand, the
        floor referee's call is ruled now."""
        t = self._input_t
        if self.sealed is not None:
            self.rows.append((t, "record", (reveal(t, self.sealed),), None))
            self.sealed = None
        super().checkpoint()
        self.rows.append((t, "sign", (t, self.game.session.sheet[-1].number), None))
        if not self.hands_left:
            self.game.arrive()

    def _commit(self, method: str, args) -> None:
        if method == "sign":
            self.device_key.sign_journal(self.journal, *args)
        else:
            super()._commit(method, args)

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
            self.device_key.sign_journal(self.journal, self.t, hand, signing.RECORD)
            header.close_session(
                self.journal, self.device_key, self.t, hand, "hands done", self.opened
            )
            self._stamp()
            return None
        return due

    def _record(self, event: ev.Event) -> None:
        """A record journaled now (it holds nothing concealed), the uplink woken."""
        self.journal.record(event)
        self._stamp()
        if self.uplink is not None:
            self.uplink.changed()

    def _stamp(self) -> None:
        """The rows journaled so far stamped with their commit's time (the bench's latency)."""
        stamp = time.monotonic()
        self.committed.extend([stamp] * (self.journal.seq + 1 - len(self.committed)))
