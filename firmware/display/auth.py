"""Who may act as the referee: whoever knows the referee's PIN.

A PIN is short, so wrong guesses are throttled for the whole table, from whichever device
they come: after LIMIT wrong PINs within WINDOW seconds every PIN is refused (HTTP 429) until
the oldest of them is WINDOW old. A right PIN opens a session: a random token in an HttpOnly,
SameSite=Strict cookie, so the page's later requests need no PIN and no other site's page
can make them. Times are passed in (`t`, seconds on a monotonic clock).
"""

import hmac
import secrets
from collections import deque

LIMIT = 5
WINDOW = 60.0
OK, WRONG, THROTTLED = 200, 403, 429


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
