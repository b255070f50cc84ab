"""The dashboard's live updates as Server-Sent Events, written on Starlette's StreamingResponse
as the referee display's are (firmware/display/app.py). A stream polls the board's version
every FLUSH_SECONDS and sends the tables changed since: 500 tables sending four states a
second make four updates a second to a page, not two thousand.
"""

import asyncio
from collections.abc import Callable

from starlette.responses import StreamingResponse

from firmware.venue.board import VenueBoard
from firmware.web.sse import data, event_stream

FLUSH_SECONDS = 0.25
PING_SECONDS = 15.0
RECONNECT_MS = 2000  # how soon a page's EventSource retries after the venue restarts


def stream(
    board: VenueBoard, document: Callable[[int], dict], streams: set[asyncio.Event]
) -> StreamingResponse:
    """The whole document first, then every FLUSH_SECONDS the tables changed since (the
    standings only when they changed; the whole again when the scores are released), and a
    comment line as a ping when idle."""

    async def updates():
        stop = asyncio.Event()
        streams.add(stop)
        try:
            sent = document(-1)
            yield f"retry: {RECONNECT_MS}\n" + data({"full": True, **sent})
            idle = 0.0
            while not await _stopped(stop, FLUSH_SECONDS):
                if board.version == sent["version"]:
                    idle += FLUSH_SECONDS
                    if idle >= PING_SECONDS:
                        idle = 0.0
                        yield ": ping\n\n"
                    continue
                idle = 0.0
                update = document(sent["version"])
                if update.get("released") != sent.get("released"):
                    update = document(-1)
                    yield data({"full": True, **update})
                else:
                    yield data({"full": False, **_unchanged_dropped(update, sent)})
                sent = update
        finally:
            streams.discard(stop)

    return event_stream(updates())


def _unchanged_dropped(update: dict, sent: dict) -> dict:
    """The standings are the longest part of an update: left out when the page has them."""
    if update["standings"] == sent["standings"]:
        return {k: v for k, v in update.items() if k != "standings"}
    return update


async def _stopped(stop: asyncio.Event, seconds: float) -> bool:
    """Waits `seconds`; True when the server stops meanwhile."""
    try:
        await asyncio.wait_for(stop.wait(), seconds)
    except TimeoutError:
        return False
    return True
