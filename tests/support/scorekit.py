"""The WSOM example hands (tests/data/wsom_examples.jsonl) as `mjtable score` reads them, and
a hand typed as a user types it."""

import json

from tests.conftest import WSOM_EXAMPLES

EXAMPLE_LINES = [
    line for line in WSOM_EXAMPLES.read_text(encoding="utf-8").splitlines() if line.strip()
]


EXAMPLES = {e["id"]: e for e in map(json.loads, EXAMPLE_LINES)}


TYPED = "111m 888m 444p 666s 5s"  # seed 000's 125 + 5 + 30 example, self-drawn by South


def variant(example_id: str, **changes) -> str:
    """One example line with some keys changed, as one JSON line."""
    return json.dumps({**EXAMPLES[example_id], **changes}, ensure_ascii=False)
