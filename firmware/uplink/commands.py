"""What the table does with a command from the venue's bus (docs/uplink.md, issue 15).

Anyone on the hall's network can reach the broker, and a broker account can leak: a command
is taken only when the venue's private key signed it (firmware/bus/signing.py: the table
holds only the public key), for this venue and this table, issued within WINDOW of the
table's wall clock, under an id not taken before, in this session or any other (the ids are
kept on disk until their window closes, firmware/uplink/seen.py). Every
command, taken or refused, is journaled as a `VenueCommand` record; a refusal is also a
transient fault, so the referee hears of a forgery or a venue out of step. A payload,
whatever it holds, never raises here: it is taken or it is refused, saying why.

What the venue tells the table to show (the seating and the sitting's time, a message, a
referee on the way, its pause) is the table's `VenueNotes` (firmware/table/venue_notes.py),
noted through its write port. A `resend` (issue 32 item 5) shows nothing: the venue asks for
journal rows it never got (a broker crash lost them), and the uplink sends them again. The
venue's pause and resume reach the hand as the referee's own ClocksPaused / ClocksResumed
inputs, journaled before they are applied, so a replay of the journal holds.
"""

import json
import time
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from engine import events as ev
from firmware.bus.contract import (
    ALERTS_OF,
    COMMAND_BYTES,
    COMMANDS,
    EVERY_TABLE,
    FEDERATION_ID_LENGTH,
    ID_LENGTH,
    MAX_MINUTES,
    MESSAGE_LENGTH,
    NAME_LENGTH,
    VERSION,
    decode,
)
from firmware.bus.signing import signed_by
from firmware.uplink.seen import SeenCommands

WINDOW = 300.0  # seconds an `issued` may lie from the table's wall clock
ADVICE = (
    "tell the venue's desk, which sends the command again if it is still wanted; "
    "a wrong signature means someone else is sending commands on the hall's network"
)


class Refused(Exception):
    """Why a command is not taken, in words for the journal and the referee."""


