"""Server-Sent Events on Starlette's StreamingResponse, for the referee display, the broadcast
and the venue's dashboard alike: one event's data line, and the response that carries them
unbuffered (no proxy may hold a live update back)."""

import json
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
