"""The words docs/schema/'s files are made of (firmware/tools/schemas.py): a Python type hint
or a dataclass as a JSON Schema, and what a field's type cannot say (a tile id, a seat, an
event's words and forms), by its name."""

import types
from dataclasses import fields, is_dataclass
from typing import Any, Union, get_args, get_origin, get_type_hints

DRAFT = "https://json-schema.org/draft/2020-12/schema"

TILE = {"type": "integer", "minimum": 0, "maximum": 143}  # engine/tiles.py: a physical tile id
SEAT = {"type": "integer", "minimum": 0, "maximum": 3}  # E S W N of the hand, or a person 0..3
HEX64 = {"type": "string", "pattern": "^[0-9a-f]{64}$"}  # a SHA-256 digest in hex
TEXTS = {  # the public's words in each language (firmware/texts/notices.py `both`)
    "type": "object",
    "required": ["en", "zh"],
    "properties": {"en": {"type": "string"}, "zh": {"type": "string"}},
    "additionalProperties": False,
}

# Fields whose whole numbers are tiles or seats, whatever event they are in (engine/events.py).
TILE_FIELDS = {"tile", "tiles", "win_tile", "claimed_tile", "freed", "penalty_tiles"}
TILE_FIELDS |= {"hands", "rivers", "melds", "wall"}
SEAT_FIELDS = {"seat", "from_seat", "to", "responsible", "person", "fault_seat"}

# What a field's type cannot say, by (event, field): its words, its range, its form.
NARROWER: dict[tuple[str, str], dict] = {
    ("ClaimDeclared", "claim"): {"enum": ["chow", "pung", "kong", "win"]},
    ("Claimed", "claim"): {"enum": ["chow", "pung", "kong"]},
    ("Konged", "kind"): {"enum": ["concealed", "added", "melded"]},
    ("DiceRolled", "dice"): {
        "type": "array",
        "items": {"type": "integer", "minimum": 1, "maximum": 6},
    },
    ("DiceRolled", "source"): {"enum": ["electronic", "physical", "referee"]},
    ("WallBroken", "dice"): {
        "type": "array",
        "items": {"type": "integer", "minimum": 1, "maximum": 6},
    },
    ("SeatsDrawn", "source"): {"enum": ["electronic", "tiles"]},
    ("SeatsChanged", "source"): {"enum": ["table", "referee"]},
    ("SeatsChanged", "seating"): {"type": "array", "items": SEAT, "minItems": 4, "maxItems": 4},
    ("PlayerSigned", "via"): {"enum": ["button", "screen"]},
    ("HandRealigned", "state"): {"enum": ["discard", "claim_window"]},
    ("WallSealed", "digest"): HEX64,
    ("WallRevealed", "digest"): HEX64,
    ("WallSealed", "nonce"): HEX64,
    ("WallRevealed", "nonce"): HEX64,
    ("HeadSigned", "head"): HEX64,
    ("HeadSigned", "public_key"): HEX64,
    ("HeadSigned", "signature"): {"type": "string", "pattern": "^[0-9a-f]{128}$"},
    ("SheetSigned", "journal_head"): HEX64,
    ("PlayerSigned", "journal_head"): HEX64,
    ("RegistriesRecorded", "digests"): {"type": "object", "additionalProperties": HEX64},
    ("Won", "score"): {"$ref": "#/$defs/score"},
    ("WinRescored", "score"): {"$ref": "#/$defs/score"},
    ("Alert", "penalty"): {"anyOf": [{"$ref": "#/$defs/penalty"}, {"type": "null"}]},
    ("ScoreConfirmed", "row"): {"$ref": "sheet.json#/$defs/record"},
    ("SheetSigned", "rows"): {"type": "array", "items": {"$ref": "sheet.json#/$defs/record"}},
    ("PlayersEntered", "players"): {
        "type": "array",
        "minItems": 4,
        "maxItems": 4,
        "items": {"$ref": "sheet.json#/$defs/player"},
    },
}
for _sealed in ("WallSealed", "WallRevealed"):  # each lane, each tile [kind, tag hex, tile id]
    NARROWER[(_sealed, "walls")] = {
        "type": "array",
        "items": {
            "type": "array",
            "items": {
                "type": "array",
                "prefixItems": [{"type": "string"}, {"type": "string"}, TILE],
                "minItems": 3,
                "maxItems": 3,
            },
        },
    }


def of_type(hint: Any) -> dict:
    """A Python type hint as a JSON Schema: tuples and lists as arrays, dicts as objects."""
    origin, args = get_origin(hint), get_args(hint)
    simple = {bool: "boolean", int: "integer", float: "number", str: "string"}
    if hint is Any:
        return {}
    if hint is type(None):
        return {"type": "null"}
    if hint in simple:
        return {"type": simple[hint]}
    if origin in (Union, types.UnionType):
        return {"anyOf": [of_type(a) for a in args]}
    if hint in (tuple, list) or origin in (tuple, list):
        items = args[0] if args else Any
        return {"type": "array"} | ({"items": of_type(items)} if items is not Any else {})
    if hint is dict or origin is dict:
        value = args[1] if args else Any
        return {"type": "object"} | (
            {"additionalProperties": of_type(value)} if value is not Any else {}
        )
    if isinstance(hint, type) and is_dataclass(hint):
        return of_dataclass(hint)
    raise TypeError(f"no JSON Schema for {hint!r}: say it in firmware/tools/schemas.py")


def _whole_numbers_as(schema: dict, kind: dict) -> dict:
    """`schema` with every whole number in it narrowed to `kind` (a tile, a seat)."""
    if schema.get("type") == "integer":
        return {k: v for k, v in schema.items() if k != "type"} | kind
    out = dict(schema)
    if "items" in out:
        out["items"] = _whole_numbers_as(out["items"], kind)
    if "anyOf" in out:
        out["anyOf"] = [_whole_numbers_as(s, kind) for s in out["anyOf"]]
    return out


def field_schema(owner: str, name: str, hint: Any) -> dict:
    """A field's schema: its type's, narrowed by NARROWER or by what its name says it holds."""
    if (owner, name) in NARROWER:
        return NARROWER[(owner, name)]
    schema = of_type(hint)
    if name in TILE_FIELDS:
        return _whole_numbers_as(schema, TILE)
    if name in SEAT_FIELDS:
        return _whole_numbers_as(schema, SEAT)
    return schema


def of_dataclass(cls: type, optional=frozenset()) -> dict:
    """A dataclass's JSON form as `to_json` writes it: every field, none other. Fields in
    `optional` may be absent (an older row's, or one written only when set)."""
    hints = get_type_hints(cls)
    names = [f.name for f in fields(cls)]
    return {
        "type": "object",
        "required": [n for n in names if n not in optional],
        "properties": {n: field_schema(cls.__name__, n, hints[n]) for n in names},
        "additionalProperties": False,
    }


def or_null(schema: dict) -> dict:
    return {"anyOf": [schema, {"type": "null"}]}
