"""Every scored example of RULES.md §2 (wsom_examples.jsonl) scores to its expected patterns,
total and payments; pattern-less hands are not legal wins (RULES.md 1.1)."""

import json

import pytest

from engine.scoring import win_from_json
from tests.conftest import WSOM_EXAMPLES

EXAMPLES = [
    json.loads(line)
    for line in WSOM_EXAMPLES.read_text(encoding="utf-8").splitlines()
    if line.strip()
]


@pytest.mark.parametrize("example", EXAMPLES, ids=[e["id"] for e in EXAMPLES])
def test_example_scores_as_expected(wsom, example):
    score = wsom.score(win_from_json(example, wsom.flags))
    assert score.legal == example["wsom_legal"], score.reason
    assert [f"{p.id} {p.name} {p.points}" for p in score.patterns] == example["expected_patterns"]
    assert score.total == example["expected_total"]
    expected = example["expected_payments_wsom"]
    assert (list(score.payments) if score.payments else None) == expected
    if not example["wsom_legal"]:
        assert "RULES.md 1.1" in score.reason
