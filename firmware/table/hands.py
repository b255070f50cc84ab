"""The hand's lifecycle at the table: walls judged and raised, dice, the deal, the play, the
settlement, the next hand (when the sitting's clock lets it begin, firmware/table/sitting.py); a
hand voided; a session resumed from its journal.

`Hands` owns the session, the table of the hand in play, the tile tracking and the
interpreter (engine/moves.py) that turns tile movements into the hand's inputs. Every engine
input is journaled (committed) before it is applied (DESIGN.md). It is driven by the actor's
turn only: nothing here is thread-safe or meant to be changed from outside.
"""

from datetime import UTC, datetime

from drivers.dice import DiceError, DiceRoll, PhysicalDice
from engine import events as ev
from engine.moves import Interpreter, Irregular
from engine.seats import LETTERS, zone
from engine.session import Session
from engine.table import Table
from engine.tampering import Tampering
from engine.tracking import Tracker
from engine.tracking_reports import TrackingAlert
from firmware.journal import seals as fairness
from firmware.journal.device_key import DeviceKey
from firmware.table.game_clock import GameClock
from firmware.table.resume import Interruption, resume_session
from firmware.table.sitting import Sitting
from firmware.table.status import TrackedHand
from firmware.table.walls import WallCheck
from firmware.texts.console import describe

_ADVICE = {
    "missing": "find the tile and put it back where it belongs, or correct the tracking",
    "two_places": "a tag is read in two zones: check both and correct the tracking",
    "foreign": "remove the tile that is not of this table's sets",
    "jump": "the move was not seen step by step: check it and correct if wrong",
    "unexpected_tile": "a tile of the set below the table is on it: remove it",
}


