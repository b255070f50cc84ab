"""The documents the dashboard's pages draw: the organiser's (every table with its alerts, the
standings when they are released, the broker's health), the hall's board (public state only:
no alert, no event, no score while the standings are held back) and a table's drill-down.
"""

import re
from collections.abc import Callable

from engine.seats import LETTERS
from firmware.venue.board import TableBoard, VenueBoard
from firmware.venue.points import DEFAULT_STAGE, Stage
from firmware.venue.standings import finished, in_round, round_over, standings, zero_sum

# The phases in which the sitting's clock runs: on table time, which stops only while the
# table is off (firmware/table/sitting.py); a paused or faulty table's sitting goes on.
RUNNING = ("playing", "between_hands", "paused", "fault", "not_refereeing")
CALLING = ("call_referee", "ruling")  # the alerts that page a referee


def phase(table: TableBoard) -> str:
    if table.status == "offline":
        return "offline"
    return table.state["phase"] if table.state else "unknown"


def seconds_left(table: TableBoard, now: float) -> float | None:
    """The session's time left now: the state's, less the time since it came while the
    clock runs."""
    state = table.state
    if not state or state["session_seconds_left"] is None:
        return None
    left = state["session_seconds_left"]
    if phase(table) in RUNNING:
        left -= max(0.0, now - table.state_received)
    return max(0.0, round(left, 1))


def _public(table: TableBoard, now: float, show_scores: bool) -> dict:
    state = table.state or {}
    return {
        "name": table.name,
        "phase": phase(table),
        "hand_number": state.get("hand_number"),
        "round_wind": state.get("round_wind"),
        "seconds_left": seconds_left(table, now),
        "running": phase(table) in RUNNING,
        "players": [p["name"] for p in state.get("players", [])],
        "scores": state.get("scores") if show_scores else None,
        "finished": finished(table),
    }


def tile(table: TableBoard, now: float) -> dict:
    """A table on the organiser's grid, with its alerts for the referees' pager."""
    state = table.state or {}
    alerts = [
        {k: a[k] for k in ("key", "kind", "id", "seat", "text", "acknowledged", "received")}
        for a in table.alerts.values()
    ]
    waiting = [a for a in alerts if a["acknowledged"] is None]
    on_way = state.get("referee_on_way")
    called = state.get("referee_called") and not on_way
    return {
        **_public(table, now, True),
        "alerts": alerts,
        "badge": max(len(waiting), state.get("alerts_waiting") or 0),
        "calling": bool(called or any(a["kind"] in CALLING for a in waiting)),
        "on_way": on_way["referee"] if on_way else None,
        "message": state.get("venue_message"),
        "version": table.version,
    }


def standings_view(
    board: VenueBoard,
    hide: bool,
    stage: Stage = DEFAULT_STAGE,
    released: bool = False,
    seated: Callable[[str], tuple | None] | None = None,
) -> dict:
    """The standings, or why they are not shown yet. `released`: the organiser has let them
    out before every table finished (a table offline or stuck), which they then say.
    `seated(table)`: the round's four players the seating plan put at `table` (their names
    where the table has none, so the hall reads a name, not "T51 S")."""
    tables = in_round(board)
    over = round_over(board)
    hidden = hide and not over and not released
    players = None if hidden else standings(board, stage)
    for player in players or []:
        four = seated(player["table"]) if seated and player["name"] is None else None
        if four:
            player["name"] = four[LETTERS.index(player["seat"])].name
    return {
        "hidden": hidden,
        "released_by_organiser": hide and released and not over,
        "complete": over,
        "finished": sum(finished(table) for table, _ in tables),
        "tables": len(tables),
        "players": players,
    }


def organiser_changes(board: VenueBoard, since: int, standings_doc: dict, now: float) -> dict:
    """The organiser's document, with the tables changed after version `since` (-1: all)."""
    return {
        "venue": board.venue,
        "version": board.version,
        "connected": board.connected,
        "counts": board.counts(),
        "tables": [tile(t, now) for t in _sorted(board.tables.values()) if t.version > since],
        "standings": standings_doc,
    }


def board_changes(board: VenueBoard, since: int, standings_doc: dict, now: float) -> dict:
    """The hall's big screen: public state, the scores only once the standings are out (a
    screen of every table's scores would be the standings)."""
    released = not standings_doc["hidden"]
    return {
        "venue": board.venue,
        "version": board.version,
        "released": released,
        "tables": [
            _public(t, now, released) for t in _sorted(board.tables.values()) if t.version > since
        ],
        "standings": standings_doc,
    }


def drill_down(table: TableBoard, now: float) -> dict:
    """One table as received: its public state, who it says it is (its latest status), its
    alerts, its latest rulings, its rows and sheets by session (the score sheet it
    published: /api/tables/<name>/sheet)."""
    return {
        "tile": tile(table, now),
        "status": table.status,
        "identity": table.identity,
        "state": table.state,
        "rulings": list(table.rulings.values()),
        "sessions": {
            name: {"rows": log.rows, "missing": log.seqs.missing, "sheet": log.sheet}
            for name, log in table.sessions.items()
        },
        "zero_sum": zero_sum(table),
    }


def _sorted(tables) -> list[TableBoard]:
    """By name, numbers in order (T2 before T10)."""

    def key(table: TableBoard):
        return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", table.name)]

    return sorted(tables, key=key)
