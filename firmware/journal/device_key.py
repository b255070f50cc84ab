"""The table's device key (issue 17): an Ed25519 key that signs the journal's head at every
hand's end, so a journal (or its export) shows whether it is the one this table wrote.

The key lives in one file, PEM (PKCS 8), that only the service's user may read: made at the
first start, mode 0600, written whole and then linked in (never over another file), and
refused, as ssh refuses a private key others can read, when its mode lets the group or others
read it, or when it cannot be read or is not an Ed25519 key. Where it is: the profile's [journal]
device_key; "" (the simulated table) puts it beside the run's journal file.

A later option: on a Raspberry Pi whose OTP holds a customer private key
(`rpi-otp-private-key`), the key would come from there and never lie on the SD card.
"""

import hashlib
import os
import stat
import tempfile
from pathlib import Path

from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from engine import events as ev
from engine.schema import ConfigError
from firmware.journal import signing

FILE_NAME = "device.key"  # beside the journal, when the profile names no file


class DeviceKeyError(ConfigError):
    """A device key the table will not use; the message names the file."""


def key_path(profile, journal_path) -> Path:
    """The key's file: the profile's [journal] device_key (relative to the profile's folder),
    or, set to "", beside the journal."""
    if profile.device_key:
        return profile.path.parent / profile.device_key
    return Path(os.fspath(journal_path)).parent / FILE_NAME


class DeviceKey:
    """The private key, with its public half in hex as HeadSigned carries it."""

    def __init__(self, private: Ed25519PrivateKey, path: Path):
        self._private, self.path = private, path
        raw = private.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw
        )
        self.public_hex = raw.hex()
        self.fingerprint = fingerprint(self.public_hex)

    def sign_head(
        self, t: float, hand: int, head: str, what: str = signing.HAND_END, session: str = ""
    ) -> ev.HeadSigned:
        """The record of `head` signed in its context: `what` is signed, in which session, at
        which hand (firmware/journal/signing.py)."""
        signature = self._private.sign(signing.context(what, session, hand, head)).hex()
        return ev.HeadSigned(t, None, hand, head, signature, self.public_hex, what, session)

    def sign_journal(self, journal, t: float, hand: int, what: str = signing.HAND_END) -> None:
        """At hand `hand`'s end (or `what` else): the journal's head, signed, into it."""
        journal.record(self.sign_head(t, hand, journal.head, what, journal.session_id or ""))


def fingerprint(public_hex: str) -> str:
    """What names a table's key in a few characters (its status on the bus): "SHA256:" and
    the hex SHA-256 of the raw 32-byte public key, so anyone holding a HeadSigned's
    `public_key` recomputes it (`bytes.fromhex(public_key)` hashed)."""
    return "SHA256:" + hashlib.sha256(bytes.fromhex(public_hex)).hexdigest()


def load(path: Path) -> DeviceKey:
    """The key in `path`, made there first if there is none (DeviceKeyError if refused).
    A new key is written whole to a file of its own, then linked in under `path`: a second
    table starting at the same moment reads either no key or the whole of it, never a half
    (the link fails on a file that exists, so no key is ever put over another)."""
    if path.exists():
        return DeviceKey(_read(path), path)
    private = Ed25519PrivateKey.generate()
    pem = private.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    draft = None
    try:
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)  # mode 0600
        draft = Path(name)
        try:
            os.write(fd, pem)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.link(draft, path)
    except FileExistsError:
        return DeviceKey(_read(path), path)  # another start made it first: that one holds
    except OSError as err:
        raise DeviceKeyError(f"{path}: cannot make the device key: {err.strerror}") from None
    except ValueError as err:  # a NUL in the path
        raise DeviceKeyError(f"{path!r}: not a file's path ({err})") from None
    finally:
        if draft is not None:
            draft.unlink(missing_ok=True)
    return DeviceKey(private, path)


def _read(path: Path) -> Ed25519PrivateKey:
    try:
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode):
            raise DeviceKeyError(f"{path}: the device key is not a file")
        if mode & 0o077:
            raise DeviceKeyError(
                f"{path}: the device key is readable by others (mode {mode & 0o777:04o}): "
                f"it must be readable by the service's user only; chmod 600 {path}"
            )
        data = path.read_bytes()
    except OSError as err:
        raise DeviceKeyError(f"{path}: cannot read the device key: {err.strerror}") from None
    private = pem_private_key(data)
    if private is None:
        raise DeviceKeyError(
            f"{path}: not an Ed25519 private key in PEM: the device key is garbled; "
            "restore it from its backup (a new key cannot sign as the old one did)"
        )
    return private


def signature_holds(signed: ev.HeadSigned, public_hex: str) -> bool:
    """The record's signature is the key's over its head in its context."""
    try:
        public = Ed25519PublicKey.from_public_bytes(bytes.fromhex(public_hex))
        message = signing.context(signed.what, signed.session, signed.hand, signed.head)
        public.verify(bytes.fromhex(signed.signature), message)
    except (ValueError, TypeError, InvalidSignature, UnicodeEncodeError):
        return False
    return True


def pem_private_key(data: bytes) -> Ed25519PrivateKey | None:
    """The Ed25519 private key in PEM `data` (a table's device key, the venue's command key);
    None for anything else, each caller saying what the file should have been."""
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError, UnsupportedAlgorithm):
        return None
    return key if isinstance(key, Ed25519PrivateKey) else None
