"""Logging in with a secret (the referee's PIN at the table, the organiser's at the venue):
one way for both apps, so the throttle, the cookie and the refusals are the same everywhere.

A session cookie (HttpOnly, SameSite=Strict, Secure over HTTPS; a token signed with the key
in `key_folder`, so it outlives a restart of the service, auth.py) once logged in, or the
secret as a bearer token for scripts; wrong secrets are throttled per device (auth.py). At
the table, the referees enrolled there (firmware/desk/referees.py) log in each with his name
and his own secret (a script: HTTP Basic, name:secret), and a request let in says whose it
was: `referee(request)`, for the desk to journal who acted. A stream let in ends when its
session does (issue 32 item 6: logout, the referee removed, a new secret or key, expiry):
at once on a logout, else before the next thing it would send (an update or a ping).
"""

import asyncio
import base64
import binascii
import math
import time
from collections.abc import AsyncIterable, AsyncIterator, Callable
from contextlib import suppress
from pathlib import Path

from starlette.requests import Request
from starlette.responses import JSONResponse, StreamingResponse

from firmware.web.auth import NAMELESS, OK, SESSION_SECONDS, THROTTLED, Enrolled, RefereeAuth
from firmware.web.guard import json_body


def error(status: int, message: str, **extra) -> JSONResponse:
    return JSONResponse({"error": message, **extra}, status_code=status)


def client(request: Request) -> str | None:
    """The address the connection comes from (the ASGI scope's, never a header's)."""
    return request.client.host if request.client else None


