"""The referee display over HTTP: the page, the state documents, their live streams (Server-Sent
Events) and the referee's actions (DESIGN.md firmware/display, issue 6).

`/` is the referee page and `/table` the public one (the same page code); `/api/...` is the
public view, `/api/referee/...` the referee's, which needs the PIN or the session it opens;
`/broadcast` and `/api/broadcast/...` the delayed view for a stream (broadcast.py), which
needs the broadcast token. guard.py checks every request first: its size, and for a POST
where it comes from and that it is JSON.
SSE is written here on Starlette's StreamingResponse: one update per change and a ping are
a few lines, and it spares a dependency (sse-starlette) and its global shutdown patching.
A page that reconnects with Last-Event-ID gets the updates it missed (sse.py's Backlog).
"""

import asyncio
import secrets
import time
from collections.abc import Callable
from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from firmware.audit import cli as export
from firmware.audit import sheet as export_sheet
from firmware.display import ActionRefused, DisplaySource, history
from firmware.display.actions import ACTIONS, body_problem
from firmware.display.broadcast import broadcast_routes
from firmware.journal.failures import JournalError
from firmware.journal.replay import ReplayError
from firmware.resources import package_folder
from firmware.web.auth import Enrolled
from firmware.web.guard import HANDLERS, Guard, json_body
from firmware.web.login import Login, error
from firmware.web.sse import Backlog, data, event_stream

STATIC = package_folder("firmware.display") / "static"  # package data (pyproject.toml)
COOKIE = "mjtable_referee"
PING_SECONDS = 15.0
RECONNECT_MS = 2000  # how soon a page's EventSource retries after the table restarts


def create_app(
    source: DisplaySource,
    referee_pin: str,
    broadcast_token: str | None = None,
    host: str = "127.0.0.1",
    clock: Callable[[], float] = time.monotonic,
    referees: Enrolled | None = None,
    data_dir: Path | None = None,
    wall: Callable[[], float] = time.time,
) -> Starlette:
    """The display's app; with `broadcast_token`, the broadcast view of `source.broadcast`.
    `host` is the address it listens on, which a request's Host must name (guard.py);
    `clock` times the wrong PINs (a test's stands still); `referees` are the table's
    enrolled ones (firmware/desk/referees.py), whose secrets stand in for `referee_pin`.
    `data_dir` (firmware/table/sessions.py's) keeps the key that signs the referees' sessions, so
    they outlive a restart (None: they end with the process); `wall` is the wall clock they
    expire on (issue 16)."""
    login = Login(referee_pin, COOKIE, "the referee's PIN", clock, referees, data_dir, wall)
    refused_credentials = login.refused
    streams: set[asyncio.Event] = set()  # one per open stream, set when the server stops
    epoch = secrets.token_hex(4)  # this start's: an event id of an earlier one is too old
    backlogs: dict[bool, Backlog] = {}  # by view (referee or not): made with its first page

    def stream(request: Request, referee: bool) -> StreamingResponse:
        if referee not in backlogs:
            backlogs[referee] = Backlog(epoch, source.subscribe(referee))
        last_id = request.headers.get("last-event-id")
        return _event_stream(source, referee, streams, backlogs[referee], last_id)

    async def page(request: Request) -> FileResponse:
        return FileResponse(STATIC / "index.html")

    async def public_state(request: Request) -> JSONResponse:
        return JSONResponse(source.snapshot(referee=False))

    async def public_stream(request: Request) -> StreamingResponse:
        return stream(request, False)

    async def referee_state(request: Request) -> JSONResponse:
        return await refused_credentials(request) or JSONResponse(source.snapshot(referee=True))

    async def referee_stream(request: Request):
        refusal = await refused_credentials(request)
        return refusal or login.streaming(request, stream(request, True))

    async def referee_offences(request: Request) -> JSONResponse:
        """The rule book's offences for the page's report form (issue 12)."""
        return await refused_credentials(request) or JSONResponse(source.offences())

    async def referee_sheet(request: Request) -> Response:
        """The session's score sheet to download (issue 16): what `mjtable export sheet`
        makes of the journal, built off the event loop."""
        fmt = request.path_params["format"]
        refusal = await refused_credentials(request)
        if refusal or fmt not in export_sheet.MEDIA:
            return refusal or error(404, f"no sheet.{fmt} (formats: csv, json, pdf)")
        try:
            document = await asyncio.to_thread(source.score_sheet)
            body = await asyncio.to_thread(export.rendered, document, fmt)
        except (JournalError, ReplayError, export_sheet.ExportError) as err:
            return error(409, f"the score sheet cannot be made: {err}")
        table = "".join(c for c in source.table_name if c.isascii() and c.isalnum())
        name = f"sheet-{table}.{fmt}"
        disposition = {"Content-Disposition": f'attachment; filename="{name}"'}
        return Response(body, media_type=export_sheet.MEDIA[fmt], headers=disposition)

    async def hand_history(request: Request, referee: bool) -> Response:
        """The session's hands, or one hand's replay (issue 16 "Hand history"), built from the
        journal off the event loop; the public's has the finished hands only."""
        text = request.path_params.get("number")
        try:
            if text is None:
                document = await asyncio.to_thread(source.history, referee)
            elif not text.isdigit():
                return error(404, f"no hand {text!r}: a hand is a number")
            else:
                document = await asyncio.to_thread(source.hand_replay, int(text), referee)
        except history.UnknownHand as unknown:
            return error(404, str(unknown))
        except (JournalError, ReplayError) as err:
            return error(409, f"the hand history cannot be made: {err}")
        return JSONResponse(document)

    async def public_hands(request: Request) -> Response:
        return await hand_history(request, False)

    async def referee_hands(request: Request) -> Response:
        return await refused_credentials(request) or await hand_history(request, True)

    async def action(request: Request) -> JSONResponse:
        refusal = await refused_credentials(request)
        if refusal:
            return refusal
        name = request.path_params["action"]
        if name not in ACTIONS:
            return error(404, f"no referee action {name!r} (actions: {', '.join(ACTIONS)})")
        body = await json_body(request)
        problem = body_problem(name, body)
        if problem:
            return error(422, problem[1], field=problem[0])
        if name == "sign_sheet":  # the referee's PIN typed again (issue 16 "The score sheet")
            body, refusal = await login.signature(request, body)
            if refusal:
                return refusal
        try:
            who = login.referee(request)
            return JSONResponse({**await source.act(name, body, who=who), "by": who})
        except ActionRefused as refused:
            return error(409, str(refused))

    app = Starlette(
        routes=[
            Route("/", page),
            Route("/table", page),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
            Route("/api/state", public_state),
            Route("/api/stream", public_stream),
            Route("/api/referee/login", login.login, methods=["POST"]),
            Route("/api/referee/logout", login.logout, methods=["POST"]),
            Route("/api/referee/state", referee_state),
            Route("/api/referee/stream", referee_stream),
            Route("/api/referee/offences", referee_offences),
            Route("/api/referee/sheet.{format}", referee_sheet),
            Route("/api/hands", public_hands),
            Route("/api/hands/{number}", public_hands),
            Route("/api/referee/hands", referee_hands),
            Route("/api/referee/hands/{number}", referee_hands),
            Route("/api/referee/{action}", action, methods=["POST"]),
        ]
        + (broadcast_routes(source, broadcast_token, streams) if broadcast_token else []),
        # gzip for a page that takes it: a hand's replay repeats the table at every step (a
        # long hand's is about 1.5 MB, some 30 kB gzipped); the event streams are left alone
        middleware=[Middleware(Guard, host=host), Middleware(GZipMiddleware, minimum_size=4096)],
        exception_handlers=HANDLERS,
    )
    app.state.streams, app.state.backlogs = streams, backlogs
    return app


