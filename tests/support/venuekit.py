"""What the tables say on the venue bus (docs/uplink.md), for the venue dashboard's tests: each
table's topics, its state, status, alerts, journal rows and signed score sheets as messages, fed
to a VenueBoard as the bus brings them; and the organiser's client on a bus that sends nothing."""

import json
import time

from starlette.testclient import TestClient

from engine.seats import LETTERS
from firmware.venue.app import create_app
from firmware.venue.board import VenueBoard
from firmware.venue.bus import NotSent
from tests.support.venuekeys import VENUE_KEY

VENUE = "hall"


KEY = VENUE_KEY  # the venue's private key: it signs the commands


PIN = "864213"


BASE = "http://127.0.0.1:8080"


OWN_PAGE = {"Origin": BASE}


ORGANISER = {"Authorization": f"Bearer {PIN}"}


SEATS = LETTERS


def topic(table: str, leaf: str) -> str:
    return f"mjtable/{VENUE}/table/{table}/{leaf}"


def _envelope(table: str, session: str) -> dict:
    return {"v": 1, "venue": VENUE, "table": table, "session": session}


def state(
    table,
    *,
    phase="playing",
    hand=1,
    scores=(0, 0, 0, 0),
    ruleset="wsom2006",
    seq=1,
    left=None,
    session="s1",
    **extra,
) -> dict:
    return (
        _envelope(table, session)
        | {
            "seq": seq,
            "at": time.time(),
            "t": 10.0,
            "phase": phase,
            "ruleset": ruleset,
            "hand_number": hand,
            "round_wind": "E",
            "dealer": "E",
            "players": [
                {
                    "seat": SEATS[i],
                    "name": f"{table} player {i + 1}",
                    "federation_id": f"F-{table}-{i}",
                }
                for i in range(4)
            ],
            "scores": list(scores),
            "session_seconds_left": left,
            "alerts_waiting": 0,
            "referee_called": False,
            "venue_message": None,
            "referee_on_way": None,
            "shuffler": "idle",
        }
        | extra
    )


def status(table: str, online: bool = True, birth: int | None = None) -> dict:
    """A `status` message; without a birth, as a table before issue 34 sent it."""
    said = {"v": 1, "venue": VENUE, "table": table, "status": "online" if online else "offline"}
    return said if birth is None else said | {"birth": birth}


def row(table: str, seq: int, kind: str = "input", event=None, session: str = "s1") -> dict:
    """An `events` message of one journal row."""
    event = event if event is not None else {"type": "TileDiscarded", "t": 1.0, "seat": 0}
    return _envelope(table, session) | {"rows": [{"seq": seq, "kind": kind, "event": event}]}


def alert(table: str, number: int, seq: int, kind: str = "call_referee", session="s1") -> dict:
    return _envelope(table, session) | {
        "seq": seq,
        "kind": kind,
        "id": number,
        "seat": 2,
        "text": "West calls the referee" if kind == "call_referee" else "",
        "t": 12.5,
    }


def line(number: int, changes, totals, penalties=(0, 0, 0, 0)) -> dict:
    """One line of a score sheet (engine/session.py HandRecord.to_json)."""
    return {
        "number": number,
        "dealer": 0,
        "result": "win" if any(changes) else "draw",
        "winners": [],
        "changes": list(changes),
        "totals": list(totals),
        "penalties": list(penalties),
        "doubled": False,
    }


def signed(table: str, seq: int, lines: list[dict], session: str = "s1") -> dict:
    """The SheetSigned device row of `lines`, signed up to the last one."""
    event = {
        "type": "SheetSigned",
        "t": 900.0,
        "seat": None,
        "hand": lines[-1]["number"],
        "referee": "Li Wei",
        "rows": lines,
        "journal_head": "ab" * 32,
    }
    return row(table, seq, "device", event, session)


WSOM_SHEET = [  # three WSOM hands: a win, a win with 5 points deducted from East, a draw
    line(1, (30, -10, -10, -10), (30, -10, -10, -10)),
    line(2, (-25, 75, -25, -25), (0, 65, -35, -35), (-5, 0, 0, 0)),
    line(3, (0, 0, 0, 0), (0, 65, -35, -35)),
]


WSOM_FINAL = [0, 65, -35, -35]


def feed(board: VenueBoard, table: str, leaf: str, body) -> bool:
    """`body` to the board as the bus brings it."""
    return board.take(topic(table, leaf), body if isinstance(body, str) else json.dumps(body))


def finish(board, table: str, sheet=WSOM_SHEET, final=WSOM_FINAL, seq=50, **kwargs) -> None:
    """`table` signs `sheet` (its row `seq`) and waits between hands."""
    feed(board, table, "events", signed(table, seq, sheet))
    hand = sheet[-1]["number"]
    feed(
        board,
        table,
        "state",
        state(table, phase="between_hands", hand=hand, scores=final, **kwargs),
    )


class Bus:
    """A bus that is not connected, for the HTTP tests that send nothing."""

    async def send(self, table, name, args):
        raise NotSent("the broker 127.0.0.1:1 is not connected: try again")


def organiser_client(board: VenueBoard, hide: bool = False) -> TestClient:
    return TestClient(create_app(board, Bus(), PIN, hide), base_url=BASE)
