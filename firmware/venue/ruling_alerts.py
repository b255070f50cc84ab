"""Which waiting alert a ruling answers (issue 36): the engine numbers its alerts afresh each
hand, and a ruling may come after the next deal, so a table's `ruling` alerts and its
`ruled`/`revoked` ones name their hand; the venue keys a waiting ruling by hand and id. It
stays open across the next deal (the table may still rule on the last hand of its sheet,
firmware/table/late.py) and is over once a further hand is dealt; a waive undone (the
table's `reopened` alert) opens it again. A table from before (no hand named) is read as
before: its rulings end with their hand.
"""

from engine import events as ev

RULED = {kind.__name__ for kind in ev.RULED}  # a row of one answers a ruling
ASKED = {kind.__name__ for kind in (ev.Ruling, ev.PenaltyRevoked, ev.WaiveUndone)}  # name a hand


def alert_key(kind: str, number: int, hand: int | None = None) -> str:
    """Faults (a referee's call among them) and the engine's alerts number apart; the
    engine's afresh each hand."""
    if kind != "ruling":
        return f"fault:{number}"
    return f"ruling:{number}" if hand is None else f"ruling:{hand}:{number}"


def is_over(table, alert: dict) -> bool:
    """A `ruling` alert whose hand can no longer be ruled on at the table."""
    if alert.get("hand") is None:
        return alert["seq"] < table.hand_seq
    return table.hand is not None and alert["hand"] < table.hand - 1


def follow(table, row: dict) -> None:
    """A journal row, in order: a hand row ends the rulings it leaves over; a ruling's
    output closes the alert of the hand its input named (else the hand on the table)."""
    event = row["event"]
    if row["kind"] == "hand":
        table.hand_seq = max(table.hand_seq, row["seq"])
        number = event.get("hand_number")
        table.hand = number if _whole(number) else None
        for key in [k for k, a in table.alerts.items() if k.startswith("ruling:")]:
            if is_over(table, table.alerts[key]):
                del table.alerts[key]
    elif row["kind"] == "input":
        named = event.get("hand") if event.get("type") in ASKED else None
        table.ruled_hand = named if _whole(named) else table.hand
    elif event.get("type") in RULED:
        number = event.get("alert")
        if _whole(number):
            for key in (alert_key("ruling", number, table.ruled_hand), alert_key("ruling", number)):
                if table.alerts.get(key, {"seq": -1})["seq"] < row["seq"]:  # not one reopened
                    table.alerts.pop(key, None)  # after it (its `reopened` came first)


def reopen(table, alert: dict, received: float) -> bool:
    """A `reopened` alert (a waive undone, issue 36): its ruling waits again, paged for as a
    `ruling`, unless its hand is over or the table has said more of it since."""
    key = alert_key("ruling", alert["id"], alert["hand"])
    if is_over(table, alert) or table.alert_seqs.get(key, -1) >= alert["seq"]:
        return False
    table.alert_seqs[key] = alert["seq"]
    reopened = {"kind": "ruling", "key": key, "received": received, "acknowledged": None}
    table.alerts[key] = alert | reopened
    return True


def waiting_ruling(table, number: int) -> str:
    """The key of the newest ruling alert `number` that waits: an acknowledgement names no
    hand."""
    keys = [k for k, a in table.alerts.items() if k.startswith("ruling:") and a["id"] == number]
    return keys[-1] if keys else alert_key("ruling", number)


def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
