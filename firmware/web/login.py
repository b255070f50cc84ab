"""Logging in with a secret (the referee's PIN at the table, the organiser's at the venue):
one way for both apps, so the throttle, the cookie and the refusals are the same everywhere.

A session cookie (HttpOnly, SameSite=Strict, Secure over HTTPS; a token signed with the key
in `key_folder`, so it outlives a restart of the service, auth.py) once logged in, or the
secret as a bearer token for scripts; wrong secrets are throttled per device (auth.py). At
the table, the referees enrolled there (firmware/desk/referees.py) log in each with his own secret,
and a request let in says whose it was: `referee(request)`, for the desk to journal who acted.
"""

import math
import time
from collections.abc import Callable
from pathlib import Path

from starlette.requests import Request
from starlette.responses import JSONResponse

from firmware.web.auth import (
    OK,
    SESSION_SECONDS,
    THROTTLED,
    Enrolled,
    RefereeAuth,
    session_key,
)
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
        self.auth, self.cookie, self.whose, self.clock = (
            RefereeAuth(secret, referees, session_key(key_folder), wall),
            cookie,
            whose,
            clock,
        )

    @staticmethod
    def referee(request: Request) -> str | None:
        """The enrolled referee a request `refused` let in is from (None: the profile's PIN)."""
        return getattr(request.state, "referee", None)

    def signature(self, request: Request, body: dict) -> tuple[dict, JSONResponse | None]:
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
        refusal = self._refusal(body["pin"], request)
        typed_by, request.state.referee = self.referee(request), who
        if refusal is None and typed_by != who:
            refusal = error(403, "not the PIN of the referee logged in: he signs with his own")
        return {"hand": body["hand"], "referee": name}, refusal

    def refused(self, request: Request) -> JSONResponse | None:
        """None when the request carries the session cookie or the secret as a bearer."""
        token = request.cookies.get(self.cookie)
        if token is not None:
            try:
                session = self.auth.session(token)
            except ValueError as err:  # the referees file unreadable (firmware/desk/referees.py)
                return error(503, f"the referees' secrets cannot be read: {err}")
            if session is not None:
                request.state.referee = session.referee
                return None
        scheme, _, given = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not given:
            return JSONResponse(
                {"error": f"{self.whose} is needed: log in"},
                status_code=401,
                headers={"WWW-Authenticate": "Bearer"},
            )
        return self._refusal(given, request)

    async def login(self, request: Request) -> JSONResponse:
        body = await json_body(request)
        given = body.get("pin") if isinstance(body, dict) else None
        if not isinstance(given, str) or not given:
            return error(422, 'log in with {"pin": "..."}', field="pin")
        refusal = self._refusal(given, request)
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
        """The person leaves a tablet or a screen: his session ends there."""
        self.auth.close_session(request.cookies.get(self.cookie))
        response = JSONResponse({"ok": True})
        response.delete_cookie(self.cookie, **self._flags(request))
        return response

    @staticmethod
    def _flags(request: Request) -> dict:
        return {"httponly": True, "samesite": "strict", "secure": request.url.scheme == "https"}

    def _refusal(self, given: str, request: Request) -> JSONResponse | None:
        try:
            status, wait, who = self.auth.check(given, self.clock(), client(request))
        except ValueError as err:  # the referees file unreadable (firmware/desk/referees.py)
            return error(503, f"the referees' secrets cannot be read: {err}")
        if status == OK:
            request.state.referee = who
            return None
        seconds = math.ceil(wait)
        if status == THROTTLED:
            return JSONResponse(
                {
                    "error": f"too many wrong PINs from this device: try again in {seconds} s "
                    "(other devices are not held up)"
                },
                status_code=429,
                headers={"Retry-After": str(seconds)},
            )
        wrong = f"wrong PIN (the next try from this device in {seconds} s)" if seconds else None
        return error(403, wrong or "wrong PIN")
