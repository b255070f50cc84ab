"""`mjtable score` run as a user runs it (RULES.md §1 scoring, §2 JSON form of a hand).

Every test starts the real command in a subprocess from the repository root and looks only at
its exit status, stdout and stderr.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, WSOM_EXAMPLES
from tests.support.runkit import lines, mjtable
from tests.support.scorekit import EXAMPLE_LINES, EXAMPLES, TYPED, variant

RESULT_KEYS = {"legal", "patterns", "total", "payments", "reason"}


def card(result: dict) -> list[str]:
    """A result's patterns in the examples' "id name points" form."""
    return [f"{p['id']} {p['name']} {p['points']}" for p in result["patterns"]]


def assert_scored_as_expected(result: dict, example: dict) -> None:
    assert RESULT_KEYS <= set(result) <= RESULT_KEYS | {"id"}
    assert result["legal"] == example["wsom_legal"], result["reason"]
    assert card(result) == example["expected_patterns"]
    assert result["total"] == example["expected_total"]
    assert result["payments"] == example["expected_payments_wsom"]


# --- the examples of RULES.md §2 ----------------------------------------------------------------


@pytest.fixture(scope="module")
def examples_run():
    """All of wsom_examples.jsonl through `mjtable score --json -` at once."""
    run = mjtable("score", "--json", "-", stdin="\n".join(EXAMPLE_LINES) + "\n")
    return run, [json.loads(line) for line in lines(run.stdout)]


def test_examples_file_gives_one_result_line_per_hand(examples_run):
    """RULES.md §2: each JSON line of wsom_examples.jsonl gives exactly one result line, in the
    same order, and the run succeeds."""
    run, results = examples_run
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""
    assert [r["id"] for r in results] == list(EXAMPLES)


@pytest.mark.parametrize("example_id", list(EXAMPLES))
def test_example_scores_as_expected(examples_run, example_id):
    """RULES.md 1.1-1.3 and §2: patterns ("id name points"), total and WSOM payments of each
    example hand; pattern-less hands are not legal (1.1 5-point minimum)."""
    _, results = examples_run
    result = next(r for r in results if r["id"] == example_id)
    assert_scored_as_expected(result, EXAMPLES[example_id])
    if not EXAMPLES[example_id]["wsom_legal"]:
        assert result["reason"]


# --- bad input lines ----------------------------------------------------------------------------


def test_bad_lines_are_named_on_stderr_and_the_rest_still_scored():
    """RULES.md §2 JSON form: a line that is not a hand (not JSON, unknown tile, 15 tiles, unknown
    flag) is reported on stderr with its id and problem, exit status 2, while every good line
    is still scored."""
    bad_tile = dict(EXAMPLES["wsom-ex-066"], id="bad-tile")
    bad_tile["concealed"] = ["0m" if t == "5s" else t for t in bad_tile["concealed"]]
    fifteen = dict(EXAMPLES["wsom-ex-066"], id="fifteen")
    fifteen["concealed"] = fifteen["concealed"] + ["9p"]
    stdin = (
        "\n".join(
            [
                variant("wsom-ex-002"),
                '{"id": "broken", "concealed": [',
                json.dumps(bad_tile),
                json.dumps(fifteen),
                variant("wsom-ex-002", id="bad-flag", flags=["double_wind"]),
                variant("wsom-ex-081"),
            ]
        )
        + "\n"
    )
    run = mjtable("score", "--json", "-", stdin=stdin)

    assert run.returncode == 2
    results = [json.loads(line) for line in lines(run.stdout)]
    assert [r["id"] for r in results] == ["wsom-ex-002", "wsom-ex-081"]
    for result in results:
        assert_scored_as_expected(result, EXAMPLES[result["id"]])
    errors = lines(run.stderr)
    assert len(errors) == 4, run.stderr
    assert "line 2" in errors[0] and "JSON" in errors[0]
    assert "bad-tile" in errors[1] and "0m" in errors[1]
    assert "fifteen" in errors[2] and "15" in errors[2]
    assert "bad-flag" in errors[3] and "double_wind" in errors[3]
    assert "Traceback" not in run.stderr


def test_expect_flags_and_unknown_keys_are_ignored():
    """RULES.md §2: flags starting with `expect_` are annotations for tests and other keys are
    extras, so neither changes the score."""
    example = EXAMPLES["wsom-ex-057"]  # a Final Draw hand: its real flag must still count
    line = variant(
        "wsom-ex-057",
        flags=example["flags"] + ["expect_something_new"],
        table_serial="T-0042",
        referee={"name": "A. Referee"},
    )
    run = mjtable("score", "--json", "-", stdin=line + "\n")
    assert run.returncode == 0, run.stderr
    [result] = [json.loads(out) for out in lines(run.stdout)]
    assert_scored_as_expected(result, example)


def test_json_file_argument():
    """RULES.md §2: `mjtable score --json FILE` reads the JSON lines from a file."""
    run = mjtable("score", "--json", str(WSOM_EXAMPLES))
    assert run.returncode == 0, run.stderr
    results = [json.loads(line) for line in lines(run.stdout)]
    assert [r["id"] for r in results] == list(EXAMPLES)
    for result in results:
        assert_scored_as_expected(result, EXAMPLES[result["id"]])


def test_missing_json_file_is_one_clear_line(tmp_path):
    """`--json FILE` naming a file that does not exist exits 2 and says which file."""
    missing = tmp_path / "hands.jsonl"
    run = mjtable("score", "--json", str(missing))
    assert run.returncode == 2
    assert len(lines(run.stderr)) == 1 and str(missing) in run.stderr


def test_meld_type_that_is_not_a_word_is_a_bad_line():
    """RULES.md §2 JSON form: a meld `type` that is not chow/pung/kong is a bad line like any
    other: named on stderr, exit 2, the following lines still scored."""
    bad = dict(EXAMPLES["wsom-ex-074"], id="list-type")
    bad["melds"] = [dict(m, type=[m["type"]]) for m in bad["melds"]]
    run = mjtable("score", "--json", "-", stdin=json.dumps(bad) + "\n" + EXAMPLE_LINES[1] + "\n")
    assert run.returncode == 2
    assert "list-type" in run.stderr and "Traceback" not in run.stderr
    assert len(lines(run.stdout)) == 1


def test_meld_concealed_must_be_true_or_false():
    """RULES.md §2 JSON form: a meld's `concealed` is true or false; the text "false" is a bad
    line (as a non-boolean self_drawn is), not a concealed set."""
    bad = dict(EXAMPLES["wsom-ex-074"], id="text-concealed")
    bad["melds"] = [dict(m, concealed="false") for m in bad["melds"]]
    run = mjtable("score", "--json", "-", stdin=json.dumps(bad) + "\n")
    assert run.returncode == 2
    assert "text-concealed" in run.stderr and "concealed" in run.stderr
    assert lines(run.stdout) == []


# --- the typed form -----------------------------------------------------------------------------


def test_typed_hand_prints_a_readable_breakdown():
    """RULES.md 1.1 seed example (125 + 5 + 30 = 160) and 1.3 self-draw payment: the typed form
    prints each pattern's name and points, the Total and who pays what."""
    run = mjtable("score", TYPED, "--win", "5s", "--self-drawn", "--seat", "S")
    assert run.returncode == 0, run.stderr
    out = run.stdout.splitlines()
    for name, points in [
        ("Concealed Hand", 5),
        ("All Triplets", 30),
        ("Four Concealed Triplets", 125),
    ]:
        assert any(name in line and line.split()[-1] == str(points) for line in out), name
    [total] = [line for line in out if "Total" in line]
    assert total.split()[-1] == "160"
    [pay] = [line for line in out if line.startswith("Pay")]
    assert pay.split()[1:] == ["E", "-160", "S", "+480", "W", "-160", "N", "-160"]


