"""The referee's desk: what the display shows of the service, and the referee's actions.

It implements firmware.display.DisplaySource over a running Service: the state documents
(from the service's status), one update per change to every open page (bounded queues,
oldest dropped: a slow page never holds up the table), and the actions of /api/referee/.
An action is submitted to the service's actor and carried out in its turn, so it neither
overtakes a device record stamped before it nor is overtaken by one stamped after. An action
that changes the game is an engine input, journaled and applied like any other; the others
(acknowledging, confirming a score, signing the sheet, correcting the tracking, voiding the
hand) are journaled as record events. The rows of each action are followed in the journal by
a RefereeActed record: which referee did it, and the time of day (issue 16).

Each seat's shanten and waits (engine/waits.py) are worked out once per update that changed
the hand (engine outputs, a new hand), for every referee page and the broadcast alike, and
only when one of them will read them. The broadcast's feed holds every referee document
back for its delay (firmware/display/broadcast.py).
"""

import asyncio
import time
from collections import deque
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from functools import partial

from drivers.dice import ElectronicDice
from engine import events as ev
from engine.seats import LETTERS, ZONES
from engine.tracking import TrackingError
from engine.turns import REFEREE_ROLL
from firmware import export_sheet, seat_drawing, sessions, stage_desk
from firmware.deal_errors import dice_stand, redeal, remove_excess
from firmware.desk_entries import Entries
from firmware.display import ActionRefused
from firmware.display.broadcast import DelayedFeed
from firmware.display.state import TableView, public_event, table_state, waits_json
from firmware.journal import StorageFailure

LOG_LENGTH = 40


