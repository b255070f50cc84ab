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
opens a session: a signed token in an HttpOnly, SameSite=Strict cookie (Secure over TLS), so
the page's later requests need no PIN; cross-site requests are guard.py's.
The referees enrolled at the table (firmware/desk/referees.py, issue 19) each have their own
secret: any of them opens a session, which remembers whose it is (the name the desk journals);
the profile's referee_pin then opens nothing. With none enrolled, the profile's PIN, as before.
Times are passed in (`t`, seconds on a monotonic clock).

A session survives a restart of the service (issue 16): its token holds whose it is, when it
was issued and when it expires (SESSION_SECONDS on the wall clock, a session of play), and an
HMAC-SHA256 over that with a key kept in the data directory (SESSION_KEY, mode 0600, made from
`secrets` on first use), so nothing of it is kept in memory but the logouts. It also holds a
digest of the secret's record (the referee's salted hash, or the profile's PIN), so a
new secret ends the sessions the old one opened, and a referee removed has none. A logout
ends its token in this process only (the revoked ones are kept in memory until they expire):
after a restart a token logged out before opens again until its expiry, though its page has
deleted the cookie. Without a key folder (the venue's dashboard), the key lives in memory and
sessions end with the process.

The broadcast token is typed once into a stream's URL (OBS cannot type a PIN); it is long
(BROADCAST_TOKEN_LENGTH, the profile refuses less), so it is not throttled. The token the
profiles ship with is known to everyone: it opens the broadcast only from this machine.
"""

import base64
import hashlib
import hmac
import ipaddress
import json
import os
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
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
SESSION_SECONDS = 12 * 3600.0  # a referee's session lasts a session of play
SESSION_KEY = "session.key"  # in the data directory (firmware/table/sessions.py data_dir)
KEY_BYTES = 32
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

    def who(self, secret: str, enrolled: dict[str, dict] | None = None) -> str | None: ...


@dataclass(frozen=True)
class Session:
    """A referee's session, as its token says: whose (None: the profile's PIN), until when."""

    referee: str | None
    expires: float  # wall clock, seconds since the epoch


def session_key(folder: Path | None) -> bytes:
    """The key that signs the sessions: SESSION_KEY in `folder`, made on first use (mode
    0600, written beside it and renamed: whole or not at all); one that is not KEY_BYTES in
    hex is replaced (its sessions end). Without a folder, a new one in memory."""
    if folder is None:
        return secrets.token_bytes(KEY_BYTES)
    path = Path(folder) / SESSION_KEY
    try:
        key = bytes.fromhex(path.read_text(encoding="ascii").strip())
        if len(key) == KEY_BYTES:
            return key
    except (FileNotFoundError, ValueError):
        pass
    key = secrets.token_bytes(KEY_BYTES)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{SESSION_KEY}.{secrets.token_hex(4)}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as out:
        out.write(key.hex() + "\n")
        out.flush()
        os.fsync(out.fileno())
    if os.geteuid() == 0:  # made by root (a trial run): the service's user reads it
        folder_stat = path.parent.stat()
        os.chown(temporary, folder_stat.st_uid, folder_stat.st_gid)
    os.replace(temporary, path)
    return key


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class RefereeAuth:
    """`pin` is the profile's; `referees`, when any are enrolled, stand in for it. `key`
    signs the sessions (session_key); `wall` is the wall clock their expiry is on."""

    def __init__(
        self,
        pin: str,
        referees: Enrolled | None = None,
        key: bytes | None = None,
        wall: Callable[[], float] = time.time,
    ):
        if not isinstance(pin, str) or not pin.strip():
            raise ValueError("the referee PIN must be a non-empty text")
        problem = secret_problem(pin)
        if problem:
            raise ValueError(problem)
        self._pin, self.referees = pin.encode(), referees
        self._key, self.wall = key or session_key(None), wall
        self._wrong: OrderedDict[str, tuple[int, float]] = OrderedDict()  # key -> (n, last)
        self._revoked: dict[str, float] = {}  # nonce -> expiry: logged out in this process

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
        profile's PIN). An unreadable referees file raises (firmware/desk/referees.py's
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
        """The session `token` opens, or None: not signed with this table's key, expired,
        logged out, or opened by a secret that is no longer the one (a new one set, the
        referee removed, referees enrolled since a PIN's session). An unreadable referees
        file raises, as in check."""
        payload = self._payload(token)
        if payload is None or self.wall() >= payload["expires"]:
            return None
        who, enrolled = payload["referee"], self._enrolled()
        if (who is None) != (not enrolled) or (who is not None and who not in enrolled):
            return None
        if not hmac.compare_digest(payload["secret"], self._digest(who, enrolled)):
            return None
        return Session(who, payload["expires"])

    def close_session(self, token: str | None) -> None:
        """The referee logs out: the token opens nothing any more (in this process)."""
        now = self.wall()
        self._revoked = {n: e for n, e in self._revoked.items() if e > now}
        payload = self._payload(token)
        if payload is not None:
            self._revoked[payload["nonce"]] = payload["expires"]

    def _payload(self, token: str | None) -> dict | None:
        """What a token signed with this table's key says, unless logged out; else None."""
        text, _, signature = (token or "").partition(".")
        given = signature.encode("utf-8", "surrogatepass")
        if not hmac.compare_digest(given, self._sign(text).encode()):
            return None
        payload = json.loads(_unb64(text))
        return None if payload["nonce"] in self._revoked else payload

    def _enrolled(self) -> dict[str, dict]:
        return self.referees.load() if self.referees is not None else {}

    def _sign(self, text: str) -> str:
        signed = hmac.new(self._key, text.encode("utf-8", "surrogatepass"), hashlib.sha256)
        return _b64(signed.digest())

    def _digest(self, who: str | None, enrolled: dict[str, dict]) -> str:
        """Of the secret that opened the session (keyed: the PIN cannot be guessed back)."""
        if who is None:
            material = b"pin\0" + self._pin
        else:
            record = json.dumps([who, enrolled.get(who, {}).get("secret")], sort_keys=True)
            material = b"referee\0" + record.encode("utf-8", "surrogatepass")
        return _b64(hmac.new(self._key, material, hashlib.sha256).digest()[:16])


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
