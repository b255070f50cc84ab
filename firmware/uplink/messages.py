"""What a table says on the venue bus (docs/uplink.md), made from its journal's rows and its
status: pure functions, so that the uplink (firmware/uplink/client.py) and a fleet of simulated
tables say the same. Nothing here carries a concealed tile or the wall order: a row goes out
in the public's form (firmware/texts/public.py `public_event`), a hand row
without its walls, alerts in the public's words (firmware/texts/notices.py), and the state
holds no tile at all.
"""

from collections import OrderedDict

from engine import events as ev
from engine.seats import LETTERS as SEATS
from firmware.bus import contract
from firmware.bus.contract import Alert, Envelope, Events, State, message
from firmware.journal.chain import Row
from firmware.journal.schema import upgrade
from firmware.table.status import Status
from firmware.texts.notices import alert_text, fault_text
from firmware.texts.public import public_event

WAITING_KEPT = 100  # alerts a board keeps waiting: the oldest forgotten first


def public_row(row: Row) -> dict:
    """A journal row's data as the public may see it; {} for a row that cannot be read (it is
    published all the same, so that seqs have no holes)."""
    try:
        data = upgrade(row.data(), row.version)
    except ValueError:
        return {}
    if not isinstance(data, dict):
        return {}
    if row.kind == "hand":
        return {name: value for name, value in data.items() if name != "walls"}
    return public_event(data) if row.kind in ("input", "output", "device") else {}


def event_row(row: Row) -> dict:
    """One journal row as an `events` message carries it."""
    return {"seq": row.seq, "kind": row.kind, "event": public_row(row)}


def events_message(rows: list[dict], envelope: Envelope) -> dict:
    """The `events` message of consecutive journal rows (`event_row`s, in order): one
    message, one acknowledgement for the rows committed together, so that a hall's tables
    and its broker pass a message per move rather than one per row."""
    return message(envelope, Events(rows))


def alert_message(row: Row, envelope: Envelope, hand: int | None = None) -> dict | None:
    """The `alerts` payload of a row that is one, else None: a call for the referee, another
    fault, a fault cleared, an engine alert the referee must rule on (of `hand`, the hand on
    the table, if known), an acknowledgement (by the table's referee, or the venue's: a
    referee on the way)."""
    event = _event(row)
    number: int | None
    of: str | None
    if isinstance(event, ev.Fault):
        public = public_event(event.to_json())
        if event.cleared:
            kind = "cleared"
        elif (event.device, event.kind) == ("table", "referee"):
            kind = "call_referee"
        else:
            kind = "fault"
        number, of, text = event.id, "fault", fault_text(public)
    elif isinstance(event, ev.Alert) and event.needs_ruling:
        kind, number, of = "ruling", event.id, "ruling"
        text = alert_text(public_event(event.to_json()))
    elif isinstance(event, ev.Acknowledged):
        kind, text = "acknowledged", "the table's referee has seen it"
        number = event.fault if event.fault is not None else event.alert
        of = "fault" if event.fault is not None else "ruling"
    elif isinstance(event, ev.VenueCommand) and _venue_acknowledged(event):
        kind, text = "acknowledged", f"{event.args['referee']} is on the way"
        number, of = event.args["alert"], event.args.get("of")
    else:
        return None
    if number is None:  # an acknowledgement of nothing: no alert to close
        return None
    of_hand = hand if kind == "ruling" else None
    return message(envelope, Alert(row.seq, kind, number, of, event.seat, text, event.t, of_hand))


class AlertBoard:
    """The alerts that wait for a person, followed from the rows as they are published: a
    call for the referee or a fault until it is cleared or acknowledged, a ruling until it is
    ruled on (its `ruled` alert) or acknowledged, or its hand is over; a ruling whose waive
    was undone (its `reopened` alert) waits again."""

    def __init__(self) -> None:
        self.waiting: OrderedDict[tuple[str, int], str] = OrderedDict()  # (of, id) -> kind

    def follow(self, row: Row, alert: dict | None) -> None:
        """`alert` is the row's alert_message."""
        if row.kind == "hand":  # the engine numbers its alerts afresh each hand
            for key in [k for k in self.waiting if k[0] == "ruling"]:
                del self.waiting[key]
            return
        ruled = row.kind == "output" and any(f'"{c.__name__}"' in row.json for c in ev.RULED)
        event = _event(row) if alert is not None or ruled else None
        if isinstance(event, ev.RULED):
            self.waiting.pop(("ruling", event.alert), None)
        if alert is None:
            return
        kind, number = alert["kind"], alert["id"]
        if kind in ("ruled", "revoked"):  # ruled: its waiting ruling closed above
            return
        if kind in ("call_referee", "fault", "ruling", "reopened"):
            of = "ruling" if kind in ("ruling", "reopened") else "fault"
            self.waiting[(of, number)] = kind
            if len(self.waiting) > WAITING_KEPT:
                self.waiting.popitem(last=False)
        elif kind == "cleared":
            self.waiting.pop(("fault", number), None)
        elif isinstance(event, ev.Acknowledged):
            self.waiting.pop(("fault" if event.fault is not None else "ruling", number), None)
        else:  # the venue's: its id is a fault's or an alert's
            self.waiting.pop(("fault", number), None)
            self.waiting.pop(("ruling", number), None)

    @property
    def count(self) -> int:
        return len(self.waiting)

    @property
    def referee_called(self) -> bool:
        return "call_referee" in self.waiting.values()


