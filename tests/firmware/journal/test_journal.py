"""The journal (firmware/journal/store.py) and `mjtable replay` (firmware/journal/replay.py):
DESIGN.md's
"the journal records inputs before they are applied; replaying a journal's inputs reproduces
its outputs exactly", the hash chain, crash recovery, and SOFTWARE.md 7.1 / pitfall 26
(WAL with synchronous=FULL)."""

import json
import sqlite3
import subprocess
import sys

import pytest

from firmware.journal.chain import GENESIS, link
from firmware.journal.failures import JournalError
from firmware.journal.replay import replay
from firmware.journal.schema import canonical
from firmware.journal.store import Journal
from firmware.resources import load_ruleset
from firmware.sim.simulate import Game
from tests.conftest import REPO


def journaled_game(path, ruleset="wsom2006", hands=3, seed=7, mistakes=0.05) -> Game:
    with Journal(path) as journal:
        game = Game(load_ruleset(ruleset), seed, mistakes, journal=journal)
        for _ in range(hands):
            game.play_hand()
    game.journal = None
    return game


def rows(path) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        return conn.execute(
            "SELECT seq, kind, json, prev_hash, hash FROM journal ORDER BY seq"
        ).fetchall()


def cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "firmware.cli", *map(str, args)],
        cwd=REPO,
        capture_output=True,
        text=True,
    )


@pytest.fixture(scope="module")
def wsom_journal(tmp_path_factory):
    path = tmp_path_factory.mktemp("journal") / "wsom.db"
    return path, journaled_game(path)


def copy_journal(src, dst):
    with sqlite3.connect(src) as a, sqlite3.connect(dst) as b:
        a.backup(b)
    return dst


@pytest.mark.slow  # a second or more: out of the one-minute fast run, in CI's full run
@pytest.mark.parametrize("ruleset", ["wsom2006", "ccm2012"])
def test_replay_reproduces_outputs_both_rule_books(tmp_path, ruleset):
    """DESIGN.md: replaying a journal's inputs reproduces its outputs exactly — a simulated
    run with deliberate mistakes (alerts, rulings, penalties) in each rule book."""
    path = tmp_path / "j.db"
    game = journaled_game(path, ruleset, hands=3)
    kinds = [r[1] for r in rows(path)]
    outputs = [json.loads(r[2])["type"] for r in rows(path) if r[1] == "output"]
    assert kinds.count("hand") == 3
    assert kinds.count("input") + kinds.count("output") == game.counts["events"]
    assert "Alert" in outputs and "PenaltyApplied" in outputs
    with Journal(path, create=False) as journal:
        assert journal.verify() is None
        result = replay(journal)
    assert (result.hands, result.mismatches, result.recovered) == (3, 0, None)
    assert result.inputs == kinds.count("input") and result.outputs == kinds.count("output")


def test_journaling_does_not_change_the_games(wsom_journal):
    """simulate --journal plays the same games as simulate without it."""
    _, journaled = wsom_journal
    plain = Game(load_ruleset("wsom2006"), 7, 0.05)
    for _ in range(3):
        plain.play_hand()
    assert plain.summary(3, 0) == journaled.summary(3, 0)


def test_rows_are_hash_chained(wsom_journal):
    """journal.py: hash = sha256(prev_hash + json), the first prev_hash 64 zeros, seq 1..n,
    json canonical; each input is journaled before its outputs."""
    path, _ = wsom_journal
    head = GENESIS
    table = rows(path)
    for n, (seq, _kind, text, prev, digest) in enumerate(table, 1):
        assert seq == n and prev == head and digest == link(prev, text)
        assert text == canonical(json.loads(text))
        head = digest
    assert table[0][1] == "hand" and table[1][1] == "input"
    hand = json.loads(table[0][2])
    assert set(hand) == {"ruleset", "hand_number", "walls", "chips", "t", "doubling", "last_deal"}
    assert hand["ruleset"] == "wsom2006" and hand["hand_number"] == 1


@pytest.mark.slow  # a second or more: out of the one-minute fast run, in CI's full run
def test_cli_simulate_journal_then_replay(tmp_path):
    """`mjtable simulate --journal PATH` then `mjtable replay PATH [--json]`: exit 0 and a
    summary of hands, inputs, outputs, mismatches."""
    path = tmp_path / "cli.db"
    sim = cli(
        "simulate",
        "--ruleset",
        "ccm2012",
        "--hands",
        "2",
        "--seed",
        "4",
        "--mistakes",
        "0.05",
        "--json",
        "--journal",
        path,
    )
    assert sim.returncode == 0, sim.stderr
    assert json.loads(sim.stdout)["hands"] == 2
    out = cli("replay", path)
    assert out.returncode == 0, out.stderr
    assert "2 hands" in out.stdout and "0 mismatches" in out.stdout
    summary = json.loads(cli("replay", path, "--json").stdout)
    assert summary["hands"] == 2 and summary["mismatches"] == 0 and summary["inputs"] > 0


def test_tampered_row_is_detected_by_verify_and_replay(wsom_journal, tmp_path):
    """journal.py: editing one row breaks the chain; verify() names that row and
    `mjtable replay` exits 2."""
    path = copy_journal(wsom_journal[0], tmp_path / "t.db")
    seq, _, text, _, _ = next(r for r in rows(path) if r[1] == "output" and r[0] > 50)
    with sqlite3.connect(path) as conn:
        conn.execute(
            "UPDATE journal SET json = ? WHERE seq = ?", (text.replace('"t":', '"t":1', 1), seq)
        )
    with Journal(path, create=False) as journal:
        broken = journal.verify()
    assert broken is not None and broken.seq == seq and "edited" in broken.reason
    out = cli("replay", path)
    assert out.returncode == 2 and f"row {seq}" in out.stderr
    assert "Traceback" not in out.stderr


