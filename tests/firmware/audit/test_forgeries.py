"""Issue 35: forgeries a table's owner makes with the project's own code, each caught and named
by `mjtable verify` from the journal and its own key alone (docs/fairness.md). Those that need
the pinned key or the venue's anchors are tests/firmware/audit's anchors tests.

A forger re-links the chain after each edit (tests/support/forgerykit.py `relink`), so the
chain holds; with the table's device.key he re-signs every head too (`relink(..., key)`).
Exit status 1 is a failure, 3 a journal that cannot be said whole (open, or headless).
"""

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from engine import events as ev
from firmware.cli import main
from firmware.desk.desk import Desk
from firmware.journal import seals
from firmware.journal.device_key import load
from firmware.journal.store import Journal
from tests.support.forgerykit import (
    copy,
    electronic_journal,
    play,
    record,
    relink,
    row_of,
    rows,
    said,
    seq_of,
    verify,
)
from tests.support.servicekit import Clock, act, dealt_service, service_of

PLAYERS = tuple({"name": f"Forged {n}", "federation_id": f"X{n}"} for n in range(4))


@pytest.fixture(scope="module")
def two_hands(tmp_path_factory) -> Path:
    return play(tmp_path_factory.mktemp("two") / "two.sqlite", 2, 3)


@pytest.fixture(scope="module")
def electronic(tmp_path_factory) -> Path:
    return electronic_journal(tmp_path_factory.mktemp("dice") / "dice.sqlite")


def cut_after(path: Path, seq: int) -> None:
    """The tail after row `seq` deleted: no re-link is needed."""
    with closing(sqlite3.connect(path)) as db:
        db.execute("DELETE FROM journal WHERE seq > ?", (seq,))
        db.commit()


@pytest.mark.slow
def test_issue_35_a_closed_session_verifies_signed_to_its_last_row(capsys, two_hands):
    """The header first and signed at once, the close last and signed: exit 0, and the dice
    source of each hand said (the simulated table's physical dice)."""
    found = rows(two_hands)
    assert [found[0][2]["type"], found[1][2]["what"]] == ["SessionOpened", "session opened"]
    assert [d["type"] for _, _, d in found[-2:]] == ["SessionClosed", "HeadSigned"]
    assert found[-2][2]["reason"] == "hands done"
    status, lines = verify(capsys, two_hands)
    assert status == 0, lines
    assert "dice by hand: 1 physical, 2 physical" in lines


@pytest.mark.slow
def test_issue_35_one_row_edited_and_rechained(capsys, two_hands, tmp_path):
    """The header's venue edited, the chain re-linked: the header's signature (row 2) signs
    another head, and so does every signature after."""
    path = copy(two_hands, tmp_path)

    def edit(found):
        found[0][1]["venue"] = "another hall"
        return found

    relink(path, edit)
    status, lines = verify(capsys, path)
    assert status == 1
    assert "row 2: the session opened signed head is not the chain's hash" in lines[0]


@pytest.mark.slow
def test_issue_35_the_tail_cut_at_a_signature_and_mid_hand(capsys, two_hands, tmp_path):
    """Cut just after hand 1's signature: signed to its last row, but never closed (exit 3,
    said so). Cut in hand 2's play: open, its rows after the last signature named (exit 3).
    Its export cut: the header's row count fails (exit 1)."""
    path = copy(two_hands, tmp_path)
    exported = tmp_path / "cut.jsonl"
    assert main(["journal", "export", str(path), str(exported)]) == 0
    lines = exported.read_text().splitlines()
    exported.write_text("\n".join(lines[:-5]) + "\n")
    status, said_lines = verify(capsys, exported)
    assert status == 1
    assert said(said_lines, f"the export's header says {len(lines) - 1} rows and it holds")

    signed = seq_of(path, record("HeadSigned", 1))
    second = seq_of(path, lambda kind, data: kind == "hand" and data["hand_number"] == 2)
    cut_after(path, second + 30)
    status, said_lines = verify(capsys, path)
    assert status == 3, said_lines
    last_signed = max(s for s, k, d in rows(path) if record("HeadSigned")(k, d))
    assert said(said_lines, f"open, {second + 30 - last_signed} rows after the last signature")
    cut_after(path, signed)
    status, said_lines = verify(capsys, path)
    assert status == 3
    assert said(said_lines, "open: signed to its last row, but the session was not closed")


