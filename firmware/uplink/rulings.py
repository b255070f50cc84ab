"""The referee's rulings as the venue's desk reads them on the bus (docs/uplink.md, issue 16):
a `ruled` alert when a penalty an alert proposed is applied or waived, a `revoked` alert
when one in force is lifted, a `reopened` alert when a waive is undone (the penalty awaits a
ruling again, so the venue pages for it again: issue 36), each with the offence, the points,
the referee's written reason, who ruled and the hand it belongs to (alert ids restart every
hand, and a ruling may come after the next deal: issue 36).

A ruling's output does not say all of it: a waived penalty names no offence (its alert's
proposal does) and no output holds the reason (its Ruling input does). `Rulings` follows the
journal's rows in order for them; who ruled is the RefereeActed record the desk journals
after the action's rows, looked for in the rows that follow. The texts are the public's
(firmware/texts/notices.py); a reason is the referee's own text, written for all to read.
No tile goes out: penalty tiles only as a count.
"""

from collections.abc import Iterable

from engine import events as ev
from firmware.bus.contract import Envelope, Ruling, message
from firmware.journal.chain import Row
from firmware.texts.notices import alert_text

_RULINGS = ("PenaltyApplied", "PenaltyWaived", "PenaltyLifted", "PenaltyReopened")  # said here
_ASKED = ("Ruling", "PenaltyRevoked", "WaiveUndone")  # the inputs whose outputs those are
Asked = ev.Ruling | ev.PenaltyRevoked | ev.WaiveUndone


class Rulings:
    """What a ruling's outputs leave unsaid, from the rows before them: the penalty each alert
    of the hand on the table and of the one before proposed (a ruling may come after the next
    deal, issue 36), the hand on the table, and the referee's input whose outputs these are;
    as `rows` (those before, in order) left them."""

    def __init__(self, rows: Iterable[Row] = ()) -> None:
        self.hand: int | None = None  # the hand on the table, as its row numbers it
        self.proposed: dict[tuple[int | None, int], dict] = {}  # (hand, alert id) -> penalty
        self.asked: Asked | None = None  # whose outputs follow
        for row in rows:
            self.follow(row)

    def follow(self, row: Row) -> None:
        """Each row, in the journal's order."""
        if row.kind == "hand":  # the engine numbers its alerts afresh each hand
            ended = self.hand
            self.proposed = {key: p for key, p in self.proposed.items() if key[0] == ended}
            number = row.data().get("hand_number")
            self.hand = number if isinstance(number, int) else None
            self.asked = None
        elif row.kind == "input":
            asked = any(f'"{name}"' in row.json for name in _ASKED)
            event = _event(row) if asked else None
            self.asked = event if isinstance(event, Asked) else None
        elif row.kind == "output" and '"Alert"' in row.json:
            event = _event(row)
            if isinstance(event, ev.Alert) and event.needs_ruling and event.penalty:
                self.proposed[(self.hand, event.id)] = event.penalty

    def ruled_hand(self) -> int | None:
        """The hand the input asked rules on: the one it names (late), else the one on the
        table."""
        named = self.asked.hand if self.asked is not None else None
        return named if named is not None else self.hand

    def message(self, row: Row, following: Iterable[Row], envelope: Envelope) -> dict | None:
        """The `alerts` message of a row that is a ruling (after `follow(row)`), else None;
        `following`: the rows after it, read only as far as its RefereeActed."""
        if row.kind != "output" or not any(f'"{name}"' in row.json for name in _RULINGS):
            return None
        event = _event(row)
        asked, hand = self.asked, self.ruled_hand()
        if isinstance(event, ev.PenaltyApplied | ev.PenaltyWaived):
            if not isinstance(asked, ev.Ruling) or asked.alert != event.alert:
                return None  # no ruling was asked: a penalty the rule book applies at once
            proposed = self.proposed.get((hand, event.alert), {})
            if isinstance(event, ev.PenaltyApplied):
                offence, rule, points = event.offence, event.rule, event.points
            else:
                offence, rule = proposed.get("offence", ""), proposed.get("rule", "")
                points = proposed.get("points", 0)
            kind, reason = "ruled", asked.reason
            what = ruled_text(event, offence, rule, points)
        elif isinstance(event, ev.PenaltyLifted):
            kind, offence, points, reason = "revoked", event.offence, event.points, event.reason
            what = revoked_text(event)
        elif isinstance(event, ev.PenaltyReopened):
            if not isinstance(asked, ev.WaiveUndone) or asked.alert != event.alert:
                return None
            proposed = self.proposed.get((hand, event.alert), {})
            offence, points = proposed.get("offence", ""), proposed.get("points", 0)
            kind, reason = "reopened", event.reason
            what = reopened_text(event, offence, proposed.get("rule", ""))
        else:
            return None
        ruling = Ruling(
            seq=row.seq,
            kind=kind,
            id=event.alert,
            of="ruling",
            seat=event.seat,
            text=f"{what}; reason: {reason}" if reason else what,
            t=event.t,
            offence=offence,
            points=points,
            applied=isinstance(event, ev.PenaltyApplied | ev.PenaltyLifted),
            reason=reason,
            referee=referee_after(following),
            hand=hand,
        )
        return message(envelope, ruling)


def ruled_text(event: ev.PenaltyApplied | ev.PenaltyWaived, offence, rule, points) -> str:
    """ "South: called without the tiles for it (RULES.md 3.11): penalty applied, 2 penalty
    tiles" or "West: drew out of turn (RULES.md 3.6): penalty waived"."""
    what = alert_text({"seat": event.seat, "rule": rule, "penalty": {"offence": offence}})
    if isinstance(event, ev.PenaltyWaived):
        return f"{what}: penalty waived"
    return (
        f"{what}: penalty applied"
        + _counted(points, "point")
        + _counted(len(event.penalty_tiles), "penalty tile")
    )


def revoked_text(event: ev.PenaltyLifted) -> str:
    """ "West: let a phone sound: penalty revoked, 10 points"."""
    what = alert_text({"seat": event.seat, "penalty": {"offence": event.offence}})
    return f"{what}: penalty revoked" + _counted(event.points, "point")


def reopened_text(event: ev.PenaltyReopened, offence, rule) -> str:
    """ "West: drew out of turn (RULES.md 3.6): waive undone, the penalty awaits a ruling"."""
    what = alert_text({"seat": event.seat, "rule": rule, "penalty": {"offence": offence}})
    return f"{what}: waive undone, the penalty awaits a ruling"


def _counted(number: int, what: str) -> str:
    return f", {number} {what}{'s' * (number != 1)}" if number else ""


def referee_after(following: Iterable[Row]) -> str | None:
    """Who carried out the action: the RefereeActed record after its outputs (None: the
    profile's PIN, no referee enrolled; or no record, a journal from before issue 16)."""
    for row in following:
        if row.kind == "output":
            continue
        if row.kind == "device" and '"RefereeActed"' in row.json:
            acted = _event(row)
            if isinstance(acted, ev.RefereeActed):
                return acted.referee
        return None
    return None


def _event(row: Row) -> ev.Event | None:
    try:
        return row.event()
    except (ValueError, TypeError):  # EventError, or JSON the schema cannot take
        return None
