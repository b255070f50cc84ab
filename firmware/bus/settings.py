"""A table profile's optional [uplink] section (firmware/table/profile.py reads the rest): the
venue's broker, how the table signs in to it, the venue's public key its commands are
checked with (docs/uplink.md), and whether it publishes Home Assistant's discovery. Without
the section the table has no uplink.

Every key is required, as in the profile's other sections, but the two of Home Assistant's
discovery, which came later (issue 34); each is refused at start-up naming it. The files it
names (the broker's CA, the password, the venue's public key) are read here, so a missing or
unreadable one is told now, not at the first connection.
"""

import ssl
from dataclasses import dataclass, field, replace
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from engine.schema import Section, Test, whole
from firmware.bus.contract import (
    DISCOVERY_PREFIX,
    DISCOVERY_WORD,
    TOPIC_WORD,
    TOPIC_WORD_WORDS,
)
from firmware.bus.signing import public_key

PORT = whole(1, 65535)
# MQTT counts it in whole seconds; the broker sends the table's last will after 1.5 times it.
KEEPALIVE_SECONDS = whole(1, 600)
_TEXT_OR_NOTHING: tuple[Test, str] = (lambda v: isinstance(v, str), 'a string, or "" for none')


@dataclass(frozen=True)
class UplinkSettings:
    host: str
    port: int
    venue: str
    tls: bool
    ca_file: Path | None  # None: the system's CAs (with tls)
    user: str | None
    password: str | None = field(repr=False)
    key: Ed25519PublicKey | None  # the venue's public key (firmware/uplink/commands.py)
    keepalive: int  # seconds
    discovery_prefix: str | None = None  # Home Assistant's; None: no discovery published


def uplink_settings(section: Section, folder: Path) -> UplinkSettings:
    """The [uplink] section; its files are relative to `folder`, the profile's."""
    host = section.get("host", "text")
    port = section.get("port", PORT)
    tls = section.get("tls", "bool")
    ca_name = section.get("ca_file", _TEXT_OR_NOTHING)
    ca_file = folder / ca_name if ca_name else None
    if ca_file is not None:
        if not tls:
            raise section.error("ca_file", 'a CA file is for TLS: set tls = true, or ca_file = ""')
        try:
            ssl.create_default_context(cafile=ca_file)
        except (ssl.SSLError, OSError) as err:
            raise section.error("ca_file", f"{ca_file} is no CA certificate ({err})") from None
    venue = section.get("venue", "text")
    if not TOPIC_WORD.fullmatch(venue):
        raise section.error("venue", f"{venue!r}: a venue's id is {TOPIC_WORD_WORDS}")
    user = section.get("user", _TEXT_OR_NOTHING) or None
    password = _secret(section, "password_file", folder)
    if password is not None and user is None:
        raise section.error("password_file", 'a password needs its user: set user, or "" here')
    key_bytes = _secret(section, "key_file", folder)
    try:
        key = None if key_bytes is None else public_key(key_bytes, section.get("key_file", "text"))
    except ValueError as err:
        raise section.error("key_file", str(err)) from None
    return UplinkSettings(
        host=host,
        port=port,
        venue=venue,
        tls=tls,
        ca_file=ca_file,
        user=user,
        password=None if password is None else _text(section, "password_file", password),
        key=key,
        keepalive=section.get("keepalive_seconds", KEEPALIVE_SECONDS),
        discovery_prefix=_discovery_prefix(section),
    )


def _discovery_prefix(section: Section) -> str | None:
    """`home_assistant = true`: the prefix Home Assistant's discovery is published under,
    `discovery_prefix` or its default (firmware/uplink/discovery.py); None without."""
    wanted = "home_assistant" in section.data and section.get("home_assistant", "bool")
    if "discovery_prefix" not in section.data:
        return DISCOVERY_PREFIX if wanted else None
    prefix = section.get("discovery_prefix", "text")
    if not wanted:
        raise section.error("discovery_prefix", "a discovery prefix is for home_assistant = true")
    if not DISCOVERY_WORD.fullmatch(prefix):
        raise section.error(
            "discovery_prefix",
            f"{prefix!r}: Home Assistant's prefix is 1 to 64 letters, digits, '-' or '_'",
        )
    return prefix


def with_venue(settings: UplinkSettings | None, venue: str | None) -> UplinkSettings | None:
    """The profile's settings as `mjtable run --venue` names the venue (None: as they are);
    ValueError for a venue with no broker to report to, or not a topic's word."""
    if venue is None:
        return settings
    if settings is None:
        raise ValueError("no [uplink] section: no venue's broker to report to")
    if not TOPIC_WORD.fullmatch(venue):
        raise ValueError(f"{venue!r}: a venue's id is {TOPIC_WORD_WORDS}")
    return replace(settings, venue=venue)


def read_secret(path: Path) -> bytes:
    """A password or key file's bytes, without the whitespace around them (a file written by
    `openssl rand -hex 32 > venue.password` ends with a newline); OSError if unreadable,
    ValueError if empty."""
    secret = Path(path).read_bytes().strip()
    if not secret:
        raise ValueError(f"{path} is empty")
    return secret


def _secret(section: Section, key: str, folder: Path) -> bytes | None:
    name = section.get(key, _TEXT_OR_NOTHING)
    if not name:
        return None
    path = folder / name
    try:
        return read_secret(path)
    except OSError as err:
        raise section.error(key, f"cannot read {path}: {err.strerror or err}") from None
    except ValueError as err:
        raise section.error(key, str(err)) from None


def _text(section: Section, key: str, secret: bytes) -> str:
    try:
        return secret.decode("utf-8")
    except UnicodeDecodeError:
        raise section.error(key, "the password file is not UTF-8 text") from None
