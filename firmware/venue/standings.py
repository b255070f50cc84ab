"""The round across the hall: standings, each table's zero-sum check, the round's CSV and JSON.

A player's score is what he won or lost in the round: the sum of his payments and penalties
over the session's signed sheet from the round's start (firmware/venue/event.py), the same
for both books (a CCM 局's chips less the 100 it began with, added over the 局). Before a
table has signed, its live scores stand in, less the start (for CCM the current 局's only),
marked provisional.

Each rule book ranks its own players, CCM's before WSOM's, a rank counted within each book: a
hall that plays both has two lists, as it has two competitions. WSOM ranks by the score:
"以多局的得分及失分合計﹐來覺得勝負名次" (seed 000, 麻將的目的與流程). CCM ranks by the
standard points each table's first earns, then by the score (seed 004 第十條, 第十一條;
venue_points.py).

A table has finished the round when its referee has signed the sheet up to its latest hand
and no hand is in play; the round is over when every table with a session has finished, and
only then are the standard points final (a best second's depend on every table).
"""

import csv
import io
import re
from dataclasses import dataclass
from functools import lru_cache

from engine.schema import ConfigError
from firmware.audit import zero_sum as hand_check
from firmware.resources import load_ruleset
from firmware.venue.board import TableBoard, VenueBoard
from firmware.venue.points import DEFAULT_STAGE, Stage, award, rank_key


@dataclass(frozen=True)
class RuleBook:
    start: int  # points each player starts a game with: CCM's 100 chips, WSOM's 0
    penalties_kept: bool  # CCM keeps a penalty among the chips (zero_sum.py); WSOM deducts it
    book: str  # "CCM" or "WSOM": whose standings the table's players are in


UNKNOWN_BOOK = RuleBook(0, False, "WSOM")


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
        rules.start_chips or 0,
        hand_check.penalties_kept(ruleset),
        "CCM" if ruleset.name.startswith("ccm") else "WSOM",
    )


def round_start(table: TableBoard) -> tuple[int, list]:
    """The hand after which the table's round began (the venue's start_session for it,
    firmware/venue/event.py) and the scores it had then; (0, []) for a new session."""
    session, hand, held = table.round_start
    return (hand, held) if session is not None and session == table.session else (0, [])


def finished(table: TableBoard) -> bool:
    """Signed up to the latest hand, none in play, and a hand played in the round."""
    state, sheet = table.state, table.sheet
    return bool(
        state
        and sheet
        and state["phase"] != "playing"
        and sheet["hand"] >= state["hand_number"] > round_start(table)[0]
    )


def in_round(board: VenueBoard) -> list[tuple[TableBoard, dict]]:
    """The tables playing the round: those that have told their state, each with it."""
    return [(table, table.state) for table in board.tables.values() if table.state]


def round_over(board: VenueBoard) -> bool:
    tables = in_round(board)
    return bool(tables) and all(finished(table) for table, _ in tables)


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


def scores(table: TableBoard, state: dict) -> tuple[list[float], bool]:
    """Each player's score (by `state`'s players, the table's) and whether it is final
    (signed)."""
    book = rule_book(state["ruleset"])
    sheet = table.sheet  # a finished table has one
    rows = _rows(sheet) if sheet is not None and finished(table) else None
    after, held = round_start(table)
    if rows is not None:
        rows = [r for r in rows if r["number"] > after]  # the round's own hands
        return [sum(r["changes"][p] + r["penalties"][p] for r in rows) for p in range(4)], True
    base = held if held and not book.start else [book.start] * 4  # CCM: the 局's own chips
    return [score - b for score, b in zip(state["scores"], base, strict=True)], False


def places(values: list) -> list[int]:
    """1 for the best (the highest value: a number, or a tuple of them), ties sharing the
    better place (1, 1, 3, 4)."""
    return [1 + sum(other > value for other in values) for value in values]


def zero_sum(table: TableBoard) -> dict:
    """The signed sheet checked: each hand's line by the rule book's check (the desk's and the
    exports', firmware/audit/zero_sum.py), each line's totals follow from the line before (or
    from a new game's start), and the table's scores are the sheet's last totals."""
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
        dead = row.get("dead", 0)  # older sheets have none
        line = hand_check.check(changes, fines, dead, book.penalties_kept)  # issue 36 item 4
        problems += [f"hand {hand}: {problem}" for problem in line["problems"]]
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


def standings(board: VenueBoard, stage: Stage = DEFAULT_STAGE) -> list[dict]:
    """Every player of the round, best first within his rule book (CCM's first); equal
    standard points and scores share a rank."""
    books: dict[str, list[list[dict]]] = {}
    for table, state in in_round(board):
        values, final = scores(table, state)
        seated = [
            {
                "book": rule_book(state["ruleset"]).book,
                "name": player["name"],
                "federation_id": player["federation_id"],
                "table": table.name,
                "seat": player["seat"],
                "standard_points": None,
                "promoted": None,
                "score": value,
                "place": place,
                "final": final,
            }
            for player, value, place in zip(state["players"], values, places(values), strict=True)
        ]
        books.setdefault(seated[0]["book"], []).append(seated)
    if "CCM" in books:
        award(books["CCM"], stage)
    players = []
    for book in sorted(books):
        ranked = sorted(
            (player for seated in books[book] for player in seated),
            key=lambda p: (*rank_key(p), p["table"], str(p["seat"])),
        )
        for number, player in enumerate(ranked, 1):
            tied = number > 1 and rank_key(player) == rank_key(ranked[number - 2])
            player["rank"] = ranked[number - 2]["rank"] if tied else number
        players += ranked
    return players


def round_report(board: VenueBoard, stage: Stage = DEFAULT_STAGE) -> dict:
    """The round as one JSON document: every table's sheet, check and players, what CCM's
    tables promote, and the standings."""
    tables = []
    for table, state in sorted(in_round(board), key=lambda told: told[0].name):
        sheet = table.sheet
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
        "stage": stage.to_json(),
        "tables": tables,
        "standings": standings(board, stage),
    }


CSV_COLUMNS = (
    "book",
    "rank",
    "name",
    "federation_id",
    "table",
    "seat",
    "standard_points",
    "promoted",
    "score",
    "place",
    "final",
)
CSV_TABLE_COLUMNS = ("session", "ruleset", "signed_by", "hands", "zero_sum", "round_over")


def round_csv(report: dict) -> str:
    """One line a player: his standing, his table's sheet and check, and whether the round
    is over (the standard points final)."""
    by_table = {t["table"]: t for t in report["tables"]}
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS + CSV_TABLE_COLUMNS)
    for player in report["standings"]:
        table = by_table[player["table"]]
        check = table["zero_sum"]
        writer.writerow(
            [csv_cell(player[c]) for c in CSV_COLUMNS]
            + [csv_cell(table["session"]), csv_cell(table["ruleset"]), csv_cell(table["signed_by"])]
            + [check["hands"], "ok" if check["ok"] else "; ".join(check["problems"])]
            + [report["complete"]]
        )
    return out.getvalue()


def csv_cell(value):
    """A text a spreadsheet would run as a formula is kept as text."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return "" if value is None else value
