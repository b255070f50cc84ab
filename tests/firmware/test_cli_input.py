"""Issue 20 item 9: every command-line input of run, simulate, score, replay and journal
backup that is not what it should be (a directory, a missing file, a path through a file,
a file that is not UTF-8 or not TOML, nan/inf/negative numbers, absurd counts) is refused
with exit 2 and one line naming the option or the line and the problem, never a traceback;
and `score --json` reports a bad line with its number and goes on with the next.

Each case runs `firmware.cli.main` in-process, as `mjtable` would, and refuses before any
table starts."""

import io
import json
import sys

import pytest

from tests.conftest import REPO, WSOM_EXAMPLES
from tests.support.runkit import refused, status_and_stderr

README = str(REPO / "README.md")
GOOD_LINE = WSOM_EXAMPLES.read_bytes().splitlines()[0]
GOOD_ID = json.loads(GOOD_LINE)["id"]


@pytest.fixture
def files(tmp_path):
    """A directory, a missing file, a path through a file, a non-UTF-8 and a non-TOML file."""
    (tmp_path / "latin1.toml").write_bytes('[table]\nname = "caf\xe9"\n'.encode("latin-1"))
    (tmp_path / "broken.toml").write_text("[table\nname = \n", encoding="utf-8")
    (tmp_path / "text.sqlite").write_text("not a database\n" * 50, encoding="utf-8")
    return {
        "dir": str(tmp_path),
        "missing": str(tmp_path / "none.toml"),
        "through_file": README + "/x.toml",
        "latin1": str(tmp_path / "latin1.toml"),
        "not_toml": str(tmp_path / "broken.toml"),
        "text": str(tmp_path / "text.sqlite"),
    }


RUN = ["run", "--port", "0"]

# (which file of `files`, the words the message must have)
TOML_CASES = {
    "dir": "Is a directory",
    "missing": "no such file",
    "through_file": "Not a directory",
    "latin1": "not UTF-8",
    "not_toml": "not valid TOML",
}


@pytest.mark.parametrize("which", TOML_CASES)
def test_run_profile_that_is_no_toml_file(capsys, files, tmp_path, which):
    """Issue 20 item 9: `run --profile` a directory, a missing file, a path through a file, a
    non-UTF-8 or non-TOML file: exit 2, the option, the file and the problem; no journal."""
    journal = tmp_path / "never.sqlite"
    line = refused(capsys, *RUN, "--journal", str(journal), "--profile", files[which])
    assert "--profile" in line and files[which] in line and TOML_CASES[which] in line
    assert not journal.exists()


@pytest.mark.parametrize("command", ["run", "simulate", "score"])
@pytest.mark.parametrize("which", TOML_CASES)
def test_ruleset_that_is_no_toml_file(capsys, files, tmp_path, command, which):
    """Issue 20 item 9: `--ruleset` of run, simulate and score a directory, a missing file, a
    path through a file, a non-UTF-8 or non-TOML file: exit 2, the file and the problem."""
    extra = {
        "run": ["--port", "0", "--journal", str(tmp_path / "never.sqlite")],
        "simulate": [],
        "score": ["--json", str(WSOM_EXAMPLES)],
    }[command]
    line = refused(capsys, command, *extra, "--ruleset", files[which])
    assert files[which] in line and TOML_CASES[which] in line
    assert not (tmp_path / "never.sqlite").exists()


@pytest.mark.parametrize("command", ["run", "simulate"])
@pytest.mark.parametrize(
    "which, words",
    [
        ("dir", "is a directory"),
        ("through_file", "is a file, not a folder"),
        ("text", "not a"),
    ],
)
def test_journal_path_that_cannot_be_a_journal(capsys, files, command, which, words):
    """Issue 20 item 9: `--journal README.md/x.sqlite` (a file where its folder should be), a
    directory, a text file: exit 2 with --journal and the problem."""
    path = files[which].replace(".toml", ".sqlite")
    extra = ["--port", "0"] if command == "run" else []
    line = refused(capsys, command, *extra, "--journal", path)
    assert "--journal" in line and words in line


