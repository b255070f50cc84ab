"""The venue dashboard over HTTP (issue 15), in the referee display's ways (firmware/display):
Starlette, its own SSE stream, guard.py before every route, the organiser's secret checked
and throttled as the referee's PIN is (auth.py) and opening a cookie session.

`/` is the organiser's dashboard and the referees' pager (one page, behind the secret),
`/tables/<name>` a table's drill-down, `/board` the hall's big screen, public: the public
state of each table and, once released, the standings, nothing else. Live updates come
on a stream for each (venue_stream.py). Standings held back are released when every table
has finished, or earlier by the organiser (a table offline or stuck would hold them for
ever), which is logged and shown.
"""

import asyncio
import logging
from collections.abc import Callable

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from firmware.resources import package_folder
from firmware.venue.board import VenueBoard
from firmware.venue.bus import NotSent
from firmware.venue.event import Event
from firmware.venue.organiser import PLAN_BYTES, gate, routes
from firmware.venue.people import VenuePeople
from firmware.venue.points import DEFAULT_STAGE, Stage
from firmware.venue.standings import finished, in_round, round_csv, round_report
from firmware.venue.stream import stream
from firmware.venue.view import board_changes, drill_down, organiser_changes, standings_view
from firmware.web.guard import HANDLERS, Guard, json_body
from firmware.web.login import Login, error

STATIC = package_folder("firmware.venue") / "static"  # package data (pyproject.toml)
COOKIE = "mjtable_organiser"
MAX_MESSAGE = 200  # characters of a message to a table (docs/uplink.md)
MAX_REFEREE = 60  # characters of a referee's name
NAMES_LOGGED = 20  # of the tables not finished when the organiser releases the standings

log = logging.getLogger("mjtable.venue")


def _text(body, name: str, longest: int, blank: bool = False) -> str | None:
    """The body's printable text `name`, trimmed, of at most `longest` characters (empty
    only if `blank`); None when it is not."""
    value = body.get(name) if isinstance(body, dict) else None
    if not isinstance(value, str) or not value.isprintable():
        return None
    value = value.strip()
    return value if (blank or value) and len(value) <= longest else None


