"""The referee's desk: what the display shows of the service, and the referee's actions.

It implements firmware.display.DisplaySource over a running Service: the state documents
(from the service's status), one update per change to every open page (bounded queues,
oldest dropped: a slow page never holds up the table), and the actions of /api/referee/.
An action is submitted to the service's actor and carried out in its turn, so it neither
overtakes a device record stamped before it nor is overtaken by one stamped after. An action
that changes the game is an engine input, journaled and applied like any other; the others
(acknowledging, confirming a score, signing the sheet, correcting the tracking, voiding the
hand) are journaled as record events. The rows of each action are followed in the journal by
a RefereeActed record: which referee did it, and the time of day (issue 16). The inputs to the
game are firmware/desk/inputs.py's; what the documents show of alerts and faults,
firmware/desk/views.py's.

Each seat's shanten and waits (engine/waits.py) are worked out once per update that changed
the hand (engine outputs, a new hand), for every referee page and the broadcast alike, and
only when one of them will read them. The broadcast's feed holds every referee document
back for its delay (firmware/display/broadcast.py).
"""

import asyncio
import time
from collections import deque
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial

from engine import events as ev
from engine.seats import ZONES
from engine.tracking_rules import TrackingError
from firmware.audit import sheet as export_sheet
from firmware.desk import seat_drawing, sessions
from firmware.desk import stage as stage_desk
from firmware.desk.deal_errors import redeal, remove_excess
from firmware.desk.entries import Entries
from firmware.desk.inputs import game_input, reason, revoke, undo_waive
from firmware.desk.late import Earlier
from firmware.desk.sheet import SheetBook
from firmware.desk.views import alerts_view, faults_view, follow
from firmware.display import ActionRefused, DisplaySource, history
from firmware.display.broadcast import DelayedFeed
from firmware.display.state import TableView, table_state, waits_json
from firmware.journal.failures import StorageFailure
from firmware.texts.public import public_event

LOG_LENGTH = 40