def _event_stream(
    source: DisplaySource,
    referee: bool,
    streams: set[asyncio.Event],
    backlog: Backlog,
    last_id: str | None,
) -> StreamingResponse:
    """The updates a page reconnecting with `last_id` missed (from `backlog`, the view's), or
    else the current document first (a page that connects or reconnects is whole at once),
    then each update with its id (Backlog.id_of its seq), and a comment line as a ping when
    idle. The page's queue is opened and the backlog read at once, so no update falls
    between them."""

    def identified(update: dict) -> str:
        return f"id: {backlog.id_of(update['seq'])}\n" + data(update)

    async def updates():
        stop = asyncio.Event()
        streams.add(stop)
        queue = source.subscribe(referee)
        try:
            missed = backlog.missed(last_id)
            if missed is None:
                now: dict = {"seq": None, "state": source.snapshot(referee), "events": []}
                yield f"retry: {RECONNECT_MS}\nid: {backlog.id_of(backlog.latest())}\n" + data(now)
            else:
                yield f"retry: {RECONNECT_MS}\n\n" + "".join(map(identified, missed))
            while True:
                update = await _next(queue, stop)
                if stop.is_set():
                    return
                backlog.take()  # kept up as pages take theirs (Desk.delivered waits for all)
                yield ": ping\n\n" if update is None else identified(update)
        finally:
            source.unsubscribe(queue)
            streams.discard(stop)

    return event_stream(updates())


async def _next(queue: asyncio.Queue, stop: asyncio.Event) -> dict | None:
    """The next update; None after PING_SECONDS without one, or when the server stops."""
    get = asyncio.ensure_future(queue.get())
    halt = asyncio.ensure_future(stop.wait())
    try:
        done, _ = await asyncio.wait(
            (get, halt), timeout=PING_SECONDS, return_when=asyncio.FIRST_COMPLETED
        )
    finally:
        get.cancel()
        halt.cancel()
    return get.result() if get in done else None
