"""Server-Sent Events on Starlette's StreamingResponse, for the referee display, the broadcast
and the venue's dashboard alike: one event's data line, and the response that carries them
unbuffered (no proxy may hold a live update back); and the display's backlog of each view,
for the pages that reconnect (Last-Event-ID, issue 16)."""

import asyncio
import json
from collections import deque
from collections.abc import AsyncIterator

from starlette.responses import StreamingResponse


def data(update: dict) -> str:
    """One event: the update as compact JSON."""
    return f"data: {json.dumps(update, separators=(',', ':'), allow_nan=False)}\n\n"


def event_stream(texts: AsyncIterator[str]) -> StreamingResponse:
    return StreamingResponse(
        texts,
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


BACKLOG = 100  # updates kept per view for the pages that reconnect (as a page's queue holds)


class Backlog:
    """The recent updates of one view (the referee's or the public one, never both), so that a
    page reconnecting with the Last-Event-ID its EventSource sends gets those it missed.

    It is a subscription of its own to the source, made when the view's first page connects
    and kept open, and read whenever a page connects (no task: the source's queue holds them
    meanwhile). An event's id is "<epoch>-<seq>": `epoch` is new at each start of the service,
    so an id from before a restart asks for the current document, as does one older than
    the updates kept."""

    def __init__(self, epoch: str, queue: asyncio.Queue):
        self.epoch, self.queue = epoch, queue
        self.updates: deque[dict] = deque(maxlen=BACKLOG)
        self.since = 0  # every update after this seq is kept (0: since the first page)

    def id_of(self, seq: int) -> str:
        return f"{self.epoch}-{seq}"

    def latest(self) -> int:
        """The seq of the newest update kept: the current document's."""
        self.take()
        return self.updates[-1]["seq"] if self.updates else self.since

    def missed(self, last_id: str | None) -> list[dict] | None:
        """The updates after the event `last_id`, oldest first; None when they are not all
        here (no id, an id of another start, too old, or not one of ours)."""
        epoch, _, seq = (last_id or "").rpartition("-")
        if epoch != self.epoch or not seq.isdigit():
            return None
        after, latest = int(seq), self.latest()
        if not self.since <= after <= latest:
            return None
        return [update for update in self.updates if update["seq"] > after]

    def take(self) -> None:
        """Move what the source queued since into the kept updates; a gap (the queue was
        full, or the oldest fall out) moves `since` up to it."""
        full = self.queue.full()
        while not self.queue.empty():
            update = self.queue.get_nowait()
            last = self.updates[-1]["seq"] if self.updates else None
            if full or (last is not None and update["seq"] != last + 1):
                self.updates.clear()
                self.since, full = update["seq"] - 1, False
            if len(self.updates) == BACKLOG:
                self.since = self.updates[0]["seq"]
            self.updates.append(update)