class Desk(DisplaySource):
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
        self._sheet_sent: dict | None = None  # the sheet's document the pages last had
        self._drawn_against: list[list] = []
        self._waits_of = None
        self.waits_computed = 0  # how many times: once per update that changed a hand
        self.entries = Entries(service)  # the offences the referee reports (issue 12)
        self._acting_at: str | None = None  # the time of day of the action being carried out
        self.sheet = SheetBook(service, self.wall_time)  # confirmed, signed (issue 16)
        self.earlier = Earlier(self)  # the hand before's alerts, still to rule (issue 36)
        self.ruling_late = False  # a ruling on the hand before is being applied
        service.commands.subscribe(self.publish)

    # -- documents -----------------------------------------------------------------------

    def view(self, status=None, waits: bool = False) -> TableView:
        """The service's table now; with `waits`, each seat's (the referee's documents)."""
        status = status or self.service.status()
        return TableView(
            self.table_name,
            status.session,
            status.table,
            status.t,
            alerts_view(self.alerts, status) + self.earlier.view(),
            faults_view(status.faults[-LOG_LENGTH:], self.acknowledged),
            list(self.log),
            status.shuffler.to_json(),
            self.dice,
            *(self._seat_waits(status) if waits else (None, None)),
            not_refereeing=status.not_refereeing,
            interruption=None
            if status.interruption is None
            else status.interruption | {"displaced": list(status.displaced)},
            venue=status.venue,
            seal=status.seal,  # issue 17
            game_clock=status.game_clock,
            sheet=self.sheet.document(status.session, status.venue.players),
            voided=status.voided,
            key_fingerprint=self.service.hands.device_key.fingerprint,  # issue 35: published
        )

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
        return export_sheet.sheet(self.service.commands.journal_path)  # read-only, its own

    def history(self, referee: bool) -> dict:
        return history.hands(self.service.commands.journal_path, referee)  # as the sheet

    def hand_replay(self, number: int, referee: bool) -> dict:
        return history.steps(self.service.commands.journal_path, number, referee)

    def snapshot(self, referee: bool) -> dict:
        return table_state(self.view(waits=referee), referee)

    def subscribe(self, referee: bool) -> asyncio.Queue:
        queue: asyncio.Queue = asyncio.Queue(maxsize=100)
        self.subscribers.append((queue, referee))
        return queue

    def unsubscribe(self, queue) -> None:
        self.subscribers = [s for s in self.subscribers if s[0] is not queue]

    async def delivered(self, seconds: float) -> None:
        """Return once every open page has taken its updates, or after `seconds`: the
        table's last state (why it stopped refereeing, firmware/table/storage.py) reaches the
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
            if self.hand:
                self.earlier.keep(self.hand, self.alerts)
            else:  # the first hand this run: resumed, the journal has the hand before's
                self.earlier.recall()
            self.hand, self.alerts, self.dice = status.hand_number, {}, None
        for event in events:
            if self.ruling_late:
                self.earlier.follow(event)
            else:
                follow(self, event, status.dice_source)
            self.log.append(event.to_json())
        if any(not isinstance(e, ev.RECORDS) for e in events):
            self._waits = None  # the engine's outputs: a hand may have changed
        if not self.subscribers and self.broadcast is None:
            return
        self.seq += 1
        views: dict[bool, dict] = {}
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
        lean = {referee: _sheet_once(update, self._sheet_sent) for referee, update in views.items()}
        for queue, referee in self.subscribers:
            dropped = queue.full()
            if dropped:
                queue.get_nowait()  # drop the oldest: it may have carried the sheet, this does
            queue.put_nowait(views[referee] if dropped else lean[referee])
        self._sheet_sent = next(iter(views.values()))["state"]["sheet"]
        if self.broadcast is not None:
            self.broadcast.add(self.seq, views[True]["state"])

    # -- the referee's actions ------------------------------------------------------------

    def handlers(self) -> dict[str, Callable[[float, dict], dict]]:
        """Each referee action of display/actions.py's ACTIONS and what carries it out: the
        two lists are one (a test holds them equal)."""
        return {
            "ack": self._ack,
            "void_hand": self._void_hand,
            "redeal": partial(redeal, self.service),  # seed 000 配牌時的犯規 7
            "remove_excess": partial(remove_excess, self.service),  # 配牌時的犯規 6
            "accept_table": self._accept_table,
            "retry": self._retry,  # the shuffler after its fault (issue 29)
            "rule": partial(game_input, self, "rule"),
            "revoke": partial(revoke, self),  # a penalty applied, lifted with a reason (issue 16)
            "undo_waive": partial(undo_waive, self),  # a Waive taken back (issue 36 item 2)
            "report": self.entries.report,
            "pause": partial(game_input, self, "pause"),
            "roll": partial(game_input, self, "roll"),
            "wall_touched": partial(game_input, self, "wall_touched"),
            "dealer_kept": partial(game_input, self, "dealer_kept"),  # seed 000 做錯莊 3
            "break_made": partial(game_input, self, "break_made"),  # seed 000 開錯門
            "draw_seats": self._draw_seats,
            "change_seats": partial(stage_desk.change_seats, self.service),  # seed 004 換位
            "ask_scores": partial(stage_desk.ask_scores, self.service),  # seed 004 三十三 問分
            "new_session": partial(sessions.begin_next, self.service),  # issue 19
            "resume": self._resume,
            "correct": self._correct,
            "confirm_score": self.sheet.confirm_score,  # the score sheet (issue 16)
            "sign_sheet": self.sheet.sign_sheet,
            "players": self.sheet.players,
            "ask_signatures": self.sheet.ask_signatures,
            "player_signs": self.sheet.player_signs,
            "withdraw_signature": self.sheet.withdraw_signature,  # tapped wrong (issue 36)
        }

    async def act(self, action: str, body: dict, who: str | None = None) -> dict:
        """Stamp the action now, and carry it out in its turn on the service's actor; `who`
        is the referee logged in (None: the profile's PIN), journaled after the action's own
        rows (a RefereeActed record)."""
        perform = self.handlers().get(action)
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
        port = self.service.commands
        before = port.seq
        self._acting_at = self.wall_time()  # one time of day for all the action journals
        why = body.get("reason", "").strip() if isinstance(body.get("reason"), str) else ""
        try:
            answer = perform(t, body)
        except ActionRefused:
            if port.seq > before:
                self._journal_who(t, action, who, why)
            raise
        else:
            self._journal_who(t, action, who, why)
        finally:
            self._acting_at = None
        return answer

    def _journal_who(self, t, action: str, who: str | None, why: str) -> None:
        acted = ev.RefereeActed(t, None, action, who, self.wall_time(), why)
        self.service.commands.journal(acted)

    def wall_time(self) -> str:
        """The time of day, UTC, ISO 8601 to the millisecond, as the journal keeps it: the
        action's own while one is carried out (its signature and its RefereeActed agree)."""
        if self._acting_at is not None:
            return self._acting_at
        return datetime.fromtimestamp(self.wall(), UTC).isoformat(timespec="milliseconds")

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
        # at the table: none on the way (issue 15)
        self.service.commands.note_venue(lambda notes: notes.seen_at_table(seen))
        return self._record(ev.Acknowledged(t, None, body.get("fault"), body.get("alert")))

    def _void_hand(self, t, body) -> dict:
        number = self.service.commands.void(t, body["reason"])
        if number is None:
            raise ActionRefused("no hand is in play")
        return {"voided": number}

    def _accept_table(self, t, body) -> dict:
        """The hand goes on from the table as it lies (issue 20): a journaled engine input,
        its reason in the RefereeActed after it (issue 36 item 3)."""
        reason(body, "accepting the table as it lies")
        outputs = self.service.commands.accept_table(t)
        if outputs is None:
            raise ActionRefused("no hand is in play")
        refusal = next((o for o in outputs if isinstance(o, ev.Alert)), None)
        if refusal is not None:
            raise ActionRefused(refusal.message)
        return {"done": "accept_table", "events": [o.to_json() for o in outputs]}

    def _retry(self, t, body) -> dict:
        """The shuffler's cycle again, its fault put right: journaled (ShufflerRetried)."""
        refusal = self.service.retry_shuffler(t, "desk")
        if refusal is not None:
            raise ActionRefused(refusal)
        return {"done": "retry"}

    def _resume(self, t, body) -> dict:
        """The hand's clocks go on (a journaled input); the venue's pause, if it holds this
        table, is lifted here too (a HallResumed record), between hands as well (issue 15),
        and so is the break between games (issue 13: the next game may begin)."""
        table = self.service.status().table
        clocks_paused = table is not None and not table.ended and table.clocks.paused_at is not None
        if not self.service.commands.hall_held(t):
            return game_input(self, "resume", t, body)
        answer = game_input(self, "resume", t, body) if clocks_paused else None
        lifted = self.service.commands.lift_hall(t).to_json()
        return answer or {"done": "resume", "events": [lifted]}

    def _correct(self, t, body) -> dict:
        if body["zone"] not in ZONES or not self.service.status().in_play:
            raise ActionRefused(
                f"cannot put a tile in {body['zone']!r} now (zones: "
                f"{', '.join(ZONES)}; only while a hand is in play)"
            )
        try:
            record = self.service.commands.correct(t, body["tile"], body["zone"])
        except TrackingError as err:  # a tile not in this hand
            raise ActionRefused(str(err)) from None
        self.service.commands.publish()
        return record.to_json()

    def _draw_seats(self, t, body) -> dict:
        """執位: journaled, in both views' log, and a line on the console."""
        commands = self.service.commands
        drawing = seat_drawing.drawn(t, self.service.status(), body.get("winds"), commands.rows())
        commands.record(drawing, shown=True, line=seat_drawing.said(drawing))
        return drawing.to_json()

    def _record(self, record) -> dict:
        self.service.commands.record(record)
        return record.to_json()


def _answered(perform, body, t):
    """Carry out an action on the actor's turn; a refusal is the referee's answer, not a
    fault of the table, so it is returned rather than raised there."""
    try:
        return perform(t, body)
    except ActionRefused as refusal:
        return refusal


def _sheet_once(update: dict, sent: dict | None) -> dict:
    """The update as a stream sends it: without the score sheet when the sheet is the document
    the pages already have (issue 32 item 4). The sheet grows a row a hand; sent with every
    update it made each update's text grow with the day (280 KB at hand 1000), and the heap
    with it. A page keeps the sheet it has when an update has none (display.js)."""
    if sent is None or update["state"]["sheet"] is not sent:
        return update
    return update | {"state": {k: v for k, v in update["state"].items() if k != "sheet"}}
