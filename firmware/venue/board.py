"""What the venue knows of each table, from the bus (docs/uplink.md): its latest state and
status (both retained, so a venue that starts late still sees every table at once), its
journal rows by session in seq order, a row seen twice dropped and a row never seen counted
as a gap, its signed score sheets and the latest score sheet it published, the alerts that
wait for a referee and its latest rulings.

The model takes messages and nothing else: the MQTT client (venue_bus.py), an in-process
fleet or a test feed it alike. Memory stays bounded whatever a table sends: a session keeps
its seqs as runs and only its latest rows, a table its latest sessions and alerts.
"""

import logging
import time
from collections import OrderedDict
from collections.abc import Callable

from engine.seats import LETTERS
from firmware.bus.contract import RULING_KINDS
from firmware.venue.fairness import VenueFairness
from firmware.venue.messages import Malformed, Message, parse
from firmware.venue.records import VenueRecords, venue_alert
from firmware.venue.ruling_alerts import alert_key, follow, is_over, reopen, waiting_ruling
from firmware.venue.sessions import SessionLog

log = logging.getLogger("mjtable.venue")

SESSIONS_KEPT = 8  # per table: a day's sessions
ALERTS_KEPT = 100  # per table, the oldest forgotten first
RULINGS_KEPT = 50  # per table: the referee's latest rulings and revocations
MAX_TABLES = 2000  # a hall holds 500: more names are a stranger's flood
MALFORMED_LOGGED = 100  # each logged up to this many, then one line per thousand


class TableBoard:
    """One table as the venue sees it."""

    def __init__(self, name: str):
        self.name = name
        self.state: dict | None = None
        self.state_received = 0.0  # the venue's wall clock when the state came
        self.status: str | None = None
        self.identity: dict = {}  # the latest status taken: its birth, firmware, ...
        self.sessions: OrderedDict[str, SessionLog] = OrderedDict()
        self.alerts: OrderedDict[str, dict] = OrderedDict()  # key -> alert, see alert_key
        self.alert_seqs: OrderedDict[str, int] = OrderedDict()  # key -> latest seq taken
        self.rulings: OrderedDict[str, dict] = OrderedDict()  # "ruled:<seq>" -> the alert
        self.hand_seq = 0  # the current session's latest hand row (firmware/venue/ruling_alerts)
        self.hand: int | None = None  # its number
        self.ruled_hand: int | None = None  # the hand the latest input rules on
        self.round_start: tuple[str | None, int, list] = (None, 0, [])  # event.py's Mark
        self.version = 0

    @property
    def session(self) -> str | None:
        """The session the table is on: its state's, else the latest one heard of."""
        if self.state:
            return self.state["session"]
        return next(reversed(self.sessions), None)

    def log(self, session: str) -> SessionLog:
        if session not in self.sessions:
            self.sessions[session] = SessionLog()
            if len(self.sessions) > SESSIONS_KEPT:
                self.sessions.popitem(last=False)
        return self.sessions[session]

    @property
    def sheet(self) -> dict | None:
        """The latest signed score sheet of the current session."""
        current = self.sessions.get(self.session or "")
        return current.sheet if current else None

    @property
    def score_sheet(self) -> dict | None:
        """The latest score sheet the current session published ({"seq", "sheet"})."""
        current = self.sessions.get(self.session or "")
        return current.score_sheet if current else None

    def waiting(self) -> list[dict]:
        """The current session's alerts that no one has acknowledged yet."""
        return [a for a in self.alerts.values() if a["acknowledged"] is None]


