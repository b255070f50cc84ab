"""The referee display: a small web server and one page for the table's screen and the
referee's tablets (DESIGN.md firmware/display, issue 6).

The service behind it is a DisplaySource; `firmware.display.app.create_app` serves it and
`firmware.display.state.table_state` builds the documents it hands out.
"""

import asyncio
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from firmware.display.broadcast import DelayedFeed


class ActionRefused(Exception):
    """A referee action the table cannot carry out now; the message says why (HTTP 409)."""


class DisplaySource(Protocol):
    """What the display needs from the service that runs the table."""

    table_name: str
    broadcast: "DelayedFeed | None"  # the broadcast view's delayed documents (broadcast.py)

    def snapshot(self, referee: bool) -> dict:
        """The current state document (state.table_state) of the public or referee view."""

    def subscribe(self, referee: bool) -> asyncio.Queue:
        """A bounded queue (maxsize 100) of updates {"seq", "state", "events"}, one per change;
        when it is full the source drops the oldest, so a slow page never blocks the table."""

    def unsubscribe(self, queue: asyncio.Queue) -> None: ...

    def offences(self) -> dict:
        """The rule book's offences the referee may report, for the page's form (issue 12)."""

    def score_sheet(self) -> dict:
        """The session's score sheet (firmware/audit/sheet.py) from its journal; blocking."""

    def history(self, referee: bool) -> dict:
        """The session's hands (firmware/display/history.py `hands`) from its journal; blocking."""

    def hand_replay(self, number: int, referee: bool) -> dict:
        """Hand `number`'s step-by-step replay (history.py `steps`); blocking; raises
        history.UnknownHand when the view has no such hand."""

    async def act(self, action: str, body: dict, who: str | None = None) -> dict:
        """Carry out a referee action for the referee `who` (None: the profile's PIN); raise
        ActionRefused when it cannot be done."""
