"""`mjtable venue`: the venue dashboard (issue 15). One process in the hall subscribes to every
table's reports on the venue's broker (docs/uplink.md; venue_bus.py feeding venue_board.py)
and serves the organiser's dashboard, the referees' pager and the hall's big screen
(venue_app.py); it sends the venue's commands signed with its Ed25519 private key.

`add_parser` is where other ways of feeding the same board add their options (a simulated
fleet in-process); `serve` runs the dashboard on any board and its feeder.
"""

import argparse
import asyncio
import logging
import secrets
import ssl
import sys
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from firmware import cli_args
from firmware.bus.contract import TOPIC_WORD, TOPIC_WORD_WORDS
from firmware.bus.signing import read_private_key
from firmware.venue import anchors_cli, day
from firmware.venue.anchors import RecordsError
from firmware.venue.app import create_app
from firmware.venue.board import MAX_TABLES, VenueBoard
from firmware.venue.bus import VenueBus
from firmware.venue.demo_truth import FleetBoard
from firmware.venue.event import Event
from firmware.venue.people import VenuePeople
from firmware.venue.pins import EnrolmentError, read_enrolment
from firmware.venue.points import MAX_STANDARD_POINTS, Stage
from firmware.venue.records import VenueRecords
from firmware.venue.seating import SeatingError, read_plan
from firmware.web.auth import loopback, secret_problem
from firmware.web.server import DisplayServer


def add_parser(commands) -> argparse.ArgumentParser:
    p = commands.add_parser("venue")
    p.add_argument(
        "--broker", type=_address, metavar="HOST:PORT", help="the venue's broker (required)"
    )
    p.add_argument("--venue", type=_venue, help="the venue's name on the bus (required)")
    p.add_argument("--port", type=_port, default=8080, help="the dashboard's port (default 8080)")
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="the address to listen on (default 127.0.0.1; beyond this machine needs TLS)",
    )
    p.add_argument(
        "--tls-cert", type=cli_args.path, metavar="FILE", help="serve HTTPS: its certificate"
    )
    p.add_argument("--tls-key", type=cli_args.path, metavar="FILE", help="... and its key")
    p.add_argument(
        "--organiser-pin-file",
        type=cli_args.path,
        metavar="FILE",
        help="the organiser's PIN or passphrase (without: a new one is made and printed)",
    )
    p.add_argument(
        "--key-file",
        type=cli_args.path,
        metavar="FILE",
        help="the venue's Ed25519 private key (PEM) that signs its commands; the tables hold "
        "its public key",
    )
    p.add_argument(
        "--records",
        type=cli_args.path,
        metavar="FILE",
        help="keep the anchors (every seal and signed head received) and the tables' key pins "
        "in this file (SQLite); without it they are kept in memory only",
    )
    p.add_argument(
        "--enrolment",
        type=cli_args.path,
        metavar="FILE",
        help="the organiser's list of each table's key fingerprint (CSV table,key_fingerprint "
        "or JSON), pinned at the start",
    )
    p.add_argument(
        "--organisers",
        type=cli_args.path,
        metavar="DIR",
        help="the organisers, each with his own secret (`mjtable referee add NAME --data-dir "
        "DIR`); with this or --floor-referees each person logs in by name, not by the PIN",
    )
    p.add_argument(
        "--floor-referees",
        type=cli_args.path,
        metavar="DIR",
        help="the floor referees, likewise: their phones get the pager and nothing else",
    )
    p.add_argument(
        "--seating",
        type=cli_args.path,
        metavar="FILE",
        help="the seating plan (CSV: round,table,seat,name,federation_id,country), also "
        "importable on the dashboard",
    )
    p.add_argument("--user", help="the venue's broker user")
    p.add_argument(
        "--password-file", type=cli_args.path, metavar="FILE", help="that user's password"
    )
    p.add_argument(
        "--hide-standings",
        action="store_true",
        help="hold the standings (and the board's scores) back until every table has finished "
        "(or the organiser releases them)",
    )
    ccm = p.add_argument_group("CCM's standard points for the round, a stage (seed 004 第十條)")
    ccm.add_argument(
        "--standard-points",
        type=lambda text: cli_args.whole(text, 1, MAX_STANDARD_POINTS, "standard points"),
        default=1,
        metavar="N",
        help="what each player promoted earns (default 1, a first stage's: one more a stage; "
        "the 精英賽's top stage 8, the 錦標賽's 9+1 given as 10)",
    )
    ccm.add_argument(
        "--promote-per-table",
        type=lambda text: cli_args.whole(text, 1, 2, "players promoted at each table"),
        default=1,
        metavar="{1,2}",
        help="each table's first, or first two, by the 總局分 (default 1)",
    )
    ccm.add_argument(
        "--promote-seconds",
        type=lambda text: cli_args.whole(text, 0, MAX_TABLES, "best seconds promoted"),
        default=0,
        metavar="K",
        help="and the K best seconds across the tables (default 0; not with two a table)",
    )
    day.add_arguments(p)
    p.set_defaults(run=run)
    anchors_cli.add_parser(p.add_subparsers(dest="action", metavar="ACTION"))
    return p


def _address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    if not host:
        raise argparse.ArgumentTypeError(f"HOST:PORT, not {text[:60]!r}")
    return host.strip("[]"), _port(port)


