"""Logging in with a secret (the referee's PIN at the table, the organiser's at the venue):
one way for both apps, so the throttle, the cookie and the refusals are the same everywhere.

A session cookie (HttpOnly, SameSite=Strict, Secure over HTTPS) once logged in, or the secret
as a bearer token for scripts; wrong secrets are throttled per device (auth.py).
"""

import math
from collections.abc import Callable

from starlette.requests import Request
from starlette.responses import JSONResponse

from firmware.display.auth import OK, THROTTLED, RefereeAuth
from firmware.display.guard import json_body


def error(status: int, message: str, **extra) -> JSONResponse:
    return JSONResponse({"error": message, **extra}, status_code=status)


def client(request: Request) -> str | None:
    """The address the connection comes from (the ASGI scope's, never a header's)."""
    return request.client.host if request.client else None


class Login:
    """`whose` names the secret in refusals ("the referee's PIN"); `cookie` is the session's
    cookie name; `clock` times the wrong secrets."""

    def __init__(self, secret: str, cookie: str, whose: str, clock: Callable[[], float]):
        self.auth, self.cookie, self.whose, self.clock = RefereeAuth(secret), cookie, whose, clock

    def refused(self, request: Request) -> JSONResponse | None:
        """None when the request carries the session cookie or the secret as a bearer."""
        if self.auth.has_session(request.cookies.get(self.cookie)):
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
        response = JSONResponse({"ok": True})
        response.set_cookie(self.cookie, self.auth.open_session(), **self._flags(request))
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
        status, wait = self.auth.check_pin(given, self.clock(), client(request))
        if status == OK:
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
