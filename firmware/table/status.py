"""What the table's service is doing, as one read-only value taken at a moment of table time.

The desk, the console's and systemd's status line, `mjtable run`'s summary and simulated
panel, and the venue uplink read this snapshot; nobody reads or changes the service's parts
(they act through its write port, firmware/table/commands.py).
"""

from collections import Counter
from dataclasses import dataclass, field
from types import MappingProxyType

from engine import events as ev
from engine.session import Session
from engine.table import Table
from firmware.journal.failures import Stopped
from firmware.table.venue_notes import VenueNotes


@dataclass(frozen=True)
class ShufflerStatus:
    state: str
    set_in_play: str | None
    set_ready: str | None
    counts: tuple[int, ...]
    fault: str | None  # "what happened: what to do"

    def to_json(self) -> dict:
        return {
            "state": self.state,
            "set_in_play": self.set_in_play,
            "set_ready": self.set_ready,
            "counts": list(self.counts),
            "fault": self.fault,
        }


@dataclass
class TrackedHand:
    """What the tracking inferred in one hand (a voided hand and its redeal share a number):
    the moves it was sure of and the tiles it told the referee of, for `mjtable run`'s
    summary to weigh against the simulated truth. The next hand starts a new one: a session
    keeps one hand's, however long it runs (issue 20)."""

    number: int
    moves: Counter = field(default_factory=Counter)  # (tile, source, target) -> times
    flagged: set = field(default_factory=set)  # tiles

    def of(self, number: int) -> "TrackedHand":
        """This one if it is hand `number`'s, else a new one for that hand."""
        return self if self.number == number else TrackedHand(number)


@dataclass(frozen=True)
class Status:
    """`session` and `table` are the engine's own objects, for the display's documents, and
    `tracked` the service's own, not copies: read them on the loop's thread, before the
    actor takes its next item."""

    t: float  # table time of the snapshot
    ruleset: str
    hand_number: int  # of the hand in play, or of the last one played
    state: str  # the hand's state (engine/table.py), or "between_hands"
    in_play: bool
    scores: tuple[int, ...]  # the session's, by player
    session: Session
    table: Table | None  # None before the first hand and after a void
    dice_source: str  # "physical" or "electronic"
    faults: tuple[
        ev.Fault, ...
    ]  # the latest faults and clearings, in order (firmware/table/faults.py)
    fault_records: int  # faults and clearings this session (the journal holds them all)
    fault_kinds: MappingProxyType  # faults told this session, by kind
    shuffler: ShufflerStatus
    readers_online: MappingProxyType  # device path -> online
    heartbeats: MappingProxyType  # device path -> the latest heartbeat seen from it
    walls_ready: bool  # the stacker read the built walls: they can rise
    counts: MappingProxyType  # hands, events, alerts, overtime (and voided) so far
    last_tick: float  # when the actor last took a tick: the watchdog's sign of life
    tracked: TrackedHand  # what the tracking inferred in the latest hand it followed
    transient_absences: int  # reads the tracking filtered out (a tile missed one sweep)
    transient_sightings: int  # and ghost reads
    not_refereeing: Stopped | None  # why the table stopped refereeing (firmware/table/storage.py)
    # a hand taken up after a power cut: since when, how long (resume.py Interruption.to_json)
    interruption: dict | None = None
    displaced: tuple[dict, ...] = ()  # its tiles not where the hand has them (referee only)
    venue: VenueNotes = field(default_factory=VenueNotes)  # what the venue asked it to show
    # the sitting's time left (CCM: the game's, firmware/table/game_clock.py); None: no limit
    time_left: float | None = None
    next_session: str | None = (
        None  # begun at the desk (firmware/table/sessions.py): it stops for it
    )
    fully_read: bool = False  # every zone read since the hand was taken up: `displaced` holds
    seal: dict = field(default_factory=dict)  # the walls' seals (firmware/table/walls.py)
    game_clock: dict | None = None  # the game's time, where games have it (game_clock.py)
    voided: dict | None = None  # {"hand", "reason"}: voided, the next hand not yet dealt
    set_in_play: str | None = None  # the tile set on the table, or last pushed into the machine
    deal_begun: bool = False  # the players have begun taking the deal (engine/deal_order.py)

    def line(self) -> str:
        """One line for `systemctl status`."""
        if self.not_refereeing is not None:
            return self.not_refereeing.line()
        if not self.in_play:
            return f"between hands ({self.hand_number} played); shuffler {self.shuffler.state}"
        return f"hand {self.hand_number}: {self.state.replace('_', ' ')}"
