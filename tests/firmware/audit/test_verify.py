"""Issue 17: the signed log and `mjtable verify`; the device key; a tile set whose tag
registry changed since the session began is refused.

The whole-table journals are made once per module (a 2-hand and a 3-hand run); each tamper
works on a copy. A forger who edits rows re-links the chain (`relink`: seq renumbered, every
prev_hash and hash recomputed with firmware.journal.chain.link), so the chain holds and only the
signatures, the seals and the replay can catch him.
"""

import os
import sqlite3
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from pathlib import Path

import pytest

from drivers.shuffler import WallsReady
from engine import events as ev
from firmware.cli import main
from firmware.journal.device_key import DeviceKeyError, load
from firmware.journal.store import Journal
from firmware.resources import load_ruleset
from firmware.table.actor import Actor
from firmware.table.profile import TABLES_DIR, load_profile
from firmware.table.registries import registry_digests
from firmware.table.service import Service
from tests.support.forgerykit import copy, play, record, relink, rows, said, seq_of, verify
from tests.support.servicekit import Clock, dealt_service


@pytest.fixture(scope="module")
def two_hands(tmp_path_factory) -> Path:
    return play(tmp_path_factory.mktemp("two") / "two.sqlite", 2, 3)


@pytest.fixture(scope="module")
def three_hands(tmp_path_factory) -> Path:
    return play(tmp_path_factory.mktemp("three") / "three.sqlite", 3, 4)


@pytest.mark.slow
def test_issue_17_verify_passes_a_real_run_and_its_export(capsys, two_hands, tmp_path):
    """`mjtable verify` of a real run's journal, and of its export: exit 0, every hand's
    signature and seal checked (issue 35: the header's and the close's too), the key said to
    come from the file itself."""
    status, lines = verify(capsys, two_hands)
    assert status == 0, lines
    assert "2 hands, 4 signatures, 2 seals checked" in lines[-1]
    assert "from the file itself" in lines[-1]
    exported = tmp_path / "two.jsonl"
    assert main(["journal", "export", str(two_hands), str(exported)]) == 0
    status, lines = verify(capsys, exported)
    assert status == 0, lines
    assert "2 hands, 4 signatures, 2 seals checked" in lines[-1]
    assert main(["journal", "export", str(two_hands), str(exported)]) == 2  # never overwrites
    key = next(d for _, _, d in rows(two_hands) if d.get("type") == "HeadSigned")["public_key"]
    status, _ = verify(capsys, exported, "--public-key", key)
    assert status == 0
    status, lines = verify(capsys, exported, "--public-key", "ab" * 32)  # another table's
    assert status == 1 and sum("does not verify with the key" in line for line in lines) == 4


@pytest.mark.slow
def test_issue_17_one_byte_changed_breaks_the_chain_at_its_row(capsys, two_hands, tmp_path):
    """One digit of a discard's tile changed in place: the chain names the row."""
    path = copy(two_hands, tmp_path)
    seq = seq_of(path, lambda kind, data: kind == "input" and data["type"] == "TileDiscarded")
    with closing(sqlite3.connect(path)) as db:
        (text,) = db.execute("SELECT json FROM journal WHERE seq = ?", (seq,)).fetchone()
        at = text.index('"tile":') + len('"tile":')
        edited = text[:at] + str((int(text[at]) + 1) % 10) + text[at + 1 :]
        db.execute("UPDATE journal SET json = ? WHERE seq = ?", (edited, seq))
        db.commit()
    status, lines = verify(capsys, path)
    assert status == 1
    assert f"row {seq}: hash does not match its content (row edited)" in lines


@pytest.mark.slow
def test_issue_17_a_wall_tile_swapped_is_caught_by_the_seal(capsys, two_hands, tmp_path):
    """Two tiles of hand 1's wall swapped in its hand row and in its reveal, the chain
    re-linked: the reveal no longer gives the digest sealed before the dice."""
    path = copy(two_hands, tmp_path)

    def swap(found):
        for kind, data in found:
            if kind == "hand" and data["hand_number"] == 1:
                wall = data["walls"][0]  # hand 1: East's wall is lane 0 (the dealer's side)
                wall[-1], wall[-2] = wall[-2], wall[-1]
                break
        for kind, data in found:
            if kind == "device" and data["type"] == "WallRevealed":
                lane = data["walls"][0]
                lane[-1], lane[-2] = lane[-2], lane[-1]
                return found
        raise AssertionError("no reveal")

    relink(path, swap)
    revealed = seq_of(path, record("WallRevealed"))
    status, lines = verify(capsys, path)
    assert status == 1
    assert said(lines, f"row {revealed}: hand 1's revealed walls do not give")


