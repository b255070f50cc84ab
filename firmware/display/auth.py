"""Who may act as the referee: whoever knows the referee's secret (a PIN or a passphrase); who
may watch the delayed broadcast: whoever has its token.

A PIN is short, so wrong guesses are slowed, per client (issue 20): the address the connection
comes from (the ASGI scope's client, never a header, which anyone can write). A client's first
FREE wrong PINs in a row cost nothing (a referee's typo); each one after doubles the time that
client must wait before its next try, from 1 s up to MAX_WAIT (the lock-out). Until then its
PINs are refused (HTTP 429) without being compared; its right PIN clears the count. No other
client is ever held up: one stranger's wrong PINs leave the referee's tablet and the table's
own screen as they were. An IPv6 client counts by its /64, whose addresses any host there
may take at will. The clients held are at most CLIENTS (the one whose last wrong PIN is
oldest forgotten first), so a flood of addresses costs no more memory. A right secret
opens a session: a random token in an HttpOnly, SameSite=Strict cookie (Secure over TLS), so
the page's later requests need no PIN; cross-site requests are guard.py's.
The referees enrolled at the table (firmware/referees.py, issue 19) each have their own
secret: any of them opens a session, which remembers whose it is (the name the desk journals);
the profile's referee_pin then opens nothing. With none enrolled, the profile's PIN, as before.
Times are passed in (`t`, seconds on a monotonic clock).

The broadcast token is typed once into a stream's URL (OBS cannot type a PIN); it is long
(BROADCAST_TOKEN_LENGTH, the profile refuses less), so it is not throttled. The token the
profiles ship with is known to everyone: it opens the broadcast only from this machine.
"""

import hmac
import ipaddress
import secrets
from collections import OrderedDict
from typing import Protocol

FREE = 3  # wrong PINs in a row that cost a client nothing
MAX_WAIT = 900.0  # seconds: a client's longest wait between two tries (the lock-out)
CLIENTS = 4096  # clients whose wrong PINs are held at most
PIN_DIGITS = 6  # a PIN has at least this many digits ...
PASSPHRASE_LENGTH = 10  # ... and a passphrase (anything not all digits) this many characters
SHIPPED_REFEREE_PIN = "246810"  # in config/tables/*.toml: known to everyone
OK, WRONG, THROTTLED = 200, 403, 429
MISSING = 401
BROADCAST_TOKEN_LENGTH = 16
SHIPPED_BROADCAST_TOKEN = "change-this-broadcast-token"  # in config/tables/*.toml


def secret_problem(secret: str) -> str | None:
    """Why `secret` is too weak to be the referee's, or None."""
    if secret.isascii() and secret.isdigit():
        if len(secret) < PIN_DIGITS:
            return (
                f"a PIN of {len(secret)} digits is too easily guessed: use {PIN_DIGITS} "
                f"digits or more, or a passphrase of {PASSPHRASE_LENGTH} characters or more"
            )
    elif len(secret.strip()) < PASSPHRASE_LENGTH:
        return (
            f"a passphrase of {len(secret.strip())} characters is too easily guessed: use "
            f"{PASSPHRASE_LENGTH} characters or more, or a PIN of {PIN_DIGITS} digits or more"
        )
    return None


def wait_after(wrong: int) -> float:
    """Seconds a client waits after `wrong` wrong PINs in a row before it may try again."""
    return 0.0 if wrong < FREE else min(2.0 ** (wrong - FREE), MAX_WAIT)


def client_key(host: str | None) -> str:
    """The client as the throttle counts it: its IPv4 address (an IPv4-mapped IPv6 one too),
    or its IPv6 /64; a name that is no address (a test client's) as it is."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host or ""
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((int(address) >> 64 << 64, 64)))
    return str(address)


class Enrolled(Protocol):
    """The referees enrolled at the table (firmware/referees.py's Referees)."""

    def load(self) -> dict[str, dict]: ...

    def who(self, secret: str, enrolled: dict[str, dict] | None = None) -> str | None: ...


class RefereeAuth:
    """`pin` is the profile's; `referees`, when any are enrolled, stand in for it."""

    def __init__(self, pin: str, referees: Enrolled | None = None):
        if not isinstance(pin, str) or not pin.strip():
            raise ValueError("the referee PIN must be a non-empty text")
        problem = secret_problem(pin)
        if problem:
            raise ValueError(problem)
        self._pin, self.referees = pin.encode(), referees
        self._wrong: OrderedDict[str, tuple[int, float]] = OrderedDict()  # key -> (n, last)
        self._sessions: dict[str, str | None] = {}  # token -> the referee's name (None: PIN)

    @property
    def tracked(self) -> int:
        """How many clients' wrong PINs are held (at most CLIENTS)."""
        return len(self._wrong)

    def check_pin(self, pin: str, t: float, client: str | None) -> tuple[int, float]:
        """(OK, 0), (WRONG, seconds before this client's next try) or (THROTTLED, seconds
        left to wait; the PIN is not even compared) for a PIN from `client` (its address)."""
        status, wait, _ = self.check(pin, t, client)
        return status, wait

    def check(self, pin: str, t: float, client: str | None) -> tuple[int, float, str | None]:
        """check_pin's answer and, on OK, the enrolled referee whose secret it is (None: the
        profile's PIN). An unreadable referees file raises (firmware/referees.py's
        RefereeError, a ValueError): nobody is let in by the profile's PIN instead."""
        key = client_key(client)
        wrong, last = self._wrong.get(key, (0, t))
        left = last + wait_after(wrong) - t
        if left > 0:
            return THROTTLED, left, None
        referees = self.referees
        enrolled = referees.load() if referees is not None else {}
        # a text from JSON may hold a lone surrogate: it passes encoding and matches nothing
        if referees is not None and enrolled:
            who = referees.who(pin, enrolled)
            right = who is not None
        else:
            who, right = None, hmac.compare_digest(pin.encode("utf-8", "surrogatepass"), self._pin)
        if right:
            self._wrong.pop(key, None)
            return OK, 0.0, who
        self._wrong.pop(key, None)
        self._wrong[key] = (wrong + 1, t)  # the most recent last: the oldest is forgotten
        if len(self._wrong) > CLIENTS:
            self._wrong.popitem(last=False)
        return WRONG, wait_after(wrong + 1), None

    def open_session(self, who: str | None = None) -> str:
        """A session for the referee `who` (None: opened by the profile's PIN)."""
        token = secrets.token_urlsafe(32)
        self._sessions[token] = who
        return token

    def session_referee(self, token: str | None) -> str | None:
        """The referee whose session `token` is (None: the profile's PIN's, or no session)."""
        return self._sessions.get(token) if token is not None else None

    def has_session(self, token: str | None) -> bool:
        return token in self._sessions

    def close_session(self, token: str | None) -> None:
        """The referee logs out: the token opens nothing any more."""
        if token is not None:
            self._sessions.pop(token, None)


class BroadcastAuth:
    def __init__(self, token: str):
        self._token = token.encode()
        self.shipped = token == SHIPPED_BROADCAST_TOKEN

    def check(self, given: str | None, client_host: str | None) -> tuple[int, str]:
        """(OK, "") or (MISSING or WRONG, why)."""
        if not given:
            return MISSING, "the broadcast token is needed: /broadcast?token=..."
        if not hmac.compare_digest(given.encode("utf-8", "surrogatepass"), self._token):
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
