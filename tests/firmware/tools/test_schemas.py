"""Issue 34 "Schemas": docs/schema/ holds a JSON Schema for every journal event and export line
and an AsyncAPI document of the MQTT interface, made by `python -m firmware.tools.schemas` from
the one definition of each (so the committed files are checked to be what it makes), and a
whole WSOM and a whole CCM session with faults and rulings validate against them: every journal
row, every export line and every message on the bus, read as a consumer reads them (the
`jsonschema` package, a real Mosquitto)."""

import csv
import json
import subprocess
import time

import httpx
import pytest
from jsonschema import Draft202012Validator

from firmware.bus import contract as bus
from firmware.bus.signing import sign
from firmware.cli import main
from firmware.journal.store import Journal
from firmware.ports import free_port
from firmware.tools import schemas
from firmware.tools.schemas import FOLDER
from tests.support.broker import Broker
from tests.support.displaykit import referee
from tests.support.schemakit import PROBE, Schemas, Wire, channels, finished, run_table
from tests.support.uplinkkit import TABLE
from tests.support.venuekeys import VENUE_KEY, public_pem
from tests.support.venuekit import VENUE

ASYNCAPI = json.loads((FOLDER / "asyncapi.json").read_text(encoding="utf-8"))


def test_issue_34_the_committed_schemas_are_what_the_command_writes(tmp_path):
    """Issue 34: docs/schema/ is exactly what `python -m firmware.tools.schemas` writes from
    engine/events.py and firmware/bus/contract.py today: a field added there and not here
    fails, naming the file to write again."""
    written = schemas.write(tmp_path)
    assert sorted(path.name for path in FOLDER.iterdir()) == written
    for name in written:
        made = (tmp_path / name).read_text(encoding="utf-8")
        assert (FOLDER / name).read_text(encoding="utf-8") == made, (
            f"docs/schema/{name} is stale: run `python -m firmware.tools.schemas`"
        )


