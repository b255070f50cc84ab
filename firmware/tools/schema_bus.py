"""The venue bus's schemas and its AsyncAPI document (docs/schema/, firmware/tools/schemas.py),
made from its contract (firmware/bus/contract.py): each payload's dataclass with the envelope,
its words (PHASES, ALERT_KINDS, ...), every topic with its QoS and whether it is retained, and
the venue's commands with their arguments and signature."""

from drivers.shuffler import STATES
from engine.seats import LETTERS
from firmware.bus import contract as bus
from firmware.tools.schema_commands import command
from firmware.tools.schema_types import DRAFT, HEX64, SEAT, of_dataclass, or_null

TEXT, WHOLE = {"type": "string"}, {"type": "integer"}
SIDE = {"enum": list(LETTERS)}  # a seat as the bus says it, E S W N


NARROWER: dict[str, dict] = {  # a payload's field: what its type cannot say
    "v": {"const": bus.VERSION},
    "venue": {"type": "string", "pattern": f"^{bus.TOPIC_WORD.pattern}$"},
    "table": {"type": "string", "pattern": f"^{bus.TOPIC_WORD.pattern}$"},
    "session": or_null({"type": "string", "pattern": "^[0-9a-f]{32}$"}),  # the journal's id
    "status": {"enum": list(bus.STATUSES)},
    "birth": {"type": "integer", "minimum": 0},
    "profile_sha256": or_null(HEX64),
    "rules_sha256": HEX64,
    "key_fingerprint": or_null({"type": "string", "pattern": "^SHA256:[0-9a-f]{64}$"}),
    "disk_free_bytes": {"type": "integer", "minimum": 0},
    "uptime_seconds": {"type": "number", "minimum": 0},
    "dice": or_null({"enum": list(bus.DICE)}),
    "shuffler": {"enum": list(STATES)},
    "phase": {"enum": list(bus.PHASES)},
    "seq": {"type": "integer", "minimum": 1},
    "seat": or_null(SEAT),
    "of": or_null({"enum": list(bus.ALERTS_OF)}),
    "round_wind": SIDE,
    "dealer": SIDE,
    "scores": {"type": "array", "items": WHOLE, "minItems": 4, "maxItems": 4},
    "sheet": {"$ref": "sheet.json"},
    "players": {
        "type": "array",
        "minItems": 4,
        "maxItems": 4,
        "items": {
            "type": "object",
            "required": ["seat", "name", "federation_id"],
            "properties": {"seat": SIDE, "name": or_null(TEXT), "federation_id": or_null(TEXT)},
            "additionalProperties": False,
        },
    },
    "referee_on_way": or_null(
        {
            "type": "object",
            "required": ["referee", "at"],
            "properties": {"referee": TEXT, "at": {"type": "number"}},
            "additionalProperties": False,
        }
    ),
    "rows": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/row"}},
}
ROW = {  # a journal row in `events`: a hand row or an event, public; {} one that cannot be read
    "type": "object",
    "required": ["seq", "kind", "event"],
    "properties": {"seq": NARROWER["seq"], "kind": {"enum": list(bus.ROW_KINDS)}, "event": {}},
    "additionalProperties": False,
    "if": {"properties": {"kind": {"const": "hand"}}},
    "then": {
        "properties": {"event": {"anyOf": [{"$ref": "public-deal.json"}, {"maxProperties": 0}]}}
    },
    "else": {
        "properties": {"event": {"anyOf": [{"$ref": "public-event.json"}, {"maxProperties": 0}]}}
    },
}


def payload(cls: type, title: str, **extra: dict) -> dict:
    """A table's message: `v`, the envelope and the payload's fields (contract.message)."""
    envelope, own = of_dataclass(bus.Envelope), of_dataclass(cls)
    properties = {"v": {}} | envelope["properties"] | own["properties"]
    schema = {
        "$schema": DRAFT,
        "title": title,
        "type": "object",
        "required": list(properties),
        "properties": {name: NARROWER.get(name, schema) for name, schema in properties.items()},
        "additionalProperties": False,
    }
    return schema | extra


def alerts() -> dict:
    """`alerts`: an Alert, or a Ruling (RULING_KINDS) with the ruling's fields beside it."""
    plain = payload(bus.Alert, "An alert")
    plain["properties"]["kind"] = {
        "enum": [k for k in bus.ALERT_KINDS if k not in bus.RULING_KINDS]
    }
    ruling = payload(bus.Ruling, "A ruling")
    ruling["properties"]["kind"] = {"enum": list(bus.RULING_KINDS)}
    for schema in (plain, ruling):
        del schema["$schema"]
    return {"$schema": DRAFT, "title": "A table's alerts message", "oneOf": [plain, ruling]}


DISCOVERY = "discovery"  # Home Assistant's discovery configs ([uplink] home_assistant = true)


