"""The venue asks a table again for the journal rows it never got (issue 32 item 5;
docs/uplink.md, "The consumer's side"). A broker that crashes loses what it held for a venue
away, and the tables have moved their cursors past it: their journals still hold every row,
so the venue asks each table, in a signed `resend`, for the seqs it misses of the table's
current session, from its first row to the latest its state names. A venue started after its
tables so asks each for its session so far: the signed score sheets its standings rank by are
in those rows.

A gap is asked for once it has stood ASK_AFTER, the same first seq missing all along (the rows
in flight fill most, and a state names a row a moment before it comes), one command a
table for all its gaps (the rows between them come twice and are dropped by seq), at most
ROWS_AT_ONCE rows at a time and TABLES_AT_ONCE tables a round (a venue started in a full hall
paces its asks to what the broker drains, ~10 000 rows a second: README). A gap still open is
asked for again after ASK_AGAIN, the wait doubling up to ASK_MOST while nothing of it comes (a
table switched off, or one that refuses and tells its referee so), and back to ASK_AGAIN once
rows come.
"""

from dataclasses import dataclass

from firmware.venue.board import TableBoard, VenueBoard

ASK_AFTER = 2.0  # seconds a gap stands before the venue asks
ASK_AGAIN = 10.0  # seconds before asking again for a gap still open ...
ASK_MOST = 300.0  # ... doubling up to this while none of it comes
ROWS_AT_ONCE = 1000  # rows asked for in one command ...
TABLES_AT_ONCE = 10  # ... of at most this many tables a round (firmware/venue/bus.py's)


@dataclass
class _Asked:
    at: float
    after: int  # the first seq missing, less one, when asked
    wait: float


class Asks:
    """What to ask each table of a board for, and when (`due`)."""

    def __init__(self):
        self.since: dict[str, tuple[float, int]] = {}  # table -> (since, its first gap's after)
        self.asked: dict[str, _Asked] = {}

    def due(self, board: VenueBoard, now: float) -> list[tuple[str, dict]]:
        """The `resend` commands' (table, args) to send at `now`."""
        asks = []
        for name, table in board.tables.items():
            args = wanted(table)
            if args is None:
                self.since.pop(name, None)
                self.asked.pop(name, None)
                continue
            since, after = self.since.setdefault(name, (now, args["after"]))
            if after != args["after"]:  # another gap first: it stands from now
                self.since[name] = (now, args["after"])
                continue
            if now - since < ASK_AFTER or table.status == "offline":
                continue
            last = self.asked.get(name)
            if last is not None and now - last.at < last.wait:
                continue
            wait = ASK_AGAIN
            if last is not None and args["after"] <= last.after:  # nothing came of it
                wait = min(2 * last.wait, ASK_MOST)
            self.asked[name] = _Asked(now, args["after"], wait)
            asks.append((name, args))
            if len(asks) == TABLES_AT_ONCE:  # the others wait for the next round
                break
        return asks


def wanted(table: TableBoard) -> dict | None:
    """The `resend` arguments for the rows `table`'s current session misses, or None."""
    session = table.session
    if session is None:
        return None
    latest = table.state["seq"] if table.state and table.state["session"] == session else 0
    log = table.sessions.get(session)
    gaps = log.seqs.gaps(latest) if log is not None else [(0, latest)] if latest else []
    if not gaps:
        return None
    after = gaps[0][0]
    until = min(gaps[-1][1], after + ROWS_AT_ONCE)
    return {"session": session or None, "after": after, "until": until}
