"""Rulings that outlive their hand at the desk (issue 36 item 1): the alerts of the hand before
stay on the referee's documents once the next hand's walls rose, each with its `hand` and
`late`, and a `rule` or `revoke` that names that hand is applied to it (firmware/table/late.py):
its row on the sheet settled again, the hand in play going on.

The alerts of the hand before are kept from the outputs as the hand changes; after a restart
they are read once from the journal (its hand row's Alerts, their rulings after them), which
holds them all. They go once that hand can no longer be ruled on at the table (a further
hand ended, or its game: Session.settles_again).
"""

from engine import events as ev
from firmware.desk.views import follow
from firmware.display import ActionRefused


class Earlier:
    """The hand before's number and its alerts by id, as the desk shows them."""

    def __init__(self, desk):
        self.desk = desk
        self.hand: int | None = None
        self.alerts: dict[int, dict] = {}

    def keep(self, hand: int, alerts: dict[int, dict]) -> None:
        """The hand in play changed: the one before's alerts, `hand` the one that ended."""
        self.hand, self.alerts = hand, alerts

    def recall(self) -> None:
        """After a restart: the last hand on the sheet's alerts, from the journal."""
        ruled = self.desk.service.commands.last_hand()
        if ruled is None or ruled[0] == self.desk.service.status().hand_number:
            return
        self.hand, self.alerts = ruled[0], {}
        this = False
        for row in self.desk.service.commands.rows():
            data = row.data()
            if row.kind == "hand":
                this = data.get("hand_number") == self.hand
            elif this and row.kind == "output":
                self.follow(ev.from_json(data))

    def follow(self, event) -> None:
        """An output of this hand (a late ruling's, or the journal's on a restart)."""
        alerts, self.desk.alerts = self.desk.alerts, self.alerts
        try:
            follow(self.desk, event, "")
        finally:
            self.desk.alerts = alerts

    def view(self) -> list[dict]:
        """Its alerts, while it can be ruled on: awaiting a ruling, revocable, or a waive to
        undo (issue 36 item 2)."""
        ruled = self.desk.service.commands.last_hand()
        if self.hand is None or ruled is None or ruled[0] != self.hand:
            return []
        referee = ruled[1].referee
        waiting = {*referee.pending, *referee.rescorings, *referee.fines_asked}
        return [
            a
            | {
                "hand": self.hand,
                "late": True,
                "awaits_ruling": a["id"] in waiting,
                "revocable": a["id"] in referee.in_force,
                "undoable": a["id"] in referee.waived,
            }
            for a in self.alerts.values()
            if a["id"] in waiting or a["id"] in referee.in_force or a["id"] in referee.waived
        ]

    def is_late(self, body) -> bool:
        """The action names the hand before (`hand`), not the one on the table."""
        hand = body.get("hand")
        return hand is not None and hand != self.desk.service.status().hand_number

    def apply(self, event) -> list[ev.Event]:
        """`event` (naming its hand) applied to that hand; its outputs, or ActionRefused."""
        desk = self.desk
        desk.ruling_late = True  # its outputs are this hand's (Desk.publish)
        try:
            outputs = desk.service.commands.apply_late(event)
        finally:
            desk.ruling_late = False
        if isinstance(outputs, str):
            raise ActionRefused(outputs)
        return outputs