@pytest.mark.slow
def test_issue_17_a_seal_moved_after_the_dice_is_caught(capsys, two_hands, tmp_path):
    """Hand 1's WallSealed row moved after its first roll, the chain re-linked: the walls
    were sealed after they were dealt, and after the dice."""
    path = copy(two_hands, tmp_path)

    def move(found):
        seal = next(r for r in found if record("WallSealed")(*r))
        found.remove(seal)
        roll = next(i for i, (k, d) in enumerate(found) if d.get("type") == "DiceRolled")
        return found[: roll + 1] + [seal] + found[roll + 1 :]

    relink(path, move)
    sealed = seq_of(path, record("WallSealed"))
    status, lines = verify(capsys, path)
    assert status == 1
    assert f"row {sealed}: hand 1's walls were sealed after they were dealt" in lines
    assert f"row {sealed - 1}: hand 1's dice were rolled before its walls were sealed" in lines


@pytest.mark.slow
def test_issue_17_a_dice_value_changed_is_caught_by_the_signature(capsys, two_hands, tmp_path):
    """Hand 1's first roll changed, the chain re-linked: the head hand 1's signature covers
    is no longer the chain's."""
    path = copy(two_hands, tmp_path)

    def reroll(found):
        for kind, data in found:
            if kind == "input" and data["type"] == "DiceRolled":
                data["dice"][0] = data["dice"][0] % 6 + 1
                return found
        raise AssertionError("no roll")

    relink(path, reroll)
    signed = seq_of(path, record("HeadSigned", 1))
    status, lines = verify(capsys, path)
    assert status == 1
    assert said(lines, f"row {signed}: hand 1's signed head is not the chain's hash")


@pytest.mark.slow
def test_issue_17_a_signature_removed_is_missed(capsys, two_hands, tmp_path):
    """Hand 1's HeadSigned row deleted, the rows renumbered and re-linked: hand 1's end has
    no signature after it (named by its row), and hand 2's signs a head that is not there."""
    path = copy(two_hands, tmp_path)
    ended = seq_of(
        path, lambda kind, data: kind == "output" and data["type"] in ("Won", "ExhaustiveDraw")
    )
    relink(path, lambda found: [r for r in found if not record("HeadSigned", 1)(*r)])
    status, lines = verify(capsys, path)
    assert status == 1
    assert f"row {ended}: hand 1 ended, and no signature of the head follows" in lines
    signed = seq_of(path, record("HeadSigned", 2))
    assert said(lines, f"row {signed}: hand 2's signed head is not the chain's hash")


@pytest.mark.slow
def test_issue_17_a_hand_cut_out_of_the_middle_is_missed(capsys, three_hands, tmp_path):
    """Hand 2's rows (its hand row to its signature) deleted from a 3-hand journal, the
    chain re-linked: hand 3 follows hand 1, and its signature covers another head."""
    path = copy(three_hands, tmp_path)

    def cut(found):
        first = next(i for i, (k, d) in enumerate(found) if k == "hand" and d["hand_number"] == 2)
        last = next(i for i, r in enumerate(found) if record("HeadSigned", 2)(*r))
        return found[:first] + found[last + 1 :]

    relink(path, cut)
    third = seq_of(path, lambda kind, data: kind == "hand" and data["hand_number"] == 3)
    status, lines = verify(capsys, path)
    assert status == 1
    assert f"row {third}: hand 3 follows hand 1: hands are missing" in lines
    signed = seq_of(path, record("HeadSigned", 3))
    assert said(lines, f"row {signed}: hand 3's signed head is not the chain's hash")


def test_issue_17_verify_exit_2_for_a_file_it_cannot_read(capsys, tmp_path):
    status, lines = verify(capsys, tmp_path / "missing.sqlite")
    assert status == 2 and "missing.sqlite: cannot read: No such file" in lines[-1]
    text = tmp_path / "notes.txt"
    text.write_text("hand 1: East won\n")
    status, lines = verify(capsys, text)
    assert status == 2 and "notes.txt: neither a mjtable journal nor its export" in lines[-1]
    status, lines = verify(capsys, text, "--public-key", "12ab")
    assert status == 2 and "--public-key 12ab: neither 64 hex digits nor a file" in lines[-1]


def test_issue_17_a_missing_device_key_is_made_0600_and_a_readable_one_refused(tmp_path):
    """The key is made readable by its user only, and kept; one the group or others can
    read, or one garbled, is refused naming the file (as ssh refuses such a key)."""
    path = tmp_path / "device.key"
    key = load(path)
    assert os.stat(path).st_mode & 0o777 == 0o600
    assert load(path).public_hex == key.public_hex  # the same key at the next start
    os.chmod(path, 0o644)
    with pytest.raises(DeviceKeyError, match=rf"{path}: .*readable by others \(mode 0644\)"):
        load(path)
    os.chmod(path, 0o600)
    path.write_text("not a key")
    with pytest.raises(DeviceKeyError, match=rf"{path}: not an Ed25519 private key"):
        load(path)