class VenueBoard:
    """Every table of `venue`, fed message by message (`take`)."""

    def __init__(self, venue: str, clock: Callable[[], float] = time.time, records=None):
        """`records`: a VenueRecords, the anchors and key pins (None: kept in memory)."""
        self.venue, self.clock = venue, clock
        self.records = records or VenueRecords(clock=clock)
        self.tables: dict[str, TableBoard] = {}
        self.version = 0  # goes up with every change: the streams send what changed since
        self.connected = False
        self.fairness = VenueFairness()  # the venue's own watch of every table's walls
        self._counts = dict.fromkeys(
            ("messages", "duplicates", "gaps", "malformed", "events", "alerts", "connections"), 0
        )

    def counts(self) -> dict:
        """{"messages", "duplicates", "gaps", "malformed", "events", "alerts", "connections",
        "tables", "fairness", "records"}: gaps are the seqs missing now, the others totals since
        the start; "fairness" and "records" per table (the venue's own watch, records.py)."""
        watch = {"fairness": self.fairness.summary(), "records": self.records.summary()}
        return {**self._counts, "tables": len(self.tables), **watch}

    def connection(self, connected: bool) -> None:
        """The bus's client (dis)connected: the dashboard says so."""
        self.connected = connected
        self._counts["connections"] += connected
        self.version += 1

    def take(self, topic: str, payload: bytes | str) -> bool:
        """One message from the bus; True when it changed the board. A malformed one is
        counted and logged, never raised."""
        self._counts["messages"] += 1
        try:
            message = parse(topic, payload, self.venue)
            return message is not None and self._apply(message)
        except Malformed as err:
            self._malformed(str(err))
            return False

    def _malformed(self, why: str) -> None:
        self._counts["malformed"] += 1
        count = self._counts["malformed"]
        if count <= MALFORMED_LOGGED or count % 1000 == 0:
            log.warning("venue %s: malformed message #%d: %s", self.venue, count, why)

    def _apply(self, message: Message) -> bool:
        table = self.tables.get(message.table)
        if table is None:
            if len(self.tables) >= MAX_TABLES:
                raise Malformed(f"table {message.table[:40]!r}: over {MAX_TABLES} tables")
            table = self.tables[message.table] = TableBoard(message.table)
        changed = getattr(self, f"_{message.leaf}")(table, message.body)
        if changed:
            self.version += 1
            table.version = self.version
        return changed

    def _state(self, table: TableBoard, state: dict) -> bool:
        known = table.state
        if known and known["session"] == state["session"] and state["seq"] < known["seq"]:
            return False  # an older state sent again after a newer one
        if known and known["session"] != state["session"]:
            table.alerts.clear()  # a new session: the last one's calls are over
            table.rulings.clear()
            table.hand_seq = 0
        table.state, table.state_received = state, self.clock()
        table.log(state["session"])
        return True

    def _status(self, table: TableBoard, body: dict) -> bool:
        """A status older than the birth taken is a stale one (a last will the broker sent
        after the table had come back): ignored, so it never says offline over online."""
        birth, known = body["birth"], table.identity.get("birth")
        if birth is not None and known is not None and birth < known:
            return False
        table.status, table.identity = body["status"], body
        for text in self.records.status(table.name, table.session or "", body):
            self._venue_alert(table, table.session or "", 0, None, text, "key")
        return True

    def _events(self, table: TableBoard, body: dict) -> bool:
        new = [self._row(table, body["session"], row) for row in body["rows"]]
        return any(new)

    def _row(self, table: TableBoard, session_id: str, row: dict) -> bool:
        """One journal row of an `events` message: False for one held already."""
        session = table.log(session_id)
        before = session.seqs.missing
        runs = session.seqs.runs
        late = bool(runs) and row["seq"] < runs[-1][1]  # a gap filled (resend): its sequels came
        if not session.seqs.add(row["seq"]):
            self._counts["duplicates"] += 1
            return False
        self._counts["gaps"] += session.seqs.missing - before
        self._counts["events"] += 1
        session.add(row)
        for text in self.records.row(table.name, session_id, row):
            self._venue_alert(table, session_id, row["seq"], None, text, "records")
        if late:  # the rulings and the walls follow rows in order: theirs went on without it
            return True
        if session_id == table.session:
            follow(table, row)
        for side, text in self.fairness.row(table.name, row):
            self._venue_alert(table, session_id, row["seq"], side, text)
        return True

    def _venue_alert(self, table, session: str, seq: int, side, text: str, what="walls") -> None:
        """An alert the venue raises itself (its check of the table's walls, its key, its
        rebuilds): a fault on the organiser's grid, keyed apart from the table's own (id 0: a
        table numbers from 1)."""
        key = f"venue:{seq}:{what if side is None else LETTERS[side]}"
        table.alerts[key] = venue_alert(key, session, seq, side, text, self.clock())
        if len(table.alerts) > ALERTS_KEPT:
            table.alerts.popitem(last=False)

    def _sheet(self, table: TableBoard, body: dict) -> bool:
        """The table's score sheet: the latest by seq of its session."""
        session = table.log(body["session"])
        if session.score_sheet is not None and session.score_sheet["seq"] > body["seq"]:
            return False  # an older one, after a newer
        session.score_sheet = {"seq": body["seq"], "sheet": body["sheet"]}
        return True

    def _ruling(self, table: TableBoard, alert: dict) -> bool:
        """A ruling (`ruled`), a revocation (`revoked`) or a waive undone (`reopened`): kept
        among the table's latest; a ruling closes the alert that waited for it, if of its
        hand; a waive undone opens it again."""
        key = f"{alert['kind']}:{alert['seq']}"
        if key in table.rulings:
            return False  # sent again
        self._counts["alerts"] += 1
        table.rulings[key] = {**alert, "key": key, "received": self.clock()}
        if len(table.rulings) > RULINGS_KEPT:
            table.rulings.popitem(last=False)
        if alert["kind"] == "reopened" and reopen(table, alert, self.clock()):
            self._keep_alerts(table)
            return True
        waited = alert_key("ruling", alert["id"], alert["hand"])
        after = table.hand_seq if alert["hand"] is None else 0  # not named: the hand on it
        seq = table.alerts[waited]["seq"] if waited in table.alerts else None
        if alert["kind"] == "ruled" and seq is not None and after < seq < alert["seq"]:
            del table.alerts[waited]
        return True

    def _alerts(self, table: TableBoard, alert: dict) -> bool:
        if table.session not in (None, alert["session"]):
            return False  # a session over
        kind = alert["kind"]
        if kind in RULING_KINDS:
            return self._ruling(table, alert)
        if kind == "acknowledged" and alert["of"] == "ruling":
            key = waiting_ruling(table, alert["id"])
        elif kind == "acknowledged" and alert["of"] is not None:
            key = alert_key(alert["of"], alert["id"])
        elif kind == "acknowledged":  # a table that does not say which (before "of")
            key = self._acknowledged(table, alert["id"])
        else:
            key = alert_key(kind, alert["id"], alert["hand"])
        if table.alert_seqs.get(key, -1) >= alert["seq"]:
            return False  # sent again, or older than what the table said since
        if kind == "ruling" and is_over(table, alert):
            return False  # its hand can no longer be ruled on
        table.alert_seqs[key] = alert["seq"]
        table.alert_seqs.move_to_end(key)
        if len(table.alert_seqs) > 4 * ALERTS_KEPT:
            table.alert_seqs.popitem(last=False)
        self._counts["alerts"] += 1
        if kind == "cleared":
            return table.alerts.pop(key, None) is not None
        if kind == "acknowledged":
            known = table.alerts.get(key)
            if known is None:
                return False
            sent = known["acknowledged"] or {"referee": None, "at": self.clock()}
            known["acknowledged"] = sent | {"confirmed": True, "text": alert["text"]}
            return True
        table.alerts[key] = {**alert, "key": key, "received": self.clock(), "acknowledged": None}
        self._keep_alerts(table)
        return True

    @staticmethod
    def _keep_alerts(table: TableBoard) -> None:
        if len(table.alerts) > ALERTS_KEPT:
            table.alerts.popitem(last=False)

    @staticmethod
    def _acknowledged(table: TableBoard, number: int) -> str:
        """The alert an `acknowledged` means: the bus names only its id, which a fault and a
        ruling may share; the one not yet confirmed, a fault first."""
        keys = [
            k
            for k in (alert_key("fault", number), waiting_ruling(table, number))
            if k in table.alerts
        ]
        for key in keys:
            if not (table.alerts[key]["acknowledged"] or {}).get("confirmed"):
                return key
        return keys[0] if keys else alert_key("fault", number)

    def acknowledge(self, table: str, key: str, referee: str) -> dict:
        """The venue sent a referee's "on my way" for the alert `key`: shown at once, and
        confirmed when the table says it has taken it."""
        alert = self.tables[table].alerts[key]
        alert["acknowledged"] = {"referee": referee, "at": self.clock(), "confirmed": False}
        self.version += 1
        self.tables[table].version = self.version
        return alert
