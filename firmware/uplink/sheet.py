"""The score sheet on the venue bus (docs/uplink.md `sheet`, issue 16): the session's sheet as
`mjtable export sheet` makes it (firmware/audit/sheet.py, the one definition), retained, sent
again whenever a row that changes it is published and on each connection.

A build replays the whole journal, so it runs in a thread on its own read-only connection,
one at a time: the changes that come during a build cost one build after it, however many.
The sheet holds no tile (names, results, points, offences, reasons, signatures); the
journal's path on the table is left out, it is not the venue's business.
"""

import asyncio
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Executor

from firmware.audit.sheet import sheet
from firmware.bus.contract import Envelope, Sheet, message
from firmware.journal.chain import Row
from firmware.uplink.messages import public_row

CHANGES = (  # the rows' types that change the sheet, by name (changes_sheet)
    "Won",
    "ExhaustiveDraw",
    "GameEnded",
    "WinRescored",
    "PenaltyLifted",
    "HandVoided",
    "ScoreConfirmed",
    "SheetSigned",
    "PlayersEntered",
    "PlayerSigned",
    "SignatureWithdrawn",
    "SeatsDrawn",
    "SeatsChanged",
    "VenueCommand",
)


def changes_sheet(row: Row) -> bool:
    """A hand dealt (under CCM it shows that the game before ended by its time) or ended,
    settled again or voided; a score confirmed, the sheet signed; the players entered (at the
    desk or by the venue's start_session) or seated. Told by the type's name, so a record
    added elsewhere needs no import here."""
    if row.kind == "hand":
        return True
    if row.kind not in ("output", "device") or not any(f'"{n}"' in row.json for n in CHANGES):
        return False
    data = public_row(row)
    kind = data.get("type")
    return kind in CHANGES and (kind != "VenueCommand" or data.get("command") == "start_session")


def sheet_message(document: dict, envelope: Envelope, seq: int) -> dict:
    """The `sheet` message: the sheet `document` as of journal row `seq` at least."""
    public = {name: value for name, value in document.items() if name != "journal"}
    return message(envelope, Sheet(seq, public))


class SheetBuilds:
    """The builds of the journal at `path`'s sheet; `done()` is called as each ends (the
    uplink wakes to publish it). `executor` runs them (None: a thread of the table's
    process; the simulated hall's many tables in one process give theirs a process of its
    own, firmware/venue/demo.py, as a table's Pi has its own cores)."""

    def __init__(
        self,
        path,
        journal_seq: Callable[[], int],
        done: Callable[[], None],
        executor: Executor | None = None,
    ):
        self.path, self.journal_seq, self.done = path, journal_seq, done
        self.executor = executor
        self.due = True  # a build to start: the venue's broker may not hold the last sheet
        self.building: asyncio.Task | None = None

    def follow(self, row: Row) -> None:
        """Each row published."""
        self.due = self.due or changes_sheet(row)

    async def built(self, last: bool = False) -> AsyncIterator[tuple[int, dict]]:
        """The sheet a build finished, as (seq, document), and the next build started if one
        is due; `last`: the table's last word, so every build due is awaited."""
        while True:
            if self.building is not None and (self.building.done() or last):
                build, self.building = self.building, None
                yield await build
            if self.due and self.building is None:
                self.due = False
                self.building = asyncio.create_task(self._build())
                self.building.add_done_callback(lambda _: self.done())
            if not (last and self.building is not None):
                return

    async def _build(self) -> tuple[int, dict]:
        """The sheet, and the journal row it covers at least (export_sheet reads the journal
        as of one moment, however the table writes meanwhile)."""
        seq = self.journal_seq()
        loop = asyncio.get_running_loop()
        return seq, await loop.run_in_executor(self.executor, sheet, self.path)
