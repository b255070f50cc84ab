"""Issue 34: the mjai export is taken as it is by the riichi tools people use, from PyPI (pinned
in pyproject.toml's dev extra): Mortal's libriichi (the engine of Mortal, mjai-reviewer and
Akagi, inside the `mjai` package) and riichienv, over a 16-hand WSOM session that the simulated
table plays with faults, so that alerts, penalties and rulings are notes between the moves.

Both judge by riichi's rules, which WSOM's are not in one respect the export cannot change: a
riichi win needs a yaku and may not be furiten, where a WSOM win needs WSOM's patterns and has
no furiten (RULES.md 1.1, 3.7). A win they refuse must still complete the hand by their own
count (libriichi: the tile is among the hand's waits; riichienv: shanten -1), which is what
the two games share.
"""

import json

import pytest
import riichienv
from mjai.bot.consts import MJAI_VEC34_TILES
from mjai.mlibriichi.state import PlayerState

from firmware.audit import hands as export_hands
from firmware.journal.store import Journal
from firmware.resources import load_ruleset
from firmware.sim.simulate import Game

HANDS = 16
ACTS = {"dahai", "chi", "pon", "daiminkan", "ankan", "kakan", "hora"}  # a player's own doing

pytestmark = pytest.mark.slow  # the table plays 16 hands first (about 30 s)


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """The mjai file of a 16-hand WSOM session, as `mjtable export hands` writes it."""
    path = tmp_path_factory.mktemp("mjai") / "journal.sqlite"
    with Journal(path) as journal:
        game = Game(load_ruleset("wsom2006"), 11, 0.05, journal=journal)
        for _ in range(HANDS):
            game.play_hand()
    file = path.with_suffix(".mjai")
    file.write_bytes(export_hands.export(path, "mjai"))
    lines = [json.loads(line) for line in file.read_text(encoding="utf-8").splitlines()]
    assert sum(line["type"] == "start_kyoku" for line in lines) == HANDS
    assert {line["type"] for line in lines} >= ACTS  # every kind of move, wins self-drawn too
    assert any(line["type"] == "hora" and line["actor"] == line["target"] for line in lines)
    assert any(line.get("mjtable_note") == "event" for line in lines)  # faults were played
    return file, lines


def test_issue_34_mortal_s_libriichi_takes_every_event_and_every_move(exported):
    """Each seat's libriichi PlayerState takes every line (a refused one raises, a tile it
    cannot read panics: the `?` dora marker did), and finds each move the player's to make
    where it was made: a note never stands between a decision and what was done."""
    _, lines = exported
    states = [PlayerState(player) for player in range(4)]
    for n, line in enumerate(lines, 1):
        text = json.dumps(line)
        if line["type"] in ACTS:
            state = states[line["actor"]]
            try:
                state.validate_reaction(text)
            except RuntimeError as err:
                assert line["type"] == "hora", f"line {n}: {text}: {err}"
                if line["target"] == line["actor"]:  # self-drawn: the tile is in his hand
                    complete = state.shanten == -1
                else:
                    complete = state.waits[MJAI_VEC34_TILES.index(line["pai"])]
                assert complete, f"line {n}: not a complete hand: {text}"
        for state in states:
            state.update(text)


def _move(event: dict, keys) -> tuple:
    """A move as its `keys` say it, each tile by its kind: riichienv always plays with red
    fives and names one copy of each `5xr` (SOFTWARE.md §8 19), which WSOM has not."""

    def kind(tile: str) -> str:
        return tile.removesuffix("r")

    said = {k: event[k] for k in keys}
    if "pai" in said:
        said["pai"] = kind(said["pai"])
    if "consumed" in said:
        said["consumed"] = sorted(kind(t) for t in said["consumed"])
    return tuple(said.items())


def _same_move(recorded: dict, legal: dict) -> bool:
    said = [k for k in ("pai", "consumed") if k in recorded and k in legal]  # a hora: neither
    keys = ["type", "actor", *said]
    return _move(recorded, keys) == _move(legal, keys)


def test_issue_34_riichienv_replays_the_log_with_every_move_among_its_legal_actions(exported):
    """riichienv reads the file as a log of 16 kyoku, and replaying it event by event finds
    each recorded move among the player's legal actions at that point."""
    file, lines = exported
    assert riichienv.MjaiReplay.from_jsonl(str(file)).num_rounds() == HANDS
    rule = riichienv.GameRule.default_tenhou()
    rule.kuikae_forbidden = False  # riichi's ban on discarding the tile just chowed: not WSOM's
    env = riichienv.RiichiEnv(rule=rule)
    for n, line in enumerate(lines, 1):
        if line["type"] in ACTS:
            observation = env.get_observation(line["actor"])
            legal = [json.loads(a.to_mjai()) for a in observation.legal_actions()]
            if not any(_same_move(line, move) for move in legal):
                assert line["type"] == "hora", f"line {n}: {line} not among {legal}"
                tiles = list(env.hands[line["actor"]])
                if line["target"] != line["actor"]:  # on a discard: not in his hand yet
                    tiles.append(riichienv.parse_tile(line["pai"]))
                assert riichienv.calculate_shanten(tiles) == -1, f"line {n}: not complete"
        env.apply_event(line)