def _port(text: str) -> int:
    return cli_args.whole(text, 0, 65535, "a TCP port")


def _venue(text: str) -> str:
    """The name the tables' profiles give (firmware/bus/settings.py): the same topic word."""
    if not TOPIC_WORD.fullmatch(text):
        raise argparse.ArgumentTypeError(f"a venue's name is {TOPIC_WORD_WORDS}; not {text[:70]!r}")
    return text


def _read(path: str, what: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as err:
        raise ValueError(f"{what} {path}: cannot read it: {err}") from None


def settings(args) -> dict:
    """The secrets, the TLS pair and the stage, read and checked before anything starts
    (ValueError)."""
    try:
        stage = Stage(args.standard_points, args.promote_per_table, args.promote_seconds)
    except ValueError as err:
        raise ValueError(f"--promote-seconds: {err}") from None
    if args.broker is None or args.venue is None:
        raise ValueError("--broker and --venue are required")
    if (args.user is None) != (args.password_file is None):
        raise ValueError("--user and --password-file go together")
    if (args.tls_cert is None) != (args.tls_key is None):
        raise ValueError("--tls-cert and --tls-key go together")
    tls = (Path(args.tls_cert), Path(args.tls_key)) if args.tls_cert else None
    if tls:
        try:
            ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(*tls)
        except (ssl.SSLError, OSError) as err:
            raise ValueError(
                f"--tls-cert/--tls-key: not a certificate and its key: {err}"
            ) from None
    elif not loopback(args.host):
        raise ValueError(
            f"the dashboard listens on {args.host}, beyond this machine, so it needs TLS (else "
            "the organiser's PIN crosses the hall's network in clear): --tls-cert, --tls-key"
        )
    made = args.organiser_pin_file is None
    secret = secrets.token_urlsafe(12) if made else _read(args.organiser_pin_file, "the PIN file")
    weak = secret_problem(secret)
    if weak:
        raise ValueError(f"--organiser-pin-file: {weak}")
    key = None
    if args.key_file:
        try:
            key = read_private_key(args.key_file)
        except OSError as err:
            raise ValueError(f"--key-file {args.key_file}: cannot read it: {err}") from None
        except ValueError as err:
            raise ValueError(f"--key-file {err}") from None
    password = _read(args.password_file, "the password file") if args.password_file else None
    plan = None
    if args.seating:
        try:
            plan = read_plan(Path(args.seating).read_bytes())
        except OSError as err:
            raise ValueError(f"--seating {args.seating}: cannot read it: {err}") from None
        except SeatingError as err:
            raise ValueError(f"--seating {args.seating}: {err}") from None
    try:
        enrolment = read_enrolment(args.enrolment) if args.enrolment else None
        records = VenueRecords(args.records or ":memory:", enrolment=enrolment)
    except (EnrolmentError, RecordsError) as err:
        raise ValueError(f"{err}") from None
    return {
        "plan": plan,
        "people": VenuePeople(args.organisers, args.floor_referees),
        "secret": secret,
        "made": made,
        "key": key,
        "password": password,
        "tls": tls,
        "stage": stage,
        "records": records,
    }


def run(args) -> int:
    try:
        given = settings(args)
    except ValueError as err:
        print(f"mjtable venue: {err}", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.WARNING, format="%(name)s: %(message)s")
    simulated = FleetBoard(args.venue, given["records"]) if args.simulate else None
    if simulated is not None and given["key"] is None:  # the simulated tables know it
        given["key"] = Ed25519PrivateKey.generate()
    board = simulated if simulated is not None else VenueBoard(args.venue, records=given["records"])
    host, port = args.broker
    bus = VenueBus(board, host, port, args.user, given["password"], given["key"])
    if given["made"]:
        print(f"organiser's passphrase (made for this run): {given['secret']}", flush=True)
    event = Event(board, given["stage"])
    if given["plan"] is not None:
        event.seat(given["plan"])
    if simulated is not None:  # the hall of simulated tables, shown as a real one is
        return day.simulate(args, simulated, event, bus, serve(args, board, bus, given, event))
    asyncio.run(serve(args, board, bus, given, event))
    return 0


async def serve(args, board: VenueBoard, bus, given: dict, event: Event) -> None:
    """The dashboard of `board` and its `event` until it is stopped, while `bus` feeds it
    (its `run`) and sends the commands (its `send`)."""
    app = create_app(
        board,
        bus,
        given["secret"],
        args.hide_standings,
        args.host,
        stage=given["stage"],
        people=given["people"],
        event=event,
    )
    server = DisplayServer(app, args.host, args.port, given["tls"])
    feeder = asyncio.create_task(bus.run())
    serving = asyncio.create_task(server.serve())
    while not server.started and not serving.done():
        await asyncio.sleep(0.05)
    if server.started:
        bound = server.servers[0].sockets[0].getsockname()[1]
        scheme = "https" if given["tls"] else "http"
        print(f"venue dashboard: {scheme}://{args.host}:{bound}/ (board: /board)", flush=True)
    try:
        await asyncio.wait((feeder, serving), return_when=asyncio.FIRST_COMPLETED)
        if feeder.done():  # a bug: the board would stand still, so the dashboard stops
            server.should_exit = True
        await serving
        if feeder.done():
            feeder.result()  # raises what stopped it
    finally:
        feeder.cancel()
