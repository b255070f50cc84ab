"""One readable line per game event, for the service's console.

Lines are built from the public form of each event (`public_json`), so a concealed tile can
never reach the console, which anyone near the table may read.
"""

from engine import tiles
from engine.seats import LETTERS as SEATS


def _tile(tile_id) -> str:
    return tiles.NAMES[tiles.kind_of(tile_id)]


def _tiles(ids) -> str:
    return " ".join(_tile(t) for t in ids)


def describe(event, ruleset=None) -> str:
    """The line for an engine output, or "" for one not worth a line of its own."""
    e = event.public_json()
    who = SEATS[e["seat"]] if isinstance(e.get("seat"), int) else ""
    kind = e["type"]
    if kind == "WallBroken":
        return (
            f"dice {'+'.join(map(str, e['dice']))}: the {who} wall breaks, "
            f"{e['stacks']} stacks on the tail side"
        )
    if kind == "Dealt":
        return "the deal"
    if kind == "Rebased":
        return (
            f"the break made stands (開錯門): the {who} wall, {e['stacks']} stacks on the tail side"
        )
    if kind == "Drew":
        return f"{who} draws" + (" a replacement" if e["replacement"] else "")
    if kind == "Discarded":
        return f"{who} discards {_tile(e['tile'])}"
    if kind == "Claimed":
        return (
            f"{who} {e['claim']}s {_tile(e['claimed_tile'])} from "
            f"{SEATS[e['from_seat']]}: {_tiles(e['tiles'])}"
        )
    if kind == "Konged":
        shown = "" if e["kind"] == "concealed" else f" {_tile(e['tiles'][0])}"
        return f"{who} {e['kind']} kong{shown}"
    if kind == "FlowerReplaced":
        return f"{who} exposes flower {_tile(e['tile'])}"
    if kind == "Won":
        score = e["score"]
        source = "self-drawn" if e["from_seat"] is None else f"off {SEATS[e['from_seat']]}"
        return (
            f"{who} WINS {source} on {_tile(e['win_tile'])}: "
            + ", ".join(f"{p['name']} {p['points']}" for p in score.get("patterns", []))
            + f" = {score.get('total')}"
        )
    if kind == "WinRescored":
        payer = e["responsible"]
        pays = "nobody pays alone" if payer is None else f"{SEATS[payer]} pays"
        return (
            f"{who}'s win scored again by the ruling on alert {e['alert']}: {pays}; "
            f"payments {e['score'].get('payments')}"
        )
    if kind == "ExhaustiveDraw":
        return "exhaustive draw: the wall is spent"
    if kind == "GameEnded":
        return f"the game ends in the hand: {e['reason']}"
    if kind == "Alert":
        penalty = f" (proposed: {e['penalty']['offence']})" if e.get("penalty") else ""
        return f"ALERT #{e['id']} {e['rule']}: {e['message']}{penalty}"
    if kind == "PenaltyApplied":
        return f"PENALTY {who}: {e['offence']} under {e['rule']}, {e['points']} points"
    if kind == "PenaltyWaived":
        return f"penalty of alert #{e['alert']} waived"
    if kind == "PenaltyLifted":
        return f"penalty of alert #{e['alert']} revoked ({e['offence']}, {e['points']} points)"
    if kind == "HandRealigned":
        then = "to discard" if e["state"] == "discard" else "has discarded: calls open"
        return f"the table accepted as it lies ({e['moved']} tiles moved): {who} {then}"
    return ""