@pytest.mark.slow  # a second or more: out of the one-minute fast run, in CI's full run
def test_installed_mjtable_script_gives_the_same_breakdown():
    """The `mjtable` console script (what a referee types) runs the same command."""
    script = Path(sys.executable).parent / "mjtable"
    if not script.exists():
        pytest.skip("mjtable is not installed beside this Python (pip install -e .)")
    args = ["score", TYPED, "--win", "5s", "--self-drawn", "--seat", "S"]
    run = subprocess.run([str(script), *args], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout == mjtable(*args).stdout


@pytest.mark.parametrize(
    "args, problem",
    [
        ([], "hand"),
        ([TYPED, "--self-drawn"], "--win"),
        ([TYPED, "--win", "5s"], "--self-drawn"),
        ([TYPED.replace("5s", "0s"), "--win", "5s", "--self-drawn"], "0s"),
        ([TYPED, "--win", "5x", "--self-drawn"], "5x"),
    ],
    ids=["no-hand", "no-win", "no-how", "bad-tile", "bad-win-tile"],
)
@pytest.mark.slow  # a second or more: out of the one-minute fast run, in CI's full run
def test_wrong_command_line_is_one_clear_line(args, problem):
    """A wrong typed command exits 2 with one line naming what is wrong, and no traceback."""
    run = mjtable("score", *args)
    assert run.returncode == 2
    assert run.stdout == ""
    [message] = lines(run.stderr)
    assert message.startswith("mjtable score") and problem in message


# --- broken ruleset files -----------------------------------------------------------------------

RULESET = (REPO / "config" / "rules" / "wsom2006.toml").read_text(encoding="utf-8")


def broken_ruleset(tmp_path: Path, old: str, new: str) -> Path:
    assert old in RULESET
    path = tmp_path / "x.toml"
    path.write_text(RULESET.replace(old, new, 1), encoding="utf-8")
    return path


def score_with(path: Path) -> subprocess.CompletedProcess:
    return mjtable("score", "--ruleset", str(path), "--json", "-", stdin=EXAMPLE_LINES[1] + "\n")


@pytest.mark.parametrize(
    "old,new,entry",
    [
        ("standard_score = 30\n", "", "[scoring] standard_score"),  # missing
        ("limit = 320", 'limit = "none"', "[scoring] limit"),  # a word for a number
    ],
)
def test_broken_ruleset_names_file_and_entry(tmp_path, old, new, entry):
    """A head referee's edited ruleset with a missing or mistyped entry is refused: exit 2,
    naming the file and the entry, before any hand is scored."""
    path = broken_ruleset(tmp_path, old, new)
    run = score_with(path)
    assert run.returncode == 2 and run.stdout == ""
    [message] = lines(run.stderr)
    assert str(path) in message and entry in message


def test_ruleset_with_toml_syntax_error_names_file_and_line(tmp_path):
    """A TOML syntax error in the ruleset exits 2 naming the file and where the error is."""
    path = broken_ruleset(tmp_path, "limit = 320", "limit = = 320")
    line_number = path.read_text(encoding="utf-8").splitlines().index("limit = = 320") + 1
    run = score_with(path)
    assert run.returncode == 2 and run.stdout == ""
    [message] = lines(run.stderr)
    assert str(path) in message and f"line {line_number}" in message