class Hands:
    """`faults` is the fault board; `out(line)` prints a console line; `publish(events)`
    fans events out; `finished()` is called once the session has `wanted` hands on its
    sheet (None: no limit); `sitting` says whether a new hand may begin."""

    def __init__(
        self,
        profile,
        ruleset,
        journal,
        shuffler,
        dice,
        faults,
        out,
        publish,
        wanted,
        finished,
        sitting: Sitting,
        device_key: DeviceKey,
    ):
        self.profile, self.ruleset, self.registry = profile, ruleset, profile.tags
        self.journal, self.shuffler, self.dice = journal, shuffler, dice
        self.faults, self.out, self.publish = faults, out, publish
        self.wanted, self.finished, self.sitting = wanted, finished, sitting
        self.device_key = device_key  # signs the journal's head at each hand's end
        self.session = Session(ruleset)
        game = getattr(ruleset, "config", {}).get("game")
        if game is not None:  # CCM's 局 have their time (issue 13, firmware/table/game_clock.py)
            clock = GameClock(self.session, game, profile.game_minutes, sitting.notes, out, publish)
            sitting.count_games(clock)
        self.tracker = Tracker()
        self.walls = WallCheck(self.registry, shuffler, out, journal, publish)
        self.table: Table | None = None
        self.interpreter: Interpreter | None = None
        self.recorded = False  # the hand on the table is on the score sheet
        self.set_in_play: str | None = None  # the tile set on the table or in the machine
        self.counts = {"hands": 0, "events": 0, "alerts": 0, "overtime": 0}
        self.tracked = TrackedHand(0)  # the latest hand's inferred moves and flagged tiles
        self.interruption: Interruption | None = None  # a hand taken up after a power cut
        self.reader_lost: float | None = None  # when the zone reader went, while it is away
        self.voided: dict | None = None  # {"hand", "reason"}: voided, the next not yet dealt
        self.signing = None  # (t, side) -> bool: a 和 press taken as a signature (issue 16)

    @property
    def in_play(self) -> bool:
        return self.table is not None and not self.table.ended

    # -- walls up, dice, deal ------------------------------------------------------------

    def raise_walls(self, t, tile_set: str) -> None:
        """The walls are up: a new table on the lanes the stacker read, East's on the
        dealer's side; its clocks paused from the start if the venue paused the hall while
        the walls rose."""
        lanes = self.walls.take()
        if lanes is None:
            return
        self.set_in_play, self.voided = tile_set, None
        dealer_side = self.session.player_at(0)
        walls = [lanes[(dealer_side + seat) % 4] for seat in range(4)]
        self.table = table = self.session.new_table(walls)
        self.sitting.hand_started(t)
        self.recorded = False
        number = self.session.hand_number
        self.journal.hand(
            self.ruleset.name,
            number,
            walls,
            t,
            table.chips,
            table.doubling,
            table.last_deal,
            tile_set,
            self.profile.name,
            datetime.now(UTC).isoformat(timespec="seconds"),
        )
        self.tracker.place({tile: zone("wall", lane) for lane in range(4) for tile in lanes[lane]})
        self.interpreter = self.new_interpreter(table)
        self.out(
            f"{t:9.1f}  hand {number}: East sits on the "
            f"{LETTERS[dealer_side]} side; walls of set {tile_set} up"
        )
        self.publish([])
        self.tell_time_up(t)  # it ran out between hands: this hand is the game's last
        if self.sitting.hall_paused:
            self.out(f"{t:9.1f}  the venue has paused the hall: the clocks wait for its resume")
            self.apply(ev.ClocksPaused(t, None))

    def new_interpreter(self, table) -> Interpreter:
        """The interpreter of a hand's moves, with East on the dealer's side."""
        sweep = self.profile.zones_reader.sweep_seconds or 0.25
        return Interpreter(
            table,
            self.session.player_at(0),
            self.profile.claim_window_seconds,
            settle=(self.tracker.confirm + 1) * sweep,
        )

    def button(self, t, side: int, button: str) -> None:
        if button == "referee":
            seat = self.interpreter.seat(side) if self.in_play and self.interpreter else None
            message = f"the {LETTERS[side]} player calls the referee"
            self.faults.report(
                t, "table", "referee", message, "go to the table", None, True, seat=seat
            )
        elif button == "dice":
            table = self.table
            if table is not None and not table.ended and table.state in ("dice", "second_roll"):
                if not isinstance(self.dice, PhysicalDice):
                    self.roll(t, side, None)
            elif self.walls.ready is not None and not self.sitting.on_break(t):
                refusal = self.sitting.refusal(t, self.in_play)
                if refusal is None:
                    self.shuffler.raise_walls(t)
                else:
                    self.faults.report(t, "table", *refusal, transient=True)
        elif button == "win" and not self.in_play and self.signing and self.signing(t, side):
            pass  # between hands: a player signs the score sheet (firmware/desk/sheet.py)
        elif self.interpreter is not None:
            self.apply_all(self.interpreter.button(t, side, button))

    def roll(self, t, side: int, values) -> None:
        """The dice: `values` read by the sensor (physical dice), or None to roll them."""
        if self.table is None or self.table.state not in ("dice", "second_roll"):
            return
        sealed = self.walls.dealt
        try:
            if values is not None:
                roll = self.dice.report(values)
            elif sealed is None:  # walls of a journal from before the seal (issue 17)
                roll = self.dice.roll()
            else:  # from the seal and the press: anyone recomputes them (issue 35)
                roll = DiceRoll(fairness.electronic_dice(sealed, t, self.dice.count), "electronic")
        except DiceError as err:
            self.faults.report(
                t, "dice", "bad roll", f"the dice sensor read {err}", "roll again", transient=True
            )
            return
        interpreter = self.interpreter
        assert interpreter is not None  # the dice are taken only with a hand's walls up
        self.apply(ev.DiceRolled(t, interpreter.seat(side), roll.values, roll.source))

    # -- the play ------------------------------------------------------------------------

    def poll(self, t) -> None:
        """The interpreter's timers (held moves, the claim window); none runs while a hand
        taken up after a power cut waits for the referee, nor while the zone reader is away.
        The game's time running out."""
        self.tell_time_up(t)
        if self.interpreter is not None and self.interruption is None and self.reader_lost is None:
            self.apply_all(self.interpreter.poll(t))

    def tell_time_up(self, t) -> None:
        """Seed 004 第五條 滿足規定時間後的最後一次成牌或荒牌，比賽結束: once the game's time is up
        at `t`, the hand in play is told (a journaled input), so that it is its last: §32
        then bars a win that ends the game with the winner not first, the dealer's too."""
        table = self.table
        if self.in_play and table is not None and not table.time_up and self.sitting.time_up(t):
            self.apply(ev.GameTimeUp(t, None))

    def sweep(self, t, zone: str, tags) -> None:
        """A zone's inventory: the tiles that moved, and what that means in the hand."""
        interpreter = self.interpreter
        if not self.in_play or interpreter is None:
            return
        seen, unknown = set(), set()
        for tag in tags:
            owner = self.registry.get(tag)
            if owner is not None and owner[0] == self.set_in_play:
                seen.add(owner[1])
            else:
                unknown.add(tag)
        if self.interruption is not None:
            self.interruption.sweep(zone, seen)
        for result in self.tracker.sweep(t, zone, seen, unknown, interpreter.expects):
            self.tracked = tracked = self.tracked.of(self.session.hand_number)
            if isinstance(result, TrackingAlert):
                self._tracking_alert(t, result)
                continue
            if not result.flagged:
                tracked.moves[result.tile, result.source, result.target] += 1
            for meaning in interpreter.move(t, result.tile, result.source, result.target):
                if isinstance(meaning, Tampering):
                    self.faults.report(
                        t,
                        "tracking",
                        "tampering",
                        meaning.message,
                        "compare the wall with the stacker's read before play goes on",
                        tile=meaning.tile,
                        transient=True,
                    )
                elif isinstance(meaning, Irregular):
                    tracked.flagged.add(meaning.tile)
                    self.faults.report(
                        t,
                        "tracking",
                        "irregular",
                        meaning.message,
                        "check the tiles and correct the tracking",
                        tile=meaning.tile,
                        transient=True,
                    )
                else:
                    self.apply(meaning)
        if self.interruption is not None and self.interruption.compare(self):
            self.publish([])  # the list of tiles out of place changed

    def _tracking_alert(self, t, alert) -> None:
        """A missing tile's fault stays open until the tile is found; the others are told."""
        if alert.kind == "found":
            self.faults.clear(t, "tracking", "missing", key=f"missing {alert.tile}")
            return
        self.tracked.flagged.add(alert.tile)
        missing = alert.kind == "missing"
        self.faults.report(
            t,
            "tracking",
            alert.kind,
            alert.message,
            _ADVICE[alert.kind],
            tile=alert.tile,
            transient=not missing,
            key=f"missing {alert.tile}" if missing else None,
        )

    def zone_reader(self, t, online: bool) -> None:
        """Without the zone reader nobody sees the tiles move: the tracking waits and the
        clocks stop until it is back, and the calls on a discard are open for their whole
        time again once it is (issue 32 item 8: closed unseen, a call made was refused)."""
        table = self.table if self.in_play else None
        lost = self.reader_lost
        self.reader_lost = None if online else t if lost is None else lost
        if online:
            self.tracker.resume(t)
            interpreter = self.interpreter
            if lost is not None and interpreter and interpreter.window_opened is not None:
                interpreter.window_opened = t
            if (
                table is not None
                and table.clocks.paused_at is not None
                and self.interruption is None  # the referee resumes after a power cut
                and not self.sitting.hall_paused  # the venue, or the referee, resumes then
            ):
                self.apply(ev.ClocksResumed(t, None))
        else:
            self.tracker.suspend(t)
            if table is not None and table.clocks.paused_at is None:
                self.apply(ev.ClocksPaused(t, None))

    def correct(self, t, tile: int, zone: str) -> ev.TrackingCorrected:
        """The referee says where a tile really is (TrackingError if it is not in play)."""
        self.tracker.correct(tile, zone)
        record = ev.TrackingCorrected(t, None, tile, zone)
        self.journal.record(record)
        return record

    def accept_table(self, t) -> list[ev.Event] | None:
        """The referee accepts the table as it lies: the hand goes on from where the tracking
        has each tile (issue 20), a journaled input. None if no hand is in play."""
        if not self.in_play or self.interpreter is None:
            return None
        return self.apply(self.interpreter.accept(t, self.tracker.layout()))

    def apply_all(self, inputs) -> None:
        for event in inputs:
            self.apply(event)

    def apply(self, event: ev.Event) -> list[ev.Event]:
        """Journal the input (committed), apply it, journal and show what it did."""
        if not isinstance(event, ev.GameTimeUp):
            self.tell_time_up(event.t)  # an input after time is up comes in the last hand
        table, interpreter = self.table, self.interpreter
        assert table is not None and interpreter is not None  # inputs come with a hand dealt
        self.journal.input(event)
        outputs = table.apply(event)
        self.journal.outputs(outputs)
        interpreter.outputs(event.t, outputs)
        self.counts["events"] += 1 + len(outputs)
        for out in outputs:
            self.counts["alerts"] += isinstance(out, ev.Alert)
            self.counts["overtime"] += isinstance(
                out, ev.PenaltyApplied
            ) and out.offence.startswith("overtime")
            line = describe(out, self.ruleset)
            if line:
                self.out(f"{out.t:9.1f}  {line}")
        if self.recorded and any(isinstance(out, ev.RESETTLED) for out in outputs):
            self.settle_again(event.t, table)  # on the sheet already: before it is shown
        self.publish(outputs)
        if isinstance(event, ev.ClocksResumed) and table.clocks.paused_at is None:
            self._interruption_over(event.t)
        if table.ended and not self.recorded:
            self._settle(event.t)
        return outputs

    # -- the hand's end ------------------------------------------------------------------

    def settle_again(self, t, table) -> None:
        """The hand on the sheet changed: its row settled again while its game goes on; once
        its game has ended with it, what it holds now added to the game's 局分 (seed 004 第三章
        第二條 七(二) 局結後罰分); else (a later hand's game) nothing moves."""
        session = self.session
        if session.settles_again(table):
            row = session.settle_again(table)
            self.out(
                f"{t:9.1f}  hand {row.number} settled again: scores "
                + " ".join(f"{LETTERS[p]} {s:+d}" for p, s in enumerate(row.totals))
            )
        elif session.ended_game(table):
            game = session.settle_after_game(table)
            self.out(
                f"{t:9.1f}  game {len(session.games)} settled after its end: 局分 "
                + " ".join(f"{LETTERS[p]} {s:+d}" for p, s in enumerate(game["chips"]))
            )

    def _interruption_over(self, t) -> None:
        """Play goes on after a power cut: the referee resumed the clocks, or the hand ended."""
        if self.interruption is not None:
            interpreter = self.interpreter
            opened = interpreter.window_opened if interpreter else None
            if interpreter is not None and opened is not None:  # the calls keep their time
                interpreter.window_opened = opened + t - self.interruption.t
            self.interruption = None
            self.faults.clear(t, "table", "interrupted")

    def _settle(self, t) -> None:
        self._interruption_over(t)
        self.recorded = True
        row = self.sitting.record(self.session, self.table, t)  # the game's time (issue 13)
        self.walls.reveal(t)  # the walls' seal shown once the hand is over (issue 17)
        self.journal.checkpoint()  # the finished hand into the journal's main file
        self.device_key.sign_journal(self.journal, t, row.number)
        self._forget_tracking(t)
        self.counts["hands"] += 1
        self.out(
            f"{t:9.1f}  hand {row.number} over: {row.result}; scores "
            + " ".join(f"{LETTERS[p]} {s:+d}" for p, s in enumerate(row.totals))
        )
        if self.wanted is not None and len(self.session.sheet) >= self.wanted:
            self.finished()  # the session's hands, those of a journal gone on with included

    def _forget_tracking(self, t) -> None:
        """The hand is over or void: the tiles go back into the machine, nothing is missing."""
        self.tracker.clear()
        self.faults.clear_device(t, "tracking", "missing")

    def void(self, t, reason: str) -> int | None:
        """Void the hand in play: it does not count, the same dealer deals again on the next
        walls. Journaled for the audit. Returns its number, or None if none is in play."""
        if not self.in_play:
            return None
        number = self.session.hand_number
        self.session.hand_number -= 1  # the redeal takes the same number
        self.journal.record(ev.HandVoided(t, None, number, reason))
        self.voided = {"hand": number, "reason": reason}  # no result shown: it has none
        self.walls.reveal(t)  # a void hand's seal is shown too: its walls are not dealt again
        self.device_key.sign_journal(self.journal, t, number)
        self._interruption_over(t)
        self.table = self.interpreter = None
        self._forget_tracking(t)
        self.counts["voided"] = self.counts.get("voided", 0) + 1
        self.out(f"{t:9.1f}  hand {number} VOIDED by the referee: {reason}")
        self.publish([])
        return number

    def resume(self, t, replayed, cut: float | None = None) -> int:
        """Go on with the session a journal holds (firmware/journal/replay.py's result, None for a
        new journal), the hand cut short taken up where it lay (firmware/table/resume.py); `cut` is
        when the journal was last written. Returns the hands settled again."""
        return 0 if replayed is None else resume_session(self, t, replayed, cut)
