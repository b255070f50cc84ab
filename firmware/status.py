"""What the table's service is doing, as one read-only value taken at a moment of table time.

The desk, the console's and systemd's status line, `mjtable run`'s summary and simulated
panel, and the venue uplink read this snapshot; nobody reads or changes the service's parts.
"""

from dataclasses import dataclass
from types import MappingProxyType

from engine import events as ev
from engine.session import Session
from engine.table import Table


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


@dataclass(frozen=True)
class Status:
    """`session` and `table` are the engine's own objects, for the display's documents:
    read them on the loop's thread, before the actor takes its next item."""

    t: float  # table time of the snapshot
    ruleset: str
    hand_number: int  # of the hand in play, or of the last one played
    state: str  # the hand's state (engine/table.py), or "between_hands"
    in_play: bool
    scores: tuple[int, ...]  # the session's, by player
    session: Session
    table: Table | None  # None before the first hand and after a void
    dice_source: str  # "physical" or "electronic"
    faults: tuple[ev.Fault, ...]  # every fault and clearing, in order
    shuffler: ShufflerStatus
    readers_online: MappingProxyType  # device path -> online
    heartbeats: MappingProxyType  # device path -> the latest heartbeat seen from it
    walls_ready: bool  # the stacker read the built walls: they can rise
    counts: MappingProxyType  # hands, events, alerts, overtime (and voided) so far
    last_tick: float  # when the actor last took a tick: the watchdog's sign of life
    inferred: tuple  # (hand number, Move) the tracking inferred
    flagged_tiles: frozenset  # (hand number, tile) the referee was told of
    transient_absences: int  # reads the tracking filtered out (a tile missed one sweep)
    transient_sightings: int  # and ghost reads

    def line(self) -> str:
        """One line for `systemctl status`."""
        if not self.in_play:
            return f"between hands ({self.hand_number} played); shuffler {self.shuffler.state}"
        return f"hand {self.hand_number}: {self.state.replace('_', ' ')}"