def discovery() -> dict:
    """A Home Assistant MQTT discovery config of one of a table's entities
    (firmware/uplink/discovery.py): what this table always says; Home Assistant's own schema
    has many more keys, which stay allowed."""
    texts = {"type": "object", "additionalProperties": TEXT}
    return {
        "$schema": DRAFT,
        "title": "A Home Assistant discovery config of a table's entity",
        "type": "object",
        "required": ["name", "unique_id", "qos", "state_topic", "value_template", "device"],
        "properties": {
            "name": TEXT,
            "unique_id": {"type": "string", "pattern": "^mjtable_"},
            "qos": {"const": bus.QOS},
            "state_topic": TEXT,
            "value_template": TEXT,
            "availability": {"type": "array", "items": texts},
            "device": texts | {"properties": {"identifiers": {"type": "array", "items": TEXT}}},
            "origin": texts,
        },
    }


def schema_file(leaf: str) -> str:
    return f"bus-{leaf}.json"


def asyncapi() -> dict:
    """The MQTT interface as AsyncAPI 3.0, from the table's side: what it sends and receives."""
    parameters = {
        "venue": {"description": f"the venue's name on its bus: {bus.TOPIC_WORD_WORDS}"},
        "table": {"description": f"the table's name: {bus.TOPIC_WORD_WORDS}"},
    }
    leaves = [*bus.PUBLISHED, bus.Leaf.CMD]
    channels: dict[str, dict] = {
        str(leaf): {
            "address": bus.table_topic("{venue}", "{table}", leaf),
            "parameters": parameters,
            "messages": {str(leaf): {"$ref": f"#/components/messages/{leaf}"}},
        }
        for leaf in leaves
    }
    channels[DISCOVERY] = {
        "address": bus.discovery_topic("{prefix}", "{component}", "{table}", "{entity}"),
        "parameters": {
            "prefix": {
                "description": "Home Assistant's discovery prefix",
                "default": "homeassistant",
            },
            "component": {"enum": ["binary_sensor", "sensor"]},
            "table": parameters["table"],
            "entity": {"description": "the entity: online, state, hand, players, scores, ..."},
        },
        "description": "with [uplink] home_assistant = true: one config per entity of the table",
        "messages": {DISCOVERY: {"$ref": f"#/components/messages/{DISCOVERY}"}},
    }
    channels["every_table_cmd"] = {
        "address": bus.command_topic("{venue}", bus.EVERY_TABLE),
        "parameters": {"venue": parameters["venue"]},
        "description": 'a command to every table of the venue (its table is "*")',
        "messages": {"cmd": {"$ref": "#/components/messages/cmd"}},
    }
    retained = {*bus.RETAINED, DISCOVERY}  # discovery configs too, each on every connection
    operations: dict[str, dict] = {
        f"send_{leaf}": {
            "action": "send",
            "channel": {"$ref": f"#/channels/{leaf}"},
            "bindings": {"mqtt": {"qos": bus.QOS, "retain": leaf in retained}},
        }
        for leaf in [*bus.PUBLISHED, DISCOVERY]
    }
    operations |= {
        f"receive_{name}": {
            "action": "receive",
            "channel": {"$ref": f"#/channels/{name}"},
            "bindings": {"mqtt": {"qos": bus.QOS, "retain": False}},
        }
        for name in ("cmd", "every_table_cmd")
    }
    messages = {
        str(leaf): {
            "name": str(leaf),
            "contentType": "application/json",
            "payload": {
                "schemaFormat": "application/schema+json;version=draft-2020-12",
                "schema": {"$ref": schema_file(leaf)},
            },
        }
        for leaf in [*leaves, DISCOVERY]
    }
    return {
        "asyncapi": "3.0.0",
        "info": {
            "title": "mjtable venue bus",
            "version": str(bus.VERSION),
            "description": "A table's messages to its venue and the venue's signed commands "
            "(docs/uplink.md). Every message is QoS 1; `state`, `status` and `sheet` are "
            "retained; `status` offline is also the table's last will.",
        },
        "defaultContentType": "application/json",
        "channels": channels,
        "operations": operations,
        "components": {"messages": messages},
    }


def documents() -> dict[str, dict]:
    return {
        schema_file(bus.Leaf.STATUS): payload(bus.Status, "A table's status message"),
        schema_file(bus.Leaf.EVENTS): payload(bus.Events, "A table's events message")
        | {"$defs": {"row": ROW}},
        schema_file(bus.Leaf.ALERTS): alerts(),
        schema_file(bus.Leaf.STATE): payload(bus.State, "A table's state message"),
        schema_file(bus.Leaf.SHEET): payload(bus.Sheet, "A table's sheet message"),
        schema_file(bus.Leaf.CMD): command(),
        schema_file(DISCOVERY): discovery(),
        "asyncapi.json": asyncapi(),
    }