def test_issue_34_every_schema_is_draft_2020_12_and_its_refs_resolve():
    """Issue 34: each file is a valid Draft 2020-12 schema, and every `$ref` in it (to its
    own $defs or to a sibling file) resolves, as a consumer loading the folder finds."""
    kit = Schemas()
    for path in sorted(FOLDER.glob("*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        if path.name != "asyncapi.json":
            Draft202012Validator.check_schema(document)
        resolver = kit.registry.resolver(base_uri=path.as_uri())
        for ref in refs(document):
            resolver.lookup(ref)


def refs(node) -> list[str]:
    if isinstance(node, dict):
        own = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return own + [r for value in node.values() for r in refs(value)]
    if isinstance(node, list):
        return [r for value in node for r in refs(value)]
    return []


AT = {"t": 1.0, "seat": 0}  # an event's time and seat
ENVELOPE = {"v": 1, "venue": "v", "table": "t", "session": None}
COMMAND = {"v": 1, "id": "a", "issued": 1, "venue": "v", "table": "t", "signature": "0" * 128}
DEAL = {"ruleset": "wsom2006", "hand_number": 1, "chips": None, "t": 0.0, "doubling": False}
BREAKING = [  # (schema, instance, why it is refused)
    ("event.json", AT | {"type": "Drew", "tile": 144, "replacement": False}, "no tile 144"),
    ("event.json", AT | {"type": "Discarded", "seat": 4, "tile": 3}, "no seat 4"),
    ("event.json", AT | {"type": "Discarded"}, "a field missing"),
    ("event.json", AT | {"type": "Discarded", "tile": 3, "x": 1}, "a field unknown"),
    ("event.json", AT | {"type": "Shouted"}, "a type unknown"),
    ("event.json", AT | {"type": "ClaimDeclared", "claim": "chi", "tiles": []}, "chi"),
    ("public-event.json", AT | {"type": "Drew", "tile": 5, "replacement": False}, "a hidden tile"),
    ("public-deal.json", DEAL | {"last_deal": False, "walls": [[1]] * 4}, "the walls"),
    ("bus-status.json", ENVELOPE | {"status": "maybe"}, "a status unknown"),
    ("bus-status.json", ENVELOPE | {"v": 2, "status": "online"}, "version 2"),
    ("bus-cmd.json", COMMAND | {"command": "message", "args": {"players": []}}, "other args"),
    ("bus-cmd.json", COMMAND | {"command": "pause", "args": {}, "signature": "?"}, "no signature"),
]


@pytest.mark.parametrize(("name", "instance", "why"), BREAKING, ids=[b[2] for b in BREAKING])
def test_issue_34_the_schemas_refuse_what_breaks_the_contract(name, instance, why):
    """Issue 34: the hand-written constraints hold (a tile id, a seat, a command's own
    arguments), and the public form refuses a concealed field (engine/events.py HIDDEN)."""
    assert not Schemas().validator(name).is_valid(instance), why


def test_issue_34_asyncapi_names_every_topic_with_its_qos_and_retain():
    """Issue 34: the AsyncAPI document has each topic the contract has, sent or received by
    the table, QoS 1, retained just where the broker keeps the latest (contract.RETAINED),
    and a schema for each command."""
    found = {op["channel"]["$ref"]: op for op in ASYNCAPI["operations"].values()}
    for leaf in bus.PUBLISHED:
        assert ASYNCAPI["channels"][leaf]["address"] == bus.table_topic("{venue}", "{table}", leaf)
        binding = found[f"#/channels/{leaf}"]["bindings"]["mqtt"]
        assert found[f"#/channels/{leaf}"]["action"] == "send"
        assert (binding["qos"], binding["retain"]) == (bus.QOS, leaf in bus.RETAINED)
    received = {
        "cmd": bus.command_topic("{venue}", "{table}"),
        "every_table_cmd": bus.command_topic("{venue}", bus.EVERY_TABLE),
    }
    for name, topic in received.items():
        assert ASYNCAPI["channels"][name]["address"] == topic
        assert found[f"#/channels/{name}"]["action"] == "receive"
    command = json.loads((FOLDER / "bus-cmd.json").read_text(encoding="utf-8"))
    said = [rule["if"]["properties"]["command"]["const"] for rule in command["allOf"]]
    assert sorted(said) == sorted(bus.COMMANDS)


def commands(issued: float) -> list[tuple[str, dict]]:
    """The venue's commands over a session: players, a message, a pause and its end, an
    acknowledgement, to this table and to every table."""
    base = {"v": bus.VERSION, "issued": int(issued), "venue": VENUE}
    names = ["王小明", "李四", "Ann", "Bob"]
    players = [{"name": n, "federation_id": f"HK-{i}"} for i, n in enumerate(names)]
    said = [
        (TABLE, "start_session", {"players": players, "minutes": 120}),
        (bus.EVERY_TABLE, "message", {"text": "第二局 15:00"}),
        (TABLE, "pause", {}),
        (TABLE, "resume", {}),
        (TABLE, "acknowledge", {"alert": 1, "referee": "Chan", "of": "fault"}),
    ]  # fmt: skip
    return [
        (
            bus.command_topic(VENUE, table),
            sign(base | {"id": f"c{n}", "table": table, "command": name, "args": args}, VENUE_KEY),
        )
        for n, (table, name, args) in enumerate(said)
    ]


def export(journal, what: str, fmt: str, out) -> int:
    return main(["export", what, str(journal), "--format", fmt, "-o", str(out)])


RULED = {  # by rule book: a report the referee rules on, one applied at once (and revoked)
    "wsom2006": ({"offence": "naming_discard"}, {"offence": "phone"}),
    "ccm2012": ({"offence": "naming_discard"}, {"offence": "late", "seconds": 60}),
}


class Referee:
    """The referee at the table's desk over HTTP (`mjtable run --port`), with the profile's PIN."""

    def __init__(self, port: int):
        self.url, self.done = f"http://127.0.0.1:{port}/api/referee/", []

    def act(self, action: str, body: dict) -> dict | None:
        """The action's answer, or None when refused (no hand on the table, the hand over)."""
        try:
            answer = httpx.post(self.url + action, json=body, headers=referee(), timeout=30)
        except httpx.TransportError:
            return None  # the display not up yet
        if answer.status_code != 200:
            return None
        self.done.append(action)
        return answer.json()

    def penalty(self, offence: dict, output: str) -> int | None:
        """Report `offence` (East's) and the id of its alert in `output` (Alert, PenaltyApplied)."""
        said = self.act("report", {"seat": 0} | offence)
        events = said["events"] if said else []
        return next((e.get("id", e.get("alert")) for e in events if e["type"] == output), None)

    def rule_and_revoke(self, ruleset: str, table: subprocess.Popen) -> bool:
        """A ruling applied on an alert, and a penalty revoked, each with its written reason,
        tried again (on a later hand) until the table takes it or its session is over."""
        ruled, revoked = False, False
        asked, applied = RULED[ruleset]
        while not (ruled and revoked) and table.poll() is None:
            if not ruled and (alert := self.penalty(asked, "Alert")) is not None:
                ruled = bool(self.act("rule", {"alert": alert, "apply": True, "reason": "heard"}))
            if not revoked and (alert := self.penalty(applied, "PenaltyApplied")) is not None:
                revoked = bool(self.act("revoke", {"alert": alert, "reason": "it was another"}))
            time.sleep(0.05)
        return ruled and revoked


@pytest.mark.slow  # a whole session as `mjtable run` over a real broker, with its desk
@pytest.mark.parametrize("ruleset", ["wsom2006", "ccm2012"])
def test_issue_34_a_whole_session_with_faults_and_rulings_validates(tmp_path, ruleset):
    """Issue 34 (Done when): a whole session of 16 hands played by `mjtable run` with a
    shuffler jam, a lost tile and dropped reads, the venue's commands taken, and the desk's
    rulings (an offence reported and ruled on, a penalty applied and revoked, with reasons):
    every journal row, every line of each export and every message on the bus (the table's
    and the venue's) validates against docs/schema/, found by its topic through the AsyncAPI
    document, with its QoS; what a client subscribing afterwards is given retained is what
    the document says is."""
    journal, kit, port = tmp_path / "j.sqlite", Schemas(), free_port()
    broker = Broker(tmp_path / "broker").start()
    wire = Wire(broker.port, "schema-wire")
    try:
        options = ["--journal", str(journal), "--hands", "16", "--speed", "100", "--seed", "1"]
        options += ["--ruleset", ruleset, "--faults", "jam=1,lost=1,drop=0.02"]
        table = run_table(
            tmp_path / "table", broker.port, public_pem(), *options, "--port", str(port)
        )
        # Its first rows out: it listens for commands by then (firmware/uplink/client.py).
        wait_for(lambda: any(m[0].endswith("/events") for m in wire.taken()))
        for topic, command in commands(time.time()):
            wire.client.publish(topic, json.dumps(command, ensure_ascii=False), bus.QOS)
        assert Referee(port).rule_and_revoke(ruleset, table), "the desk's rulings never taken"
        finished(table, 600)
        late = Wire(broker.port, "schema-late")
        retained = late.retained()  # its probe comes after all the table sent: so to `wire`
        late.close()
        wait_for(lambda: any(m[0].endswith(PROBE) for m in wire.taken()))
    finally:
        wire.close()
        broker.stop()

    with Journal(journal, readonly=True) as opened:
        rows = list(opened.rows())
    for row in rows:
        kit.check("deal.json" if row.kind == "hand" else "event.json", row.data(), f"row {row.seq}")
    kinds = {row.data().get("type") for row in rows}
    wanted = {"Ruling", "PenaltyApplied", "PenaltyRevoked", "PenaltyLifted", "Fault"}
    assert wanted | {"VenueCommand", "RefereeActed", "Won"} <= kinds, kinds
    assert sum(row.kind == "hand" for row in rows) >= 16

    assert export(journal, "hands", "jsonl", tmp_path / "hands.jsonl") == 0
    lines = (tmp_path / "hands.jsonl").read_text(encoding="utf-8").splitlines()
    for n, line in enumerate(lines, 1):
        kit.check("hands-line.json", json.loads(line), f"hands.jsonl line {n}")
    assert len(lines) == len(rows)
    if ruleset == "wsom2006":  # mjai holds riichi's 136 tiles: CCM's flowers are refused
        assert export(journal, "hands", "mjai", tmp_path / "hands.mjai") == 0
        mjai = (tmp_path / "hands.mjai").read_text(encoding="utf-8").splitlines()
        for n, line in enumerate(mjai, 1):
            kit.check("mjai-line.json", json.loads(line), f"mjai line {n}")
    assert export(journal, "sheet", "json", tmp_path / "sheet.json") == 0
    kit.check("sheet.json", json.loads((tmp_path / "sheet.json").read_text("utf-8")), "sheet")
    assert export(journal, "sheet", "csv", tmp_path / "sheet.csv") == 0
    with open(tmp_path / "sheet.csv", encoding="utf-8-sig", newline="") as sheet_csv:
        sheet_rows = list(csv.DictReader(sheet_csv))
    for n, line in enumerate(sheet_rows, 2):
        kit.check("sheet-csv-row.json", line, f"sheet.csv line {n}")
    assert len(sheet_rows) >= 16

    ours = [m for m in wire.taken() if not m[0].endswith(PROBE)]
    statuses = [json.loads(m[1])["status"] for m in ours if m[0].endswith("/status")]
    assert statuses[0] == "online" and statuses[-1] == "offline", statuses
    routes = channels(ASYNCAPI)

    def route(topic: str) -> dict:
        (operation,) = [op for pattern, op in routes if pattern.match(topic)]
        return operation

    for n, (topic, payload, qos, _) in enumerate(ours):
        assert qos == route(topic)["bindings"]["mqtt"]["qos"], topic
        kit.check(route(topic)["schema"], json.loads(payload), f"message {n} on {topic}")
    assert {route(m[0])["name"] for m in ours} == set(ASYNCAPI["channels"])
    published = [json.loads(m[1]) for m in ours if m[0].endswith("/events")]
    assert sum(len(body["rows"]) for body in published) >= len(rows)
    kept = {op["name"] for _, op in routes if op["bindings"]["mqtt"]["retain"]}
    assert {route(topic)["name"] for topic, *_ in retained} == kept
    for topic, payload, _, retain in retained:
        assert retain, topic
        kit.check(route(topic)["schema"], json.loads(payload), f"retained {topic}")
    print(ruleset, len(rows), "rows;", len(ours), "messages;", kit.counts)


def wait_for(done, seconds: float = 60) -> None:
    """Until `done()`; the bound only ends a wait for what never comes."""
    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline, "never came"
        time.sleep(0.02)
