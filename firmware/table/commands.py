"""The table's write port (issue 29): the one way the desk (firmware/desk/), the venue's
commands (firmware/uplink/commands.py), the simulated panel (firmware/run/simulated.py) and the
shuffle watch (firmware/audit/shuffle_watch.py) act on the table.

Nobody outside firmware/table/ writes the service's parts (its hands, journal, venue notes,
fault board, listeners): they call these named methods, and read the table through its
status (firmware/table/status.py). Every method is carried out on the actor's turn: a caller
off it submits an action (`submit`) and calls them from there, as the desk does each referee
action; a listener is called on the turn already. tests/test_layout.py holds the rule.
"""

import asyncio
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path

from engine import events as ev
from firmware.table import late
from firmware.table.venue_notes import VenueNotes


class TableCommands:
    """The write port of `service` (firmware/table/service.py)."""

    def __init__(self, service):
        self._service = service

    def submit(self, action: Callable[[float], object]) -> asyncio.Future:
        """Queue `action(t)`, stamped now, to be carried out on the actor's turn."""
        return self._service.actor.submit(action)

    # -- the hand ----------------------------------------------------------------------------

    def apply(self, event: ev.Event) -> list[ev.Event]:
        """An input to the hand in play: journaled, applied, its outputs shown and returned."""
        return self._service.hands.apply(event)

    def apply_late(self, event: late.LateInput) -> list[ev.Event] | str:
        """A ruling on the hand before, the next one dealt (issue 36): its outputs, or why
        it cannot be (firmware/table/late.py)."""
        return late.apply_late(self._service.hands, event)

    def last_hand(self):
        """The last hand on the sheet, (number, table), while it can still be ruled on."""
        return late.last_hand(self._service.hands)

    def void(self, t: float, reason: str) -> int | None:
        """Void the hand in play (its number), or None when none is."""
        return self._service.hands.void(t, reason)

    def correct(self, t: float, tile: int, zone: str) -> ev.TrackingCorrected:
        """The referee says where a tile lies (TrackingError for a tile not in play)."""
        return self._service.hands.correct(t, tile, zone)

    def accept_table(self, t: float) -> list[ev.Event] | None:
        """The hand goes on from the table as it lies (None: no hand in play)."""
        return self._service.hands.accept_table(t)

    def change_seats(self, change: ev.SeatsChanged, line: str) -> None:
        """The seats for the next game (seed 004 換位): journaled, taken, said and shown."""
        self._service.journal.record(change)
        self._service.hands.session.seating = list(change.seating)
        self._say(change.t, line)
        self._service.publish([change])

    # -- records -----------------------------------------------------------------------------

    def journal(self, record: ev.Event) -> None:
        """Journal `record` (committed) and show nothing yet: the caller publishes once its
        change is whole, or never (who did an action, RefereeActed)."""
        self._service.journal.record(record)

    def record(self, record: ev.Event, shown: bool = False, line: str | None = None) -> None:
        """Journal `record`, say `line` on the console, and refresh every screen and the
        uplink: with `record` among the events if `shown` (the views' logs)."""
        self.journal(record)
        if line is not None:
            self._say(record.t, line)
        self.publish([record] if shown else [])

    def publish(self, events: Iterable[ev.Event] = ()) -> None:
        """Refresh every listener: with `events`, or with none (a change of the desk's own)."""
        self._service.publish(list(events))

    def report_fault(self, t: float, device: str, kind: str, message: str, advice: str, **how):
        """A fault on the referee's board (firmware/table/faults.py's `report`)."""
        self._service.faults.report(t, device, kind, message, advice, **how)

    def _say(self, t: float, line: str) -> None:
        self._service.out(f"{t:9.1f}  {line}")

    # -- what the venue and the desk note ------------------------------------------------------

    def note_venue(self, change: Callable[[VenueNotes], VenueNotes]) -> None:
        """The venue notes become `change(notes)`: the only writer of them outside a restart."""
        self._service.venue = change(self._service.venue)

    def hall_held(self, t: float) -> bool:
        """The venue's pause, or the break between games (issue 13), holds the table at `t`."""
        game = self._service.sitting.game
        return self._service.venue.paused or (game is not None and game.break_left(t) is not None)

    def lift_hall(self, t: float) -> ev.HallResumed:
        """The table's referee lifts the venue's pause and the break: a HallResumed record."""
        self.note_venue(lambda notes: replace(notes, paused=False))
        if self._service.sitting.game is not None:
            self._service.sitting.game.lift()
        lifted = ev.HallResumed(t, None)
        self.record(lifted)
        return lifted

    # -- the session ---------------------------------------------------------------------------

    def begin_next_session(self, t: float, path: Path) -> None:
        """The next session is begun (firmware/table/sessions.py): the service stops for it."""
        self._say(t, f"session over; the next, {path.name}, begins when the table restarts")
        self._service.next_session = path
        self._service.actor.done.set()

    def on_signature(self, callback: Callable[[float, int], bool]) -> None:
        """A side's 和 button between hands goes to `callback(t, side)` first (the players'
        signatures, issue 16): True if it took the press."""
        self._service.hands.signing = callback

    def subscribe(self, listener: Callable[[list], None], before_outputs: bool = False) -> None:
        """`listener(events)` is called with each publication, on the actor's turn. Those
        `before_outputs` (a change of the table's own notes) run before the others, which
        show and send the table (the display, the uplink) and so must read it changed."""
        self._service.subscribe(listener, before_outputs)

    # -- the journal, read -------------------------------------------------------------------

    @property
    def journal_path(self) -> str:
        return self._service.journal.path

    @property
    def head(self) -> str:
        """The journal's head: what a signature signs."""
        return self._service.journal.head

    @property
    def seq(self) -> int:
        """The journal's last row: whether an action journaled anything."""
        return self._service.journal.seq

    def rows(self):
        """The journal's rows, in order (firmware/journal/store.py `Journal.rows`)."""
        return self._service.journal.rows()

    def layout(self) -> dict[int, str]:
        """Where the tracking has each tile of the hand in play now."""
        return self._service.hands.tracker.layout()
