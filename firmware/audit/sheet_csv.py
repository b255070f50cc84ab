"""The score sheet as CSV, for spreadsheets: one header row of COLUMNS, then a row per hand.

Each row says where and when (the table, the round's wind, the time of day the hand began,
UTC), who won from whom (the discarder, or `self-draw`), the value (WSOM's points, CCM's
fans) with its patterns, then per column the player by name and federation id, the payments,
penalties, totals and held amounts. Several wins on one discard are `; ` apart in the win's
columns. The last two columns, the same in every row, name the table's device key and the
journal head it signed last (issue 35): with them anyone checks that this sheet came from the
journal the table signed and the venue anchored (`mjtable verify --key --anchors`). `excel`
begins the file with UTF-8's byte order mark, without which Excel on Windows
reads a double-clicked file as the local code page and garbles 王小明 (issue 34).
"""

import csv
import io

SELF_DRAWN = "self-draw"
COLUMNS = (
    ["table", "hand", "round", "started_utc", "dealer", "east", "result"]
    + ["winner", "discarder", "value", "patterns", "doubled"]
    + [
        f"{what}_{n}"
        for what in ("player", "federation_id", "change", "penalty", "total", "held")
        for n in (1, 2, 3, 4)
    ]
    + ["dead", "offences", "zero_sum", "confirmed", "signed_by", "key_fingerprint", "final_head"]
)


def as_csv(document: dict, excel: bool = False) -> bytes:
    """The sheet's document (firmware/audit/sheet.py) as a CSV file in UTF-8: players by name
    in each row (a CCM seat change moves them between columns), offences as `name offence
    (rule) points`."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for h in document["hands"]:
        names = h["names"]
        wins = h["wins"]
        writer.writerow(
            [document["table"] or "", h["number"], h["round"], _spreadsheet_time(h["started"])]
            + [names[h["dealer"]], "" if h["east"] is None else names[h["east"]], h["result"]]
            + ["; ".join(names[w["winner"]] for w in wins)]
            + ["; ".join(_discarder(w, names) for w in wins)]
            + ["; ".join(str(w["value"]) for w in wins)]
            + ["; ".join(", ".join(f"{n} {p}" for n, p in w["patterns"]) for w in wins)]
            + [_yes(h["doubled"])]
            + names
            + [i or "" for i in h["federation_ids"]]
            + h["changes"]
            + h["penalties"]
            + h["totals"]
            + (h["held"] or [""] * 4)
            + [h["dead"], "; ".join(offence_words(o, names) for o in h["offences"])]
            + ["ok" if h["zero_sum"]["ok"] else "; ".join(h["zero_sum"]["problems"])]
            + [_yes(h["confirmed"]), "; ".join(h["signed_by"])]
            + [document["key_fingerprint"] or "", document["final_head"] or ""]
        )
    return out.getvalue().encode("utf-8-sig" if excel else "utf-8")


def _spreadsheet_time(started: str | None) -> str:
    """ "2026-05-09 14:03:27", which spreadsheets read as a date and time ("" if unknown)."""
    return "" if started is None else started.removesuffix("+00:00").replace("T", " ")


def _discarder(win: dict, names: list[str]) -> str:
    return SELF_DRAWN if win["discarder"] is None else names[win["discarder"]]


def offence_words(offence: dict, names: list[str]) -> str:
    """ "Bob empty_call (RULES.md 4.15 (空碰)) 10 points: reason; revoked: reason" """
    words = f"{names[offence['player']]} {offence['offence']} ({offence['rule']})"
    words += f" {offence['points']} points" + (
        f", {offence['effect']}" if offence["effect"] else ""
    )
    if offence["reason"]:
        words += f": {offence['reason']}"
    if offence["revoked"]:
        words += f"; revoked: {offence['revoked_reason'] or 'no reason given'}"
    return words


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"
