"""What a request must be before any route of the display sees it (issue 20).

- Its body is at most MAX_BODY bytes. A Content-Length over that is refused (413) before a
  byte is read; a body that grows past it while it is read (chunked, or a short
  Content-Length) is refused there. No request holds more than MAX_BODY in memory.
- A request that changes something (any method but GET and HEAD) comes from the table's own
  page, else 403. Its Origin, or without one its Referer, must be this display's
  scheme://host:port, where the Host header names the port the connection came in on, and
  on a loopback listener a loopback name, so that a page that points its own name at
  127.0.0.1 (DNS rebinding) gets nothing. SameSite=Strict alone does not do this: a page on
  another port of the same host is the same site, and its requests carry the cookie.
  A request with neither header passes only if it sends no cookie. Then it is a script's,
  with the PIN as a bearer token, which a browser never adds by itself, so it cannot be a
  page's forged request.
- It carries JSON (Content-Type: application/json), else 415: another site's page can send a
  form or text/plain without asking, JSON only after a CORS preflight the display never
  grants.
`json_body` reads a JSON body and counts its nesting before json.loads could recurse (400
over MAX_DEPTH). Every refusal is `Refused`, answered as JSON {"error": ...}.
"""

import json
import re
from typing import Any
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ExceptionHandler

from firmware.web.auth import loopback

MAX_BODY = 64 * 1024  # bytes: a referee's action or login is well under 1 KB
MAX_DEPTH = 32  # JSON nesting; the display's bodies are one flat object
SAFE_METHODS = ("GET", "HEAD")


def too_large(most: int) -> str:
    return f"the request body is over {most // 1024} KB: no request to this page needs that"


_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(rb"[][{}]")


class Refused(Exception):
    """A request refused before or while its body is read: the HTTP status and why."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message

    def response(self) -> JSONResponse:
        return JSONResponse({"error": self.message}, status_code=self.status)


def answer(request: Request, refused: Refused) -> JSONResponse:
    """A refusal raised while a route reads its body (the app's exception handler)."""
    return refused.response()


# The apps' exception_handlers. Starlette calls a handler only with the class it is registered
# for, but types every handler as taking any Exception, so a handler of one class does not
# type-check (Kludex/starlette issue 1142; a generic handler type is pull request 2403).
HANDLERS: dict[Any, ExceptionHandler] = {Refused: answer}  # type: ignore[dict-item]


async def json_body(request: Request):
    """The request's JSON body ({} when empty); None when it is not JSON (then the route
    names it); Refused (400) when it nests deeper than MAX_DEPTH."""
    raw = await request.body() or b"{}"
    depth = 0
    for bracket in _BRACKET.finditer(_STRING.sub(b"", raw)):
        depth += 1 if bracket[0] in (b"[", b"{") else -1
        if depth > MAX_DEPTH:
            raise Refused(400, f"the JSON body nests deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(raw)
    except ValueError:  # not JSON, not UTF-8, a number of over 4300 digits
        return None


def _origin(url: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) of a URL or an Origin header; None for "null" or a broken one."""
    try:
        parts = urlsplit(url)
        port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    except ValueError:
        return None
    return (parts.scheme, parts.hostname, port) if parts.hostname and port else None


class Guard:
    """ASGI middleware: every request's size, and a changing request's origin and type.
    `host` is the address the display listens on (the profile's [display] host); `larger`,
    the paths that take a body over MAX_BODY, each with its own limit (the venue's seating
    plan)."""

    def __init__(self, app, host: str, larger: dict[str, int] | None = None):
        self.app, self.loopback, self.larger = app, loopback(host), larger or {}

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = Headers(scope=scope)
        try:
            self._check(scope, headers)
        except Refused as refused:
            return await refused.response()(scope, receive, send)
        read, most = 0, self.larger.get(scope["path"], MAX_BODY)

        async def limited():
            nonlocal read
            message = await receive()
            read += len(message.get("body", b""))
            if read > most:
                raise Refused(413, too_large(most))
            return message

        await self.app(scope, limited, send)

    def _check(self, scope, headers: Headers) -> None:
        length = headers.get("content-length", "0")
        if not length.isascii() or not length.isdigit():
            raise Refused(400, f"Content-Length {length!r} is not a number of bytes")
        most = self.larger.get(scope["path"], MAX_BODY)
        if int(length) > most:
            raise Refused(413, too_large(most))
        if scope["method"] in SAFE_METHODS:
            return
        self._check_origin(scope, headers)
        given = headers.get("content-type", "")
        if given.partition(";")[0].strip().lower() != "application/json":
            raise Refused(
                415,
                "the body must be JSON, sent with Content-Type: application/json "
                f"(this one is {given or 'without a Content-Type'})",
            )

    def _check_origin(self, scope, headers: Headers) -> None:
        sent = headers.get("origin") or headers.get("referer")
        if sent is None:
            if "cookie" in headers:
                raise Refused(
                    403,
                    "refused: a request with the referee's session must come from the "
                    "table's own page (it sent no Origin); a script sends the PIN as a "
                    "bearer token, without cookies",
                )
            return
        host = headers.get("host", "")
        own = _origin(f"{scope['scheme']}://{host}")
        server = scope.get("server") or (None, None)
        if own is None or (server[1] is not None and own[2] != server[1]):
            raise Refused(403, f"refused: the Host {host!r} is not this display's address")
        if self.loopback and not loopback(own[1]):
            raise Refused(
                403, f"refused: the display listens on this machine only, not as {host!r}"
            )
        if _origin(sent) != own:
            raise Refused(
                403,
                f"refused: the request comes from {sent!r}, not from the table's own page "
                f"({own[0]}://{host})",
            )
