"""A table of venue "hall" taking the venue's signed commands (issue 15; docs/uplink.md): the
venue's key pair (tests/support/venuekeys.py), the table's wall clock, four players, a command
as the venue sends it (`command`), and a WSOM table on a fake clock with its shuffler and what
it printed (`Hall`)."""

import json
import random
from itertools import count

from drivers.reader_frames import Stacked
from drivers.shuffler import WallsRaised, WallsReady
from engine import events as ev
from engine import tiles
from engine.wall import wsom_break
from firmware.bus.signing import sign
from firmware.journal.store import Journal
from firmware.resources import load_ruleset
from firmware.table.actor import Actor, Tick
from firmware.table.profile import load_profile
from firmware.table.service import Service
from firmware.table.walls import STACKER_WAIT
from firmware.uplink.commands import VenueCommands
from firmware.uplink.messages import AlertBoard, status_state
from tests.support.servicekit import Clock, StillShuffler, play_out
from tests.support.venuekeys import VENUE_KEY, VENUE_PUBLIC

KEY, PUBLIC = VENUE_KEY, VENUE_PUBLIC  # the venue signs with KEY, the table checks with PUBLIC


WALL = 1_750_000_000.0  # the table's wall clock, Unix seconds


PLAYERS = [
    {"name": "Li Wei", "federation_id": "CN-0042"},
    {"name": "Ana Souza", "federation_id": None},
    {"name": "山田 花子", "federation_id": "JP-7"},
    {"name": "Tom Berg", "federation_id": "SE-19"},
]


_ids = count(1)


def command(name: str, args: dict | None = None, key=KEY, **fields) -> dict:
    """A command as the venue sends it, signed with `key` once `fields` are set."""
    unsigned = {
        "v": 1,
        "id": f"cmd-{next(_ids)}",
        "issued": WALL - 2,
        "venue": "hall",
        "table": "T07",
        "command": name,
        "args": {} if args is None else args,
    }
    return sign(unsigned | fields, key)


class Lift(StillShuffler):
    """A shuffler standing ready that notes when it is told to raise the walls."""

    def __init__(self) -> None:
        self.raised: list[float] = []

    def raise_walls(self, t: float) -> None:
        self.raised.append(t)


class Hall:
    """A WSOM table of venue "hall" (its first hand dealt, East to discard) on a fake clock:
    the service, its venue commands, its shuffler and what it printed."""

    def __init__(self, journal: Journal, clock: Clock):
        self.clock, self.lift, self.printed = clock, Lift(), []
        profile, ruleset = load_profile("sim"), load_ruleset("wsom2006")
        self.service = Service(
            profile, ruleset, journal, Actor(clock), self.lift, out=self.printed.append
        )
        self.commands = VenueCommands(self.service, PUBLIC, "hall", "T07", wall_clock=lambda: WALL)
        self.walls_ready("A")
        self.walls_up("A")
        self.roll()

    def send(self, name: str, args: dict | None = None) -> None:
        self.commands.receive(self.clock.t, json.dumps(command(name, args)).encode())

    def handle(self, record) -> None:
        self.service.handle(self.clock.t, record)

    def walls_ready(self, tile_set: str) -> None:
        """The machine has built walls of `tile_set`, the stacker read them, they are judged."""
        tag = {owner: tag for tag, owner in self.service.profile.tags.items()}
        order = tiles.physical_set(False)
        random.Random(5).shuffle(order)
        for position, tile in enumerate(order):
            self.handle(Stacked(position, tag[(tile_set, tile)]))
        self.handle(WallsReady(self.clock.t, tile_set, (34, 34, 34, 34), 60.0))
        self.clock.t += STACKER_WAIT
        self.handle(Tick())
        assert self.service.status().walls_ready

    def walls_up(self, tile_set: str) -> None:
        self.handle(WallsRaised(self.clock.t, tile_set))

    def roll(self) -> None:
        """RULES.md 3.4: East's roll, then the counted seat's."""
        hands = self.service.hands
        hands.apply(ev.DiceRolled(self.clock.t, 0, (3, 4)))
        hands.apply(ev.DiceRolled(self.clock.t, wsom_break(7, 2).seat, (2, 5)))

    def press_raise(self) -> None:
        """The dealer presses raise (the dice button between hands)."""
        self.service.hands.button(self.clock.t, 0, "dice")

    def play_out(self) -> None:
        play_out(self.service.hands, self.clock.t)

    def left(self) -> float | None:
        """The time left the venue is told (the uplink's state)."""
        return status_state(self.service.status(), AlertBoard())["session_seconds_left"]

    def faults(self, kind: str) -> list[ev.Fault]:
        return [f for f in self.service.status().faults if (f.device, f.kind) == ("table", kind)]


def journaled(journal, type_: str) -> list[dict]:
    return [row.data() for row in journal.rows() if row.data().get("type") == type_]