class Login:
    """`whose` names the secret in refusals ("the referee's PIN"); `cookie` is the session's
    cookie name; `clock` times the wrong secrets; `referees`, the table's enrolled ones;
    `key_folder` keeps the key that signs the sessions (None: in memory); `wall`, the wall
    clock they expire on."""

    def __init__(
        self,
        secret: str,
        cookie: str,
        whose: str,
        clock: Callable[[], float],
        referees: Enrolled | None = None,
        key_folder: Path | None = None,
        wall: Callable[[], float] = time.time,
    ):
        self.auth = RefereeAuth(secret, referees, key_folder, wall)
        self.cookie, self.whose, self.clock = cookie, whose, clock
        self._streams: dict[str, set[asyncio.Event]] = {}  # token -> its open streams' ends

    @staticmethod
    def referee(request: Request) -> str | None:
        """The enrolled referee a request `refused` let in is from (None: the profile's PIN)."""
        return getattr(request.state, "referee", None)

    async def signature(self, request: Request, body: dict) -> tuple[dict, JSONResponse | None]:
        """sign_sheet's body as the desk takes it, or the refusal: the PIN, typed again, must
        be the secret of the referee logged in (the profile's PIN when none is enrolled),
        throttled as a login, then dropped (never journaled, never echoed); the name signed
        is the enrolled referee's, else the one typed (issue 16)."""
        who = self.referee(request)
        name = who or body.get("referee")
        if not name:
            return body, error(
                422, "sign_sheet needs the field 'referee': the name to sign with", field="referee"
            )
        refusal = await self._refusal(body["pin"], request, who)
        if refusal is not None and refusal.status_code == 403:
            refusal = error(403, "not the PIN of the referee logged in: he signs with his own")
        return {"hand": body["hand"], "referee": name}, refusal

    async def refused(self, request: Request) -> JSONResponse | None:
        """None when the request carries the session cookie, or the secret as a bearer token
        (an enrolled referee's with his name: Basic); then `request.state.token` is a
        session's token, for a stream to be checked against (streaming)."""
        token = request.cookies.get(self.cookie)
        if token is not None:
            try:
                session = self.auth.session(token)
            except ValueError as err:  # the referees file unreadable (firmware/desk/referees.py)
                return error(503, f"the referees' secrets cannot be read: {err}")
            if session is not None:
                request.state.referee, request.state.token = session.referee, token
                return None
        scheme, _, given = request.headers.get("authorization", "").partition(" ")
        name, secret = None, given
        if scheme.lower() == "basic":
            name, secret = _basic(given)
        elif scheme.lower() != "bearer":
            secret = ""
        if not secret:
            return JSONResponse(
                {"error": f"{self.whose} is needed: log in"},
                status_code=401,
                headers={"WWW-Authenticate": "Bearer"},
            )
        refusal = await self._refusal(secret, request, name)
        if refusal is None:  # a script's own session, for as long as the request lasts
            request.state.token = self.auth.open_session(self.referee(request))
        return refusal

    async def login(self, request: Request) -> JSONResponse:
        body = await json_body(request)
        given = body.get("pin") if isinstance(body, dict) else None
        if not isinstance(given, str) or not given:
            return error(422, 'log in with {"pin": "..."}', field="pin")
        name = body.get("referee")
        if name is not None and not isinstance(name, str):
            return error(422, "'referee' is the name of an enrolled referee", field="referee")
        refusal = await self._refusal(given, request, name or None)
        if refusal:
            return refusal
        who = self.referee(request)
        response = JSONResponse({"ok": True, **({"referee": who} if who else {})})
        token = self.auth.open_session(who)
        response.set_cookie(
            self.cookie, token, max_age=int(SESSION_SECONDS), **self._flags(request)
        )
        return response

    async def logout(self, request: Request) -> JSONResponse:
        """The person leaves a tablet or a screen: his session ends there, and its open
        streams with it, for good (kept across a restart)."""
        token = request.cookies.get(self.cookie)
        problem = await asyncio.to_thread(self.auth.close_session, token)
        for ended in self._streams.get(token or "", ()):
            ended.set()
        response = JSONResponse({"ok": True, **({"problem": problem} if problem else {})})
        response.delete_cookie(self.cookie, **self._flags(request))
        return response

    def streaming(self, request: Request, response: StreamingResponse) -> StreamingResponse:
        """`response`, a stream `refused` let in, ending when its session ends."""
        token: str = request.state.token
        response.body_iterator = self._while_open(token, response.body_iterator)
        return response

    async def _while_open(self, token: str, body: AsyncIterable) -> AsyncIterator:
        """The texts of `body` while the session of `token` lasts: the session is looked at
        before each is sent (an update or a ping), and a logout ends it at once."""
        ended, texts = asyncio.Event(), aiter(body)
        self._streams.setdefault(token, set()).add(ended)
        halt = asyncio.ensure_future(ended.wait())
        step: asyncio.Future | None = None
        try:
            while True:
                step = asyncio.ensure_future(anext(texts))
                await asyncio.wait((step, halt), return_when=asyncio.FIRST_COMPLETED)
                if ended.is_set() or not self._open(token):
                    return
                try:
                    text = step.result()
                except StopAsyncIteration:
                    return
                yield text
        finally:
            halt.cancel()
            if step is not None and not step.done():
                step.cancel()  # the stream's own generator ends with it (its queue closed)
                with suppress(asyncio.CancelledError):
                    await step
            elif hasattr(texts, "aclose"):  # at a yield, or finished
                await texts.aclose()
            streams = self._streams.get(token, set())
            streams.discard(ended)
            if not streams:
                self._streams.pop(token, None)

    def _open(self, token: str) -> bool:
        try:
            return self.auth.session(token) is not None
        except ValueError:  # the referees file unreadable: nobody's session holds
            return False

    @staticmethod
    def _flags(request: Request) -> dict:
        return {"httponly": True, "samesite": "strict", "secure": request.url.scheme == "https"}

    async def _refusal(
        self, given: str, request: Request, name: str | None = None
    ) -> JSONResponse | None:
        try:
            verdict = await self.auth.check(given, self.clock(), client(request), name)
        except ValueError as err:  # the referees file unreadable (firmware/desk/referees.py)
            return error(503, f"the referees' secrets cannot be read: {err}")
        if verdict.status == OK:
            request.state.referee = verdict.referee
            return None
        seconds = math.ceil(verdict.wait)
        if verdict.busy:
            return JSONResponse(
                {"error": f"the table is checking other secrets: try again in {seconds} s"},
                status_code=429,
                headers={"Retry-After": str(seconds)},
            )
        if verdict.status == THROTTLED:
            return JSONResponse(
                {
                    "error": f"too many wrong PINs from this device: try again in {seconds} s "
                    "(other devices are not held up)"
                },
                status_code=429,
                headers={"Retry-After": str(seconds)},
            )
        if verdict.status == NAMELESS:
            return error(
                422,
                "referees are enrolled at this table: log in with your name and your own "
                'secret ({"referee": NAME, "pin": ...}; a script: Authorization: Basic)',
                field="referee",
            )
        wrong = f"wrong PIN (the next try from this device in {seconds} s)" if seconds else None
        return error(403, wrong or "wrong PIN")


def _basic(given: str) -> tuple[str | None, str]:
    """(name, secret) of HTTP Basic credentials (RFC 7617), ("", "") when they are broken."""
    try:
        name, colon, secret = base64.b64decode(given, validate=True).decode().partition(":")
    except (binascii.Error, UnicodeDecodeError):
        return None, ""
    return (name, secret) if colon else (None, "")
