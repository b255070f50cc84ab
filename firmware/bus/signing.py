"""The venue's commands are signed with the venue key (docs/uplink.md): HMAC-SHA256 of the
command's canonical JSON without its `hmac`. The broker's ACL keeps a table's own user off the
command topics; the signature is what a table checks, so a command forged on the hall's
network, or by a broker account that leaked, is refused."""

import hashlib
import hmac

from firmware.journal.schema import canonical


def _digest(command: dict, key: bytes) -> str:
    unsigned = {k: v for k, v in command.items() if k != "hmac"}
    return hmac.new(key, canonical(unsigned).encode(), hashlib.sha256).hexdigest()


def sign(command: dict, key: bytes) -> dict:
    """`command` with its `hmac`."""
    return dict(command, hmac=_digest(command, key))


def signed_by(command: dict, key: bytes) -> bool:
    """The command carries the HMAC `key` gives it (compared in constant time)."""
    given = command.get("hmac")
    return isinstance(given, str) and hmac.compare_digest(given, _digest(command, key))
