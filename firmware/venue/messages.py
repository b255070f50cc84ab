"""What the venue takes from the bus (docs/uplink.md): each payload checked against its topic's
contract and cut to the fields the contract names, so a table's bug or a stranger's message
is one `Malformed` (counted, logged) and never a crash, and the dashboard shows nothing the
contract does not call public.
"""

import math
from dataclasses import dataclass
from typing import TypeGuard

from firmware.bus.contract import (
    ALERT_KINDS,
    ALERTS_OF,
    MESSAGE_BYTES,
    PHASES,
    ROW_KINDS,
    RULING_KINDS,
    SAFE_INTEGER,
    STATUSES,
    Leaf,
    check_envelope,
    decode,
    parse_topic,
)

IDENTITY = (  # the status's fields beside `status` and `birth`, shown as they are
    "firmware",
    "model",
    "profile_sha256",
    "rules_sha256",
    "key_fingerprint",
    "disk_free_bytes",
    "uptime_seconds",
    "dice",  # the table's dice: the venue's rule (issue 35)
)
SHEET_LISTS = ("players", "hands", "games", "signatures", "player_signatures")
MAX_TEXT = 500  # characters of a text shown on the dashboard (an alert's, a message)
MAX_NAME = 80  # characters of a player's name, a federation id, a referee's name


class Malformed(ValueError):
    """A message the contract does not allow, and why (one line)."""


@dataclass(frozen=True)
class Message:
    table: str
    leaf: Leaf  # one of contract.PUBLISHED
    body: dict


def parse(topic: str, payload: bytes | str, venue: str) -> Message | None:
    """The message on `topic`, checked; None for the command topics the subscription also
    covers (the venue's own commands come back to it)."""
    try:
        table, leaf = parse_topic(topic, venue)
    except ValueError as err:
        raise Malformed(str(err)) from None
    if leaf == Leaf.CMD:
        return None
    where = f"{leaf} of table {table[:40]!r}"
    try:
        body = decode(payload, MESSAGE_BYTES)
        check_envelope(body, venue, table)
    except ValueError as err:
        raise Malformed(f"{where}: {err}") from None
    return Message(table, leaf, _CHECKS[leaf](body, where))


def _state(body: dict, where: str) -> dict:
    players = body.get("players")
    if not isinstance(players, list) or len(players) != 4:
        raise Malformed(f"{where}: players is not four")
    scores = body.get("scores")
    if not isinstance(scores, list) or len(scores) != 4 or not all(map(_is_number, scores)):
        raise Malformed(f"{where}: scores are not four numbers")
    phase = body.get("phase")
    if phase not in PHASES:
        raise Malformed(f"{where}: no such phase as {str(phase)[:40]!r}")
    left = body.get("session_seconds_left")
    on_way = body.get("referee_on_way")
    return {
        "session": _session(body, where),
        "seq": _whole(body, "seq", where),
        "at": _number(body, "at", where),
        "t": _number(body, "t", where),
        "phase": phase,
        "ruleset": _text(body, "ruleset", where, MAX_NAME),
        "hand_number": _whole(body, "hand_number", where),
        "round_wind": _scalar(body.get("round_wind")),
        "dealer": _scalar(body.get("dealer")),
        "players": [_player(p, where) for p in players],
        "scores": scores,
        "session_seconds_left": max(0.0, float(left)) if _is_number(left) else None,
        "alerts_waiting": _whole(body, "alerts_waiting", where, optional=True) or 0,
        "referee_called": body.get("referee_called") is True,
        "venue_message": _scalar(body.get("venue_message"), MAX_TEXT),
        "shuffler": _scalar(body.get("shuffler")),
        "referee_on_way": {
            "referee": _scalar(on_way.get("referee"), MAX_NAME),
            "at": on_way["at"] if _is_number(on_way.get("at")) else None,
        }
        if isinstance(on_way, dict)
        else None,
    }


def _status(body: dict, where: str) -> dict:
    """The status and who the table says it is (a table before issue 34 says only the
    status: its birth None, its identity unknown)."""
    if body.get("status") not in STATUSES:
        raise Malformed(f"{where}: status is not online or offline")
    return {
        "status": body["status"],
        "birth": _whole(body, "birth", where, optional=True),
        **{name: _scalar(body.get(name), MAX_TEXT) for name in IDENTITY},
    }


