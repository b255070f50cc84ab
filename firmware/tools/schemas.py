"""docs/schema/: the JSON Schemas of what the table writes and sends, made from the one definition
of each (issue 34): the events' dataclasses (engine/events.py), the sheet's row (engine/session.py
HandRecord), the bus's payloads (firmware/bus/contract.py), with constraints the dataclasses
cannot say (a tile id, a seat) added here by field name. `python -m firmware.tools.schemas`
writes them; tests/firmware/tools/test_schemas.py checks that the files are what it writes, so
they never go stale, and validates a real session's rows, exports and bus messages against them.

Draft 2020-12. Files refer to each other by file name (`event.json#/$defs/Drew`): load them from
one folder. The journal's form (`event.json`) has every field; the public form
(`public-event.json`, the bus and the public history) must not carry a concealed one.
"""

import json
import sys
from dataclasses import MISSING, fields
from pathlib import Path
from typing import get_args, get_type_hints

from engine import events as ev
from engine.penalties import Penalty
from engine.scoring import Score
from firmware.tools import schema_bus, schema_exports
from firmware.tools.schema_types import DRAFT, TEXTS, of_dataclass

FOLDER = Path(__file__).resolve().parents[2] / "docs" / "schema"


def event_schema(cls: type[ev.Event], public: bool) -> dict:
    """One event's schema. In the public form a concealed field (HIDDEN) must be absent, a
    field concealed only in part (a concealed kong's tiles) may be, and an alert's or a
    fault's public words come with it (firmware/texts/public.py)."""
    schema = of_dataclass(cls, optional=frozenset(cls.ADDED))
    schema["properties"] = {"type": {"const": cls.__name__}} | schema["properties"]
    schema["required"] = ["type", *schema["required"]]
    if not public:
        return schema
    concealed = set(cls.HIDDEN)
    partly = {"tiles"} if cls in (ev.KongDeclared, ev.Konged) else set()
    for name in concealed:
        schema["properties"][name] = False
    schema["required"] = [n for n in schema["required"] if n not in concealed | partly]
    if cls is ev.Alert:
        schema["properties"] |= {
            "text": TEXTS,
            "rule_text": TEXTS,  # the rule book's article (firmware/texts/citations.py)
            "penalty": {"anyOf": [{"$ref": "#/$defs/public_penalty"}, {"type": "null"}]},
        }
        schema["required"] += ["text", "rule_text"]
    if cls is ev.Fault:
        schema["properties"] |= {"text": TEXTS, "advice_text": TEXTS}
        schema["required"] += ["text", "advice_text"]
    return schema


def events_document(public: bool) -> dict:
    """Every event (engine/events.py's registry), chosen by its `type`."""
    classes = [ev.event_type(name) for name in sorted(ev._TYPES)]
    defs = {cls.__name__: event_schema(cls, public) for cls in classes if cls}
    written_when_set = frozenset(f.name for f in fields(Penalty) if f.default is not MISSING)
    penalty = of_dataclass(Penalty, optional=written_when_set)  # Penalty.to_json: `to`, ...
    defs["penalty"], defs["score"] = penalty, score_schema(Score)
    if public:  # proposed penalty tiles are still concealed: only their count shows
        back = {"const": ev.BACK}
        defs["public_penalty"] = penalty | {
            "properties": penalty["properties"]
            | {
                "penalty_tiles": {"type": "array", "items": back},
                "offence_text": TEXTS,
                "rule_text": TEXTS,
            },
            "required": [*penalty["required"], "offence_text", "rule_text"],
        }
    names = sorted(cls.__name__ for cls in classes if cls)
    return {
        "$schema": DRAFT,
        "title": ("A public event" if public else "A journaled event") + " of mjtable",
        "description": (
            "An event as the public may see it (public_json: no concealed tile), as the bus "
            "and the public history carry it."
            if public
            else "An event as the journal keeps it (to_json), every field; engine/events.py."
        ),
        "type": "object",
        "required": ["type"],
        "properties": {"type": {"enum": names}},
        "allOf": [
            {"if": {"properties": {"type": {"const": n}}}, "then": {"$ref": f"#/$defs/{n}"}}
            for n in names
        ],
        "$defs": defs,
    }


def score_schema(score: type) -> dict:
    """A win's score (engine/scoring.py Score.to_json): its patterns as objects."""
    schema = of_dataclass(score)
    schema["properties"]["patterns"] = {
        "type": "array",
        "items": of_dataclass(get_args(get_type_hints(score)["patterns"])[0]),
    }
    return schema


def documents() -> dict[str, dict]:
    """Every file of docs/schema/ by name, as this code makes them."""
    made = {"event.json": events_document(False), "public-event.json": events_document(True)}
    return made | schema_exports.documents() | schema_bus.documents()


def text(document: dict) -> str:
    """A file's text: stable, so that a change shows as a diff."""
    return json.dumps(document, indent=2, ensure_ascii=False, sort_keys=False) + "\n"


def write(folder: Path = FOLDER) -> list[str]:
    """Write every file (removing none): the names written."""
    folder.mkdir(parents=True, exist_ok=True)
    made = documents()
    for name, document in made.items():
        (folder / name).write_text(text(document), encoding="utf-8")
    return sorted(made)


def main(argv: list[str]) -> int:
    folder = Path(argv[0]) if argv else FOLDER
    for name in write(folder):
        print(folder / name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
