"""The referee's inputs to the game at the desk (firmware/desk/desk.py): rulings with their written
reason (issue 16), a penalty revoked, the clocks paused and resumed, East's second roll thrown
by the referee (seed 000 開門 6), the wall head touched (摸打規條 2), the wrong dealer kept
(做錯莊 3), the wrong break standing (開錯門, 配牌時的犯規 2). Each is an engine input,
journaled and applied like any other; what the engine refuses comes back as the desk's answer.
"""

from drivers.dice import ElectronicDice
from engine import events as ev
from engine.dealing import REFEREE_ROLL
from engine.seats import LETTERS
from firmware.desk.deal_errors import dice_stand
from firmware.display import ActionRefused


def game_input(desk, action: str, t, body) -> dict:
    """A referee's input to the game (the desk's `rule`, `revoke`, `pause`, `roll`,
    `resume`, `wall_touched`, `dealer_kept`, `break_made`): journaled and applied as any
    input; an Alert among its outputs is the engine's refusal, the desk's answer."""
    if action in ("rule", "revoke", "undo_waive") and desk.earlier.is_late(body):
        return late_input(desk, action, t, body)
    if desk.service.status().table is None:
        raise ActionRefused("no hand is on the table")
    if action == "roll":
        dice_stand(desk.service)  # the wall is broken: the referee's answer
    event = {
        "rule": lambda: ruling(t, body),
        "revoke": lambda: ev.PenaltyRevoked(t, None, body["alert"], reason(body, "revoking")),
        "undo_waive": lambda: waive_undone(t, body),
        "pause": lambda: ev.ClocksPaused(t, None),
        "roll": lambda: referee_roll(t, body),
        "resume": lambda: ev.ClocksResumed(t, None),
        "wall_touched": lambda: ev.WallTouched(t, body["seat"]),
        "dealer_kept": lambda: ev.DealerKept(t, body["seat"]),
        "break_made": lambda: ev.BreakMade(t, body["seat"], body["stacks"]),
    }[action]()
    outputs = desk.service.commands.apply(event)
    refusal = next((o for o in outputs if isinstance(o, ev.Alert)), None)
    if refusal is not None:
        raise ActionRefused(refusal.message)
    if isinstance(event, ev.Ruling) and body["alert"] in desk.alerts:
        desk.alerts[body["alert"]]["reason"] = event.reason
        desk.service.commands.publish()
    return {"done": action, "events": [o.to_json() for o in outputs]}


def ruling(t, body, hand: int | None = None) -> ev.Ruling:
    """The referee's ruling on an alert as the desk's body gives it, on the hand in play or
    (`hand`) the hand before (issue 36)."""
    return ev.Ruling(
        t,
        None,
        body["alert"],
        body["apply"],
        tuple(body.get("tiles", ())),
        payee(body),
        body.get("dead", False),
        reason(body, "a ruling"),
        hand,
    )


def late_input(desk, action: str, t, body) -> dict:
    """A ruling, or a penalty revoked, on the hand before, the next one dealt (issue 36: a
    ruling outlives its hand; firmware/desk/late.py)."""
    hand = body["hand"]
    unsigned(desk, hand)
    if action == "rule":
        event: ev.Event = ruling(t, body, hand)
    elif action == "undo_waive":
        event = waive_undone(t, body, hand)
    else:
        event = ev.PenaltyRevoked(t, None, body["alert"], reason(body, "revoking"), hand)
    outputs = desk.earlier.apply(event)
    refusal = next((o for o in outputs if isinstance(o, ev.Alert)), None)
    if refusal is not None:
        raise ActionRefused(refusal.message)
    if isinstance(event, ev.Ruling) and body["alert"] in desk.earlier.alerts:
        desk.earlier.alerts[body["alert"]]["reason"] = event.reason
        desk.service.commands.publish()
    return {"done": action, "hand": hand, "events": [o.to_json() for o in outputs]}


def revoke(desk, t, body) -> dict:
    """Revoke a penalty applied in the hand on the table: in play, or the last finished
    while its row can still be settled again (not once its game has ended)."""
    status = desk.service.status()
    table = status.table
    if table is not None and table.ended and not status.session.settles_again(table):
        raise ActionRefused(
            f"hand {status.hand_number}'s row can no longer be settled again (its game has "
            "ended): its penalties stand"
        )
    if table is not None and table.ended:
        unsigned(desk, status.hand_number)
    return game_input(desk, "revoke", t, body)


def undo_waive(desk, t, body) -> dict:
    """Take back a Waive (issue 36 item 2): the penalty awaits a ruling again, until the
    sheet is signed over its hand."""
    status = desk.service.status()
    if status.table is not None and status.table.ended:
        unsigned(desk, status.hand_number)
    return game_input(desk, "undo_waive", t, body)


def waive_undone(t, body, hand: int | None = None) -> ev.WaiveUndone:
    return ev.WaiveUndone(t, None, body["alert"], reason(body, "undoing a waive"), hand)


def unsigned(desk, hand: int) -> None:
    """A finished hand's rulings change only until the referee signs the sheet over it
    (issue 36 item 2); after, the refusal says so."""
    signed = max((s["hand"] for s in desk.sheet.signatures), default=0)
    if hand <= signed:
        raise ActionRefused(
            f"the score sheet is signed up to hand {signed}: hand {hand}'s rulings can no "
            "longer be changed at the table (the head referee's)"
        )


def payee(body) -> int | None:
    """The seat `to` of a ruling, the referee's choice of who is paid a penalty's points
    (seed 004 §38 一 6), as a seat: E S W N or 0..3 (the request's form is checked before,
    firmware/display/actions.py). Whether the choice stands is the engine's
    (Referee._allocation_problem): refused, the desk answers with its message."""
    to = body.get("to")
    if not isinstance(to, str):
        return to
    if to not in LETTERS:
        raise ActionRefused(f"`to` names the seat paid: E S W N or 0..3, not {to!r}")
    return LETTERS.index(to)


def reason(body, what: str) -> str:
    """The referee's written reason, which `what` needs (issue 16)."""
    written = body.get("reason", "")
    if not isinstance(written, str) or not written.strip():
        raise ActionRefused(f"{what} needs a written reason (the field 'reason')")
    return written.strip()


def referee_roll(t, body) -> ev.DiceRolled:
    """East's second roll thrown by the referee (seed 000 開門 6): the dice he threw, or, if he
    names none, two from the OS's cryptographic source; the engine says when it may be."""
    dice = tuple(body["dice"]) if "dice" in body else ElectronicDice().roll().values
    return ev.DiceRolled(t, 0, dice, REFEREE_ROLL)
