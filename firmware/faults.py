"""The fault board: what the table's devices and its tile tracking need a person for.

A lasting fault (a jam, a reader offline, a missing tile) stays open until its device says
it is over; a transient one (a bad roll, a call for the referee) is told once. Every fault
and every clearing is a `Fault` record with an id for the referee's acknowledgement,
journaled beside the hand, told on the console and published to the display.
"""

from engine import events as ev


class FaultBoard:
    """`out(line)` prints a console line; `publish(events)` fans the records out."""

    def __init__(self, journal, out, publish):
        self.journal, self.out, self.publish = journal, out, publish
        self.history: list[ev.Fault] = []  # every fault and clearing, in order
        self.open: dict[tuple[str, str], ev.Fault] = {}  # lasting faults by (device, key)

    def report(
        self, t, device, kind, message, advice, tile=None, transient=False, key=None
    ) -> None:
        """Tell the referee; a lasting fault stays open until `clear` ends it (`key` tells
        apart lasting faults of one kind, e.g. each missing tile)."""
        key = (device, key or kind)
        if not transient and key in self.open:
            return
        record = ev.Fault(
            t, None, device, kind, message, advice, len(self.history) + 1, False, tile
        )
        self.history.append(record)
        if not transient:
            self.open[key] = record
        self.journal.record(record)
        self.out(f"{t:9.1f}  FAULT {device} {kind}: {message} -> {advice}")
        self.publish([record])

    def clear(self, t, device, kind, key=None) -> None:
        """The lasting fault is over (nothing happens if it is not open)."""
        record = self.open.pop((device, key or kind), None)
        if record is None:
            return
        cleared = ev.Fault(t, None, device, kind, f"cleared: {record.message}", "", record.id, True)
        self.history.append(cleared)
        self.journal.record(cleared)
        self.out(f"{t:9.1f}  cleared {device} {kind}")
        self.publish([cleared])

    def clear_device(self, t, device, kind) -> None:
        """Every lasting fault of `device` is over (the tracking's, when the tiles go back)."""
        for _, key in [k for k in self.open if k[0] == device]:
            self.clear(t, device, kind, key=key)
