"""Electronic dice and the seat drawing (執位) as anyone recomputes them (issue 35,
docs/fairness.md).

Each is drawn from a secret the table committed to before, mixed with the moment of the
press that asked for it, as the journal has it:
- the dice of a hand from its walls' seal: the nonce (secret until the reveal) keys an
  HMAC-SHA-256 stream over the seal's digest and the roll's press time (DiceRolled.t);
- the seats from the session's seat secret, whose SHA-256 the signed session header holds
  (SessionOpened.seats_digest), over the session id and the drawing's time (SeatsDrawn.t).
A die is a byte of the stream below 252, modulo 6, plus 1; the winds are a Fisher-Yates
shuffle of E S W N by such bytes: no value is likelier than another. The table stamps the
press times itself: see docs/fairness.md for what that leaves open.
"""

import hashlib
import hmac
import secrets
from collections.abc import Iterator

DICE, SEATS = "mjtable dice 1", "mjtable seats 1"
SECRET_BYTES = 32


def _stream(secret: str, label: str) -> Iterator[int]:
    """Bytes of HMAC-SHA-256(secret, label and a block counter), block after block."""
    counter = 0
    while True:
        message = f"{label}\nblock {counter}".encode()
        yield from hmac.new(bytes.fromhex(secret), message, hashlib.sha256).digest()
        counter += 1


def _below(stream: Iterator[int], n: int) -> int:
    """A number 0..n-1, each as likely: bytes at or above the last whole multiple of n are
    skipped."""
    limit = 256 - 256 % n
    return next(b for b in stream if b < limit) % n


def dice(nonce: str, digest: str, t: float, count: int) -> tuple[int, ...]:
    """The electronic dice rolled at `t` in the hand dealt from the seal (`nonce`, `digest`)."""
    stream = _stream(nonce, f"{DICE}\nseal {digest}\npress {float(t)!r}")
    return tuple(_below(stream, 6) + 1 for _ in range(count))


def seats(secret: str, session: str, t: float) -> tuple[int, ...]:
    """SeatsDrawn.winds of a drawing at `t`: for each side (E S W N), the wind drawn there."""
    stream = _stream(secret, f"{SEATS}\nsession {session}\npress {float(t)!r}")
    winds = [0, 1, 2, 3]
    for i in range(3, 0, -1):
        j = _below(stream, i + 1)
        winds[i], winds[j] = winds[j], winds[i]
    return tuple(winds)


def new_secret() -> str:
    """A seat secret, from the OS's cryptographic source."""
    return secrets.token_bytes(SECRET_BYTES).hex()


def digest_of(secret: str) -> str:
    """What the header commits to: SHA-256 of the secret's bytes, in hex."""
    return hashlib.sha256(bytes.fromhex(secret)).hexdigest()
