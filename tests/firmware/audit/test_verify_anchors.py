"""`mjtable verify --anchors FILE --key FINGERPRINT` (issue 35 "done when"): the forgeries a
table's owner can make with the project's own code, holding the journal and the device key,
each caught by what others hold: the key the venue pinned, the anchors the venue kept.

The anchors are made as the hall makes them: each row of the journal in its public form
(firmware/uplink/messages.py, what the uplink sends) fed to the venue's records while the
session plays, then `mjtable venue anchors export`.
"""

import csv
import io
import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from firmware.cli import main
from firmware.journal.chain import GENESIS, link
from firmware.journal.cli import backup
from firmware.journal.device_key import DeviceKey, fingerprint, load
from firmware.journal.schema import canonical
from firmware.journal.store import Journal
from firmware.uplink.messages import event_row
from firmware.venue.records import VenueRecords

pytestmark = pytest.mark.slow  # a three-hand journal played once for the module (about 15 s)


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Path:
    """Three hands of the simulated table, the device key beside the journal."""
    journal = tmp_path_factory.mktemp("played") / "three.sqlite"
    argv = ["run", "--port", "0", "--journal", str(journal), "--hands", "3", "--speed", "1000"]
    assert main([*argv, "--seed", "4", "--json-summary"]) == 0
    return journal


@pytest.fixture(scope="module")
def anchors(played, tmp_path_factory) -> Path:
    """What the venue kept of the session while it was played, exported."""
    folder = tmp_path_factory.mktemp("venue")
    records = VenueRecords(folder / "records.sqlite")
    with Journal(played, readonly=True) as journal:
        for row in journal.rows():
            records.row("T1", journal.session_id or "", event_row(row))
    records.close()
    out = folder / "anchors.json"
    argv = ["venue", "anchors", "export", "--records", str(folder / "records.sqlite")]
    assert main([*argv, "-o", str(out)]) == 0
    return out


def device_key(played: Path) -> DeviceKey:
    return load(played.parent / "device.key")


def verify(capsys, path: Path, *options: str) -> tuple[int, str]:
    capsys.readouterr()
    status = main(["verify", str(path), *options])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return status, out + err


def forged(played: Path, tmp_path: Path, key: DeviceKey, edit=lambda rows: rows) -> Path:
    """The owner's forgery: a copy of the journal whose rows `edit` changes, renumbered, the
    chain linked again and every HeadSigned signed again by `key` over its new head."""
    path = tmp_path / "forged.sqlite"
    backup(played, path)
    with closing(sqlite3.connect(path)) as db:
        found = db.execute("SELECT kind, json FROM journal ORDER BY seq").fetchall()
        changed = edit([(kind, json.loads(text)) for kind, text in found])
        head, linked = GENESIS, []
        for seq, (kind, data) in enumerate(changed, start=1):
            if data.get("type") == "SessionOpened":  # the header names the forger's key too
                data = data | {"key": key.fingerprint}
            if kind == "device" and data["type"] == "HeadSigned":
                # in the context the table signs (issue 35): what, the session, the hand
                signed = key.sign_head(data["t"], data["hand"], head, data["what"], data["session"])
                data = data | {"head": head, "signature": signed.signature}
                data["public_key"] = key.public_hex
            text = canonical(data)
            linked.append((seq, kind, text, head, link(head, text)))
            head = linked[-1][-1]
        db.execute("DELETE FROM journal")
        db.executemany("INSERT INTO journal VALUES (?, ?, ?, ?, ?)", linked)
        db.commit()
    return path


def signature_of(hand: int):
    return lambda row: (
        row[0] == "device" and row[1]["type"] == "HeadSigned" and row[1]["hand"] == hand
    )


def test_issue_35_the_true_journal_passes_against_the_pinned_key_and_the_anchors(
    capsys, played, anchors
):
    pinned = fingerprint(device_key(played).public_hex)
    status, said = verify(capsys, played, "--key", pinned, "--anchors", str(anchors))
    assert status == 0, said
    assert "all good" in said and "from the file itself" not in said  # the key was checked


