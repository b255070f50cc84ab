"""The broadcast view for a stream (issue 18): the table as a viewer may see it, held back so
that the stream cannot help a player sitting at the table.

`broadcast_state` makes its document from the referee's, by naming what passes: the four
hands, the melds (a concealed kong's faces too), flowers, penalty tiles, rivers, scores, each
seat's shanten and waits with their values, the win check, the last hand's result, the walls'
seals (their digests only, issue 17), the result of the hand that ended and the players' names.
At a result the session has already moved on (its dealer, round and hand number are the next
hand's): `as_played` puts back the hand's own, so the winds shown are the hand's (issue 33
"A real overlay"). Nothing else of the referee's parts passes: not the
alerts, faults, shuffler or event log (the referee's actions, the tiles a fault names), not
the clocks, and of the wall only how many tiles are live: never the dice and the break or
anything of its order, which tell what comes next. `DelayedFeed` holds the broadcast
documents of the referee's as they arrive and lets each out `delay` seconds later on the
table's clock: the server's stream waits, not the page.
"""

import asyncio
from collections import deque
from collections.abc import Callable

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Route

from firmware.resources import package_folder
from firmware.web.auth import OK, BroadcastAuth
from firmware.web.sse import data, event_stream

STATIC = package_folder("firmware.display") / "static"
COOKIE = "mjtable_broadcast"
STEP = 0.25  # seconds of real time between two looks at the table's clock while waiting
PING_SECONDS = 15.0
HELD = 1000  # documents held at most (a minute of play is a few hundred)
TOP_FIELDS = (
    *("t", "table", "ruleset", "ruleset_title", "hand_number", "round_wind", "dealer"),
    *("state", "turn", "last_hand", "result", "win_check", "seal", "key_fingerprint"),
    "last_hand_round",
)
SEAT_FIELDS = (
    *("seat", "player", "name", "score", "penalty_points", "river", "melds", "flowers"),
    *("penalty_tiles", "hand_count", "hand", "shanten", "waits"),
)


def broadcast_state(referee: dict) -> dict:
    """The broadcast document of the referee's document `referee` (state.table_state)."""
    out = {name: referee.get(name) for name in TOP_FIELDS}
    wall = referee.get("wall")
    out.update(
        view="broadcast",
        wall=None if wall is None else {"live": wall["live"]},
        seats=[{name: seat.get(name) for name in SEAT_FIELDS} for seat in referee["seats"]],
    )
    return as_played(out)


def as_played(state: dict) -> dict:
    """`state` with the hand's own winds while its result is shown: once the hand is on the
    sheet (its row's number is the result's), the session's dealer, round, seating and scores
    are the next hand's, and after a game's end (CCM: its rounds played, or its time cut,
    seed 004 第五條) the next game's, with fresh chips. So each wind's player and name come
    from the result's payments (who sat there), his score from the row's totals, the dealer
    from the row and the round from the deals passed when the hand was dealt."""
    result, row, played = state["result"], state["last_hand"], state.pop("last_hand_round")
    if result is None or row is None or row["number"] != result["hand_number"]:
        return state  # in play, or ended and not yet recorded: the session's are the hand's
    sat = {side["seat"]: side for side in result["payments"]}
    for seat in state["seats"]:
        side = sat[seat["seat"]]
        seat.update(player=side["player"], name=side["name"], score=row["totals"][side["player"]])
    state.update(hand_number=row["number"], dealer=row["dealer"], round_wind=played)
    return state


Entry = tuple[int, float, dict]  # (seq, arrival on the table's clock, the broadcast document)


