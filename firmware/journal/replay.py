"""`mjtable replay JOURNAL`: rebuild every hand of a journal and check its outputs.

Each 'hand' row rebuilds the Table as Session.new_table built it; each input is re-applied in
order and the engine's outputs must equal the journaled ones exactly (JSON equality,
DESIGN.md: "replaying a journal's inputs reproduces its outputs exactly"). A last input with
no outputs after it (a crash before they were written) is re-applied and reported, not
counted as a mismatch. Device rows are read into their record events (engine/events.py
RECORDS) for the audit and never applied. The file is opened read-only, in the schema version
it has: an audit never writes to what it audits.

Exit status: 0 identical, 1 a mismatch, 2 a bad file, a broken hash chain or a row that is
not an event of its kind.
"""

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field

from engine import events as ev
from engine.schema import ConfigError
from engine.table import Table
from firmware import cli_args
from firmware.journal.chain import Row
from firmware.journal.failures import JournalError
from firmware.journal.schema import canonical
from firmware.journal.store import Journal
from firmware.resources import load_ruleset


def add_parser(commands) -> None:
    p = commands.add_parser("replay")
    p.add_argument("journal", type=cli_args.path, help="the journal file (SQLite)")
    p.add_argument("--json", action="store_true", help="print one JSON summary line")
    p.set_defaults(run=run)


@dataclass
class Mismatch:
    seq: int  # the journal row where replay and journal part
    hand: int
    input: dict | None
    expected: dict | None  # as journaled (None: the engine produced one more)
    got: dict | None  # as replayed (None: the journal has one more)

    def describe(self) -> str:
        what = self.input.get("type") if self.input else "?"
        return (
            f"row {self.seq}, hand {self.hand}, after input {what}: journal has "
            f"{_short(self.expected)}, replay gives {_short(self.got)}"
        )


def _short(obj) -> str:
    return "nothing" if obj is None else canonical(obj)


@dataclass
class Played:
    """One hand of the journal as replay leaves it: `outputs` are the engine's, in order,
    the pending input's included (what a resumed hand's interpreter follows); `started` and
    `ended` the table times of its hand row and of the input that ended it (None: not
    ended), which the game's clock judges by (firmware/table/game_clock.py)."""

    number: int
    table: Table
    tile_set: str | None  # None: journaled by `mjtable simulate`, or before schema 3's key
    voided: bool = False
    outputs: list = field(default_factory=list)
    started: float = 0.0
    ended: float | None = None


@dataclass
class ReplayResult:
    hands: int = 0
    inputs: int = 0
    outputs: int = 0
    device: int = 0  # record events, kept for the audit only
    mismatches: int = 0
    first: Mismatch | None = None
    recovered: dict | None = None  # the trailing input re-applied without outputs
    recovered_outputs: list = field(default_factory=list)
    table: Table | None = None  # the last hand's table, as the journal leaves it
    played: list[Played] = field(default_factory=list)  # in order
    last_t: float = 0.0  # the table time of the latest row: a resumed table goes on from it
    last_fault: int = 0  # the highest fault id: a resumed table numbers on from it

    def summary(self) -> dict:
        return {
            "hands": self.hands,
            "inputs": self.inputs,
            "outputs": self.outputs,
            "device_records": self.device,
            "mismatches": self.mismatches,
            "first_mismatch": self.first.describe() if self.first else None,
            "recovered_input": self.recovered,
            "recovered_outputs": [o.to_json() for o in self.recovered_outputs],
        }


class ReplayError(Exception):
    """The journal cannot be replayed: a broken chain, rows out of order or unreadable."""