def public_state(
    *,
    t: float,
    phase: str,
    ruleset: str,
    hand_number: int,
    round_wind: str,
    dealer: str,
    scores,
    players,
    session_seconds_left: float | None,
    alerts_waiting: int,
    referee_called: bool,
    venue_message: str | None,
    referee_on_way: dict | None,
    shuffler: str,
) -> dict:
    """The `state` payload's own part (state_message adds the rest). `phase` is one of
    docs/uplink.md's; `dealer` and `round_wind` are seat letters; `scores` four, by player;
    `players` the venue's seating (four {"name", "federation_id"} by player) or None;
    `referee_on_way` {"referee", "at"} or None; `shuffler` the shuffler's state
    (drivers/shuffler.py STATES)."""
    seating = players if players is not None else [{}] * 4
    return {
        "t": t,
        "phase": phase,
        "ruleset": ruleset,
        "hand_number": hand_number,
        "round_wind": round_wind,
        "dealer": dealer,
        "players": [
            {"seat": SEATS[i], "name": p.get("name"), "federation_id": p.get("federation_id")}
            for i, p in enumerate(seating)
        ],
        "scores": list(scores),
        "session_seconds_left": session_seconds_left,
        "alerts_waiting": alerts_waiting,
        "referee_called": referee_called,
        "venue_message": venue_message,
        "referee_on_way": None
        if referee_on_way is None
        else {"referee": referee_on_way["referee"], "at": referee_on_way["at"]},
        "shuffler": shuffler,
    }


def status_state(status: Status, alerts: AlertBoard) -> dict:
    """public_state from the service's status, with the alerts `alerts` has seen waiting."""
    session, notes = status.session, status.venue
    return public_state(
        t=status.t,
        phase=phase(status),
        ruleset=status.ruleset,
        hand_number=status.hand_number,
        round_wind=SEATS[session.passes // 4 % 4],  # four deals passed make a round
        dealer=SEATS[session.dealer],
        scores=status.scores,
        players=notes.players,
        session_seconds_left=status.time_left,
        alerts_waiting=alerts.count,
        referee_called=alerts.referee_called,
        venue_message=notes.message,
        referee_on_way=notes.referee_on_way,
        shuffler=status.shuffler.state,
    )


def phase(status: Status) -> str:
    """What the table is doing, in the bus's words: a device at fault (the shuffler stopped,
    a reader offline) before the clocks paused (a power cut's resume, or the venue's pause)."""
    table = status.table
    if status.not_refereeing is not None:
        return "not_refereeing"
    if status.shuffler.fault is not None or not all(status.readers_online.values()):
        return "fault"
    clocks_paused = table is not None and not table.ended and table.clocks.paused_at is not None
    if status.venue.paused or status.interruption is not None or clocks_paused:
        return "paused"
    return "playing" if status.in_play else "between_hands"


def state_message(state: dict, envelope: Envelope, seq: int, at: float) -> dict:
    """The `state` message: the public state (public_state) as of journal row `seq`, at wall
    `at`."""
    return message(envelope, State(seq=seq, at=at, **state))


def status_message(envelope: Envelope, status: contract.Status) -> dict:
    """The `status` message: online, or the last will's offline (firmware/uplink/identity.py
    says who the table is)."""
    return message(envelope, status)


def _event(row: Row) -> ev.Event | None:
    if row.kind not in ("input", "output", "device"):
        return None
    try:
        return row.event()
    except (ValueError, TypeError):  # EventError, or JSON the schema cannot take
        return None


def _venue_acknowledged(event: ev.VenueCommand) -> bool:
    """A venue's acknowledge the table took (firmware/uplink/commands.py checked its args)."""
    return (
        event.command == "acknowledge"
        and event.refused is None
        and isinstance(event.args.get("alert"), int)
        and isinstance(event.args.get("referee"), str)
    )
