"""Who may act as the referee: whoever knows the referee's secret (a PIN or a passphrase); who
may watch the delayed broadcast: whoever has its token.

Wrong guesses are slowed per client (issue 20): the address the connection comes from (the
ASGI scope's, never a header), an IPv6 one by its /64. A client's first FREE wrong tries in a
row cost nothing (a typo); each one after doubles its wait before the next, from 1 s up to
MAX_WAIT; meanwhile its tries are refused (429) uncompared. A try counts wrong from the moment
it is admitted, so tries sent at once wait in turn; a right one clears the count. No other
client is held up; at most CLIENTS are held. A right secret opens a session: a signed token
in an HttpOnly, SameSite=Strict cookie (Secure over TLS); cross-site requests are guard.py's.
Each referee enrolled at the table (firmware/desk/referees.py, issue 19) logs in with his name
and his own secret, one hash a try, off the loop under a cap for the whole process
(hashing.py, issue 32 item 3); his session names him, for the desk's journal. With none
enrolled, the profile's PIN. Times are passed in (`t`, seconds on a monotonic clock).

A session's token (issue 16) holds whose it is, when it expires (SESSION_SECONDS on the wall
clock) and a digest of the secret's record, under an HMAC with the data directory's key
(revocation.py), so it outlives a restart; a new secret or the referee's removal ends it, a
new key ends them all, a logout its own, kept across restarts (issue 32 item 6).

The broadcast token is typed once into a stream's URL (OBS cannot type a PIN); it is long
(BROADCAST_TOKEN_LENGTH, the profile refuses less), so it is not throttled. The token the
profiles ship with is known to everyone: it opens the broadcast only from this machine.
"""

import base64
import hashlib
import hmac
import ipaddress
import json
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple, Protocol

from firmware.web.hashing import HASHING, Busy
from firmware.web.revocation import Logouts, SessionKey

FREE = 3  # wrong PINs in a row that cost a client nothing
MAX_WAIT = 900.0  # seconds: a client's longest wait between two tries (the lock-out)
CLIENTS = 4096  # clients whose wrong PINs are held at most
PIN_DIGITS = 6  # a PIN has at least this many digits ...
PASSPHRASE_LENGTH = 10  # ... and a passphrase (anything not all digits) this many characters
SHIPPED_REFEREE_PIN = "246810"  # in config/tables/*.toml: known to everyone
OK, WRONG, THROTTLED = 200, 403, 429
MISSING = 401
NAMELESS = 422  # referees are enrolled: a try names whose secret it is
BROADCAST_TOKEN_LENGTH = 16
SESSION_SECONDS = 12 * 3600.0  # a referee's session lasts a session of play
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
    if host is None:  # no peer address (a test client's transport)
        return ""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((int(address) >> 64 << 64, 64)))
    return str(address)


class Enrolled(Protocol):
    """The referees enrolled at the table (firmware/desk/referees.py's Referees)."""

    def load(self) -> dict[str, dict]: ...

    def is_secret_of(self, name: str, secret: str, enrolled: dict[str, dict]) -> bool: ...


class Verdict(NamedTuple):
    """A try's status, the seconds before this client's next try, the referee let in (None:
    the profile's PIN); `busy`: THROTTLED uncompared, hashing.ADMITTED being under way."""

    status: int
    wait: float
    referee: str | None = None
    busy: bool = False


