"""The schemas of the exports (docs/schema/, firmware/tools/schemas.py): a journal's hand row,
`mjtable export hands` (jsonl and mjai), `mjtable export sheet` (JSON, and CSV by row)."""

from engine.seats import LETTERS
from engine.session import HandRecord
from engine.stage import Standing
from firmware.audit import sheet as export_sheet
from firmware.audit import sheet_csv
from firmware.tools.schema_types import DRAFT, SEAT, TILE, of_dataclass

NUMBER, WHOLE, TEXT, FLAG = (
    {"type": "number"},
    {"type": "integer"},
    {"type": "string"},
    {"type": "boolean"},
)
NULL = {"type": "null"}
FOUR = {"type": "array", "items": WHOLE, "minItems": 4, "maxItems": 4}  # by seat or by player
SIDE = {"enum": list(LETTERS)}  # a round's wind, E S W N
PATTERN = {"type": "array", "prefixItems": [TEXT, WHOLE], "minItems": 2, "maxItems": 2}


def either(*schemas: dict) -> dict:
    return {"anyOf": list(schemas)}


def strict(required: dict, optional: dict | None = None) -> dict:
    """An object of these properties, none other."""
    return {
        "type": "object",
        "required": list(required),
        "properties": required | (optional or {}),
        "additionalProperties": False,
    }


def deal_schema(public: bool) -> dict:
    """A journal's `hand` row (firmware/journal/store.py `hand`): what rebuilds the Table. The
    public form has no walls (their order is concealed until WallRevealed)."""
    lanes = {
        "type": "array",
        "items": {"type": "array", "items": TILE},
        "minItems": 4,
        "maxItems": 4,
    }
    fields = {"ruleset": TEXT, "hand_number": WHOLE, "chips": either(FOUR, NULL), "t": NUMBER}
    fields |= {"doubling": FLAG, "last_deal": FLAG}
    optional = {"tile_set": {"enum": ["A", "B"]}, "table": TEXT, "wall_time": TEXT}
    schema = strict(fields | ({} if public else {"walls": lanes}), optional)
    return schema | ({"properties": schema["properties"] | {"walls": False}} if public else {})


def hands_line() -> dict:
    """A line of `mjtable export hands --format jsonl` (firmware/audit/hands.py `records`)."""
    head = {"seq": {"type": "integer", "minimum": 1}, "hand": either(WHOLE, NULL)}
    return {
        "$schema": DRAFT,
        "title": "A line of mjtable export hands --format jsonl",
        "oneOf": [
            strict(head | {"kind": {"const": "hand"}, "deal": {"$ref": "deal.json"}}),
            strict(
                head
                | {"kind": {"enum": ["input", "output", "device"]}, "event": {"$ref": "event.json"}}
            ),
        ],
    }


PAI = {"type": "string", "pattern": "^([1-9][mps]|[ESWNPFC])$"}  # mjai's tiles, red fives none
ACTOR = SEAT  # mjai's players 0..3
PAIS = {"type": "array", "items": PAI}
# mjai's events (the riichi tools' log format) and the fields each must have.
MJAI: dict[str, dict] = {
    "start_game": {},
    "start_kyoku": {
        "bakaze": {"enum": ["E", "S", "W", "N"]},
        "dora_marker": PAI,
        "kyoku": {"type": "integer", "minimum": 1, "maximum": 4},
        "honba": WHOLE,
        "kyotaku": WHOLE,
        "oya": ACTOR,
        "scores": FOUR,
        "tehais": {"type": "array", "items": PAIS, "minItems": 4, "maxItems": 4},
    },
    "tsumo": {"actor": ACTOR, "pai": PAI},
    "dahai": {"actor": ACTOR, "pai": PAI, "tsumogiri": FLAG},
    "chi": {"actor": ACTOR, "target": ACTOR, "pai": PAI, "consumed": PAIS},
    "pon": {"actor": ACTOR, "target": ACTOR, "pai": PAI, "consumed": PAIS},
    "daiminkan": {"actor": ACTOR, "target": ACTOR, "pai": PAI, "consumed": PAIS},
    "kakan": {"actor": ACTOR, "pai": PAI, "consumed": PAIS},
    "ankan": {"actor": ACTOR, "consumed": PAIS},
    "dora": {"dora_marker": PAI},
    "reach": {"actor": ACTOR},
    "reach_accepted": {"actor": ACTOR},
    "hora": {"actor": ACTOR, "target": ACTOR, "deltas": FOUR, "scores": FOUR},
    "ryukyoku": {"deltas": FOUR, "scores": FOUR},
    "end_kyoku": {},
    "end_game": {},
    "none": {"mjtable_note": TEXT},  # read past by mjai's tools: what their format cannot say
}


def mjai_line() -> dict:
    """A line of `mjtable export hands --format mjai`: an mjai event with the fields its type
    needs (more are allowed: mjai's consumers read what they know)."""
    return {
        "$schema": DRAFT,
        "title": "A line of mjtable export hands --format mjai",
        "type": "object",
        "required": ["type"],
        "properties": {"type": {"enum": list(MJAI)}},
        "allOf": [
            {
                "if": {"properties": {"type": {"const": kind}}},
                "then": {"required": list(needed), "properties": needed},
            }
            for kind, needed in MJAI.items()
        ],
    }