@pytest.mark.parametrize(
    "argv, named",
    [
        (["simulate", "--slow-seat", "E:nan"], "--slow-seat"),
        (["simulate", "--slow-seat", "E:inf"], "--slow-seat"),
        (["simulate", "--slow-seat", "E:-20"], "--slow-seat"),
        (["simulate", "--slow-seat", "E:1e9"], "--slow-seat"),
        (["simulate", "--slow-seat", "X:20"], "--slow-seat"),
        (["simulate", "--mistakes", "nan"], "--mistakes"),
        (["simulate", "--mistakes", "-0.5"], "--mistakes"),
        (["simulate", "--hands", "99999999999999"], "--hands"),
        (["simulate", "--hands", "-3"], "--hands"),
        (["simulate", "--hands", "1" * 5000], "--hands"),
        (["simulate", "--journal", ""], "--journal"),
        ([*RUN, "--hands", "99999999999999"], "--hands"),
        ([*RUN, "--hands", "nan"], "--hands"),
        ([*RUN, "--speed", "nan"], "--speed"),
        ([*RUN, "--speed", "inf"], "--speed"),
        ([*RUN, "--speed", "-1"], "--speed"),
        ([*RUN, "--faults", "jam=1000000"], "jam"),
        ([*RUN, "--faults", "drop=nan"], "drop"),
        ([*RUN, "--seed", "1" * 5000], "--seed"),
        ([*RUN, "--journal", ""], "--journal"),
        ([*RUN, "--ruleset", ""], "--ruleset"),
        (["score", "--json", ""], "--json"),
        (["replay", ""], "journal"),
    ],
    ids=lambda v: " ".join(v)[:40] if isinstance(v, list) else v,
)
def test_numbers_and_counts_out_of_range(capsys, argv, named):
    """Issue 20 item 9: nan, inf, negative numbers, absurd counts and empty paths are refused
    by the option that takes them, with what it takes; nothing is played."""
    line = refused(capsys, *argv)
    assert named in line
    assert len(line) < 300  # a 5000-digit value is not echoed whole


@pytest.mark.parametrize(
    "which, words",
    [
        ("dir", "is a directory"),
        ("missing", "no such file"),
        ("through_file", "no such file"),
        ("text", "not a journal"),
        ("latin1", "not a journal"),
    ],
)
def test_replay_of_what_is_no_journal(capsys, files, which, words):
    """Issue 20 item 9: `replay` of a directory, a missing file, a path through a file, a text
    or non-UTF-8 file: exit 2, the file and the problem."""
    line = refused(capsys, "replay", files[which])
    assert line.startswith("mjtable replay:") and words in line


@pytest.mark.parametrize(
    "which, words",
    [("dir", "Is a directory"), ("missing", "No such file"), ("through_file", "Not a directory")],
)
def test_score_json_file_that_cannot_be_read(capsys, files, which, words):
    """Issue 20 item 9: `score --json` a directory, a missing file, a path through a file:
    exit 2 naming --json, the file and the problem."""
    line = refused(capsys, "score", "--json", files[which])
    assert "--json" in line and files[which] in line and words in line


BAD_LINES = [
    (b"[" * 100_000 + b"]" * 100_000, "line 2: nested too deeply"),
    (b'{"id": "deep", "concealed": ' + b"[" * 900 + b"]" * 900 + b"}", "deep (line 3)"),
    (b'{"id": ' + b"7" * 5000 + b"}", "line 4: a number of more than"),
    (b'{"id": "caf\xe9", "concealed": []}', "line 5: not UTF-8 text (byte 0xe9 at column 12)"),
    (b'{"id": "\\ud800", "concealed": []}', "line 6: id must be a string"),
]


def score_stream(capsys, monkeypatch, data: bytes) -> tuple[int, list[dict], list[str]]:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
    status, out, err = status_and_stderr(capsys, ["score", "--json", "-"])
    assert "Traceback" not in err
    return status, [json.loads(line) for line in out.splitlines()], err.splitlines()


def test_score_json_bad_lines_are_reported_and_the_stream_goes_on(capsys, monkeypatch):
    """Issue 20 item 9: in `score --json -`, a deeply nested line (past the JSON reader's
    depth, and within it but past the hand's), a 5000-digit number (Python's int-string
    limit), non-UTF-8 bytes and an id no output can encode: each is one stderr line with its
    line number, and the good lines before and after are still scored; exit 2."""
    data = b"\n".join([GOOD_LINE, *(line for line, _ in BAD_LINES), GOOD_LINE]) + b"\n"
    status, results, errors = score_stream(capsys, monkeypatch, data)
    assert status == 2
    assert [r["id"] for r in results] == [GOOD_ID, GOOD_ID]
    assert len(errors) == len(BAD_LINES), errors
    for error, (_, words) in zip(errors, BAD_LINES, strict=True):
        assert error.startswith("mjtable score: ") and words in error and len(error) < 400


def test_score_json_file_not_utf8_is_reported_line_by_line(capsys, tmp_path):
    """Issue 20 item 9: a hands file saved as UTF-16 is no traceback: each of its lines is
    reported as not UTF-8 or not JSON, with its number, and nothing is scored."""
    path = tmp_path / "utf16.jsonl"
    path.write_bytes(WSOM_EXAMPLES.read_text(encoding="utf-8").encode("utf-16"))
    status, out, err = status_and_stderr(capsys, ["score", "--json", str(path)])
    assert status == 2 and out == "" and "Traceback" not in err
    errors = err.splitlines()
    assert errors[0] == "mjtable score: line 1: not UTF-8 text (byte 0xff at column 1)"
    assert all(e.startswith("mjtable score: line ") for e in errors)
    # one per line, and one for the 0 byte UTF-16 puts after the last newline
    assert len(errors) == len(WSOM_EXAMPLES.read_bytes().splitlines()) + 1