def replay(
    journal: Journal, watch: Callable[[Row, Played | None, list], None] | None = None
) -> ReplayResult:
    """Re-apply every input of the journal; count and describe mismatches. `watch(row,
    played, outputs)`, if given, sees each hand, device and input row once it is taken in,
    with its hand (None before the first) and an input's outputs: the hand history's frames
    (firmware/display/history.py) come from this one loop."""
    broken = journal.verify()
    if broken:
        raise ReplayError(f"{journal.path}: hash chain broken at {broken}")
    result = ReplayResult()
    rulesets = {}
    table, hand_number = None, 0
    current_input, matched, input_seq = None, 0, 0
    produced: list[ev.Event] = []

    def mismatch(seq, expected, got):
        result.mismatches += 1
        if result.first is None:
            result.first = Mismatch(seq, hand_number, current_input, expected, got)

    def close_input(at_end: bool):
        # The engine produced outputs the journal does not have.
        if current_input is None or matched >= len(produced):
            return
        if at_end and matched == 0:
            result.recovered = current_input
            result.recovered_outputs = produced
            return
        mismatch(input_seq, None, produced[matched].to_json())

    for row in journal.rows():
        data = row.data()
        if isinstance(data, dict) and isinstance(data.get("t"), (int, float)):
            result.last_t = max(result.last_t, data["t"])
        if row.kind == "hand":
            close_input(False)
            current_input, produced, matched = None, [], 0
            try:
                name = data["ruleset"]
                if name not in rulesets:
                    rulesets[name] = load_ruleset(name)
                hand_number = data["hand_number"]
                table = Table(
                    rulesets[name],
                    data["walls"],
                    data.get("chips"),
                    data.get("doubling", False),
                    data.get("last_deal", False),
                )
                played = Played(hand_number, table, data.get("tile_set"), started=data["t"])
                result.played.append(played)
            except ConfigError as err:
                raise ReplayError(f"row {row.seq}: ruleset: {err}") from None
            except (KeyError, TypeError, ValueError) as err:
                raise ReplayError(f"row {row.seq}: bad hand row ({err!r})") from None
            result.hands += 1
            if watch:
                watch(row, played, [])
        elif row.kind == "device":
            record = _event(row, ev.RECORDS)
            result.device += 1  # for the audit; the engine does not make them
            if isinstance(record, ev.Fault):
                result.last_fault = max(result.last_fault, record.id)
            if isinstance(record, ev.HandVoided) and result.played:
                result.played[-1].voided = True
            if watch:
                watch(row, result.played[-1] if result.played else None, [])
        elif row.kind == "input":
            close_input(False)
            if table is None:
                raise ReplayError(f"row {row.seq}: an input before any hand row")
            event = _event(row, ev.INPUTS)
            current_input, matched, input_seq = data, 0, row.seq
            result.inputs += 1
            played = ruled_on(result.played, event)
            try:
                produced = played.table.apply(event)
            except Exception as err:  # an engine bug is a mismatch, not a crash
                produced = []
                mismatch(row.seq, None, {"error": f"{type(err).__name__}: {err}"})
            played.outputs += produced
            if played.table.ended and played.ended is None:
                played.ended = event.t
            if watch:
                watch(row, played, produced)
        else:
            result.outputs += 1
            if current_input is None or matched >= len(produced):
                mismatch(row.seq, data, None)
            else:
                got = produced[matched].to_json()
                # JSON equality: both sides through the same canonical text.
                if canonical(got) != canonical(data):
                    mismatch(row.seq, data, json.loads(canonical(got)))
                matched += 1
    close_input(True)
    result.table = table
    return result


def ruled_on(played: list[Played], event: ev.Event) -> Played:
    """The hand an input applies to: the latest, or the one a late ruling names (issue 36:
    a Ruling or PenaltyRevoked with its `hand`, made after the next hand was dealt)."""
    number = getattr(event, "hand", None)
    if isinstance(event, ev.Ruling | ev.PenaltyRevoked | ev.WaiveUndone) and number is not None:
        for hand in reversed(played):
            if hand.number == number:
                return hand
    return played[-1]


def _event(row, kinds: tuple) -> ev.Event:
    """The row's event, which must be one of `kinds`: anything else is a bad file."""
    try:
        event = row.event()
    except (ev.EventError, TypeError) as err:
        raise ReplayError(f"row {row.seq}: bad {row.kind} ({err})") from None
    if not isinstance(event, kinds):
        raise ReplayError(f"row {row.seq}: {type(event).__name__} in a {row.kind!r} row")
    return event


def journaled(rows, kind) -> list:
    """The records of `kind` (an engine/events.py record class) among `rows`, in order."""
    name = f'"{kind.__name__}"'
    return [row.event() for row in rows if row.kind == "device" and name in row.json]


def journaled_seatings(rows) -> dict[int, tuple[int, ...]]:
    """The seating journaled for each game (the last entry for it counts): seed 004 換位,
    taken up by a resumed table (firmware/table/resume.py) and by the sheet (firmware/audit)."""
    return {change.game: change.seating for change in journaled(rows, ev.SeatsChanged)}


def run(args) -> int:
    try:
        with Journal(args.journal, readonly=True) as journal:
            result = replay(journal)
    except (JournalError, ReplayError) as err:
        if args.json:
            print(json.dumps({"error": str(err)}))
        print(f"mjtable replay: {err}", file=sys.stderr)
        return 2
    summary = result.summary()
    if args.json:
        print(json.dumps(summary))
    else:
        print(
            f"{args.journal}: {result.hands} hands, {result.inputs} inputs, "
            f"{result.outputs} outputs, {result.mismatches} mismatches"
        )
        if result.first:
            print(f"  first mismatch: {result.first.describe()}")
        if result.recovered:
            print(
                f"  last input {result.recovered.get('type')} had no journaled outputs "
                f"(crash before they were written); re-applied: "
                f"{len(result.recovered_outputs)} outputs"
            )
    return 1 if result.mismatches else 0
