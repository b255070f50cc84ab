"""What the venue keeps of each table beyond its dashboard (issue 35): the anchors (every seal
and signed head received, firmware/venue/anchors.py), the key pins (firmware/venue/pins.py) and
the count of walls unraised and hands voided (firmware/venue/rebuilds.py). The board feeds it
the statuses and rows it takes; what it returns are alarms for the organiser's dashboard.
"""

import time
from collections.abc import Callable
from pathlib import Path

from firmware.venue.anchors import Anchors, open_records
from firmware.venue.pins import KeyPins
from firmware.venue.rebuilds import Rebuilds


class VenueRecords:
    """The records in the file `path` (":memory:": none kept on disk), the organiser's
    `enrolment` (table -> key fingerprint, firmware/venue/pins.py) pinned at the start."""

    def __init__(
        self,
        path: str | Path = ":memory:",
        clock: Callable[[], float] = time.time,
        enrolment: dict[str, str] | None = None,
    ):
        self.conn = open_records(path)
        self.anchors = Anchors(self.conn, clock)
        self.pins = KeyPins(self.conn, clock)
        self.rebuilds = Rebuilds()
        if enrolment:
            self.pins.enrol(enrolment)

    def status(self, table: str, session: str, body: dict) -> list[str]:
        """A table's status in `session`: its key fingerprint seen (the alarm if not the
        pinned one)."""
        key = body.get("key_fingerprint")
        alarm = self.pins.seen(table, key, session) if isinstance(key, str) and key else None
        return [alarm] if alarm else []

    def row(self, table: str, session: str, row: dict) -> list[str]:
        """A journal row: anchored if a seal or a signed head, counted; the alarms it raises."""
        self.anchors.row(table, session, row)
        alarms = [self.rebuilds.row(table, session, row)]
        if row["event"].get("type") == "HeadSigned":
            alarms.append(self.pins.head(table, row["event"], session))
        return [alarm for alarm in alarms if alarm]

    def summary(self) -> dict:
        """Per table: the anchors kept and the session's walls unraised and hands voided."""
        counts, anchors = self.rebuilds.summary(), self.anchors.counts()
        return {name: {"anchors": anchors.get(name, 0), **counts.get(name, {})} for name in counts}

    def close(self) -> None:
        self.conn.close()


def venue_alert(key: str, session: str, seq: int, side, text: str, received: float) -> dict:
    """An alert the venue raises itself, as the board keeps a table's: a fault (id 0: a table
    numbers its own from 1), shown on the organiser's grid until acknowledged."""
    return {
        "session": session,
        "seq": seq,
        "kind": "fault",
        "id": 0,
        "of": "fault",
        "seat": side,
        "text": text,
        "t": None,
        "key": key,
        "received": received,
        "acknowledged": None,
    }
