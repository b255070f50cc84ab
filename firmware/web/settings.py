"""A table profile's [display] section (firmware/table/profile.py reads the rest): where the display
listens, the referee's secret, the broadcast's token and delay, and its TLS certificate.

Each value is refused at start-up, naming its key. A referee secret is at least 6 digits or a
passphrase of 10 characters (auth.secret_problem). The certificate and key are loaded once
here, so a wrong pair is named now, not by the server later. What depends on the listener
(issue 20) is `listener_problem`'s: beyond this machine, the shipped PIN is refused, and so
is plain HTTP. The display serves TLS itself (uvicorn's ssl_certfile and ssl_keyfile), not
behind a reverse proxy, so the client's address stays the connection's own, which the PIN's
throttle counts by.
"""

import ssl
from pathlib import Path

from engine.schema import Section, Test
from firmware.web.auth import (
    BROADCAST_TOKEN_LENGTH,
    PASSPHRASE_LENGTH,
    PIN_DIGITS,
    SHIPPED_REFEREE_PIN,
    loopback,
    secret_problem,
)

BROADCAST_DELAY_MIN = 10.0  # seconds: less and a stream watched at the table could help a player
_PATH_OR_NOTHING: tuple[Test, str] = (
    lambda v: isinstance(v, str),
    'a file path, or "" for none (plain HTTP, on this machine only)',
)


def display_settings(display: Section, folder: Path) -> dict:
    """host, port, referee_pin, broadcast_token, broadcast_delay_seconds and tls (the
    certificate's and key's paths, relative to `folder`, the profile's; None without)."""
    host, port = display.get("host", "text"), display.get("port", "int")
    if not 1 <= port <= 65535:
        raise display.error("port", f"{port} is not a TCP port (1..65535)")
    referee_pin = display.get("referee_pin", "text")
    weak = secret_problem(referee_pin)
    if weak:
        raise display.error("referee_pin", weak)
    broadcast_token = display.get("broadcast_token", "text")
    if len(broadcast_token) < BROADCAST_TOKEN_LENGTH or broadcast_token == referee_pin:
        raise display.error(
            "broadcast_token",
            f"must be at least {BROADCAST_TOKEN_LENGTH} characters and not the referee's PIN "
            "(it is typed into a stream's URL, never a PIN)",
        )
    delay = display.get("broadcast_delay_seconds", "positive")
    if delay < BROADCAST_DELAY_MIN:
        raise display.error(
            "broadcast_delay_seconds",
            f"{delay:g} s is under the minimum of {BROADCAST_DELAY_MIN:g} s: a shorter delay "
            "could help a player at the table",
        )
    return {
        "host": host,
        "port": port,
        "referee_pin": referee_pin,
        "broadcast_token": broadcast_token,
        "broadcast_delay_seconds": delay,
        "tls": _tls(display, folder),
    }


def _tls(display: Section, folder: Path) -> tuple[Path, Path] | None:
    cert_name = display.get("tls_cert", _PATH_OR_NOTHING)
    key_name = display.get("tls_key", _PATH_OR_NOTHING)
    if not cert_name and not key_name:
        return None
    for key, name in (("tls_cert", cert_name), ("tls_key", key_name)):
        if not name:
            raise display.error(key, "tls_cert and tls_key go together: set both, or neither")
        if not (folder / name).is_file():
            raise display.error(key, f"no such file {folder / name}")
    cert, key = folder / cert_name, folder / key_name
    try:
        ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(cert, key)
    except (ssl.SSLError, OSError) as err:
        raise display.error(
            "tls_key", f"{key} and {cert} are not a certificate and its key ({err})"
        ) from None
    return cert, key


def listener_problem(
    host: str, referee_pin: str, tls: tuple[Path, Path] | None, enrolled: bool = False
) -> tuple[str, str] | None:
    """(key, why) when the display may not listen on `host` so; None on this machine alone.
    With referees `enrolled` (each his own secret, firmware/desk/referees.py) the profile's PIN
    opens nothing, so the shipped one is no danger."""
    if loopback(host):
        return None
    if referee_pin == SHIPPED_REFEREE_PIN and not enrolled:
        return "referee_pin", (
            f"the shipped PIN {SHIPPED_REFEREE_PIN} is known to everyone and the display "
            f"listens on {host}, beyond this machine: set a PIN of your own ({PIN_DIGITS} "
            f"digits or more, or a passphrase of {PASSPHRASE_LENGTH} characters or more)"
        )
    if tls is None:
        return "tls_cert", (
            f"the display listens on {host}, beyond this machine, so it must use TLS (else "
            "the PIN crosses the network in clear): set tls_cert and tls_key to the table's "
            "certificate and key (deploy/pi/README.md makes them)"
        )
    return None