def test_issue_17_tables_starting_together_read_one_whole_device_key(tmp_path):
    """Two tables started at the same moment on one key file (a fleet's test, a double start
    of the service) both sign with the one key made, neither reads it half-written as a
    garbled key (issue 15's outage test met that), and no draft file is left beside it."""
    path = tmp_path / "device.key"
    start = threading.Barrier(8)

    def starting():
        start.wait()
        return load(path).public_hex

    with ThreadPoolExecutor(8) as pool:
        keys = set(pool.map(lambda _: starting(), range(8)))
    assert keys == {load(path).public_hex}
    assert [p.name for p in tmp_path.iterdir()] == ["device.key"]


def test_issue_17_mjtable_run_refuses_a_key_others_can_read(capsys, tmp_path):
    key = tmp_path / "device.key"
    load(key)
    os.chmod(key, 0o640)
    status = main(["run", "--port", "0", "--journal", str(tmp_path / "j.sqlite"), "--hands", "1"])
    assert status == 2
    assert f"{key}: the device key is readable by others (mode 0640)" in capsys.readouterr().err


class Shuffler:
    """The machine, standing ready: the walls it was told to build again."""

    state, set_in_play, set_ready, counts, fault = "ready", None, "A", (34, 34, 34, 34), None

    def __init__(self):
        self.rejected: list[str] = []

    def poll(self, t):
        pass

    def reject_walls(self, t, message, advice):
        self.rejected.append(message)
        return True


def test_issue_17_a_set_whose_registry_changed_since_the_session_began_is_refused(tmp_path):
    """The session records each set's registry digest; gone on with after two of set A's
    tags were swapped, set A's walls are refused with a fault saying so, set B's are not."""
    for name in ("sim.toml", "sim-tags.csv"):
        (tmp_path / name).write_text((TABLES_DIR / name).read_text())
    profile, ruleset = load_profile(tmp_path / "sim.toml"), load_ruleset("wsom2006")
    journal_path = tmp_path / "session.sqlite"
    with Journal(journal_path) as journal:
        Service(profile, ruleset, journal, Actor(Clock()), Shuffler(), out=lambda line: None)
    began = [d for _, kind, d in rows(journal_path) if d.get("type") == "RegistriesRecorded"]
    assert began == [ev.RegistriesRecorded(100.0, None, registry_digests(profile.tags)).to_json()]

    lines = (tmp_path / "sim-tags.csv").read_text().splitlines()
    tag_of = {line.split(",")[2]: line.split(",")[0] for line in lines if ",A," in line}
    swapped = {tag_of["0"]: tag_of["1"], tag_of["1"]: tag_of["0"]}  # two 1m tiles' tags
    (tmp_path / "sim-tags.csv").write_text(
        "\n".join(
            swapped.get(line.split(",")[0], line.split(",")[0]) + line[line.index(",") :]
            for line in lines
        )
        + "\n"
    )
    changed = load_profile(tmp_path / "sim.toml")
    shuffler = Shuffler()
    with Journal(journal_path) as journal:
        service = Service(
            changed, ruleset, journal, Actor(Clock()), shuffler, out=lambda line: None
        )
        service.handle(101.0, WallsReady(101.0, "A", (34, 34, 34, 34), 60.0))
        service.handle(102.0, WallsReady(102.0, "B", (34, 34, 34, 34), 60.0))
    assert shuffler.rejected == [
        f"the tag registry of set A ({tmp_path / 'sim-tags.csv'}) changed since the session "
        "began: its walls are refused"
    ]
    assert service.hands.walls.built is not None  # set B's walls are judged as ever


def test_issue_17_a_voided_hand_is_signed_and_verifies(capsys, tmp_path):
    """The referee voids the hand in play: its head is signed at once, with the device key
    beside the journal (the simulated profile's device_key = ""), and the journal verifies."""
    path = tmp_path / "void.sqlite"
    with Journal(path) as journal:
        service = dealt_service(journal, Clock())
        number = service.hands.void(service.clock(), "the wall was knocked over")
        service.close(service.clock())
    signed = [d["public_key"] for _, k, d in rows(path) if record("HeadSigned", number)(k, d)]
    assert signed == [load(tmp_path / "device.key").public_hex]
    status, lines = verify(capsys, path)
    assert status == 0, lines
    assert "1 hands, 3 signatures, 1 seals checked" in lines[-1]
