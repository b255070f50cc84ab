"""The table's service: what each device record means for the table.

The parts, each with one job: the actor (firmware/table/actor.py) stamps and orders every input;
the hand's lifecycle (firmware/table/hands.py) keeps the session, the hand in play and its tile
tracking; the fault board (firmware/table/faults.py) keeps what needs a person; the sitting's
clock (firmware/table/sitting.py) says when a new hand may begin. The service joins them: it
reads a reader's frame, a button, the shuffler or the dice as what it means there, follows
the readers going and coming back, and hands out its status (firmware/table/status.py).
Everyone else acts on the table through its write port (firmware/table/commands.py), and a
restart takes up all it owns here, whatever is attached (`resume`).
"""

import logging
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from types import MappingProxyType

from drivers import reader_frames, readers
from drivers.buttons import ButtonPress
from drivers.dice import DiceReport, ElectronicDice, PhysicalDice
from drivers.shuffler import (
    FaultCleared,
    ShufflerFault,
    ShufflerRefused,
    ShufflerStep,
    WallsRaised,
    WallsReady,
)
from engine import events as ev
from engine.seats import WORDS
from firmware.journal import device_key
from firmware.journal.failures import Stopped, StorageFailure
from firmware.table import sealing
from firmware.table.actor import Actor, Tick
from firmware.table.assembly import Devices, build_devices
from firmware.table.commands import TableCommands
from firmware.table.faults import FaultBoard
from firmware.table.hands import Hands
from firmware.table.registries import ADVICE as REGISTRY_ADVICE
from firmware.table.registries import RegistryGuard
from firmware.table.resume import recall
from firmware.table.sitting import Sitting
from firmware.table.status import ShufflerStatus, Status
from firmware.table.storage import DiskWatch
from firmware.table.venue_notes import VenueNotes

STRAY_BUTTONS = "stray buttons"  # the fault of a reader's seat buttons where pins carry them

log = logging.getLogger("mjtable.service")


class ReaderFeed:
    """What the readers send the actor from their threads: each record stamped and queued,
    and the latest heartbeat of each reader noted as it is queued, so a simulation can tell
    how far behind the readers the actor is, and the wall check whether the stacker's frames
    about the built walls are in."""

    def __init__(self, actor):
        self.actor = actor
        self.heartbeats: dict[str, int] = {}  # device path -> heartbeat seq

    def callback(self, loop, path: str):
        """The callback of the reader at `path`, for its thread; `loop` is the actor's."""

        def seen(record):
            if isinstance(record, reader_frames.Heartbeat):
                self.heartbeats[path] = record.seq

        return self.actor.from_thread(loop, seen)


