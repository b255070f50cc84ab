"""Issue 11, "Done when": after the restructuring, `mjtable run --seed S` plays the same game as
before for the same seed.

tests/data/v2-*-seed*.sqlite were journaled by the main before the restructuring with the
command lines below (tests/firmware/journal/test_migration.py reads them as schema-2 journals). The
CCM game is
tests/data/v3-ccm-seed3.sqlite since session 8, journaled with the same command line once the
table found 夾絕張 off another player's pung itself (issue 13 item 3) and the simulated CCM
players began to aim for fans (issue 13): the game is another from its first calls on
(v2-ccm-seed3 has the old one).
tests/data/v3-wsom-seed11.sqlite was journaled by main at 92d4394, the last commit before
firmware/ went into packages (issue 29, "Done when": the same game as before the restructuring
for the same seed, and its journal replayed with no mismatch).
A run now must journal the same hands (walls, chips, doubling), the same
engine inputs and the same outputs in the same order; only the timestamps may differ (table
time is the simulation's, but a row's `t` is not what this test is about), a hand row's
`tile_set`, which the journal has held since (issue 14: a hand taken up after a power cut), and
the fields events have had added since (their `ADDED`).
"""

import json
import sqlite3
from pathlib import Path

import pytest

from engine import events as ev
from firmware.cli import main

DATA = Path(__file__).resolve().parents[2] / "data"
GAMES = {
    "v2-wsom-seed7.sqlite": ["--seed", "7", "--hands", "2", "--faults", "jam=1,lost=1"],
    "v3-wsom-seed11.sqlite": ["--seed", "11", "--hands", "3", "--faults", "jam=1,lost=1"],
    "v3-ccm-seed3.sqlite": [
        "--seed",
        "3",
        "--hands",
        "2",
        "--ruleset",
        "ccm2012",
        "--faults",
        "jam=1",
    ],
}


def game(path: Path) -> list[tuple[str, dict]]:
    """The hand, input and output rows of a journal, each without its timestamp."""
    connection = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    try:
        rows = connection.execute("SELECT kind, json FROM journal ORDER BY seq").fetchall()
    finally:
        connection.close()
    kept = []
    for kind, text in rows:
        if kind in ("hand", "input", "output"):
            data = json.loads(text)
            data.pop("t", None)
            data.pop("tile_set", None)  # journaled since issue 14; these fixtures predate it
            data.pop("table", None)  # a hand's table and time of day: since issue 34
            data.pop("wall_time", None)
            kept.append((kind, _as_old_rows_read(data)))
    return kept


def _as_old_rows_read(data: dict) -> dict:
    """A row without the fields added since the fixtures (an event's `ADDED`, e.g. a chow's
    `shown`, issue 12): the fixtures cannot hold them, the game is compared on the rest."""
    kind = ev.event_type(data["type"]) if "type" in data else None
    added = kind.ADDED if kind is not None else ()
    return {k: v for k, v in data.items() if k not in added}


@pytest.mark.slow  # the whole table over ptys, twice
@pytest.mark.parametrize("fixture", sorted(GAMES))
def test_same_seed_same_game_as_before(fixture, tmp_path, capsys):
    """Issue 11: the restructured service, engine and simulated table play, seed for seed, the
    game today's journals recorded (faults injected included: the jam and the lost tile are
    found and the hands go on as they did)."""
    journal = tmp_path / "now.sqlite"
    options = ["run", "--port", "0", "--speed", "200", "--journal", str(journal)]
    assert main(options + GAMES[fixture]) == 0, capsys.readouterr().err
    before, now = game(DATA / fixture), game(journal)
    assert len(before) > 300
    first = next((i for i, (a, b) in enumerate(zip(before, now, strict=False)) if a != b), None)
    assert first is None and len(now) == len(before), (
        f"the game departs at row {first}: before {before[first] if first is not None else ''}"
        f", now {now[first] if first is not None and first < len(now) else 'nothing'}"
    )


@pytest.mark.parametrize("fixture", sorted(GAMES))
def test_a_journal_of_before_replays_with_no_mismatch(fixture, capsys):
    """Issue 29, "Done when": a journal written by main before the restructuring replays with
    no mismatch (`mjtable replay`, read-only: exit 0 same outputs)."""
    assert main(["replay", str(DATA / fixture)]) == 0, capsys.readouterr()