class VenueCommands:
    """Takes the venue's commands for `service` (firmware/table/service.py), on the actor's turn.
    `key` is the venue's public key (None: none configured, and every command is refused);
    `venue` and `table` the names a command must carry (or "*" for every table); `wall_clock`
    the Unix time `issued` is checked against."""

    def __init__(
        self,
        service,
        key: Ed25519PublicKey | None,
        venue: str,
        table: str,
        wall_clock=time.time,
        resend=None,
        seen: Path | None = None,
    ):
        """`resend(session, after, until)` sends those rows again (the uplink's `resend`,
        ValueError when they are not the table's to send; None: no uplink, refused); `seen`
        the file of the ids taken (firmware/uplink/seen.py; None: kept in memory only)."""
        self.service, self.key, self.venue, self.table = service, key, venue, table
        self.resend = resend
        self.port = service.commands  # the table's write port (firmware/table/commands.py)
        self.wall_clock = wall_clock
        self.taken = SeenCommands(seen)
        self.port.subscribe(self._follow, before_outputs=True)  # the pages, the uplink read it

    def receive(self, t: float, payload: bytes) -> None:
        """One command as the bus delivered it: taken, or refused (journaled, and a fault)."""
        command: dict = {}
        try:
            command = _parse(payload)
            self._check(command)
            name, args = command["command"], command["args"]
            _check_args(name, args)
            self._take(t, command, name, args)
        except Refused as why:
            self._refuse(t, command, str(why))

    def recall(self, rows) -> None:
        """Take up the ids of the commands taken before a restart (the journal's rows, a
        Journal's `rows()`), so that a command caught on the bus cannot be replayed after a
        quick restart. What they noted the table takes up itself (firmware/table/resume.py)."""
        taken = []
        for row in rows:
            if row.kind != "device" or '"VenueCommand"' not in row.json:
                continue
            record = row.event()
            if isinstance(record, ev.VenueCommand) and record.refused is None and record.id:
                taken.append(record.id)
        now = self.wall_clock()
        self.taken.remember(taken, now + WINDOW, now)

    # -- checks --------------------------------------------------------------------------

    def _check(self, command: dict) -> None:
        if self.key is None:
            raise Refused("no venue key: the table's profile names no [uplink] key_file")
        try:
            signed = signed_by(command, self.key)
        except ValueError as err:  # no canonical form: nothing could have signed it
            raise Refused(f"not JSON that RFC 8785 can sign: {err}") from None
        if not signed:
            raise Refused("wrong signature: not signed with the venue's key")
        shape = {
            "v": lambda v: v == VERSION,
            "id": lambda v: isinstance(v, str) and 0 < len(v) <= ID_LENGTH,
            "issued": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
            "venue": lambda v: isinstance(v, str),
            "table": lambda v: isinstance(v, str),
            "command": lambda v: isinstance(v, str),
            "args": lambda v: isinstance(v, dict),
        }
        bad = [name for name, good in shape.items() if not good(command.get(name))]
        if bad:
            raise Refused(
                f"not a venue command of version {VERSION}: bad or missing {', '.join(bad)}"
            )
        if command["venue"] != self.venue:
            raise Refused(f"for venue {command['venue']!r}: this table is of {self.venue!r}")
        if command["table"] not in (self.table, EVERY_TABLE):
            raise Refused(f"for table {command['table']!r}: this table is {self.table!r}")
        off = command["issued"] - self.wall_clock()
        if abs(off) > WINDOW:
            when = f"{-off:.0f} s ago" if off < 0 else f"{off:.0f} s ahead"
            raise Refused(f"issued {when}: more than {WINDOW:.0f} s from the table's clock")
        if command["id"] in self.taken:
            raise Refused(f"id {command['id']!r} was taken before: a replay")

    # -- taking it -----------------------------------------------------------------------

    def _take(self, t: float, command: dict, name: str, args: dict) -> None:
        """Journal the command, then do it: its clocks' input after it, journaled too."""
        command_id = command["id"]
        if name == "resend":
            self._resend(command, t, args)
            return
        status = self.service.status()
        clocks = status.table.clocks if status.in_play and status.table is not None else None
        if name == "resume" and clocks is not None and clocks.paused_at is not None:
            self._may_resume(status)
        if name == "acknowledge":
            self._is_told(status, args["alert"], args.get("of"))
        self._remember(command)
        record = ev.VenueCommand(t, None, command_id, name, args, None)
        self.port.journal(record)
        if name == "pause" and clocks is not None and clocks.paused_at is None:
            self.port.apply(ev.ClocksPaused(t, None))
        elif name == "resume" and clocks is not None and clocks.paused_at is not None:
            self.port.apply(ev.ClocksResumed(t, None))
        at = self.wall_clock()
        self.port.note_venue(lambda notes: notes.noted(name, args, at, t))
        self.port.publish([record])

    def _resend(self, command: dict, t: float, args: dict) -> None:
        """The rows asked for go out again: journaled, shown on no screen (the bus's own)."""
        if self.resend is None:
            raise Refused("resend: this table has no uplink to send its rows again")
        try:
            self.resend(args["session"], args["after"], args.get("until"))
        except ValueError as err:
            raise Refused(f"resend: {err}") from None
        self._remember(command)
        self.port.record(ev.VenueCommand(t, None, command["id"], "resend", args, None))

    def _may_resume(self, status) -> None:
        """The table's own reasons to keep the clocks stopped outweigh the venue's resume."""
        if not status.readers_online.get(self.service.zones_path, True):
            raise Refused("the zone reader is offline: the clocks resume when it is back")
        if status.interruption is not None:
            raise Refused("the hand taken up after a power cut waits for the table's referee")

    def _is_told(self, status, alert: int, of: str | None) -> None:
        """The venue acknowledges what this table told it: a fault, or an alert of the hand
        (`of` says which; None: either)."""
        table, recent = status.table, status.faults
        faults = {f.id for f in recent} - {f.id for f in recent if f.cleared}
        fault = of in (None, "fault") and alert in faults
        ruling = of in (None, "ruling") and table is not None and 0 < alert <= table.referee.alerts
        if not (fault or ruling):
            raise Refused(f"this table has no {of or 'fault or alert'} {alert} open")

    def _remember(self, command: dict) -> None:
        """The command's id refused as a replay until its window closes."""
        self.taken.remember([command["id"]], command["issued"] + WINDOW, self.wall_clock())

    def _refuse(self, t: float, command: dict, why: str) -> None:
        given = command.get("id")
        name = command.get("command")
        args = command.get("args")
        record = ev.VenueCommand(
            t,
            None,
            given if isinstance(given, str) else None,
            name if isinstance(name, str) else "",
            args if isinstance(args, dict) else {},
            why,
        )
        self.port.record(record, shown=True)
        named = f" {record.command[:40]!r}" if record.command else ""  # unsigned: cut short
        ident = f" (id {record.id[:40]!r})" if record.id else ""
        message = f"a command{named}{ident} on the venue's bus was refused: {why}"
        self.port.report_fault(t, "venue", "refused", message, ADVICE, transient=True)

    def _follow(self, events) -> None:
        """A fault cleared at the table: the referee on the way for it is no longer awaited."""
        cleared = {("fault", e.id) for e in events if isinstance(e, ev.Fault) and e.cleared}
        if cleared:
            self.port.note_venue(lambda notes: notes.seen_at_table(cleared))


