"""Who may act as the referee: whoever knows the referee's PIN; who may watch the delayed
broadcast: whoever has its token.

A PIN is short, so wrong guesses are throttled for the whole table, from whichever device
they come: after LIMIT wrong PINs within WINDOW seconds every PIN is refused (HTTP 429) until
the oldest of them is WINDOW old. A right PIN opens a session: a random token in an HttpOnly,
SameSite=Strict cookie, so the page's later requests need no PIN and no other site's page
can make them. Times are passed in (`t`, seconds on a monotonic clock).

The broadcast token is typed once into a stream's URL (OBS cannot type a PIN); it is long
(BROADCAST_TOKEN_LENGTH, the profile refuses less), so it is not throttled. The token the
profiles ship with is known to everyone: it opens the broadcast only from this machine.
"""

import hmac
import ipaddress
import secrets
from collections import deque

LIMIT = 5
WINDOW = 60.0
OK, WRONG, THROTTLED = 200, 403, 429
MISSING = 401
BROADCAST_TOKEN_LENGTH = 16
SHIPPED_BROADCAST_TOKEN = "change-this-broadcast-token"  # in config/tables/*.toml


class RefereeAuth:
    def __init__(self, pin: str):
        if not isinstance(pin, str) or not pin.strip():
            raise ValueError("the referee PIN must be a non-empty text")
        self._pin = pin.encode()
        self._wrong: deque[float] = deque()  # times of the recent wrong PINs
        self._sessions: set[str] = set()

    def check_pin(self, pin: str, t: float) -> int:
        """OK, WRONG or THROTTLED (then the PIN is not even compared)."""
        while self._wrong and self._wrong[0] <= t - WINDOW:
            self._wrong.popleft()
        if len(self._wrong) >= LIMIT:
            return THROTTLED
        if hmac.compare_digest(pin.encode(), self._pin):
            return OK
        self._wrong.append(t)
        return WRONG

    def open_session(self) -> str:
        token = secrets.token_urlsafe(32)
        self._sessions.add(token)
        return token

    def has_session(self, token: str | None) -> bool:
        return token in self._sessions

    def close_session(self, token: str | None) -> None:
        """The referee logs out: the token opens nothing any more."""
        self._sessions.discard(token)


class BroadcastAuth:
    def __init__(self, token: str):
        self._token = token.encode()
        self.shipped = token == SHIPPED_BROADCAST_TOKEN

    def check(self, given: str | None, client_host: str | None) -> tuple[int, str]:
        """(OK, "") or (MISSING or WRONG, why)."""
        if not given:
            return MISSING, "the broadcast token is needed: /broadcast?token=..."
        if not hmac.compare_digest(given.encode(), self._token):
            return WRONG, "wrong broadcast token"
        if self.shipped and not loopback(client_host):
            return WRONG, (
                "the shipped broadcast token opens the broadcast only on the table itself: "
                "set [display] broadcast_token in the table's profile"
            )
        return OK, ""


def loopback(host: str | None) -> bool:
    try:
        return host is not None and ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"