def test_issue_35_resigned_with_a_fresh_key_fails_against_the_pinned_key_and_the_anchors(
    capsys, played, anchors, tmp_path
):
    """Issue 35: every signature made again with a key of the forger's own: the journal alone
    passes (its own key), the pinned key and the anchors each refuse it, naming the rows."""
    fresh = DeviceKey(Ed25519PrivateKey.generate(), tmp_path / "fresh.key")
    path = forged(played, tmp_path, fresh)
    assert verify(capsys, path)[0] == 0  # why the key must be pinned
    pinned = fingerprint(device_key(played).public_hex)
    status, said = verify(capsys, path, "--key", pinned)
    assert status == 1 and f"not the table's key {pinned[:23]}…" in said
    assert "(5 signatures): signed by " + fingerprint(fresh.public_hex)[:23] in said
    status, said = verify(capsys, path, "--anchors", str(anchors))
    # the header naming the forger's key, the anchored opening signature is not the journal's
    assert status == 1 and "row 2: the venue anchored hand 0's signed head" in said


def test_issue_35_a_hand_cut_out_and_resigned_with_the_device_key_fails_against_the_anchors(
    capsys, played, anchors, tmp_path
):
    """Issue 35: hand 2's rows cut out and the rest signed again with the table's own device
    key (root on the Pi reads it): the key is the pinned one, but the venue anchored hand 2's
    and hand 3's heads at rows the forged journal holds otherwise."""

    def cut(rows):
        first = next(i for i, (k, d) in enumerate(rows) if k == "hand" and d["hand_number"] == 2)
        last = next(i for i, r in enumerate(rows) if signature_of(2)(r))
        return rows[:first] + rows[last + 1 :]

    path = forged(played, tmp_path, device_key(played), cut)
    pinned = fingerprint(device_key(played).public_hex)
    status, said = verify(capsys, path, "--key", pinned, "--anchors", str(anchors))
    assert status == 1
    assert "not the table's key" not in said  # the true key signed it
    assert "the venue anchored hand 2's signed head" in said
    assert "the venue anchored hand 3's signed head" in said or "rows were cut" in said


def test_issue_35_a_journal_cut_after_a_signature_fails_against_the_later_anchors(
    capsys, played, anchors, tmp_path
):
    """Issue 35: the journal's tail cut at hand 2's signature (a cut that leaves every
    signature whole): the venue holds anchors after it, and the line says so."""

    def truncate(rows):
        return rows[: next(i for i, r in enumerate(rows) if signature_of(2)(r)) + 1]

    path = forged(played, tmp_path, device_key(played), truncate)
    status, said = verify(capsys, path, "--anchors", str(anchors))
    assert status == 1 and "rows were cut from its end" in said


def test_issue_35_anchors_of_another_session_or_a_bad_file_are_said(
    capsys, played, anchors, tmp_path
):
    """A journal whose session the anchors do not hold fails (its session id changed, or a
    journal the venue never saw); an anchors file or key that cannot be read is exit 2."""
    other = tmp_path / "other.json"
    document = json.loads(anchors.read_text())
    document["rows"] = [row | {"session": "another"} for row in document["rows"]]
    other.write_text(json.dumps(document))
    status, said = verify(capsys, played, "--anchors", str(other))
    assert status == 1 and "the anchors hold nothing of session" in said
    bad = tmp_path / "bad.json"
    bad.write_text("[]")
    assert verify(capsys, played, "--anchors", str(bad))[0] == 2
    status, said = verify(capsys, played, "--key", "SHA256:12")
    assert status == 2 and "--key SHA256:12: neither SHA256:<64 hex digits> nor a file" in said


def test_issue_35_the_sheet_names_the_key_and_the_head_it_signed_last(capsys, played, tmp_path):
    """Issue 35: the score sheet (JSON, CSV, PDF) names the device key's fingerprint and the
    journal head signed last, so a sheet in hand leads to the journal and key to check."""
    with Journal(played, readonly=True) as journal:
        heads = [r.data() for r in journal.rows() if r.kind == "device" and "HeadSigned" in r.json]
    pinned = fingerprint(device_key(played).public_hex)
    for fmt in ("json", "csv", "pdf"):
        out = tmp_path / f"sheet.{fmt}"
        assert main(["export", "sheet", str(played), "--format", fmt, "-o", str(out)]) == 0
    document = json.loads((tmp_path / "sheet.json").read_text())
    assert (document["key_fingerprint"], document["final_head"]) == (pinned, heads[-1]["head"])
    rows = list(csv.DictReader(io.StringIO((tmp_path / "sheet.csv").read_text())))
    assert rows and {(r["key_fingerprint"], r["final_head"]) for r in rows} == {
        (pinned, heads[-1]["head"])
    }
    assert (tmp_path / "sheet.pdf").read_bytes().startswith(b"%PDF")