def test_deleted_middle_row_is_detected(wsom_journal, tmp_path):
    """journal.py: deleting a row inside the chain is detected at the row after it."""
    path = copy_journal(wsom_journal[0], tmp_path / "d.db")
    with sqlite3.connect(path) as conn:
        conn.execute("DELETE FROM journal WHERE seq = 20")
    with Journal(path, create=False) as journal:
        assert journal.verify().seq == 21
    assert cli("replay", path).returncode == 2


def test_rehashed_forgery_is_a_replay_mismatch(wsom_journal, tmp_path):
    """DESIGN.md: an output changed with the chain recomputed after it passes verify() but
    not replay: exit 1, the first mismatch named."""
    path = copy_journal(wsom_journal[0], tmp_path / "f.db")
    table = rows(path)
    target = next(i for i, r in enumerate(table) if r[1] == "output" and i > 30)
    with sqlite3.connect(path) as conn:
        head = table[target - 1][4]
        for seq, _kind, text, _, _ in table[target:]:
            if seq == table[target][0]:
                obj = json.loads(text)
                obj["t"] += 1
                text = canonical(obj)
            digest = link(head, text)
            conn.execute(
                "UPDATE journal SET json = ?, prev_hash = ?, hash = ? WHERE seq = ?",
                (text, head, digest, seq),
            )
            head = digest
    with Journal(path, create=False) as journal:
        assert journal.verify() is None
        result = replay(journal)
    assert result.mismatches == 1 and result.first.seq == table[target][0]
    out = cli("replay", path)
    assert out.returncode == 1 and f"row {table[target][0]}" in out.stdout


@pytest.mark.slow  # a second and more: CI's full run
def test_crash_before_outputs_input_is_reapplied_and_chain_continues(wsom_journal, tmp_path):
    """DESIGN.md: inputs are journaled before they are applied; after a crash the last input,
    without outputs, is re-applied on replay, and reopening the journal continues its chain."""
    path = copy_journal(wsom_journal[0], tmp_path / "c.db")
    table = rows(path)
    last_input = max(r[0] for r in table if r[1] == "input")
    lost = [json.loads(r[2]) for r in table if r[0] > last_input]
    assert lost  # the hand's end: Won or ExhaustiveDraw
    with sqlite3.connect(path) as conn:  # the crash: outputs never written
        conn.execute("DELETE FROM journal WHERE seq > ?", (last_input,))
    with Journal(path, create=False) as journal:
        assert journal.verify() is None
        assert journal.seq == last_input and journal.pending() == json.loads(
            table[-1 - len(lost)][2]
        )
        result = replay(journal)
        assert result.mismatches == 0 and result.recovered == journal.pending()
        assert [o.to_json() for o in result.recovered_outputs] == lost
        assert result.table.ended
        journal.outputs(result.recovered_outputs)  # the service resumes
    with Journal(path, create=False) as journal:
        assert journal.verify() is None and journal.pending() is None
        assert journal.seq == len(table) and journal.head == table[-1][4]
        assert replay(journal).recovered is None
    out = cli("replay", path)
    assert out.returncode == 0 and "0 mismatches" in out.stdout


def test_crash_recovery_shows_in_cli(wsom_journal, tmp_path):
    """`mjtable replay` on a journal cut after an input: exit 0, the re-applied input named."""
    path = copy_journal(wsom_journal[0], tmp_path / "c2.db")
    last_input = max(r[0] for r in rows(path) if r[1] == "input")
    with sqlite3.connect(path) as conn:
        conn.execute("DELETE FROM journal WHERE seq > ?", (last_input,))
    out = cli("replay", path)
    assert out.returncode == 0 and "re-applied" in out.stdout


def test_wal_and_synchronous_full(tmp_path):
    """SOFTWARE.md 7.1, pitfall 26: the journal is in WAL mode with synchronous=FULL, on
    creation and on reopening; WAL persists in the file."""
    path = tmp_path / "p.db"
    for _ in range(2):
        with Journal(path) as journal:
            assert journal.pragmas() == {"journal_mode": "wal", "synchronous": 2}  # 2 = FULL
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_missing_file_is_a_clear_error(tmp_path):
    """DESIGN.md conventions: a missing journal is one line naming it, exit 2, no traceback,
    and replay does not create the file."""
    path = tmp_path / "none.db"
    with pytest.raises(JournalError, match="no such file"):
        Journal(path, create=False)
    out = cli("replay", path)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.strip().count("\n") == 0 and "no such file" in out.stderr
    assert not path.exists()


@pytest.mark.slow  # a second or more: out of the one-minute fast run, in CI's full run
@pytest.mark.parametrize("content", ["text", "sqlite", "empty"])
def test_non_journal_file_is_a_clear_error(tmp_path, content):
    """A text file, another SQLite database or an empty file: one line, exit 2, no traceback;
    simulate --journal refuses to write into another database."""
    path = tmp_path / "other.db"
    if content == "text":
        path.write_text("not a database at all\n" * 100)
    elif content == "sqlite":
        with sqlite3.connect(path) as conn:
            conn.execute("CREATE TABLE scores (x)")
    else:
        path.write_bytes(b"")
    with pytest.raises(JournalError, match="not a"):
        Journal(path, create=False)
    out = cli("replay", path)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.strip().count("\n") == 0 and "not a" in out.stderr
    if content != "empty":
        sim = cli("simulate", "--hands", "1", "--journal", path)
        assert sim.returncode == 2 and "Traceback" not in sim.stderr