@dataclass(frozen=True)
class Session:
    """A referee's session, as its token says: whose (None: the profile's PIN), until when."""

    referee: str | None
    expires: float  # wall clock, seconds since the epoch


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class RefereeAuth:
    """`pin` is the profile's; `referees`, when any are enrolled, stand in for it. The key
    that signs the sessions and the logouts are kept in `key_folder` (revocation.py; None:
    in memory); `wall` is the wall clock the sessions' expiry is on."""

    def __init__(
        self,
        pin: str,
        referees: Enrolled | None = None,
        key_folder: Path | None = None,
        wall: Callable[[], float] = time.time,
    ):
        if not isinstance(pin, str) or not pin.strip():
            raise ValueError("the referee PIN must be a non-empty text")
        problem = secret_problem(pin)
        if problem:
            raise ValueError(problem)
        self._pin, self.referees, self.wall = pin.encode(), referees, wall
        self._key, self._logouts = SessionKey(key_folder), Logouts(key_folder)
        # logouts unreadable: none of the sessions opened before this start is trusted
        self._not_before = wall() if self._logouts.unreadable else 0.0
        self._wrong: OrderedDict[str, tuple[int, float]] = OrderedDict()  # key -> (n, last)

    @property
    def tracked(self) -> int:
        """How many clients' wrong PINs are held (at most CLIENTS)."""
        return len(self._wrong)

    def check_pin(self, pin: str, t: float, client: str | None) -> tuple[int, float]:
        """The profile's PIN from `client` (its address): (OK, 0), (WRONG, seconds before
        this client's next try) or (THROTTLED, seconds left to wait; not even compared).
        Compared at once: no hash to wait for."""
        key, wrong, left = self._admitted(t, client)
        if left > 0:
            return THROTTLED, left
        pin_bytes = pin.encode("utf-8", "surrogatepass")  # JSON's text may hold a lone one
        return self._settled(key, wrong, t, hmac.compare_digest(pin_bytes, self._pin))

    async def check(
        self, secret: str, t: float, client: str | None, name: str | None = None
    ) -> Verdict:
        """A try from `client`: with referees enrolled, the referee `name`'s secret, hashed
        off the loop (hashing.py: one hash; `busy` past the cap); else the profile's PIN.
        An unreadable referees file raises (RefereeError, a ValueError): nobody is let in."""
        enrolled = self._enrolled()
        if not enrolled or self.referees is None:
            return Verdict(*self.check_pin(secret, t, client))
        key, wrong, left = self._admitted(t, client)
        if left > 0:
            return Verdict(THROTTLED, left)
        if name is None:
            return Verdict(NAMELESS, 0.0)
        held = self._wrong.get(key)
        self._count(key, wrong + 1, t)  # wrong until found right: tries at once wait in turn
        try:
            right = await HASHING.run(self.referees.is_secret_of, name, secret, enrolled)
        except Busy:
            self._wrong.pop(key, None)
            if held is not None:
                self._wrong[key] = held
            return Verdict(THROTTLED, 1.0, busy=True)
        status, wait = self._settled(key, wrong, t, right)
        return Verdict(status, wait, name if right else None)

    def _admitted(self, t: float, client: str | None) -> tuple[str, int, float]:
        """(the client's key, its wrong tries in a row, the seconds it must still wait)."""
        key = client_key(client)
        wrong, last = self._wrong.get(key, (0, t))
        return key, wrong, last + wait_after(wrong) - t

    def _settled(self, key: str, wrong: int, t: float, right: bool) -> tuple[int, float]:
        if right:
            self._wrong.pop(key, None)
            return OK, 0.0
        counted = max(wrong + 1, self._wrong.get(key, (0, t))[0])  # tries since admitted
        self._count(key, counted, t)
        return WRONG, wait_after(counted)

    def _count(self, key: str, wrong: int, t: float) -> None:
        self._wrong.pop(key, None)
        self._wrong[key] = (wrong, t)  # the most recent last: the oldest is forgotten
        if len(self._wrong) > CLIENTS:
            self._wrong.popitem(last=False)

    def open_session(self, who: str | None = None) -> str:
        """A signed token for the referee `who` (None: opened by the profile's PIN)."""
        now = self.wall()
        payload = {
            "referee": who,
            "issued": now,
            "expires": now + SESSION_SECONDS,
            "secret": self._digest(who, self._enrolled()),
            "nonce": secrets.token_urlsafe(12),
        }
        text = _b64(json.dumps(payload, separators=(",", ":")).encode())
        return f"{text}.{self._sign(text)}"

    def session(self, token: str | None) -> Session | None:
        """The session `token` opens, or None: not signed with this table's current key,
        expired, logged out, or opened by a secret no longer the one (a new one, the referee
        removed, referees enrolled since a PIN's session). Raises as check does."""
        payload = self._payload(token)
        if payload is None or self.wall() >= payload["expires"]:
            return None
        who, enrolled = payload["referee"], self._enrolled()
        if (who is None) != (not enrolled) or (who is not None and who not in enrolled):
            return None
        if not hmac.compare_digest(payload["secret"], self._digest(who, enrolled)):
            return None
        return Session(who, payload["expires"])

    def close_session(self, token: str | None) -> str | None:
        """The referee logs out: the token opens nothing any more, after a restart too. None,
        or why the logout is not kept on disk. Blocking (a file written): off the loop."""
        payload = self._payload(token)
        if payload is None:
            return None
        return self._logouts.add(payload["nonce"], payload["expires"], self.wall())

    def _payload(self, token: str | None) -> dict | None:
        """What a token signed with this table's key says, unless logged out; else None."""
        text, _, signature = (token or "").partition(".")
        given = signature.encode("utf-8", "surrogatepass")
        if not hmac.compare_digest(given, self._sign(text).encode()):
            return None
        payload = json.loads(_unb64(text))
        if payload["nonce"] in self._logouts or payload["issued"] < self._not_before:
            return None
        return payload

    def _enrolled(self) -> dict[str, dict]:
        return self.referees.load() if self.referees is not None else {}

    def _sign(self, text: str) -> str:
        key = self._key.current()
        signed = hmac.new(key, text.encode("utf-8", "surrogatepass"), hashlib.sha256)
        return _b64(signed.digest())

    def _digest(self, who: str | None, enrolled: dict[str, dict]) -> str:
        """Of the secret that opened the session (keyed: the PIN cannot be guessed back)."""
        if who is None:
            material = b"pin\0" + self._pin
        else:
            record = json.dumps([who, enrolled.get(who, {}).get("secret")], sort_keys=True)
            material = b"referee\0" + record.encode("utf-8", "surrogatepass")
        digest = hmac.new(self._key.current(), material, hashlib.sha256).digest()
        return _b64(digest[:16])


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