@pytest.mark.slow
@pytest.mark.parametrize("added", ["PlayersEntered", "PlayerSigned"])
def test_issue_35_rows_appended_after_the_last_hand(capsys, two_hands, tmp_path, added):
    """A forged player list, or a forged player's signature, added after the close, or just
    before it: no signature follows it, which the table writes at once after each."""
    late = {
        "PlayersEntered": ev.PlayersEntered(300.0, None, PLAYERS),
        "PlayerSigned": ev.PlayerSigned(300.0, None, 2, 2, "screen", "0" * 64, "2026-01-01"),
    }[added]
    path = copy(two_hands, tmp_path)
    relink(path, lambda found: [*found, row_of(late)])
    status, lines = verify(capsys, path)
    end = len(rows(path))
    assert status == 1
    assert f"row {end}: {added}, which the table signs at once, has no signature after it" in lines
    assert said(lines, f"rows {end} to {end} follow the session's close (row {end - 2})")

    (tmp_path / "before").mkdir()
    before = copy(two_hands, tmp_path / "before")
    relink(before, lambda found: [*found[:-2], row_of(late), *found[-2:]])
    status, lines = verify(capsys, before)
    assert status == 1
    assert said(lines, f"row {end - 2}: {added}, which the table signs at once, has no")
    assert said(lines, f"row {end}: the session closed signed head is not the chain's hash")


@pytest.mark.slow
def test_issue_35_the_session_id_changed(capsys, two_hands, tmp_path):
    """The journal's session id (its meta, outside the chain) changed: not the header's. In
    the header instead, the chain re-linked: every signature's context names another."""
    path = copy(two_hands, tmp_path)
    with closing(sqlite3.connect(path)) as db:
        (session,) = db.execute("SELECT value FROM meta WHERE key = 'session_id'").fetchone()
        db.execute("UPDATE meta SET value = ? WHERE key = 'session_id'", ("f" * 32,))
        db.commit()
    status, lines = verify(capsys, path)
    assert status == 1
    assert lines[0] == (
        f"row 1: the header's session {session} is not the journal's, {'f' * 32} "
        "(the session id was changed)"
    )
    with closing(sqlite3.connect(path)) as db:
        db.execute("UPDATE meta SET value = ? WHERE key = 'session_id'", (session,))
        db.commit()

    def renamed(found):
        found[0][1]["session"] = "f" * 32
        return found

    relink(path, renamed)
    status, lines = verify(capsys, path)
    assert status == 1
    assert said(lines, "row 2: a signature of session " + session + ", not this one")


def test_issue_35_a_seal_and_its_reveal_changed_together(capsys, electronic, tmp_path):
    """Hand 1's seal and its reveal given another nonce, the digest recomputed in both (so the
    reveal still gives the seal), the chain re-linked and every head re-signed with the
    table's own device.key: the electronic dice, drawn from the seal's nonce, no longer
    follow; the chain and the signatures hold."""
    path = tmp_path / "dice.sqlite"
    path.write_bytes(electronic.read_bytes())
    key = load(electronic.parent / "device.key")

    def reseal(found):
        for _, data in found:
            if data.get("type") in ("WallSealed", "WallRevealed"):
                data["nonce"] = "ab" * 32
                data["digest"] = seals.digest_of(data["nonce"], data["tile_set"], data["walls"])
        return found

    relink(path, reseal, key)
    roll = seq_of(path, lambda kind, data: data.get("type") == "DiceRolled")
    status, lines = verify(capsys, path)
    assert status == 1
    assert said(lines, f"row {roll}: hand 1's electronic dice")
    assert said(lines, "are not those drawn from its seal and the press")
    assert not said(lines, "signature does not verify") and not said(lines, "signed head")


