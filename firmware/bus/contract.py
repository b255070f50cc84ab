"""The venue bus's contract, both ends (docs/uplink.md): the topics, the envelope and its
version, the limits, the payloads' types and the canonical form a command is signed in. The
table's uplink (firmware/uplink/) builds with it, the venue (firmware/venue/) parses with it,
and tests/firmware/bus/ holds the shipped broker ACL (deploy/mosquitto/acl) to it; nothing
else writes a topic or an envelope.
"""

import json
import re
from dataclasses import dataclass, fields
from enum import StrEnum

import rfc8785

VERSION = 1  # every payload's "v": a field added is no new version, one changed or removed is
ROOT = "mjtable"  # the first level of every topic
QOS = 1  # every message, both ways
EVERY_TABLE = "*"  # a command's `table` for all of the venue's tables

# -- the limits ---------------------------------------------------------------------------

# A venue's or a table's name is a level of the topics and a broker user's name: no "/",
# "+" or "#" in it, nothing mosquitto's ACL patterns refuse (deploy/mosquitto/add-table.sh).
TOPIC_WORD = re.compile(r"[A-Za-z0-9_.-]{1,64}")
TOPIC_WORD_WORDS = "1 to 64 letters, digits, '-', '_' or '.' (it is a word of the bus's topics)"
# Home Assistant takes a discovery topic's node (the table) and its prefix of these alone.
DISCOVERY_WORD = re.compile(r"[A-Za-z0-9_-]{1,64}")
DISCOVERY_PREFIX = "homeassistant"  # Home Assistant's default
MESSAGE_BYTES = 256 * 1024  # a message the venue takes at most (the broker takes it and a header)
EVENTS_BYTES = 64 * 1024  # an `events` message's most, but for a single row larger alone
COMMAND_BYTES = 4096  # a command at most: a few hundred, and a refused one is journaled whole
ID_LENGTH = 100  # characters of a command's id
NAME_LENGTH = 60  # characters of a player's or a referee's name in a command
FEDERATION_ID_LENGTH = 32  # characters of a player's federation id
MESSAGE_LENGTH = 200  # characters of the venue's message to a table
MAX_MINUTES = 600  # a sitting's time limit in start_session: RULES.md 4.3 has 1 h and 2 h
SAFE_INTEGER = 2**53  # RFC 8785 (and JavaScript) numbers: whole numbers exact below it

# -- the words of the payloads -----------------------------------------------------------

PHASES = ("playing", "between_hands", "fault", "paused", "not_refereeing")
STATUSES = ("online", "offline")
DICE = ("electronic", "physical")  # a table's dice, as its profile has them (status `dice`)
ROW_KINDS = ("hand", "input", "output", "device")  # a journal row's, in `events`
ALERT_KINDS = (
    "call_referee",
    "fault",
    "ruling",
    "cleared",
    "acknowledged",
    "ruled",
    "revoked",
    "reopened",  # a waive undone: its ruling awaited again (issue 36)
)
RULING_KINDS = ("ruled", "revoked", "reopened")  # alerts that carry a Ruling's fields
ALERTS_OF = ("fault", "ruling")  # what an alert's id numbers: faults and rulings number apart
COMMANDS = ("start_session", "message", "pause", "resume", "acknowledge", "resend")


# -- the topics ----------------------------------------------------------------------------


class Leaf(StrEnum):
    """The last level of a table's topic: what a table publishes there, or `cmd`."""

    EVENTS = "events"
    STATE = "state"
    STATUS = "status"
    ALERTS = "alerts"
    SHEET = "sheet"
    CMD = "cmd"


PUBLISHED = (Leaf.EVENTS, Leaf.STATE, Leaf.STATUS, Leaf.ALERTS, Leaf.SHEET)  # by a table
RETAINED = frozenset({Leaf.STATE, Leaf.STATUS, Leaf.SHEET})  # the latest kept by the broker