class DelayedFeed:
    """The broadcast documents by arrival, each released `delay` seconds after it came in.
    The newest released one stays held, for a page that opens now."""

    def __init__(self, delay: float, clock: Callable[[], float]):
        self.delay, self.clock = delay, clock
        self._held: deque[Entry] = deque(maxlen=HELD)

    def add(self, seq: int, referee: dict) -> None:
        """Hold an update's broadcast document (the desk's publish, on the loop's thread):
        only what passes is held, never the referee's parts, whose score sheet grows a row a
        hand (issue 32 item 4: a minute of documents each with the whole sheet)."""
        now = self.clock()
        self._held.append((seq, now, broadcast_state(referee)))
        while len(self._held) > 1 and self._held[1][1] <= now - self.delay:
            self._held.popleft()

    def released(self) -> Entry | None:
        """The newest update whose time has come, or None before the first has."""
        due, found = self.clock() - self.delay, None
        for entry in list(self._held):
            if entry[1] > due:
                break
            found = entry
        return found

    def _after(self, seq: int) -> tuple[Entry | None, float]:
        """The newest released update after `seq`, or else the next to be, and how long to
        wait for it (0: now); (None, STEP) when nothing newer is held."""
        due, found = self.clock() - self.delay, None
        for entry in list(self._held):
            if entry[0] <= seq:
                continue
            if entry[1] > due:
                return (found, 0.0) if found else (entry, entry[1] - due)
            found = entry
        return (found, 0.0) if found else (None, STEP)

    def frame(self, entry: Entry | None) -> dict:
        """What the page gets: the document with its arrival and release on the table's
        clock, or how long until the broadcast begins."""
        if entry is None:
            return {"seq": None, "delay": self.delay, "state": None}
        seq, arrived, state = entry
        return {
            "seq": seq,
            "delay": self.delay,
            "arrived": arrived,
            "released": self.clock(),
            "state": state,
        }

    async def frames(self, stop: asyncio.Event):
        """One page's stream: the released document, then each next one when its time comes
        (a ping comment when idle), until `stop`."""
        first = self.released()
        yield data(self.frame(first))
        seq, idle = (first[0] if first else 0), 0.0
        while not stop.is_set():
            entry, wait = self._after(seq)
            if wait <= 0 and entry is not None:
                seq, idle = entry[0], 0.0
                yield f"id: {seq}\n" + data(self.frame(entry))
                continue
            try:
                await asyncio.wait_for(stop.wait(), min(wait, STEP))
            except TimeoutError:
                idle += min(wait, STEP)
            if idle >= PING_SECONDS:
                idle = 0.0
                yield ": ping\n\n"


def broadcast_routes(source, token: str, streams: set[asyncio.Event]) -> list[BaseRoute]:
    """/broadcast (the page) and /api/broadcast/state, /api/broadcast/stream, all behind the
    broadcast token: in the URL's query (OBS), a bearer token, or the cookie the page's
    answer sets from it. The referee's PIN or session opens none of them."""
    auth = BroadcastAuth(token)
    feed: DelayedFeed = source.broadcast

    def refused(request: Request) -> Response | None:
        given = request.query_params.get("token") or request.cookies.get(COOKIE)
        scheme, _, bearer = request.headers.get("authorization", "").partition(" ")
        if not given and scheme.lower() == "bearer":
            given = bearer
        status, why = auth.check(given, request.client.host if request.client else None)
        return None if status == OK else JSONResponse({"error": why}, status_code=status)

    async def page(request: Request) -> Response:
        refusal = refused(request)
        if refusal:
            return refusal
        response = FileResponse(STATIC / "broadcast.html")
        if "token" in request.query_params:
            response.set_cookie(  # Secure over TLS, as the referee's (issue 32 item 9)
                COOKIE,
                request.query_params["token"],
                httponly=True,
                samesite="strict",
                secure=request.url.scheme == "https",
            )
        return response

    async def state(request: Request) -> Response:
        return refused(request) or JSONResponse(feed.frame(feed.released()))

    async def stream(request: Request) -> Response:
        refusal = refused(request)
        if refusal:
            return refusal

        async def frames():
            stop = asyncio.Event()
            streams.add(stop)
            try:
                yield "retry: 2000\n"
                async for text in feed.frames(stop):
                    yield text
            finally:
                streams.discard(stop)

        return event_stream(frames())

    return [
        Route("/broadcast", page),
        Route("/api/broadcast/state", state),
        Route("/api/broadcast/stream", stream),
    ]
