"""The fault board: what the table's devices and its tile tracking need a person for.

A lasting fault (a jam, a reader offline, a missing tile) stays open until its device says
it is over; a transient one (a bad roll, a call for the referee) is told once. Every fault
and every clearing is a `Fault` record with an id for the referee's acknowledgement,
journaled beside the hand, told on the console and published to the display. The board
keeps the open faults and the latest records, not the session's: a hall's table runs for
days, and the journal holds them all (issue 20).
"""

from collections import Counter, deque

from engine import events as ev

RECENT = 100  # records kept for the display, more than the desk shows (firmware/desk/desk.py)


class FaultBoard:
    """`out(line)` prints a console line; `publish(events)` fans the records out."""

    def __init__(self, journal, out, publish):
        self.journal, self.out, self.publish = journal, out, publish
        self.recent: deque[ev.Fault] = deque(maxlen=RECENT)  # the latest records, in order
        self.records = 0  # faults and clearings this session: the last record's number
        self.kinds: Counter[str] = Counter()  # faults told this session, by kind
        self.open: dict[tuple[str, str], ev.Fault] = {}  # lasting faults by (device, key)

    def report(
        self, t, device, kind, message, advice, tile=None, transient=False, key=None, seat=None
    ) -> None:
        """Tell the referee; a lasting fault stays open until `clear` ends it (`key` tells
        apart lasting faults of one kind, e.g. each missing tile); `seat`: the player's it
        is, when it is one player's (his call for the referee)."""
        key = (device, key or kind)
        if not transient and key in self.open:
            return
        record = ev.Fault(t, seat, device, kind, message, advice, self.records + 1, False, tile)
        self._keep(record)
        self.kinds[kind] += 1
        if not transient:
            self.open[key] = record
        self.out(f"{t:9.1f}  FAULT {device} {kind}: {message} -> {advice}")
        self.publish([record])

    def clear(self, t, device, kind, key=None) -> None:
        """The lasting fault is over (nothing happens if it is not open)."""
        record = self.open.pop((device, key or kind), None)
        if record is None:
            return
        cleared = ev.Fault(t, None, device, kind, f"cleared: {record.message}", "", record.id, True)
        self._keep(cleared)
        self.out(f"{t:9.1f}  cleared {device} {kind}")
        self.publish([cleared])

    def clear_device(self, t, device, kind) -> None:
        """Every lasting fault of `device` is over (the tracking's, when the tiles go back)."""
        for _, key in [k for k in self.open if k[0] == device]:
            self.clear(t, device, kind, key=key)

    def _keep(self, record: ev.Fault) -> None:
        self.records += 1
        self.recent.append(record)
        self.journal.record(record)