def table_topic(venue: str, table: str, leaf: Leaf) -> str:
    """`mjtable/<venue>/table/<table>/<leaf>`."""
    return f"{ROOT}/{venue}/table/{table}/{leaf}"


def command_topic(venue: str, table: str) -> str:
    """Where the venue commands `table` (EVERY_TABLE: `mjtable/<venue>/cmd`, all of them)."""
    return f"{ROOT}/{venue}/cmd" if table == EVERY_TABLE else table_topic(venue, table, Leaf.CMD)


def table_publishes(venue: str, table: str) -> list[str]:
    """Every topic the table publishes on."""
    return [table_topic(venue, table, leaf) for leaf in PUBLISHED]


def table_subscribes(venue: str, table: str) -> list[str]:
    """The table's subscriptions: its own commands and the venue-wide ones."""
    return [command_topic(venue, table), command_topic(venue, EVERY_TABLE)]


def venue_subscribes(venue: str) -> str:
    """The venue's one subscription: all its tables' topics (its own commands come back)."""
    return f"{ROOT}/{venue}/table/+/#"


def discovery_topic(prefix: str, component: str, table: str, entity: str) -> str:
    """Home Assistant's `<prefix>/<component>/<node_id>/<object_id>/config` for a table's
    entity: the table's name is the node, so that the ACL keeps each table to its own."""
    return f"{prefix}/{component}/{table}/{entity}/config"


def parse_topic(topic: str, venue: str) -> tuple[str, Leaf]:
    """(table, leaf) of a topic under venue_subscribes; ValueError, saying why, for any other."""
    parts = topic.split("/")
    if len(parts) != 5 or parts[:3] != [ROOT, venue, "table"] or not parts[3]:
        raise ValueError(f"a topic outside {ROOT}/{venue}/table/<table>/<leaf>: {topic[:120]!r}")
    try:
        return parts[3], Leaf(parts[4])
    except ValueError:
        raise ValueError(f"no such topic as {parts[4][:40]!r} (table {parts[3][:40]!r})") from None


# -- the envelope and the payloads -----------------------------------------------------------


@dataclass(frozen=True)
class Envelope:
    """What every message of a table begins with, beside `"v"`: whose it is. `session` is the
    journal's session id (None: a journal written before ids)."""

    venue: str
    table: str
    session: str | None


@dataclass(frozen=True)
class Status:
    """`status`: online on each connection; offline when the table stops, or its last will,
    both with who the table is, so that an organiser can list the hall's firmware and rule
    books. `birth` counts the table's connections, kept across restarts: an offline older
    than the birth a reader has seen is a stale last will, and ignored."""

    status: str  # STATUSES
    birth: int
    firmware: str  # mjtable's version
    model: str  # the machine's
    profile_sha256: str | None  # of the profile's file; None: a simulated fleet's table
    rules_sha256: str  # of the rule book's file
    key_fingerprint: str | None  # firmware/journal/device_key.py `fingerprint`; None: no key
    disk_free_bytes: int  # on the journal's disk
    uptime_seconds: float  # since the table started
    dice: str | None = None  # DICE: the venue's rule, electronic dice or not (issue 35)


@dataclass(frozen=True)
class Events:
    """`events`: consecutive journal rows in seq order, each {"seq", "kind", "event"}."""

    rows: list[dict]


@dataclass(frozen=True)
class Alert:
    """`alerts`: a row that calls for a person (ALERT_KINDS), in the public's words."""

    seq: int
    kind: str
    id: int
    of: str | None  # ALERTS_OF, or None: a venue's acknowledgement that did not say
    seat: int | None
    text: str
    t: float
    # The hand an engine alert (`ruling`, RULING_KINDS) belongs to: its ids restart every
    # hand and a ruling may come after the next deal (issue 36); None for a fault
    hand: int | None


@dataclass(frozen=True)
class Ruling(Alert):
    """An alert of RULING_KINDS: a penalty applied, waived or revoked, or its waive undone
    (the penalty awaits a ruling again), and who ruled."""

    offence: str
    points: int
    applied: bool
    reason: str
    referee: str | None


