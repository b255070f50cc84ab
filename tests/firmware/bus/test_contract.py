"""The venue bus's contract (firmware/bus/contract.py) against what ships with it: the broker's
ACL and config (deploy/mosquitto/), the table's messages as the venue parses them, and the
signed form as a JavaScript client makes it (issue 29, "One bus contract")."""

import re
from dataclasses import dataclass, fields
from pathlib import Path
from typing import ClassVar

import pytest

from firmware.bus import contract
from firmware.bus.contract import (
    EVERY_TABLE,
    MESSAGE_BYTES,
    PUBLISHED,
    Leaf,
    command_topic,
    parse_topic,
    table_publishes,
    table_subscribes,
    table_topic,
    venue_subscribes,
)
from firmware.cli import main
from firmware.uplink.discovery import discovery_configs
from firmware.venue.messages import SHEET_LISTS, Malformed, parse

MOSQUITTO = Path(__file__).resolve().parents[3] / "deploy" / "mosquitto"
VENUE, TABLES, VENUE_USER = "hall", ("t1", "t2", "T-03"), "venue"
HOME_ASSISTANT = "homeassistant"  # a venue's Home Assistant's broker user (issue 34)
READ, WRITE = 1, 2  # mosquitto's MOSQ_ACL_READ, MOSQ_ACL_WRITE; deny is 0


@dataclass(frozen=True)
class Rule:
    topic: str  # a topic filter, with %u and %c levels in a pattern
    access: int  # READ | WRITE, or 0: deny


class Acl:
    """An acl_file as mosquitto 2.0 reads it (src/security_default.c, aclfile__parse and
    mosquitto_acl_check_default): `topic` lines for the user named by the `user` line above
    them (anonymous before any), `pattern` lines for every user wherever they stand, with %u
    (the user name) and %c (the client id) as whole levels; access read, write, readwrite (the
    default) or deny; a line beginning with '#' a comment. A user's own rules are looked at
    before the patterns, denials first in each; a user name with '+' or '#' is refused
    whenever there are patterns; anything not granted is refused."""

    ACCESS: ClassVar[dict[str, int]] = {
        "read": READ,
        "write": WRITE,
        "readwrite": READ | WRITE,
        "deny": 0,
    }

    def __init__(self, text: str):
        self.users: dict[str | None, list[Rule]] = {}
        self.patterns: list[Rule] = []
        user: str | None = None
        for number, line in enumerate(text.splitlines(), 1):
            line = line.rstrip()
            if line.startswith("#") or not line.strip(" "):
                continue
            word, _, rest = line.lstrip(" ").partition(" ")
            rest = rest.lstrip(" ")
            if word == "user":
                assert rest, f"acl line {number}: a user line without a name"
                user = rest.strip()
            elif word in ("topic", "pattern"):
                access_word, _, topic = rest.partition(" ")
                topic = topic.strip()
                if not topic:  # "topic a/b": readwrite
                    access_word, topic = "readwrite", access_word
                assert access_word in self.ACCESS, f"acl line {number}: {access_word!r}"
                rule = Rule(topic, self.ACCESS[access_word])
                rules = self.patterns if word == "pattern" else self.users.setdefault(user, [])
                if rule.access == 0:  # denials are looked at first
                    rules.insert(0, rule)
                else:
                    rules.append(rule)
            else:  # mosquitto refuses to start on it
                raise AssertionError(f"acl line {number}: not a rule mosquitto reads: {line!r}")

    def allows(self, user: str, client_id: str, topic: str, access: int) -> bool:
        for rule in self.users.get(user, []):
            if _matches(rule.topic, topic):
                if rule.access == 0:
                    return False
                if rule.access & access:
                    return True
        if self.patterns and re.search("[+#]", user + client_id):
            return False
        for rule in self.patterns:
            levels = [
                {"%u": user, "%c": client_id}.get(level, level) for level in rule.topic.split("/")
            ]
            if _matches("/".join(levels), topic):
                if rule.access == 0:
                    return False
                if rule.access & access:
                    return True
        return False


def _matches(topic_filter: str, topic: str) -> bool:
    """MQTT's topic filter match (mosquitto_topic_matches_sub): '+' one level, '#' the rest
    (its parent too); a topic beginning with '$' only under a filter that does."""
    if topic.startswith("$") != topic_filter.startswith("$"):
        return False
    wanted, levels = topic_filter.split("/"), topic.split("/")
    for i, level in enumerate(wanted):
        if level == "#":
            return True
        if i >= len(levels) or level not in ("+", levels[i]):
            return False
    return len(wanted) == len(levels)


@pytest.fixture(scope="module")
def acl() -> Acl:
    return Acl((MOSQUITTO / "acl").read_text())


def _writable(acl: Acl, user: str, topic: str) -> bool:
    return acl.allows(user, user, topic, WRITE)  # use_username_as_clientid on the tables'