def _parse(payload: bytes) -> dict:
    try:
        return decode(payload, COMMAND_BYTES)
    except ValueError as err:
        raise Refused(f"not a command: {err}") from None


def _check_args(name: str, args: dict) -> None:
    """The command's arguments as docs/uplink.md has them, or why not."""
    if name not in COMMANDS:
        raise Refused(f"unknown command {name!r} (known: {', '.join(COMMANDS)})")
    if name == "start_session":
        _keys(name, args, {"players"}, optional=frozenset({"minutes"}))
        minutes = args.get("minutes")
        if minutes is not None and not (_whole(minutes) and 0 < minutes <= MAX_MINUTES):
            raise Refused(
                "start_session: minutes (the sitting's time limit) must be a whole number "
                f"from 1 to {MAX_MINUTES}; given: {json.dumps(minutes)[:40]}"
            )
        players = args["players"]
        if not isinstance(players, list) or len(players) != 4:
            raise Refused("start_session: players must be a list of four, by seat")
        for player in players:
            if not isinstance(player, dict):
                raise Refused("start_session: each player is {name, federation_id}")
            _keys("start_session: a player", player, {"name", "federation_id"})
            _text("a player's name", player["name"], NAME_LENGTH)
            if player["federation_id"] is not None:
                _text("a federation_id", player["federation_id"], FEDERATION_ID_LENGTH)
    elif name == "message":
        _keys(name, args, {"text"})
        _text("the message", args["text"], MESSAGE_LENGTH, blank=True)
    elif name == "resend":
        _keys(name, args, {"session", "after"}, optional=frozenset({"until"}))
        if args["session"] is not None:
            _text("the session", args["session"], ID_LENGTH)
        after, until = args["after"], args.get("until")
        if not (_whole(after) and after >= 0):
            raise Refused("resend: after must be a row's seq, or 0 for the first row on")
        if until is not None and not (_whole(until) and until > after):
            raise Refused("resend: until must be a row's seq after `after`")
    elif name == "acknowledge":
        _keys(name, args, {"alert", "referee"}, optional=frozenset({"of"}))
        if not _whole(args["alert"]):
            raise Refused("acknowledge: alert must be the id of a fault or an alert")
        if args.get("of", "fault") not in ALERTS_OF:
            raise Refused(
                "acknowledge: of must be fault or ruling (faults and rulings number apart)"
            )
        _text("the referee's name", args["referee"], NAME_LENGTH)
    else:
        _keys(name, args, set())


def _keys(what: str, obj: dict, wanted: set[str], optional: frozenset[str] = frozenset()) -> None:
    if not wanted <= obj.keys() <= wanted | optional:
        listed = ", ".join(sorted(wanted)) or "no args"
        listed += f" (optional: {', '.join(sorted(optional))})" if optional else ""
        raise Refused(f"{what} takes {listed}; given: {', '.join(sorted(obj)) or 'none'}")


def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _text(what: str, value, length: int, blank: bool = False) -> None:
    """Printable text of at most `length` characters: nothing a screen could be made to
    draw out of place (no newline, no control character), and something unless `blank`."""
    if not isinstance(value, str) or not value.isprintable():
        raise Refused(f"{what} must be printable text")
    if len(value) > length:
        raise Refused(f"{what} is {len(value)} characters: at most {length}")
    if not blank and not value.strip():
        raise Refused(f"{what} is empty")