def test_issue_35_the_dice_source_flipped(capsys, electronic, tmp_path):
    """A roll of the electronic dice said physical: the header (signed) says the table's
    dice are electronic. Said electronic at the simulated table's physical dice, and the
    header flipped with it: the values are not those drawn from the seal."""
    path = tmp_path / "dice.sqlite"
    path.write_bytes(electronic.read_bytes())
    key = load(electronic.parent / "device.key")

    def flip(found):
        next(d for _, d in found if d.get("type") == "DiceRolled")["source"] = "physical"
        return found

    relink(path, flip, key)
    roll = seq_of(path, lambda kind, data: data.get("type") == "DiceRolled")
    status, lines = verify(capsys, path)
    assert status == 1
    assert (
        f"row {roll}: hand 1's dice say physical; the table's dice are electronic (its header)"
        in lines
    )
    assert said(lines, "dice by hand: 1 physical+electronic")


def test_issue_35_electronic_dice_picked_by_the_table(capsys, tmp_path):
    """The electronic rolls' values changed, as a table that picks its dice would have them,
    every head re-signed with the device key: the values are not those drawn from the seal
    and the press."""
    path = electronic_journal(tmp_path / "e.sqlite")
    key = load(tmp_path / "device.key")

    def picked(found):
        for _, data in found:
            if data.get("type") == "DiceRolled":
                data["dice"] = [v % 6 + 1 for v in data["dice"]]
        return found

    relink(path, picked, key)
    status, lines = verify(capsys, path)
    assert status == 1
    assert said(lines, "hand 1's electronic dice") and not said(lines, "signed head")


@pytest.mark.slow
def test_issue_35_physical_dice_said_electronic(capsys, two_hands, tmp_path):
    """A roll of the simulated table's physical dice said electronic, re-signed with its
    device key: the header says the table's dice are physical."""
    path = copy(two_hands, tmp_path)
    key = load(two_hands.parent / "device.key")

    def flip(found):
        next(d for _, d in found if d.get("type") == "DiceRolled")["source"] = "electronic"
        return found

    relink(path, flip, key)
    roll = seq_of(path, lambda kind, data: data.get("type") == "DiceRolled")
    status, lines = verify(capsys, path)
    assert status == 1
    assert (
        f"row {roll}: hand 1's dice say electronic; the table's dice are physical (its header)"
        in lines
    )


@pytest.mark.slow
def test_issue_35_an_unrevealed_seal(capsys, two_hands, tmp_path):
    """The reveal of the walls built after the last hand, which the close shows, removed and
    the chain re-linked: a seal without its reveal."""
    path = copy(two_hands, tmp_path)
    sealed = [d["digest"] for _, k, d in rows(path) if record("WallSealed")(k, d)]

    def hide(found):
        return [
            r
            for r in found
            if not (r[1].get("type") == "WallRevealed" and r[1]["digest"] == sealed[-1])
        ]

    relink(path, hide)
    seq = next(s for s, k, d in rows(path) if d.get("digest") == sealed[-1])
    status, lines = verify(capsys, path)
    assert status == 1
    assert f"row {seq}: walls sealed and never revealed" in lines


@pytest.fixture(scope="module")
def ccm_hands(tmp_path_factory) -> Path:
    return play(tmp_path_factory.mktemp("ccm") / "ccm.sqlite", 3, 4, "--ruleset", "ccm2012")