def _readable(acl: Acl, user: str, topic: str) -> bool:
    return acl.allows(user, user, topic, READ)


def test_a_table_may_publish_every_topic_it_publishes_and_no_other_table_may(acl):
    """Issue 29: under the shipped ACL each table writes every topic the contract has it
    publish (the sheet too: the broker dropped every score sheet), and no other table writes
    them; the venue reads them all."""
    for table in TABLES:
        for topic in table_publishes(VENUE, table):
            assert _writable(acl, table, topic), (table, topic)
            assert _readable(acl, VENUE_USER, topic), topic
            others = [other for other in TABLES if other != table]
            assert not any(_writable(acl, other, topic) for other in others), topic


def test_a_table_reads_its_commands_and_only_the_venue_writes_commands(acl):
    """Issue 29: a table reads the command topics it subscribes to, not another table's;
    the command topics are writable by the venue's user and by no table's."""
    for table in TABLES:
        for topic in table_subscribes(VENUE, table):
            assert _readable(acl, table, topic), (table, topic)
        others = [other for other in TABLES if other != table]
        assert not any(_readable(acl, o, command_topic(VENUE, table)) for o in others)
    commands = [command_topic(VENUE, t) for t in (*TABLES, EVERY_TABLE)]
    for topic in commands:
        assert _writable(acl, VENUE_USER, topic), topic
        assert not any(_writable(acl, table, topic) for table in TABLES), topic


def test_a_table_writes_its_home_assistant_discovery_and_no_other_table_may(acl):
    """Issue 34: under the shipped ACL each table writes the discovery configs it publishes
    under Home Assistant's default prefix, no other table writes them; Home Assistant's
    user reads them and the status and state they name, and writes no table's topic and no
    command."""
    status = SAMPLES[0][1]
    assert isinstance(status, contract.Status)
    for table in TABLES:
        configs = discovery_configs(contract.DISCOVERY_PREFIX, VENUE, table, status)
        assert configs
        others = [other for other in TABLES if other != table]
        for topic, config in configs:
            assert _writable(acl, table, topic), (table, topic)
            assert not any(_writable(acl, other, topic) for other in others), topic
            assert _readable(acl, HOME_ASSISTANT, topic), topic
            assert _readable(acl, HOME_ASSISTANT, config["state_topic"]), topic
        for topic in [*table_publishes(VENUE, table), command_topic(VENUE, table)]:
            assert not _writable(acl, HOME_ASSISTANT, topic), topic
    assert not _writable(acl, HOME_ASSISTANT, command_topic(VENUE, EVERY_TABLE))


def test_the_acl_reader_holds_mosquittos_rules():
    """The reader the tests above rely on refuses what mosquitto refuses: nothing granted,
    another user's topic, a denial before a grant, a wildcard in a user's name."""
    acl = Acl(
        "# comment\npattern write a/%u/x\ntopic read open/#\nuser boss\ntopic b/+\n"
        "pattern deny a/%u/x\n"
    )
    assert not acl.allows("t1", "t1", "a/t1/x", WRITE)  # the deny pattern comes first
    assert acl.allows("boss", "c", "b/y", READ | WRITE) and acl.allows("boss", "c", "b/y", READ)
    assert not acl.allows("boss", "c", "b/y/z", READ)
    assert not acl.allows("t1", "t1", "open/x", READ)  # anonymous's rule, not a user's
    assert not Acl("pattern write a/%u/x\n").allows("t+", "t+", "a/t+/x", WRITE)
    with pytest.raises(AssertionError, match="not a rule"):
        Acl("topics read a\n")


def test_the_venue_subscription_covers_every_topic_a_table_publishes():
    """Issue 29: the venue's one subscription takes every table's topics, and reads each back
    as its table and leaf."""
    for table in TABLES:
        for leaf, topic in zip(PUBLISHED, table_publishes(VENUE, table), strict=True):
            assert _matches(venue_subscribes(VENUE), topic)
            assert parse_topic(topic, VENUE) == (table, leaf)
    assert parse_topic(command_topic(VENUE, "t1"), VENUE) == ("t1", Leaf.CMD)
    for wrong in ("mjtable/hall/cmd", "mjtable/other/table/t1/state", "mjtable/hall/table/t1/x"):
        with pytest.raises(ValueError):
            parse_topic(wrong, VENUE)


def test_the_broker_takes_the_largest_message_the_venue_takes():
    """Issue 29: deploy/mosquitto's max_packet_size holds a message of the contract's
    MESSAGE_BYTES with its longest topic and the packet's header around it, so that the
    broker never cuts off a table whose message the venue would take."""
    conf = (MOSQUITTO / "mosquitto.conf").read_text()
    (size,) = re.findall(r"^max_packet_size (\d+)$", conf, re.M)
    longest_topic = max(len(table_topic("v" * 64, "t" * 64, leaf)) for leaf in PUBLISHED)
    header = 5 + 2 + longest_topic + 2  # fixed header, topic's length, topic, packet id
    assert int(size) >= MESSAGE_BYTES + header


