"""The referee's desk: what the display shows of the service, and the referee's actions.

It implements firmware.display.DisplaySource over a running Service: the state documents,
one update per change to every open page (bounded queues, oldest dropped: a slow page never
holds up the table), and the actions of /api/referee/. An action that changes the game is an
engine input, journaled and applied like any other; the others (acknowledging, confirming a
score, signing the sheet, correcting the tracking) are journaled as device records.
"""

import asyncio
from collections import deque

from engine import events as ev
from engine.tracking import ZONES
from firmware.display import ActionRefused
from firmware.display.state import TableView, public_event, table_state

LOG_LENGTH = 40


class Desk:
    def __init__(self, service, table_name: str):
        self.service, self.table_name = service, table_name
        self.alerts: dict[int, dict] = {}  # this hand's engine alerts by id
        self.acknowledged: set[int] = set()  # fault ids
        self.log: deque = deque(maxlen=LOG_LENGTH)
        self.dice: dict | None = None
        self.hand = 0
        self.seq = 0
        self.subscribers: list[tuple[asyncio.Queue, bool]] = []
        service.listeners.append(self.publish)

    # -- documents -----------------------------------------------------------------------

    def view(self) -> TableView:
        service, shuffler = self.service, self.service.shuffler
        fault = shuffler.fault
        return TableView(
            self.table_name,
            service.session,
            service.table,
            service.clock(),
            list(self.alerts.values()),
            [
                {
                    "id": f.id,
                    "t": f.t,
                    "device": f.device,
                    "kind": f.kind,
                    "message": f.message,
                    "advice": f.advice,
                    "cleared": f.cleared or f.id in self.acknowledged,
                }
                for f in service.faults[-LOG_LENGTH:]
            ],
            list(self.log),
            {
                "state": shuffler.state,
                "set_in_play": shuffler.set_in_play,
                "set_ready": shuffler.set_ready,
                "counts": list(shuffler.counts),
                "fault": f"{fault.message}: {fault.advice}" if fault else None,
            },
            self.dice,
        )

    def snapshot(self, referee: bool) -> dict:
        return table_state(self.view(), referee)

    def subscribe(self, referee: bool) -> asyncio.Queue:
        queue = asyncio.Queue(maxsize=100)
        self.subscribers.append((queue, referee))
        return queue

    def unsubscribe(self, queue) -> None:
        self.subscribers = [s for s in self.subscribers if s[0] is not queue]

    def publish(self, events) -> None:
        """Follow the service's outputs; send every open page the new state."""
        if self.service.session.hand_number != self.hand:
            self.hand, self.alerts, self.dice = self.service.session.hand_number, {}, None
        for event in events:
            self._follow(event)
            self.log.append(event.to_json())
        if not self.subscribers:
            return
        self.seq += 1
        views = {}
        for queue, referee in self.subscribers:
            if referee not in views:
                state = self.snapshot(referee)
                views[referee] = {
                    "seq": self.seq,
                    "state": state,
                    "events": [
                        e.to_json() if referee else public_event(e.to_json()) for e in events
                    ],
                }
            if queue.full():
                queue.get_nowait()  # drop the oldest
            queue.put_nowait(views[referee])

    def _follow(self, event) -> None:
        if isinstance(event, ev.Alert):
            self.alerts[event.id] = {
                "id": event.id,
                "t": event.t,
                "seat": event.seat,
                "rule": event.rule,
                "message": event.message,
                "needs_ruling": event.needs_ruling,
                "penalty": event.penalty,
                "state": "open",
            }
        elif (
            isinstance(event, (ev.PenaltyApplied, ev.PenaltyWaived)) and event.alert in self.alerts
        ):
            self.alerts[event.alert]["state"] = (
                "applied" if isinstance(event, ev.PenaltyApplied) else "waived"
            )
        elif isinstance(event, ev.WallBroken):
            self.dice = {
                "dice": list(event.dice),
                "source": self.service.dice_source,
                "break": {"seat": "ESWN"[event.seat], "stacks": event.stacks},
            }

    # -- the referee's actions ------------------------------------------------------------

    async def act(self, action: str, body: dict) -> dict:
        service = self.service
        t = service.clock()
        if action == "ack":
            return self._ack(t, body)
        if action == "void_hand":
            if not service.void_hand(t, "voided by the referee"):
                raise ActionRefused("no hand is in play")
            return {"voided": service.session.hand_number + 1}
        if action in ("rule", "pause", "resume"):
            return self._game_input(t, action, body)
        if action == "correct":
            if body["zone"] not in ZONES or service.table is None or service.table.ended:
                raise ActionRefused(
                    f"cannot put a tile in {body['zone']!r} now (zones: "
                    f"{', '.join(ZONES)}; only while a hand is in play)"
                )
            service.tracker.correct(body["tile"], body["zone"])
            return self._record(t, "TrackingCorrected", body)
        if action == "confirm_score":
            row = next((r for r in service.session.sheet if r.number == body["hand"]), None)
            if row is None:
                raise ActionRefused(f"hand {body['hand']} is not on the score sheet yet")
            return self._record(t, "ScoreConfirmed", {"hand": row.number, "row": row.to_json()})
        if action == "sign_sheet":
            rows = [r.to_json() for r in service.session.sheet if r.number <= body["hand"]]
            if not rows:
                raise ActionRefused("the score sheet has no hand to sign yet")
            return self._record(
                t,
                "SheetSigned",
                {
                    "hand": body["hand"],
                    "referee": body["referee"],
                    "rows": rows,
                    "journal_head": service.journal.head,
                },
            )
        raise ActionRefused(f"unknown action {action!r}")

    def _ack(self, t, body) -> dict:
        if "fault" in body:
            if not any(f.id == body["fault"] for f in self.service.faults):
                raise ActionRefused(f"there is no fault {body['fault']}")
            self.acknowledged.add(body["fault"])
        else:
            alert = self.alerts.get(body["alert"])
            if alert is None:
                raise ActionRefused(f"there is no alert {body['alert']} in this hand")
            if alert["state"] == "open":
                alert["state"] = "acknowledged"
        return self._record(t, "Acknowledged", body)

    def _game_input(self, t, action, body) -> dict:
        service = self.service
        if service.table is None:
            raise ActionRefused("no hand is on the table")
        event = {
            "rule": lambda: ev.Ruling(t, None, body["alert"], body["apply"]),
            "pause": lambda: ev.ClocksPaused(t, None),
            "resume": lambda: ev.ClocksResumed(t, None),
        }[action]()
        outputs = service.apply(event)
        refusal = next((o for o in outputs if isinstance(o, ev.Alert)), None)
        if refusal is not None:
            raise ActionRefused(refusal.message)
        return {"done": action, "events": [o.to_json() for o in outputs]}

    def _record(self, t, kind: str, data: dict) -> dict:
        record = {"type": kind, "t": t, **data}
        self.service.journal.device(record)
        self.service.publish([])
        return record