class Service:
    """Referees one table. `actor` (firmware/table/actor.py) holds the table's clock (scaled in
    simulation) and the queue the devices report to; `journal` is a firmware.journal.store.Journal;
    `out(line)` prints a readable line per event; `hands` stops the service after that many
    hands; `reader_paths` are the zone and the stacker readers' device paths (default: the
    profile's); `feed` is what the readers report through (default: a feed of its own)."""

    def __init__(
        self,
        profile,
        ruleset,
        journal,
        actor,
        shuffler,
        dice=None,
        out=print,
        hands: int | None = None,
        reader_paths: Sequence[str] | None = None,
        feed: ReaderFeed | None = None,
    ):
        self.profile, self.ruleset, self.journal = profile, ruleset, journal
        self.actor, self.clock, self.shuffler, self.out = actor, actor.clock, shuffler, out
        dice = dice or ElectronicDice()
        self.dice_source = "physical" if isinstance(dice, PhysicalDice) else "electronic"
        self._first: list = []  # publish(events) callbacks that note (the venue's commands)
        self._then: list = []  # and those that show and send (the desk, the uplink, a bench)
        self.faults = FaultBoard(journal, out, self.publish)
        self.venue = VenueNotes()  # what the venue asked it to show (firmware/table/venue_notes.py)
        self.next_session: Path | None = None  # begun at the desk: the service stops for it
        self.sitting = Sitting(lambda: self.venue, out, self.publish)
        self.hands = Hands(
            profile,
            ruleset,
            journal,
            shuffler,
            dice,
            self.faults,
            out,
            self.publish,
            hands,
            self.actor.done.set,
            self.sitting,
            device_key.load(device_key.key_path(profile, journal.path)),
        )
        self.opened: ev.SessionOpened | None = None  # the header this start wrote (issue 35)
        self.closed = False  # since it: the session closed, or its hand in play signed
        new = journal.seq == 0
        if new:
            sealing.open_session(self, self.clock())
        self.registries = RegistryGuard(journal, profile.tags, profile.registry, self.clock(), new)
        sealing.attach_signer(self)
        paths = reader_paths or (profile.zones_reader.path, profile.stacker_reader.path)
        self.zones_path: str = paths[0]
        self.stacker_path: str = paths[1]
        self.readers_online = dict.fromkeys(paths, True)
        self.feed = feed or ReaderFeed(actor)
        self.heartbeats = self.feed.heartbeats
        self.last_tick = 0.0
        self.disk = DiskWatch(journal.path, profile.journal_min_free_mb, self.faults)
        self.stopped: Stopped | None = None  # why the table stopped refereeing
        self.commands = TableCommands(self)  # the write port: how others act on the table

    async def run(self) -> None:
        """Referee: take the actor's items until it is done."""
        await self.actor.run(self.handle, self.failed)

    def publish(self, events) -> None:
        for listener in (*self._first, *self._then):
            listener(events)

    def subscribe(self, listener, before_outputs: bool = False) -> None:
        """Call `listener(events)` with each publication (firmware/table/commands.py)."""
        (self._first if before_outputs else self._then).append(listener)

    def resume(self, t: float, replayed, cut: float | None = None) -> int:
        """Go on with the session the journal holds (firmware/journal/replay.py's result; None
        for a new journal), `cut` when it was last written. The table takes up all it owns
        itself, whatever is attached (issue 29): the venue's notes and the players entered,
        the hand voided since the last deal, then the hands (firmware/table/resume.py).
        Returns the hands settled again."""
        if replayed is None:
            return 0
        self.venue, self.hands.voided = recall(self.journal.rows())
        settled = self.hands.resume(t, replayed, cut)
        sealing.open_session(self, t)  # the table goes on with the session: signed again
        return settled

    def close(self, t: float) -> None:
        """The table stops: the session closed, or its hand in play signed (issue 35)."""
        sealing.close_session(self, t)

    def status(self) -> Status:
        hands, shuffler, table = self.hands, self.shuffler, self.hands.table
        fault, now, game = shuffler.fault, self.clock(), self.sitting.game
        interruption = hands.interruption
        return Status(
            t=now,
            ruleset=self.ruleset.name,
            hand_number=hands.session.hand_number,
            state=table.state if table is not None else "between_hands",
            in_play=hands.in_play,
            scores=tuple(hands.session.scores),
            session=hands.session,
            table=table,
            dice_source=self.dice_source,
            faults=tuple(self.faults.recent),
            fault_records=self.faults.records,
            fault_kinds=MappingProxyType(dict(self.faults.kinds)),
            shuffler=ShufflerStatus(
                shuffler.state,
                shuffler.set_in_play,
                shuffler.set_ready,
                tuple(shuffler.counts),
                f"{fault.message}: {fault.advice}" if fault else None,
            ),
            readers_online=MappingProxyType(dict(self.readers_online)),
            heartbeats=MappingProxyType(dict(self.heartbeats)),
            walls_ready=hands.walls.ready is not None,
            counts=MappingProxyType(dict(hands.counts)),
            last_tick=self.last_tick,
            tracked=hands.tracked,
            transient_absences=hands.tracker.transient_absences,
            transient_sightings=hands.tracker.transient_sightings,
            not_refereeing=self.stopped,
            interruption=interruption.to_json() if interruption else None,
            displaced=tuple(d.to_json() for d in interruption.displaced) if interruption else (),
            fully_read=interruption is not None and interruption.full,
            venue=self.venue,
            time_left=self.sitting.left(now),
            next_session=str(self.next_session) if self.next_session else None,
            seal=hands.walls.seal_json(),
            game_clock=game.to_json(now) if game is not None else None,
            voided=hands.voided,
            set_in_play=hands.set_in_play,
            deal_begun=bool(
                hands.interpreter
                and hands.interpreter.deal_order
                and hands.interpreter.deal_order.started
            ),
        )

    # -- what each record means ----------------------------------------------------------

    def handle(self, t: float, item) -> None:
        hands, faults = self.hands, self.faults
        if isinstance(item, Tick):
            self.last_tick = t
            self.disk.poll(t)
            self.shuffler.poll(t)
            online = self.readers_online.get(self.stacker_path, True)
            hands.walls.judge(t, self.heartbeats.get(self.stacker_path), online)
            hands.poll(t)
            self.sitting.poll(t)
        elif isinstance(item, reader_frames.Inventory):
            zone = self.profile.zones.get(item.antenna)
            if zone is not None:
                hands.sweep(t, zone, item.tags)
        elif isinstance(item, reader_frames.Stacked):
            hands.walls.stacked(item.position, item.tag)
        elif isinstance(item, readers.ReaderLost):
            self._reader(t, item.path, False, item.reason)
        elif isinstance(item, readers.ReaderBack):
            self._reader(t, item.path, True, "")
        elif isinstance(item, reader_frames.ReaderError):
            where = (
                "" if item.antenna == reader_frames.NO_ANTENNA else f" on antenna {item.antenna}"
            )
            faults.report(
                t,
                "reader",
                f"error {item.code}",
                f"the tile reader reports {item.name}{where}",
                "call the technician if it repeats",
                transient=True,
            )
        elif isinstance(item, (ButtonPress, reader_frames.SeatButton)):  # a pin's or a reader's
            if (item.side, item.button) == self.profile.shuffler_retry and self.shuffler.fault:
                self.retry_shuffler(t, f"{WORDS[item.side]} {item.button}")
            elif isinstance(item, reader_frames.SeatButton):
                self._reader_button(t, item)
            else:
                hands.button(t, item.side, item.button)
        elif isinstance(item, DiceReport):
            hands.roll(t, item.side, item.values)
        elif isinstance(item, ShufflerFault):
            transient = item.kind == "slow"
            faults.report(t, "shuffler", item.kind, item.message, item.advice, transient=transient)
        elif isinstance(item, FaultCleared):
            faults.clear(t, "shuffler", item.kind)
        elif isinstance(item, WallsReady):
            refusal = self.registries.refusal(item.tile_set)
            if refusal:  # issue 17: a set whose tags changed is never played
                self.shuffler.reject_walls(t, refusal, REGISTRY_ADVICE)
            else:
                hands.walls.built_walls(t, item, self.heartbeats.get(self.stacker_path))
        elif isinstance(item, WallsRaised):
            self.disk.check(t)  # before each hand
            hands.raise_walls(t, item.tile_set)
        elif isinstance(item, ShufflerRefused):
            self.out(f"{t:9.1f}  shuffler: {item.message}")
        elif isinstance(item, ShufflerStep):
            self.publish([])

    def _reader_button(self, t, press: reader_frames.SeatButton) -> None:
        """A seat button sent by a reader's board: a press where the profile says the panels
        are wired there ([buttons] kind = "zone_reader"); elsewhere the pins carry the presses,
        and the reader's frames are ignored, the referee told once (a miswired board, or a
        profile that names the wrong kind)."""
        if self.profile.kinds.get("buttons") == "zone_reader":
            self.hands.button(t, press.side, press.button)
        elif not self.faults.kinds[STRAY_BUTTONS]:
            self.faults.report(
                t,
                "reader",
                STRAY_BUTTONS,
                "a tile reader sends seat buttons, but this table's buttons are on pins "
                f'([buttons] kind = "{self.profile.kinds.get("buttons")}"): they are ignored',
                "the technician checks the profile's [buttons] kind and the panels' wiring",
                transient=True,
            )

    def retry_shuffler(self, t, by: str) -> str | None:
        """Start the shuffler's cycle again after its fault, the technician having put it
        right (issue 29): asked at the desk (`by` "desk") or by the side's button the profile
        names ("East referee"), journaled with who asked. Why it was not done, or None."""
        fault = self.shuffler.fault
        if fault is None:
            return f"the shuffler has no fault to retry (it is {self.shuffler.state})"
        if not self.shuffler.retry(t):
            return "a stacking head is still blocked: clear the stuck tile first, then retry"
        retried = ev.ShufflerRetried(t, None, fault.kind, by)
        self.journal.record(retried)
        self.out(f"{t:9.1f}  shuffler: retried after its {fault.kind} fault ({by})")
        self.publish([retried])
        return None

    def _reader(self, t, path, online: bool, reason: str) -> None:
        """A reader gone or back. Without the zone reader play stops (firmware/table/hands.py);
        the stacker matters only when walls are built, and the wall check catches what it
        missed."""
        was = self.readers_online.get(path, True)
        self.readers_online[path] = online
        if online == was:
            return
        zones = path == self.zones_path
        device = "zone reader" if zones else "stacker reader"
        if not online:
            self.faults.report(
                t,
                device,
                "offline",
                f"the tile reader at {path} is offline ({reason})",
                "play stops and the clocks are paused: check the "
                "reader's USB cable; play goes on when it is back"
                if zones
                else "check the reader's USB cable before the next walls are built",
            )
        else:
            self.faults.clear(t, device, "offline")
        if zones:
            self.hands.zone_reader(t, online)

    def failed(self, t, what: str, err: Exception) -> None:
        """The actor's item `what` raised. A bug must not stop the table: the referee is
        told, and play goes on under his control. A journal that cannot be written must:
        nothing may be applied that is not journaled (firmware/table/storage.py)."""
        if isinstance(err, StorageFailure):
            self.stop_refereeing(t, err)
            return
        log.exception("service: a %s failed", what)
        try:
            self.faults.report(
                t,
                "service",
                "internal",
                f"the service failed on a {what} ({type(err).__name__}: {err})",
                "call the technician; play on under the referee's control",
                transient=True,
            )
        except StorageFailure as failure:  # the fault could not be journaled either
            self.stop_refereeing(t, failure)

    def stop_refereeing(self, t, failure: StorageFailure) -> None:
        """Take no more inputs and say why, on the console and the display; the run then
        ends (`mjtable run` exits with firmware/table/storage.py's EXIT_STATUS). Nothing of it is
        journaled: the journal is what failed."""
        if self.stopped is not None:
            return
        self.stopped = Stopped.by(t, failure)
        self.actor.done.set()
        self.out(f"{t:9.1f}  {self.stopped.line()}")
        self.publish([])


def assemble(
    profile, ruleset, journal, clock, loop, out=print, hands=None, gpio=None, reader_paths=None
) -> tuple[Service, Devices]:
    """The service and the devices its profile names (firmware/table/assembly.py), every record
    stamped where it was seen and queued for the actor. The shuffler's records are made on
    the loop (in its poll); the buttons' on the GPIO library's thread, so they are handed
    over to `loop`. `gpio` and `reader_paths` stand in for the profile's (a simulation's
    pins and ptys). The readers are built, not started."""
    actor = Actor(clock)
    feed = ReaderFeed(actor)

    def report(record):
        if isinstance(record, ButtonPress):
            loop.call_soon_threadsafe(actor.record, record, record.t)
        else:
            actor.record(record, record.t)

    devices = build_devices(
        profile, ruleset, clock, report, partial(feed.callback, loop), gpio, reader_paths
    )
    paths = tuple(reader.path for reader in devices.readers)
    service = Service(
        profile, ruleset, journal, actor, devices.shuffler, devices.dice, out, hands, paths, feed
    )
    return service, devices