def test_a_table_name_is_a_topic_word_the_acl_can_hold():
    """Issue 29: the names the contract lets a table and a venue have are those add-table.sh
    takes: no level separator, no wildcard (mosquitto refuses a user with one)."""
    script = (MOSQUITTO / "add-table.sh").read_text()
    (shell,) = re.findall(r"\[\[ \$name =~ \^(\S+)\$ \]\]", script)
    assert shell == contract.TOPIC_WORD.pattern
    for bad in ("a/b", "t+", "t#", "", "x" * 65):
        assert not contract.TOPIC_WORD.fullmatch(bad)


SAMPLES = [  # one payload of each type, on its leaf
    (
        Leaf.STATUS,
        contract.Status(
            status="online",
            birth=3,
            firmware="0.1.0",
            model="Raspberry Pi 4 Model B Rev 1.4",
            profile_sha256="ab" * 32,
            rules_sha256="cd" * 32,
            key_fingerprint="SHA256:" + "ef" * 32,
            disk_free_bytes=12_000_000_000,
            uptime_seconds=61.5,
        ),
    ),
    (Leaf.EVENTS, contract.Events([{"seq": 1, "kind": "hand", "event": {"hand_number": 1}}])),
    (Leaf.ALERTS, contract.Alert(7, "fault", 2, "fault", None, "The shuffler stopped", 12.5, None)),
    (
        Leaf.ALERTS,
        contract.Ruling(
            seq=9,
            kind="ruled",
            id=1,
            of="ruling",
            seat=2,
            text="South: penalty applied",
            t=13.0,
            hand=3,
            offence="empty_call",
            points=10,
            applied=True,
            reason="called without the tiles",
            referee="张伟",
        ),
    ),
    (
        Leaf.STATE,
        contract.State(
            seq=3,
            at=1.7e9,
            t=12.0,
            phase="playing",
            ruleset="wsom2006",
            hand_number=1,
            round_wind="E",
            dealer="E",
            players=[{"seat": s, "name": "李娜", "federation_id": None} for s in "ESWN"],
            scores=[0, 0, 0, 0],
            session_seconds_left=None,
            alerts_waiting=0,
            referee_called=False,
            venue_message=None,
            referee_on_way=None,
            shuffler="idle",
        ),
    ),
    (Leaf.SHEET, contract.Sheet(12, {name: [] for name in SHEET_LISTS})),
]


@pytest.mark.parametrize(("leaf", "payload"), SAMPLES, ids=lambda p: type(p).__name__)
def test_the_venue_reads_every_field_a_table_says(leaf, payload):
    """Issue 29: a message the contract builds is one the venue takes on its leaf's topic,
    with every field of its payload and the envelope's session; under another table's
    topic or another version it is refused."""
    body = contract.message(contract.Envelope(VENUE, "t1", "s1"), payload)
    taken = parse(table_topic(VENUE, "t1", leaf), contract.encode(body), VENUE)
    assert taken is not None and (taken.table, taken.leaf) == ("t1", leaf)
    assert {f.name for f in fields(payload)} <= set(taken.body)
    assert leaf == Leaf.STATUS or taken.body["session"] == "s1"
    with pytest.raises(Malformed, match="not v 1 of this venue and table"):
        parse(table_topic(VENUE, "t2", leaf), contract.encode(body), VENUE)
    with pytest.raises(Malformed, match="not v 1"):
        parse(table_topic(VENUE, "t1", leaf), contract.encode(body | {"v": 2}), VENUE)


@pytest.mark.parametrize("name", ["大厅", "hall 2", "a+b"])
def test_the_venue_refuses_a_name_no_table_could_report_to(name, capsys):
    """Issue 29: `mjtable venue --venue` takes the names a table's [uplink] venue takes (the
    contract's TOPIC_WORD), not a wider set whose tables could never join."""
    with pytest.raises(SystemExit) as stopped:
        main(["venue", "--broker", "127.0.0.1:1883", "--venue", name])
    assert stopped.value.code == 2
    assert "a venue's name is 1 to 64 letters" in capsys.readouterr().err


def test_no_topic_is_written_by_hand_outside_the_contract():
    """Issue 29: the bus's topics are built by firmware/bus/contract.py alone: no other
    module of firmware/ spells one (a topic written by hand at one end is how the ACL and
    the uplink came apart)."""
    firmware = Path(__file__).resolve().parents[3] / "firmware"
    spelled = re.compile(r"""f?["']mjtable/""")
    found = [
        f"{path.relative_to(firmware)}:{number}"
        for path in sorted(firmware.rglob("*.py"))
        if path != firmware / "bus" / "contract.py"
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if spelled.search(line)
    ]
    assert found == []