@pytest.mark.slow
def test_issue_35_a_hand_cut_out_and_the_rest_re_signed_leaves_the_chips_wrong(
    capsys, ccm_hands, tmp_path
):
    """CCM: hand 2 cut out of a 3-hand session (its hand row to its signature), hand 3
    numbered 2, every head re-signed with the table's own device.key: the signatures hold,
    but the hand now numbered 2 begins with the chips the session had after the hand cut
    out, not after hand 1."""
    path = copy(ccm_hands, tmp_path)
    key = load(ccm_hands.parent / "device.key")

    def cut(found):
        first = next(i for i, (k, d) in enumerate(found) if k == "hand" and d["hand_number"] == 2)
        last = next(i for i, r in enumerate(found) if record("HeadSigned", 2)(*r))
        rest = found[:first] + found[last + 1 :]
        for kind, data in rest:
            if kind == "hand" and data["hand_number"] == 3:
                data["hand_number"] = 2
            elif data.get("type") == "HeadSigned" and data["hand"] == 3:
                data["hand"] = 2
        return rest

    relink(path, cut, key)
    second = seq_of(path, lambda kind, data: kind == "hand" and data["hand_number"] == 2)
    status, lines = verify(capsys, path)
    assert status == 1
    assert said(lines, f"row {second}: hand 2 begins with chips")
    assert not said(lines, "signed head") and not said(lines, "does not verify")


def strip_header(found, bare: bool):
    """The session's header and close and their signatures taken out; with `bare`, every
    other signature made over the bare head, as the firmware of before issue 35 made it."""
    opened = ("SessionOpened", "SessionClosed")
    kept, skip = [], False
    for kind, data in found:
        if skip or data.get("type") in opened:
            skip = data.get("type") in opened
            continue
        if bare and data.get("type") == "HeadSigned":
            data["what"] = ""
        kept.append((kind, data))
    return kept


def test_issue_35_a_journal_of_before_headers_gets_a_clear_verdict(capsys, electronic, tmp_path):
    """A journal as the firmware before issue 35 wrote it (no header, no close, signatures of
    the bare head): exit 3, "no header", not all good and no crash. The header taken out of
    a journal of today, its signatures re-signed in their context: the removal is named."""
    path = tmp_path / "old.sqlite"
    path.write_bytes(electronic.read_bytes())
    key = load(electronic.parent / "device.key")
    relink(path, lambda found: strip_header(found, bare=True), key)
    status, lines = verify(capsys, path)
    assert status == 3, lines
    assert said(lines, "written before session headers: no header; nothing else found wrong")

    path.write_bytes(electronic.read_bytes())
    relink(path, lambda found: strip_header(found, bare=False), key)
    status, lines = verify(capsys, path)
    assert status == 1
    assert said(lines, "a signature in a session's context, and no header: removed")


def test_issue_35_a_journal_still_played_is_open_not_all_good(capsys, tmp_path):
    """A hand in play, the journal read as it is: exit 3, its rows after the last signature
    counted; the table stopped with the hand in play signs it, and it stays open."""
    path = tmp_path / "live.sqlite"
    with Journal(path) as journal:
        service = dealt_service(journal, Clock())
        status, lines = verify(capsys, path)
        assert status == 3, lines
        signed = max(s for s, k, d in rows(path) if record("HeadSigned")(k, d))
        assert said(lines, f"open, {journal.seq - signed} rows after the last signature")
        service.close(service.clock())
    assert rows(path)[-1][2]["what"] == "stopped mid-hand"
    status, lines = verify(capsys, path)
    assert status == 3
    assert said(lines, "open: signed to its last row, but the session was not closed")


def test_issue_35_seats_drawn_by_the_table_are_recomputed(capsys, tmp_path):
    """執位 drawn by the table (seed 000, RULES.md 3.2) from the header's seat secret and the
    drawing's time: the closed session verifies; the winds edited, the heads re-signed with
    the device key: the drawing is named."""
    path, clock = tmp_path / "seats.sqlite", Clock()
    with Journal(path) as journal:
        service = service_of(journal, clock)
        act(Desk(service, "T1"), "draw_seats")
        service.close(clock.t)
    status, lines = verify(capsys, path)
    assert status == 0, lines
    drawing = seq_of(path, record("SeatsDrawn"))

    def swapped(found):
        winds = next(d for _, d in found if d.get("type") == "SeatsDrawn")["winds"]
        winds[0], winds[1] = winds[1], winds[0]
        return found

    relink(path, swapped, load(tmp_path / "device.key"))
    status, lines = verify(capsys, path)
    assert status == 1
    assert said(lines, f"row {drawing}: the seats drawn")