class Desk:
    """`broadcast_delay` (seconds of table time): keep a broadcast feed that late; None for
    no broadcast. `wall` is the wall clock the referees' actions are journaled with."""

    def __init__(
        self,
        service,
        table_name: str,
        broadcast_delay: float | None = None,
        wall: Callable[[], float] = time.time,
    ):
        self.service, self.table_name, self.wall = service, table_name, wall
        self.alerts: dict[int, dict] = {}  # this hand's engine alerts by id
        self.acknowledged: set[int] = set()  # fault ids
        self.log: deque = deque(maxlen=LOG_LENGTH)
        self.dice: dict | None = None
        self.hand = 0
        self.seq = 0
        self.subscribers: list[tuple[asyncio.Queue, bool]] = []
        self.broadcast = (
            None if broadcast_delay is None else DelayedFeed(broadcast_delay, service.clock)
        )
        self._waits: list[dict] | None = None  # of the table below, None when out of date
        self._drawn_against: list[list] = []
        self._waits_of = None
        self.waits_computed = 0  # how many times: once per update that changed a hand
        self.entries = Entries(service)  # the offences the referee reports (issue 12)
        service.listeners.append(self.publish)

    # -- documents -----------------------------------------------------------------------

    def view(self, status=None, waits: bool = False) -> TableView:
        """The service's table now; with `waits`, each seat's (the referee's documents)."""
        status = status or self.service.status()
        return TableView(
            self.table_name,
            status.session,
            status.table,
            status.t,
            self._alerts(status),
            self._faults(status.faults[-LOG_LENGTH:]),
            list(self.log),
            status.shuffler.to_json(),
            self.dice,
            *(self._seat_waits(status) if waits else (None, None)),
            not_refereeing=status.not_refereeing,
            interruption=None
            if status.interruption is None
            else {"line": status.interruption, "displaced": list(status.displaced)},
            venue=status.venue,
            seal=self.service.hands.walls.seal_json(),  # issue 17
            game_clock=game.to_json(status.t) if (game := self.service.sitting.game) else None,
        )

    def _alerts(self, status) -> list[dict]:
        """This hand's alerts, each saying whether a ruling on it is awaited (the page keeps
        its buttons until ruled, issue 16) and whether its penalty may be revoked."""
        table = status.table
        if table is None:
            return [a | {"awaits_ruling": False, "revocable": False} for a in self.alerts.values()]
        referee = table.referee
        waiting = {*referee.pending, *referee.rescorings, *referee.fines_asked}
        settled = table.ended and not status.session.settles_again(table)
        return [
            a
            | {
                "awaits_ruling": a["id"] in waiting,
                "revocable": a["id"] in referee.in_force and not settled,
            }
            for a in self.alerts.values()
        ]

    def _faults(self, records) -> list[dict]:
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
                "seen": f.id in self.acknowledged,
                "cleared": f.id in cleared,
            }
            for f in sorted(firsts.values(), key=records.index)
        ]

    def _seat_waits(self, status) -> tuple[list[dict] | None, list[list] | None]:
        """The waits of the hand in play, worked out again only when it has changed."""
        if not status.in_play:
            return None, None
        if self._waits is None or self._waits_of is not status.table:
            before = self._drawn_against if self._waits_of is status.table else None
            self._waits, self._drawn_against = waits_json(status.table, before)
            self._waits_of = status.table
            self.waits_computed += 1
        return self._waits, self._drawn_against

    def offences(self) -> dict:
        return self.entries.offences()

    def score_sheet(self) -> dict:
        return export_sheet.sheet(self.service.journal.path)  # its own read-only connection

    def snapshot(self, referee: bool) -> dict:
        return table_state(self.view(waits=referee), referee)

    def subscribe(self, referee: bool) -> asyncio.Queue:
        queue = asyncio.Queue(maxsize=100)
        self.subscribers.append((queue, referee))
        return queue

    def unsubscribe(self, queue) -> None:
        self.subscribers = [s for s in self.subscribers if s[0] is not queue]

    async def delivered(self, seconds: float) -> None:
        """Return once every open page has taken its updates, or after `seconds`: the
        table's last state (why it stopped refereeing, firmware/storage.py) reaches the
        screens before the display stops."""
        for _ in range(round(seconds / 0.01)):
            if all(queue.empty() for queue, _ in self.subscribers):
                return
            await asyncio.sleep(0.01)

    def publish(self, events) -> None:
        """Follow the service's outputs; send every open page the new state."""
        status = self.service.status()
        if self.entries.follow(status):
            status = self.service.status()
        if status.hand_number != self.hand:
            self.hand, self.alerts, self.dice = status.hand_number, {}, None
        for event in events:
            self._follow(event, status.dice_source)
            self.log.append(event.to_json())
        if any(not isinstance(e, ev.RECORDS) for e in events):
            self._waits = None  # the engine's outputs: a hand may have changed
        if not self.subscribers and self.broadcast is None:
            return
        self.seq += 1
        views = {}
        readers = [referee for _, referee in self.subscribers]
        for referee in readers + ([True] if self.broadcast is not None else []):
            if referee not in views:
                state = table_state(self.view(status, waits=referee), referee)
                views[referee] = {
                    "seq": self.seq,
                    "state": state,
                    "events": [
                        e.to_json() if referee else public_event(e.to_json()) for e in events
                    ],
                }
        for queue, referee in self.subscribers:
            if queue.full():
                queue.get_nowait()  # drop the oldest
            queue.put_nowait(views[referee])
        if self.broadcast is not None:
            self.broadcast.add(self.seq, views[True]["state"])

    def _follow(self, event, dice_source: str) -> None:
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
                "reason": "",  # the ruling's, in the referee's words
            }
        elif isinstance(event, ev.RULED) and event.alert in self.alerts:
            self.alerts[event.alert]["state"] = (
                "waived" if isinstance(event, ev.PenaltyWaived) else "applied"
            )
        elif isinstance(event, ev.PenaltyLifted) and event.alert in self.alerts:
            self.alerts[event.alert] |= {"state": "revoked", "revoked": event.reason}
        elif isinstance(event, ev.WallBroken):
            self.dice = {
                "dice": list(event.dice),
                "source": dice_source,
                "break": {"seat": "ESWN"[event.seat], "stacks": event.stacks},
            }

    # -- the referee's actions ------------------------------------------------------------

    async def act(self, action: str, body: dict, who: str | None = None) -> dict:
        """Stamp the action now, and carry it out in its turn on the service's actor; `who`
        is the referee logged in (None: the profile's PIN), journaled after the action's own
        rows (a RefereeActed record)."""
        perform = {
            "ack": self._ack,
            "void_hand": self._void_hand,
            "redeal": partial(redeal, self.service),  # seed 000 配牌時的犯規 7
            "remove_excess": partial(remove_excess, self.service),  # 配牌時的犯規 6
            "accept_table": self._accept_table,
            "rule": partial(self._game_input, "rule"),
            "revoke": self._revoke,  # a penalty applied, lifted with a reason (issue 16)
            "report": self.entries.report,
            "pause": partial(self._game_input, "pause"),
            "roll": partial(self._game_input, "roll"),
            "wall_touched": partial(self._game_input, "wall_touched"),
            "dealer_kept": partial(self._game_input, "dealer_kept"),  # seed 000 做錯莊 3
            "draw_seats": self._draw_seats,
            "change_seats": partial(stage_desk.change_seats, self.service),  # seed 004 換位
            "ask_scores": partial(stage_desk.ask_scores, self.service),  # seed 004 三十三 問分
            "new_session": partial(sessions.from_desk, self.service),  # issue 19
            "resume": self._resume,
            "correct": self._correct,
            "confirm_score": self._confirm_score,
            "sign_sheet": self._sign_sheet,
        }.get(action)
        if perform is None:
            raise ActionRefused(f"unknown action {action!r}")
        try:
            answer = await self.service.actor.submit(
                partial(_answered, partial(self._signed, perform, action, who), body)
            )
        except StorageFailure as failure:  # its journaling failed: it was not carried out
            raise ActionRefused(f"not done: the table is not refereeing ({failure})") from None
        if isinstance(answer, ActionRefused):
            raise answer
        return answer

    def _signed(self, perform, action: str, who: str | None, t, body) -> dict:
        """The action carried out, then who did it and when (a RefereeActed record); also
        after an input the engine refused (journaled with its Alert), not after a refusal
        that journaled nothing."""
        journal = self.service.journal
        before = journal.seq
        try:
            answer = perform(t, body)
        except ActionRefused:
            if journal.seq > before:
                self._journal_who(t, action, who)
            raise
        self._journal_who(t, action, who)
        return answer

    def _journal_who(self, t, action: str, who: str | None) -> None:
        wall_time = datetime.fromtimestamp(self.wall(), UTC).isoformat(timespec="milliseconds")
        self.service.journal.record(ev.RefereeActed(t, None, action, who, wall_time))

    def _ack(self, t, body) -> dict:
        if "fault" in body:
            if not any(f.id == body["fault"] for f in self.service.status().faults):
                raise ActionRefused(f"there is no fault {body['fault']}")
            self.acknowledged.add(body["fault"])
        else:
            alert = self.alerts.get(body["alert"])
            if alert is None:
                raise ActionRefused(f"there is no alert {body['alert']} in this hand")
            if alert["state"] == "open":
                alert["state"] = "acknowledged"
        seen = {("fault", body["fault"])} if "fault" in body else {("ruling", body["alert"])}
        self.service.venue = self.service.venue.seen_at_table(seen)  # at the table: none on
        # the way (issue 15)
        return self._record(ev.Acknowledged(t, None, body.get("fault"), body.get("alert")))

    def _void_hand(self, t, body) -> dict:
        number = self.service.hands.void(t, body["reason"])
        if number is None:
            raise ActionRefused("no hand is in play")
        return {"voided": number}

    def _accept_table(self, t, body) -> dict:
        """The hand goes on from the table as it lies (issue 20): a journaled engine input."""
        outputs = self.service.hands.accept_table(t)
        if outputs is None:
            raise ActionRefused("no hand is in play")
        refusal = next((o for o in outputs if isinstance(o, ev.Alert)), None)
        if refusal is not None:
            raise ActionRefused(refusal.message)
        return {"done": "accept_table", "events": [o.to_json() for o in outputs]}

    def _game_input(self, action, t, body) -> dict:
        if self.service.status().table is None:
            raise ActionRefused("no hand is on the table")
        if action == "roll":
            dice_stand(self.service)  # the wall is broken: the referee's answer
        event = {
            "rule": lambda: ev.Ruling(
                t,
                None,
                body["alert"],
                body["apply"],
                tuple(body.get("tiles", ())),
                self._payee(body),
                body.get("dead", False),
                _reason(body, "a ruling"),
            ),
            "revoke": lambda: ev.PenaltyRevoked(t, None, body["alert"], _reason(body, "revoking")),
            "pause": lambda: ev.ClocksPaused(t, None),
            "roll": lambda: _referee_roll(t, body),
            "resume": lambda: ev.ClocksResumed(t, None),
            "wall_touched": lambda: ev.WallTouched(t, body["seat"]),
            "dealer_kept": lambda: ev.DealerKept(t, body["seat"]),
        }[action]()
        outputs = self.service.hands.apply(event)
        refusal = next((o for o in outputs if isinstance(o, ev.Alert)), None)
        if refusal is not None:
            raise ActionRefused(refusal.message)
        if action == "rule" and body["alert"] in self.alerts:
            self.alerts[body["alert"]]["reason"] = event.reason
            self.service.publish([])
        return {"done": action, "events": [o.to_json() for o in outputs]}

    def _revoke(self, t, body) -> dict:
        """Revoke a penalty applied in the hand on the table: in play, or the last finished
        while its row can still be settled again (not once its game has ended)."""
        status = self.service.status()
        table = status.table
        if table is not None and table.ended and not status.session.settles_again(table):
            raise ActionRefused(
                f"hand {status.hand_number}'s row can no longer be settled again (its game has "
                "ended): its penalties stand"
            )
        return self._game_input("revoke", t, body)

    @staticmethod
    def _payee(body) -> int | None:
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

    def _resume(self, t, body) -> dict:
        """The hand's clocks go on (a journaled input); the venue's pause, if it holds this
        table, is lifted here too (a HallResumed record), between hands as well (issue 15),
        and so is the break between games (issue 13: the next game may begin)."""
        table = self.service.status().table
        clocks_paused = table is not None and not table.ended and table.clocks.paused_at is not None
        game = self.service.sitting.game
        hall = self.service.venue.paused or (game is not None and game.break_left(t) is not None)
        answer = self._game_input("resume", t, body) if clocks_paused or not hall else None
        if hall:
            self.service.venue = replace(self.service.venue, paused=False)
            if game is not None:
                game.lift()
            lifted = self._record(ev.HallResumed(t, None))
            return answer or {"done": "resume", "events": [lifted]}
        return answer

    def _correct(self, t, body) -> dict:
        if body["zone"] not in ZONES or not self.service.status().in_play:
            raise ActionRefused(
                f"cannot put a tile in {body['zone']!r} now (zones: "
                f"{', '.join(ZONES)}; only while a hand is in play)"
            )
        try:
            record = self.service.hands.correct(t, body["tile"], body["zone"])
        except TrackingError as err:  # a tile not in this hand
            raise ActionRefused(str(err)) from None
        self.service.publish([])
        return record.to_json()

    def _confirm_score(self, t, body) -> dict:
        sheet = self.service.status().session.sheet
        row = next((r for r in sheet if r.number == body["hand"]), None)
        if row is None:
            raise ActionRefused(f"hand {body['hand']} is not on the score sheet yet")
        return self._record(ev.ScoreConfirmed(t, None, row.number, row.to_json()))

    def _sign_sheet(self, t, body) -> dict:
        sheet = self.service.status().session.sheet
        rows = tuple(r.to_json() for r in sheet if r.number <= body["hand"])
        if not rows:
            raise ActionRefused("the score sheet has no hand to sign yet")
        head = self.service.journal.head
        return self._record(ev.SheetSigned(t, None, body["hand"], body["referee"], rows, head))

    def _draw_seats(self, t, body) -> dict:
        """執位: journaled, in both views' log, and a line on the console."""
        drawing = seat_drawing.drawn(t, self.service.status(), body.get("winds"))
        self.service.journal.record(drawing)
        self.service.out(f"{t:9.1f}  {seat_drawing.said(drawing)}")
        self.service.publish([drawing])
        return drawing.to_json()

    def _record(self, record) -> dict:
        self.service.journal.record(record)
        self.service.publish([])
        return record.to_json()


def _reason(body, what: str) -> str:
    """The referee's written reason, which `what` needs (issue 16)."""
    reason = body.get("reason", "")
    if not isinstance(reason, str) or not reason.strip():
        raise ActionRefused(f"{what} needs a written reason (the field 'reason')")
    return reason.strip()


def _referee_roll(t, body) -> ev.DiceRolled:
    """East's second roll thrown by the referee (seed 000 開門 6): the dice he threw, or, if he
    names none, two from the OS's cryptographic source; the engine says when it may be."""
    dice = tuple(body["dice"]) if "dice" in body else ElectronicDice().roll().values
    return ev.DiceRolled(t, 0, dice, REFEREE_ROLL)


def _answered(perform, body, t):
    """Carry out an action on the actor's turn; a refusal is the referee's answer, not a
    fault of the table, so it is returned rather than raised there."""
    try:
        return perform(t, body)
    except ActionRefused as refusal:
        return refusal
