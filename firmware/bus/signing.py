"""The venue's commands are signed with the venue's Ed25519 key (docs/uplink.md, issue 35): the
signature, in hex, is over the command without its `signature` in the contract's canonical
form (firmware/bus/contract.py, RFC 8785), so that a venue's desk written in any language
signs what the table checks. The venue alone holds the private key (`mjtable venue
--key-file`); each table holds only the public key (its profile's [uplink] key_file), so a
table's owner with a broker login, or a table's SD card copied, can sign nothing: a shared
secret (the HMAC before issue 35) let any of them command every table of the hall.

Both keys are files in PEM, as `openssl genpkey -algorithm ed25519` and `openssl pkey -pubout`
write them (docs/venue.md); the public key may also be given as its 64 hex digits.
"""

import re
from pathlib import Path

from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from firmware.bus.contract import canonical
from firmware.journal.device_key import pem_private_key

FIELD = "signature"  # the command's field that holds it
HEX_KEY = re.compile(rb"[0-9a-fA-F]{64}")


def sign(command: dict, key: Ed25519PrivateKey) -> dict:
    """`command` with its `signature`; ValueError for a command RFC 8785 cannot put in
    canonical form (contract.canonical)."""
    unsigned = {k: v for k, v in command.items() if k != FIELD}
    return dict(command, **{FIELD: key.sign(canonical(unsigned)).hex()})


def signed_by(command: dict, key: Ed25519PublicKey) -> bool:
    """The command carries `key`'s signature; ValueError for a command RFC 8785 cannot put
    in canonical form, so that no signature could."""
    given = command.get(FIELD)
    unsigned = canonical({k: v for k, v in command.items() if k != FIELD})
    if not isinstance(given, str):
        return False
    try:
        key.verify(bytes.fromhex(given), unsigned)
    except (ValueError, InvalidSignature):
        return False
    return True


def private_key(data: bytes, where: str) -> Ed25519PrivateKey:
    """The venue's private key from a PEM file's bytes (ValueError naming `where`)."""
    key = pem_private_key(data)
    if key is None:
        raise ValueError(
            f"{where}: not an Ed25519 private key in PEM (make one: openssl genpkey "
            "-algorithm ed25519; docs/venue.md)"
        )
    return key


def public_key(data: bytes, where: str) -> Ed25519PublicKey:
    """The venue's public key from a file's bytes, PEM or 64 hex digits (ValueError naming
    `where`): what a table holds."""
    text = data.strip()
    try:
        if HEX_KEY.fullmatch(text):
            return Ed25519PublicKey.from_public_bytes(bytes.fromhex(text.decode("ascii")))
        key = serialization.load_pem_public_key(text)
    except (ValueError, TypeError, UnsupportedAlgorithm):
        key = None
    if not isinstance(key, Ed25519PublicKey):
        raise ValueError(
            f"{where}: not the venue's Ed25519 public key (PEM, or 64 hex digits): copy the "
            "venue.pub that `openssl pkey -in venue.key -pubout` wrote (docs/venue.md)"
        )
    return key


def public_hex(key: Ed25519PrivateKey | Ed25519PublicKey) -> str:
    """The raw public key in hex: what the venue prints so that a table's file can be checked."""
    public = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
    return public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw).hex()


def read_private_key(path: str | Path) -> Ed25519PrivateKey:
    """The venue's private key in `path` (OSError, ValueError)."""
    return private_key(Path(path).read_bytes(), str(path))