@dataclass(frozen=True)
class State:
    """`state`: the table's public state as of journal row `seq`, at wall time `at`."""

    seq: int
    at: float
    t: float
    phase: str  # PHASES
    ruleset: str
    hand_number: int
    round_wind: str
    dealer: str
    players: list[dict]  # four {"seat", "name", "federation_id"}
    scores: list
    session_seconds_left: float | None
    alerts_waiting: int
    referee_called: bool
    venue_message: str | None
    referee_on_way: dict | None  # {"referee", "at"}
    shuffler: str  # drivers/shuffler.py STATES


@dataclass(frozen=True)
class Sheet:
    """`sheet`: the session's score sheet (firmware/audit/sheet.py) as of row `seq` at least."""

    seq: int
    sheet: dict


Payload = Status | Events | Alert | State | Sheet


def message(envelope: Envelope, payload: Payload) -> dict:
    """The JSON object a table publishes: the version, the envelope, the payload's fields."""
    head: dict[str, object] = {
        "v": VERSION,
        "venue": envelope.venue,
        "table": envelope.table,
        "session": envelope.session,
    }
    return head | {f.name: getattr(payload, f.name) for f in fields(payload)}


def check_envelope(body: dict, venue: str, table: str) -> None:
    """ValueError unless a message received on `table`'s topic is of this version, this venue
    and that table (its session is the payload's reader's to check)."""
    if body.get("v") != VERSION or body.get("venue") != venue or body.get("table") != table:
        raise ValueError(f"not v {VERSION} of this venue and table")


def encode(body: dict) -> bytes:
    """A message's bytes on the wire: compact JSON (not canonical; only a signature needs
    that). Its non-ASCII is escaped, so a text the table holds is sent whatever it is."""
    return json.dumps(body, separators=(",", ":"), allow_nan=False).encode()


def decode(payload: bytes | str, limit: int) -> dict:
    """A message's JSON object; ValueError saying why it is none (over `limit` bytes, not
    UTF-8, not JSON, NaN or Infinity, not an object)."""
    if len(payload) > limit:
        raise ValueError(f"{len(payload)} bytes, over the limit of {limit}")
    try:
        text = payload.decode("utf-8") if isinstance(payload, bytes) else payload
        body = json.loads(text, parse_constant=_no_constant)
    except UnicodeDecodeError:
        raise ValueError("not JSON (not UTF-8)") from None
    except (ValueError, RecursionError) as err:
        raise ValueError(f"not JSON ({str(err)[:80]})") from None
    if not isinstance(body, dict):
        raise ValueError("not a JSON object")
    return body


def _no_constant(constant: str):
    raise ValueError(f"{constant} is not a number JSON has")


# -- the commands and their signed form --------------------------------------------------------


@dataclass(frozen=True)
class Command:
    """A venue's command (COMMANDS), before its signature: `issued` in Unix seconds, `id`
    unique, `table` a table's name or EVERY_TABLE."""

    id: str
    issued: int
    venue: str
    table: str
    command: str
    args: dict

    def json(self) -> dict:
        return {"v": VERSION} | {f.name: getattr(self, f.name) for f in fields(self)}


def canonical(obj) -> bytes:
    """The form a command is signed in: RFC 8785 (JSON Canonicalization Scheme) through the
    `rfc8785` package, UTF-8 with every character as itself, keys sorted by UTF-16 code
    units, numbers as JavaScript writes them; what a JavaScript client gets from JSON.stringify
    of the object with its keys sorted. ValueError (rfc8785.CanonicalizationError) for what
    it cannot say: a whole number beyond SAFE_INTEGER, NaN, a lone surrogate, a key not text.
    Not the journal's form (firmware/journal/schema.py `canonical`), which its hashes keep."""
    return rfc8785.dumps(obj)
