"""What the referee's documents show of this hand's alerts and the faults (firmware/desk/desk.py),
kept from the service's outputs: each alert's state (open, acknowledged, applied, waived,
revoked) and whether a ruling on it is still awaited (the page keeps its buttons until ruled,
issue 16); each fault "seen" once acknowledged and "cleared" only once its device says so.
"""

from engine import events as ev
from engine.seats import LETTERS


def alerts_view(alerts: dict[int, dict], status) -> list[dict]:
    """This hand's alerts, each saying whether a ruling on it is awaited (the page keeps
    its buttons until ruled, issue 16), whether its penalty may be revoked and its waive
    undone (issue 36 item 2)."""
    table = status.table
    if table is None:
        idle = {"awaits_ruling": False, "revocable": False, "undoable": False}
        return [a | idle for a in alerts.values()]
    referee = table.referee
    waiting = {*referee.pending, *referee.rescorings, *referee.fines_asked}
    settled = table.ended and not status.session.settles_again(table)
    return [
        a
        | {
            "awaits_ruling": a["id"] in waiting,
            "revocable": a["id"] in referee.in_force and not settled,
            "undoable": a["id"] in referee.waived and not settled,
        }
        for a in alerts.values()
    ]


def faults_view(records, acknowledged: set[int]) -> list[dict]:
    """Each fault once, as first reported: `seen` once the referee has acknowledged it,
    `cleared` only once the device's record says so (issue 16: seen is not fixed)."""
    cleared = {f.id for f in records if f.cleared}
    firsts = {f.id: f for f in reversed(records)}  # the earliest record of each id
    return [
        {
            "id": f.id,
            "t": f.t,
            "device": f.device,
            "kind": f.kind,
            "message": f.message,
            "advice": f.advice,
            "seen": f.id in acknowledged,
            "cleared": f.id in cleared,
        }
        for f in sorted(firsts.values(), key=records.index)
    ]


def follow(desk, event, dice_source: str) -> None:
    """What the desk keeps of an output: this hand's alerts and their states (applied,
    waived, revoked), and the dice with the break they made."""
    if isinstance(event, ev.Alert):
        desk.alerts[event.id] = {
            "id": event.id,
            "t": event.t,
            "seat": event.seat,
            "rule": event.rule,
            "message": event.message,
            "needs_ruling": event.needs_ruling,
            "penalty": event.penalty,
            "state": "open",
            "reason": "",  # the ruling's, in the referee's words
        }
    elif isinstance(event, ev.RULED) and event.alert in desk.alerts:
        desk.alerts[event.alert]["state"] = (
            "waived" if isinstance(event, ev.PenaltyWaived) else "applied"
        )
    elif isinstance(event, ev.PenaltyReopened) and event.alert in desk.alerts:  # issue 36
        desk.alerts[event.alert] |= {"state": "open", "reason": "", "undone": event.reason}
    elif isinstance(event, ev.PenaltyLifted) and event.alert in desk.alerts:
        desk.alerts[event.alert] |= {"state": "revoked", "revoked": event.reason}
    elif isinstance(event, ev.WallBroken) and event.seat is not None:  # whose wall broke
        desk.dice = {
            "dice": list(event.dice),
            "source": dice_source,
            "break": {"seat": LETTERS[event.seat], "stacks": event.stacks},
        }
    elif isinstance(event, ev.Rebased) and event.seat is not None and desk.dice:  # 開錯門
        desk.dice["break"] = {"seat": LETTERS[event.seat], "stacks": event.stacks}
