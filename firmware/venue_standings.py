"""The round across the hall: standings, each table's zero-sum check, the round's CSV and JSON.

Neither rule book gives table points (RULES.md): WSOM ranks players by the points they hold
(the main event's cumulative score), CCM by the totals of its games (4.13: every game starts
at 100 chips, not carried over). So a player's score is what he won or lost: the sum of his
payments and penalties over the session's signed sheet, the same for both books (a CCM
game's chips less the 100 it began with, added over the games). Before a table has signed,
its live scores stand in, less the start (for CCM the current game's only), marked provisional.

A table has finished the round when its referee has signed the sheet up to its latest hand
and no hand is in play; the round is over when every table with a session has finished.
"""

import csv
import io
import re
from dataclasses import dataclass
from functools import lru_cache

from engine.schema import ConfigError
from firmware.config import load_ruleset
from firmware.venue_board import TableBoard, VenueBoard


@dataclass(frozen=True)
class RuleBook:
    start: int  # points each player starts a game with: CCM's 100 chips, WSOM's 0
    penalties_paid: bool  # CCM pays a penalty to the others (zero-sum); WSOM deducts it


UNKNOWN_BOOK = RuleBook(0, False)


@lru_cache(maxsize=16)
def rule_book(name: str | None) -> RuleBook:
    """The rule book a table names (config/rules/<name>.toml); a name no config has reads
    as WSOM's (no start chips, penalties deducted) and its check says so."""
    if not isinstance(name, str) or not re.fullmatch(r"[a-z0-9_]{1,40}", name):
        return UNKNOWN_BOOK
    try:
        ruleset = load_ruleset(name)
    except ConfigError:
        return UNKNOWN_BOOK
    rules = ruleset.table_rules
    return RuleBook(
        rules.start_chips or 0, bool(rules.penalties and rules.penalties.paid_to_others)
    )


def finished(table: TableBoard) -> bool:
    state, sheet = table.state, table.sheet
    return bool(
        state and sheet and state["phase"] != "playing" and sheet["hand"] >= state["hand_number"]
    )


def in_round(board: VenueBoard) -> list[TableBoard]:
    """The tables playing the round: those that have told their state."""
    return [table for table in board.tables.values() if table.state]


def round_over(board: VenueBoard) -> bool:
    tables = in_round(board)
    return bool(tables) and all(map(finished, tables))


def _rows(sheet: dict) -> list[dict] | None:
    """The sheet's rows, or None when one of them is not a score sheet's line."""

    def fours(row, name):
        value = row.get(name)
        return isinstance(value, list) and len(value) == 4 and all(type(v) is int for v in value)

    rows = sheet["rows"]
    good = all(
        isinstance(r, dict) and type(r.get("number")) is int and all(fours(r, n) for n in _LINE)
        for r in rows
    )
    return rows if good else None


_LINE = ("changes", "totals", "penalties")


def scores(table: TableBoard) -> tuple[list[float], bool]:
    """Each player's score (by the state's players) and whether it is final (signed)."""
    book = rule_book(table.state["ruleset"])
    rows = _rows(table.sheet) if finished(table) else None
    if rows is not None:
        return [sum(r["changes"][p] + r["penalties"][p] for r in rows) for p in range(4)], True
    return [score - book.start for score in table.state["scores"]], False


def places(values: list[float]) -> list[int]:
    """1 for the best, ties sharing the better place (1, 1, 3, 4)."""
    return [1 + sum(other > value for other in values) for value in values]


def zero_sum(table: TableBoard) -> dict:
    """The signed sheet checked: every hand's payments add up to nothing, so do CCM's
    penalties, each line's totals follow from the line before (or from a new game's start),
    and the table's scores are the sheet's last totals."""
    sheet = table.sheet
    if sheet is None:
        return {"ok": False, "problems": ["no signed score sheet yet"], "hands": 0}
    rows = _rows(sheet)
    if rows is None:
        return {"ok": False, "problems": ["a line of the signed sheet is unreadable"], "hands": 0}
    book = rule_book(table.state["ruleset"] if table.state else None)
    problems = [] if book is not UNKNOWN_BOOK else ["the table's rule book is unknown here"]
    before = [book.start] * 4
    for row in rows:
        hand, changes, totals, fines = (
            row["number"],
            row["changes"],
            row["totals"],
            row["penalties"],
        )
        if sum(changes) != 0:
            problems.append(f"hand {hand}: the payments add up to {sum(changes)}, not 0")
        if book.penalties_paid and sum(fines) != 0:
            problems.append(f"hand {hand}: the penalties add up to {sum(fines)}, not 0")
        moved = [c + f for c, f in zip(changes, fines, strict=True)]
        if totals not in (
            [b + m for b, m in zip(before, moved, strict=True)],
            [book.start + m for m in moved],
        ):
            problems.append(f"hand {hand}: the totals do not follow from the line before")
        before = totals
    state = table.state
    if state and finished(table) and rows and state["scores"] not in (before, [book.start] * 4):
        problems.append("the table's scores are not the signed sheet's last totals")
    return {"ok": not problems, "problems": problems, "hands": len(rows)}


def standings(board: VenueBoard) -> list[dict]:
    """Every player of the round, best first; equal scores share a rank."""
    players = []
    for table in in_round(board):
        values, final = scores(table)
        for player, value, place in zip(
            table.state["players"], values, places(values), strict=True
        ):
            players.append(
                {
                    "name": player["name"],
                    "federation_id": player["federation_id"],
                    "table": table.name,
                    "seat": player["seat"],
                    "score": value,
                    "place": place,
                    "final": final,
                }
            )
    players.sort(key=lambda p: (-p["score"], p["table"], str(p["seat"])))
    for number, player in enumerate(players, 1):
        tied = number > 1 and player["score"] == players[number - 2]["score"]
        player["rank"] = players[number - 2]["rank"] if tied else number
    return players


def round_report(board: VenueBoard) -> dict:
    """The round as one JSON document: every table's sheet, check and players, and the
    standings."""
    tables = []
    for table in sorted(in_round(board), key=lambda t: t.name):
        sheet, state = table.sheet, table.state
        tables.append(
            {
                "table": table.name,
                "session": state["session"],
                "ruleset": state["ruleset"],
                "finished": finished(table),
                "signed_by": sheet["referee"] if sheet else None,
                "signed_hand": sheet["hand"] if sheet else None,
                "sheet": sheet["rows"] if sheet else [],
                "zero_sum": zero_sum(table),
            }
        )
    return {
        "v": 1,
        "venue": board.venue,
        "at": board.clock(),
        "complete": round_over(board),
        "tables": tables,
        "standings": standings(board),
    }


CSV_COLUMNS = ("rank", "name", "federation_id", "table", "seat", "score", "place", "final")
CSV_TABLE_COLUMNS = ("session", "ruleset", "signed_by", "hands", "zero_sum")


def round_csv(report: dict) -> str:
    """One line a player: his standing and his table's sheet and check."""
    by_table = {t["table"]: t for t in report["tables"]}
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS + CSV_TABLE_COLUMNS)
    for player in report["standings"]:
        table = by_table[player["table"]]
        check = table["zero_sum"]
        writer.writerow(
            [_cell(player[c]) for c in CSV_COLUMNS]
            + [_cell(table["session"]), _cell(table["ruleset"]), _cell(table["signed_by"])]
            + [check["hands"], "ok" if check["ok"] else "; ".join(check["problems"])]
        )
    return out.getvalue()


def _cell(value):
    """A text a spreadsheet would run as a formula is kept as text."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return "" if value is None else value
