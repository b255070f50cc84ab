"""The venue's broker as deploy/mosquitto/ ships it (issue 15, docs/venue.md): its
mosquitto.conf and acl, their paths moved into a test folder, a venue CA and the broker's
certificate made as docs/venue.md makes them, a table's user added by add-table.sh and the
venue's user (VENUE_PASSWORD). Real Mosquitto (tests/support/broker.py). tests/conftest.py's
`reachable` is a folder the broker (dropping to user mosquitto) can read."""

import os
import subprocess
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path

from engine.schema import Section
from firmware.bus.settings import UplinkSettings, uplink_settings
from firmware.ports import free_port
from firmware.table.profile import TABLES_DIR
from tests.support.broker import PASSWD, Broker
from tests.support.venuekeys import public_pem

REPO = Path(__file__).resolve().parents[2]
MOSQUITTO = REPO / "deploy" / "mosquitto"
VENUE_PASSWORD = "pv"  # the venue's user's, on the shipped broker of the tests


@dataclass
class Shipped:
    broker: Broker  # not started; its `port` is the venue's loopback listener
    tls_port: int  # the tables' listener
    settings: UplinkSettings  # add-table.sh's [uplink], pointed at tls_port
    uplink: str  # the [uplink] section add-table.sh printed, pointed at tls_port


def certificates(folder: Path) -> None:
    """A venue CA and the broker's certificate for 127.0.0.1, as docs/venue.md makes them."""
    ec = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1"

    def openssl(line: str):
        subprocess.run(["openssl", *line.split()], cwd=folder, check=True, capture_output=True)

    openssl(f"req -x509 {ec} -subj /CN=venue-CA -keyout venue-ca.key -out venue-ca.crt")
    openssl(f"req {ec} -subj /CN=broker -keyout broker.key -out broker.csr")
    (folder / "san").write_text("subjectAltName=IP:127.0.0.1\n")
    openssl(
        "x509 -req -in broker.csr -CA venue-ca.crt -CAkey venue-ca.key -CAcreateserial "
        "-days 1 -extfile san -out broker.crt"
    )
    os.chmod(folder / "broker.key", 0o644)  # the broker reads it as user mosquitto


def shipped(folder: Path, table: str, users: dict[str, str] | None = None) -> Shipped:
    """deploy/mosquitto/mosquitto.conf and its acl in `folder` (one user mosquitto can read),
    with add-table.sh's user for `table`, the venue's user and `users` (name -> password).
    The [uplink] section add-table.sh printed is relative to `folder`, where it put the
    table's password file; the venue's public key is `folder`/venue.pub. The venue's listener is the
    broker's `port`: Broker.start waits for it, the last one mosquitto opens."""
    broker = Broker(folder, acl=(MOSQUITTO / "acl").read_text())
    store = folder / "store"
    store.mkdir()
    os.chmod(store, 0o777)
    certificates(folder)
    tls_port, venue_port = free_port(), broker.port
    text = (MOSQUITTO / "mosquitto.conf").read_text()
    moves = {
        "/etc/mosquitto/passwd": f"{folder}/passwd",
        "/etc/mosquitto/acl": f"{folder}/acl",
        "/etc/mosquitto/certs/": f"{folder}/",
        "/var/lib/mosquitto/": f"{store}/",
        "/var/log/mosquitto/": f"{store}/",
        "/run/mosquitto/": f"{store}/",
        "listener 8883\n": f"listener {tls_port} 127.0.0.1\n",
        "listener 1883 127.0.0.1": f"listener {venue_port} 127.0.0.1",
    }
    for old, new in moves.items():
        assert old in text, old
        text = text.replace(old, new)
    broker.config.write_text(text)
    env = dict(
        os.environ,
        PASSWD_FILE=str(folder / "passwd"),
        OUT=str(folder),
        VENUE="hall",
        BROKER="127.0.0.1",
    )
    printed = subprocess.run(
        [MOSQUITTO / "add-table.sh", table], env=env, check=True, capture_output=True, text=True
    ).stdout
    (folder / f"{table}.uplink.toml").write_text(printed)  # for a profile: table_profile
    for name, password in {"venue": VENUE_PASSWORD, **(users or {})}.items():
        subprocess.run([PASSWD, "-b", folder / "passwd", name, password], check=True)
    os.chmod(folder / "passwd", 0o644)
    (folder / "venue.pub").write_bytes(public_pem())
    section = Section(tomllib.loads(printed)["uplink"], "uplink")
    settings = uplink_settings(section, folder)
    section.done()
    assert (settings.host, settings.port, settings.venue, settings.user) == (
        "127.0.0.1",
        8883,
        "hall",
        table,
    )
    assert "port = 8883\n" in printed
    uplink = printed.replace("port = 8883\n", f"port = {tls_port}\n")
    return Shipped(broker, tls_port, replace(settings, port=tls_port), uplink)


def table_profile(folder: Path, table: str, tls_port: int) -> Path:
    """sim.toml named `table`, with the [uplink] section add-table.sh printed for it (its
    files beside it in `folder`), to the broker's TLS port."""
    shipped_profile = (TABLES_DIR / "sim.toml").read_text()
    (folder / "sim-tags.csv").write_text((TABLES_DIR / "sim-tags.csv").read_text())
    uplink = (folder / f"{table}.uplink.toml").read_text()
    assert "port = 8883\n" in uplink
    profile = folder / f"{table}.toml"
    profile.write_text(
        shipped_profile.replace('name = "sim-1"', f'name = "{table}"', 1)
        + "\n"
        + uplink.replace("port = 8883\n", f"port = {tls_port}\n")
    )
    return profile
