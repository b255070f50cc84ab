"""The venue's commands are signed with the venue key (docs/uplink.md): HMAC-SHA256 of the
command without its `hmac` in the contract's canonical form (firmware/bus/contract.py, RFC
8785), so that a venue's desk written in any language signs what the table checks. The
broker's ACL keeps a table's own user off the command topics; the signature is what a table
checks, so a command forged on the hall's network, or by a broker account that leaked, is
refused."""

import hashlib
import hmac

from firmware.bus.contract import canonical


def _digest(command: dict, key: bytes) -> str:
    unsigned = {k: v for k, v in command.items() if k != "hmac"}
    return hmac.new(key, canonical(unsigned), hashlib.sha256).hexdigest()


def sign(command: dict, key: bytes) -> dict:
    """`command` with its `hmac`; ValueError for a command RFC 8785 cannot put in canonical
    form (contract.canonical)."""
    return dict(command, hmac=_digest(command, key))


def signed_by(command: dict, key: bytes) -> bool:
    """The command carries the HMAC `key` gives it (compared in constant time); ValueError
    for a command RFC 8785 cannot put in canonical form, so that no signature could."""
    given = command.get("hmac")
    if not isinstance(given, str):
        return False
    return hmac.compare_digest(given.encode(), _digest(command, key).encode())