def _events(body: dict, where: str) -> dict:
    rows = body.get("rows")
    if not isinstance(rows, list) or not rows:
        raise Malformed(f"{where}: no journal rows")
    return {"session": _session(body, where), "rows": [_row(row, where) for row in rows]}


def _row(row, where: str) -> dict:
    if not isinstance(row, dict) or row.get("kind") not in ROW_KINDS:
        raise Malformed(f"{where}: a row is not a journal row (kind and event)")
    if not isinstance(row.get("event"), dict):
        raise Malformed(f"{where}: a row is not a journal row (kind and event)")
    return {"seq": _whole(row, "seq", where), "kind": row["kind"], "event": row["event"]}


def _alert(body: dict, where: str) -> dict:
    if body.get("kind") not in ALERT_KINDS:
        raise Malformed(f"{where}: no such alert as {str(body.get('kind'))[:40]!r}")
    seat = body.get("seat")
    alert = {
        "session": _session(body, where),
        "seq": _whole(body, "seq", where),
        "kind": body["kind"],
        "id": _whole(body, "id", where),
        "of": body.get("of") if body.get("of") in ALERTS_OF else None,
        "seat": seat if _is_whole(seat) and 0 <= seat < 4 else None,
        "text": _scalar(body.get("text"), MAX_TEXT) or "",
        "t": body["t"] if _is_number(body.get("t")) else None,
        "hand": body["hand"] if _is_whole(body.get("hand")) else None,
    }
    if body["kind"] not in RULING_KINDS:
        return alert
    return alert | {
        "offence": _scalar(body.get("offence")),
        "points": body["points"] if _is_number(body.get("points")) else None,
        "applied": body.get("applied") is not False,
        "reason": _scalar(body.get("reason"), MAX_TEXT),
        "referee": _scalar(body.get("referee"), MAX_NAME),
    }


def _sheet(body: dict, where: str) -> dict:
    """The score sheet as the table built it (firmware/audit/sheet.py): its lists checked
    to be lists, its fields kept as they are (the dashboard only shows them)."""
    sheet = body.get("sheet")
    if not isinstance(sheet, dict) or not all(
        isinstance(sheet.get(name), list) for name in SHEET_LISTS
    ):
        raise Malformed(f"{where}: not a score sheet")
    return {
        "session": _session(body, where),
        "seq": _whole(body, "seq", where),
        "sheet": {name: value for name, value in sheet.items() if name != "journal"},
    }


_CHECKS = {
    Leaf.STATE: _state,
    Leaf.STATUS: _status,
    Leaf.EVENTS: _events,
    Leaf.ALERTS: _alert,
    Leaf.SHEET: _sheet,
}


def _player(player, where: str) -> dict:
    if not isinstance(player, dict):
        raise Malformed(f"{where}: a player is not an object")
    return {
        "seat": _scalar(player.get("seat")),
        "name": _scalar(player.get("name"), MAX_NAME),
        "federation_id": _scalar(player.get("federation_id"), MAX_NAME),
    }


def _is_number(value) -> TypeGuard[float]:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _is_whole(value) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < SAFE_INTEGER


def _whole(body: dict, name: str, where: str, optional: bool = False) -> int | None:
    value = body.get(name)
    if optional and value is None:
        return None
    if not _is_whole(value):
        raise Malformed(f"{where}: {name} is not a whole number")
    return value


def _session(body: dict, where: str) -> str:
    """The journal's session id; "" for a journal that has none (written before ids)."""
    if body.get("session") is None:
        return ""
    return _text(body, "session", where, MAX_NAME)


def _number(body: dict, name: str, where: str) -> float:
    if not _is_number(body.get(name)):
        raise Malformed(f"{where}: {name} is not a number")
    return body[name]


def _text(body: dict, name: str, where: str, longest: int) -> str:
    value = body.get(name)
    if not isinstance(value, str) or not 0 < len(value) <= longest:
        raise Malformed(f"{where}: {name} is not a text of at most {longest} characters")
    return value


def _scalar(value, longest: int = MAX_NAME):
    """A short text or number as it is, a long text cut, anything else None: fields the
    dashboard only shows."""
    if isinstance(value, str):
        return value[:longest]
    return value if _is_number(value) else None