def create_app(
    board: VenueBoard,
    bus,
    secret: str,
    hide_standings: bool = False,
    host: str = "127.0.0.1",
    clock: Callable[[], float] | None = None,
    stage: Stage = DEFAULT_STAGE,
    people: VenuePeople | None = None,
    event: Event | None = None,
) -> Starlette:
    """The dashboard of `board`; `bus` sends the commands (VenueBus.send). `clock` is
    the wall clock (the board's by default); the organiser's wrong secrets are timed on it.
    `stage` is what the round's CCM tables promote. `people`: the organisers and floor
    referees, each with his secret (without: the organiser's PIN); `event`: the rounds."""
    now = clock or board.clock
    people = people or VenuePeople()
    event = event or Event(board, stage)
    enrolled = people if people.files else None
    login = Login(secret, COOKIE, "the organiser's PIN", now, referees=enrolled)
    refused = gate(login, people)
    streams: set[asyncio.Event] = set()

    cache: dict = {"version": None}
    released: dict[str, str] = {}  # table -> session: the round the organiser released

    def released_now() -> bool:
        """The organiser's release holds for the round he saw, until one of its tables
        starts a session of the next."""
        tables = board.tables
        return bool(released) and all(tables[n].session == s for n, s in released.items())

    def seated(table: str) -> tuple | None:
        """The four players the seating plan put at `table` in the round the hall plays."""
        return event.plan.players(event.round, table) if event.plan else None

    def standings_doc() -> dict:
        """The standings of the board's version, worked out once for every stream."""
        if cache["version"] != board.version:
            doc = standings_view(board, hide_standings, stage, released_now(), seated)
            cache.update(version=board.version, doc=doc)
        return cache["doc"]

    def organiser(since: int = -1) -> dict:
        changes = organiser_changes(board, since, standings_doc(), now())
        return changes | {"event": event.summary()}

    def public(since: int = -1) -> dict:
        return board_changes(board, since, standings_doc(), now())

    async def page(request: Request) -> FileResponse:
        return FileResponse(STATIC / "venue.html")

    async def board_page(request: Request) -> FileResponse:
        return FileResponse(STATIC / "board.html")

    async def venue_state(request: Request) -> Response:
        """The hall, and who is logged in: a floor referee's page shows the pager only."""
        refusal = await refused(request, None)
        if refusal:
            return refusal
        who = Login.referee(request)
        return JSONResponse(organiser() | {"you": {"name": who, "role": people.role(who)}})

    async def venue_stream(request: Request):
        refusal = await refused(request, None)
        return refusal or login.streaming(request, stream(board, organiser, streams))

    async def board_state(request: Request) -> JSONResponse:
        return JSONResponse(public())

    async def board_stream(request: Request) -> StreamingResponse:
        return stream(board, public, streams)

    async def table(request: Request) -> Response:
        refusal = await refused(request)
        if refusal:
            return refusal
        found = board.tables.get(request.path_params["table"])
        if found is None:
            return error(404, f"no table {request.path_params['table'][:40]!r} has reported")
        return JSONResponse(drill_down(found, now()))

    async def table_sheet(request: Request) -> Response:
        """The score sheet the table's current session published last (docs/uplink.md)."""
        refusal = await refused(request)
        if refusal:
            return refusal
        name = request.path_params["table"]
        found = board.tables.get(name)
        if found is None:
            return error(404, f"no table {name[:40]!r} has reported")
        if found.score_sheet is None:
            return error(404, f"table {name[:40]!r} has published no score sheet yet")
        return JSONResponse(found.score_sheet)

    async def send(table: str, name: str, args: dict) -> JSONResponse:
        try:
            command = await bus.send(table, name, args)
        except NotSent as err:
            return error(503, str(err))
        return JSONResponse({"sent": command["id"], "command": name, "table": table})

    async def acknowledge(request: Request) -> Response:
        refusal = await refused(request, None)  # a floor referee's: the pager's one action
        if refusal:
            return refusal
        name, key = request.path_params["table"], request.path_params["key"]
        found = board.tables.get(name)
        alert = found.alerts.get(key) if found else None
        if alert is None:
            return error(404, f"table {name[:40]!r} has no alert {key[:20]!r} waiting")
        referee = _text(await json_body(request), "referee", MAX_REFEREE)
        if referee is None:
            return error(422, f"the referee's name: printable text of at most {MAX_REFEREE}")
        if key.startswith("venue:"):  # the venue's own alert (firmware/venue/fairness.py)
            return JSONResponse(board.acknowledge(name, key, referee))
        of = "ruling" if key.startswith("ruling:") else "fault"
        answer = await send(
            name, "acknowledge", {"alert": alert["id"], "of": of, "referee": referee}
        )
        if answer.status_code == 200:
            board.acknowledge(name, key, referee)
        return answer

    async def message(request: Request) -> Response:
        refusal = await refused(request)
        if refusal:
            return refusal
        name = request.path_params["table"]
        if name not in board.tables:
            return error(404, f"no table {name[:40]!r} has reported")
        text = _text(await json_body(request), "text", MAX_MESSAGE, blank=True)
        if text is None:
            return error(
                422, f"the message: printable text of at most {MAX_MESSAGE} ('' clears it)"
            )
        return await send(name, "message", {"text": text})

    def every_table(command: str):
        async def endpoint(request: Request) -> JSONResponse:
            return await refused(request) or await send("*", command, {})

        return endpoint

    async def release(request: Request) -> Response:
        """The organiser lets the standings out before every table has finished."""
        refusal = await refused(request)
        if refusal:
            return refusal
        if not standings_doc()["hidden"]:
            return error(409, "the standings are not held back")
        tables = in_round(board)
        if not tables:
            return error(409, "no table is playing the round yet")
        waiting = sorted(table.name for table, _ in tables if not finished(table))
        log.warning(
            "venue %s: the organiser released the standings with %d of %d tables not finished: %s",
            board.venue,
            len(waiting),
            len(tables),
            ", ".join(repr(name[:40]) for name in waiting[:NAMES_LOGGED])
            + (" ..." if len(waiting) > NAMES_LOGGED else ""),
        )
        released.clear()
        released.update((table.name, state["session"]) for table, state in tables)
        board.version += 1  # the streams send the standings, the board its scores
        return JSONResponse({"released": True, "not_finished": waiting})

    async def report(request: Request) -> dict | JSONResponse:
        refusal = await refused(request)
        if refusal:
            return refusal
        if standings_doc()["hidden"]:
            return error(409, "the standings are held back until every table has finished")
        return round_report(board, stage)

    async def round_json(request: Request) -> Response:
        document = await report(request)
        if isinstance(document, Response):
            return document
        return JSONResponse(document, headers=_attachment(board.venue, "json"))

    async def round_csv_file(request: Request) -> Response:
        document = await report(request)
        if isinstance(document, Response):
            return document
        return Response(
            round_csv(document), media_type="text/csv", headers=_attachment(board.venue, "csv")
        )

    app = Starlette(
        routes=[
            Route("/", page),
            Route("/tables/{table}", page),
            Route("/board", board_page),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
            Route("/api/login", login.login, methods=["POST"]),
            Route("/api/logout", login.logout, methods=["POST"]),
            Route("/api/venue", venue_state),
            Route("/api/stream", venue_stream),
            Route("/api/board", board_state),
            Route("/api/board/stream", board_stream),
            Route("/api/tables/{table}", table),
            Route("/api/tables/{table}/sheet", table_sheet),
            Route("/api/tables/{table}/alerts/{key}/acknowledge", acknowledge, methods=["POST"]),
            Route("/api/tables/{table}/message", message, methods=["POST"]),
            Route("/api/resume", every_table("resume"), methods=["POST"]),
            Route("/api/standings/release", release, methods=["POST"]),
            Route("/api/round.json", round_json),
            Route("/api/round.csv", round_csv_file),
            *routes(event, bus, refused),
        ],
        middleware=[Middleware(Guard, host=host, larger={"/api/seating": PLAN_BYTES})],
        exception_handlers=HANDLERS,
    )
    app.state.streams = streams
    return app


def _attachment(venue: str, extension: str) -> dict:
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in venue)[:40]
    return {"Content-Disposition": f'attachment; filename="{safe}-round.{extension}"'}