def sheet_document() -> dict:
    """`mjtable export sheet --format json`, the desk's sheet.json and the bus's `sheet`
    (firmware/audit/sheet.py `sheet`)."""
    record = of_dataclass(HandRecord)
    record["properties"] |= {"winners": {"type": "array", "items": SEAT}, "dealer": SEAT}
    record["properties"] |= {"east": either(SEAT, NULL), "result": {"enum": ["win", "draw"]}}
    win = strict(
        {"winner": SEAT, "discarder": either(SEAT, NULL), "value": either(WHOLE, NULL)}
        | {"patterns": {"type": "array", "items": PATTERN}}
    )
    player = strict({"name": TEXT, "federation_id": either(TEXT, NULL)})
    offence = strict(
        {"player": either(SEAT, NULL), "offence": TEXT, "rule": TEXT, "points": WHOLE}
        | {"effect": TEXT, "to": either(SEAT, NULL), "dead": FLAG, "reason": TEXT}
        | {"revoked": FLAG, "revoked_reason": either(TEXT, NULL)}
    )
    names = {"type": "array", "items": TEXT, "minItems": 4, "maxItems": 4}
    line = strict(
        record["properties"]
        | {"round": SIDE, "started": either(TEXT, NULL)}
        | {"wins": {"type": "array", "items": win}}
        | {"names": names, "federation_ids": {"type": "array", "items": either(TEXT, NULL)}}
        | {"seating": {"type": "array", "items": SEAT}, "held": either(FOUR, NULL)}
        | {"offences": {"type": "array", "items": {"$ref": "#/$defs/offence"}}}
        | {"zero_sum": strict({"ok": FLAG, "problems": {"type": "array", "items": TEXT}})}
        | {"confirmed": FLAG, "changed_since_confirmed": FLAG}
        | {"signed_by": {"type": "array", "items": TEXT}}
    )
    game = strict(
        {"hands": WHOLE, "ended": TEXT, "chips": FOUR, "held": FOUR, "dead": WHOLE}
        | {"seating": {"type": "array", "items": SEAT}},
        {"standings": {"type": "array", "items": of_dataclass(Standing)}},
    )
    signature = strict({"hand": WHOLE, "referee": TEXT, "journal_head": TEXT})
    signature["properties"] |= {"wall_time": either(TEXT, NULL)}
    signature["required"] += ["wall_time"]
    by_player = strict(
        {"person": SEAT, "hand": WHOLE, "via": {"enum": ["button", "screen"]}}
        | {"journal_head": TEXT, "wall_time": TEXT, "name": TEXT}
    )
    document = strict(
        {"sheet": {"const": export_sheet.FORMAT}, "session_id": either(TEXT, NULL)}
        | {"table": either(TEXT, NULL)}
        | {"ruleset": either(TEXT, NULL), "ruleset_title": either(TEXT, NULL)}
        | {"players": {"type": "array", "items": {"$ref": "#/$defs/player"}}}
        | {"hands": {"type": "array", "items": {"$ref": "#/$defs/line"}}}
        | {"games": {"type": "array", "items": {"$ref": "#/$defs/game"}}}
        | {"signatures": {"type": "array", "items": signature}}
        | {"player_signatures": {"type": "array", "items": by_player}}
        | {"zero_sum": FLAG, "in_play": either(WHOLE, NULL)}
        | {"key_fingerprint": either(TEXT, NULL), "final_head": either(TEXT, NULL)},
        {"journal": TEXT},  # the journal's file name; the bus's sheet has none
    )
    defs = {"record": record, "line": line, "player": player, "offence": offence, "game": game}
    return {"$schema": DRAFT, "title": "An mjtable score sheet"} | document | {"$defs": defs}


def sheet_csv_row() -> dict:
    """A row of `mjtable export sheet --format csv` read with its header (csv.DictReader):
    every column of firmware/audit/sheet_csv.py COLUMNS, each a text."""
    columns: dict[str, dict] = {name: TEXT for name in sheet_csv.COLUMNS}
    columns["hand"] = {"type": "string", "pattern": "^[1-9][0-9]*$"}
    columns["round"] = SIDE
    columns["started_utc"] = {"type": "string", "pattern": "^([0-9-]{10} [0-9:.]+)?$"}
    return {"$schema": DRAFT, "title": "A row of the sheet's CSV, by its header"} | strict(columns)


def documents() -> dict[str, dict]:
    return {
        "deal.json": {"$schema": DRAFT, "title": "A journal's hand row"} | deal_schema(False),
        "public-deal.json": {"$schema": DRAFT, "title": "A hand row, public"} | deal_schema(True),
        "hands-line.json": hands_line(),
        "mjai-line.json": mjai_line(),
        "sheet.json": sheet_document(),
        "sheet-csv-row.json": sheet_csv_row(),
    }
