"""The organiser's part of the dashboard (issue 36 items 1 to 3): who may do what, the seating
plan imported or drawn, each round begun with a signed `start_session` to every table of the
plan, the event's results, and the hall's pause with a confirmation and a reason.

A floor referee logged in gets the pager and its acknowledgements only (firmware/venue/app.py);
everything here needs an organiser.
"""

import logging
import random

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from firmware.bus.contract import MAX_MINUTES
from firmware.venue.bus import NotSent
from firmware.venue.event import Event, RoundRefused, results_csv
from firmware.venue.people import ORGANISER, VenuePeople
from firmware.venue.seating import SeatingError, draw, player, read_plan
from firmware.web.guard import json_body
from firmware.web.login import Login, error

log = logging.getLogger("mjtable.venue")

PLAN_BYTES = 4 * 1024 * 1024  # a plan's import: 2000 tables' seats over a few rounds
MAX_REASON = 200  # characters of the reason a pause is given
NOT_SENT_SHOWN = 20


def gate(login: Login, people: VenuePeople):
    """`refused(request, role=None)`: the login's refusal, or 403 when the person logged in
    is not of `role`."""

    async def refused(request: Request, role: str | None = ORGANISER) -> Response | None:
        refusal = await login.refused(request)
        if refusal is not None or role is None:
            return refusal
        who = Login.referee(request)
        if people.role(who) != role:
            return error(403, f"this needs an organiser: {who} is logged in as a floor referee")
        return None

    return refused


async def seat_round(
    event: Event, bus, number: int, minutes: int | None = None
) -> tuple[list[str], dict[str, str]]:
    """Send round `number`'s start_session, signed, to every table of the plan: the tables
    it went to, and why not to the others; the round begins if it went to any
    (RoundRefused: it cannot begin now)."""
    sent, not_sent = [], {}
    for table, args in sorted(event.seating(number, minutes).items()):
        try:
            await bus.send(table, "start_session", args)
            sent.append(table)
        except NotSent as err:
            not_sent[table] = str(err)
    if sent:
        event.begun(number, sent)
    if not_sent:
        log.warning(
            "venue %s: round %d: start_session not sent to %d tables: %s",
            event.board.venue,
            number,
            len(not_sent),
            ", ".join(sorted(not_sent)[:NOT_SENT_SHOWN]),
        )
    return sent, not_sent


def routes(event: Event, bus, refused, rng: random.Random | None = None) -> list[Route]:
    """The organiser's routes over `event`; `bus` sends the commands; `refused` is `gate`'s."""
    board = event.board
    rng = rng or random.Random()

    async def seating(request: Request) -> Response:
        refusal = await refused(request)
        if refusal:
            return refusal
        body = await json_body(request)
        text = body.get("csv") if isinstance(body, dict) else None
        if not isinstance(text, str):
            return error(422, 'import the plan as {"csv": "round,table,seat,name,..."}')
        try:
            plan = read_plan(text)
        except SeatingError as err:
            return error(422, f"the seating plan: {err}", problems=err.problems)
        event.seat(plan)
        board.version += 1
        return JSONResponse({"event": event.summary(), "players": len(plan.everyone())})

    async def drawn(request: Request) -> Response:
        """The draw over the tables that have reported: {"players": "name,federation_id,
        country" a line, "rounds", "meet_once"}."""
        refusal = await refused(request)
        if refusal:
            return refusal
        body = await json_body(request)
        body = body if isinstance(body, dict) else {}
        rounds, meet_once = body.get("rounds"), body.get("meet_once") is True
        if not isinstance(rounds, int) or isinstance(rounds, bool) or not 1 <= rounds <= 50:
            return error(422, "rounds: a whole number from 1 to 50")
        lines = body.get("players")
        if not isinstance(lines, str):
            return error(422, "players: a line a player, name,federation_id,country")
        players = []
        for number, line in enumerate(lines.splitlines(), 1):
            cells = [cell.strip() for cell in line.split(",")]
            try:
                if len(cells) > 3:
                    raise ValueError("name,federation_id,country: at most three cells")
                if any(cells):
                    players.append(player(*cells))
            except ValueError as err:
                return error(422, f"players, line {number}: {err}")
        tables = sorted(board.tables)
        try:
            plan = draw(players, tables, rounds, meet_once, rng)
        except SeatingError as err:
            return error(422, f"the draw: {err}", problems=err.problems)
        event.seat(plan)
        board.version += 1
        return JSONResponse({"event": event.summary(), "plan": plan.to_json()})

    async def plan(request: Request) -> Response:
        refusal = await refused(request)
        if refusal:
            return refusal
        return JSONResponse({"event": event.summary(), "plan": event.plan and event.plan.to_json()})

    async def begin(request: Request) -> Response:
        """Round N begins: its start_session, signed, to every table of the plan."""
        refusal = await refused(request)
        if refusal:
            return refusal
        number = request.path_params["number"]
        body = await json_body(request)
        minutes = body.get("minutes") if isinstance(body, dict) else None
        if minutes is not None and (
            not isinstance(minutes, int)
            or isinstance(minutes, bool)
            or not 0 < minutes <= MAX_MINUTES
        ):
            return error(422, f"minutes: the sitting's time limit, 1 to {MAX_MINUTES}")
        try:
            sent, not_sent = await seat_round(event, bus, number, minutes)
        except RoundRefused as err:
            return error(409, str(err))
        if not sent:
            why = next(iter(not_sent.values()), "the plan's round has no table")
            return error(503, f"round {number} not begun: {why}")
        return JSONResponse({"round": number, "sent": len(sent), "not_sent": not_sent})

    async def results_json(request: Request) -> Response:
        refusal = await refused(request)
        if refusal:
            return refusal
        event.close()
        return JSONResponse(event.report())

    async def results_file(request: Request) -> Response:
        refusal = await refused(request)
        if refusal:
            return refusal
        event.close()
        return Response(results_csv(event.results()), media_type="text/csv")

    async def pause(request: Request) -> Response:
        """Every table's clocks stop: only with a confirmation and a reason, logged."""
        refusal = await refused(request)
        if refusal:
            return refusal
        body = await json_body(request)
        body = body if isinstance(body, dict) else {}
        reason = body.get("reason")
        if body.get("confirm") is not True:
            return error(422, 'pausing every table needs {"confirm": true, "reason": "..."}')
        if not isinstance(reason, str) or not reason.strip() or len(reason) > MAX_REASON:
            return error(422, f"the reason for pausing the hall: 1 to {MAX_REASON} characters")
        try:
            await bus.send("*", "pause", {})
        except NotSent as err:
            return error(503, str(err))
        who = Login.referee(request) or "the organiser's PIN"
        log.warning("venue %s: every table paused by %s: %s", board.venue, who, reason.strip())
        return JSONResponse({"sent": "pause", "reason": reason.strip()})

    return [
        Route("/api/seating", seating, methods=["POST"]),
        Route("/api/seating", plan),
        Route("/api/seating/draw", drawn, methods=["POST"]),
        Route("/api/rounds/{number:int}/start", begin, methods=["POST"]),
        Route("/api/results.json", results_json),
        Route("/api/results.csv", results_file),
        Route("/api/pause", pause, methods=["POST"]),
    ]
