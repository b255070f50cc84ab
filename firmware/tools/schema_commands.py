"""The venue's commands to a table as docs/schema/bus-cmd.json has them
(firmware/tools/schema_bus.py): each command's arguments, as firmware/uplink/commands.py takes
them, and the Ed25519 `signature` that signs the command."""

from firmware.bus import contract as bus
from firmware.tools.schema_types import DRAFT, of_dataclass, or_null

TEXT, WHOLE = {"type": "string"}, {"type": "integer"}
HEX128 = {"type": "string", "pattern": "^[0-9a-f]{128}$"}  # an Ed25519 signature in hex


def text(most: int, blank: bool = False) -> dict:
    """Printable text of at most `most` characters (firmware/uplink/commands.py `_text`)."""
    shown = "^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029]*$"
    return {"type": "string", "maxLength": most, "pattern": shown} | (
        {} if blank else {"minLength": 1}
    )


# Each command's arguments, as firmware/uplink/commands.py `_check_args` takes them.
ARGS: dict[str, tuple[dict, dict]] = {
    "start_session": (
        {
            "players": {
                "type": "array",
                "minItems": 4,
                "maxItems": 4,
                "items": {
                    "type": "object",
                    "required": ["name", "federation_id"],
                    "properties": {
                        "name": text(bus.NAME_LENGTH),
                        "federation_id": or_null(text(bus.FEDERATION_ID_LENGTH)),
                    },
                    "additionalProperties": False,
                },
            }
        },
        {"minutes": {"type": "integer", "minimum": 1, "maximum": bus.MAX_MINUTES}},
    ),
    "message": ({"text": text(bus.MESSAGE_LENGTH, blank=True)}, {}),
    "pause": ({}, {}),
    "resume": ({}, {}),
    "acknowledge": (
        {"alert": WHOLE, "referee": text(bus.NAME_LENGTH)},
        {"of": {"enum": list(bus.ALERTS_OF)}},
    ),
    "resend": (
        {"session": or_null(text(bus.ID_LENGTH)), "after": {"type": "integer", "minimum": 0}},
        {"until": {"type": "integer", "minimum": 1}},
    ),
}


def command() -> dict:
    """A venue's command (contract.Command) with its `signature`: Ed25519 with the venue's
    private key over the command without it, in RFC 8785's canonical form
    (firmware/bus/signing.py)."""
    own = of_dataclass(bus.Command)["properties"]
    properties = {"v": {"const": bus.VERSION}} | own
    properties |= {"id": {"type": "string", "minLength": 1, "maxLength": bus.ID_LENGTH}}
    properties |= {"issued": {"type": "number"}, "command": {"enum": list(bus.COMMANDS)}}
    properties |= {"table": {"type": "string"}, "venue": {"type": "string"}}
    properties |= {"signature": HEX128}
    return {
        "$schema": DRAFT,
        "title": 'A venue\'s command to a table (or to every table: table "*")',
        "type": "object",
        "required": list(properties),
        "properties": properties,
        "additionalProperties": False,
        "allOf": [
            {
                "if": {"properties": {"command": {"const": name}}},
                "then": {
                    "properties": {
                        "args": {
                            "type": "object",
                            "required": list(needed),
                            "properties": needed | optional,
                            "additionalProperties": False,
                        }
                    }
                },
            }
            for name, (needed, optional) in ARGS.items()
        ],
    }
