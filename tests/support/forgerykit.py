"""A forger's tools, as a table's owner would use them (issue 17, issue 35): whole-table
journals from `mjtable run`, a rewrite that re-links the hash chain (`relink`), the same that
also re-signs every HeadSigned with a key he holds (`reforge`: the table's own device.key),
and `mjtable verify` run on the result."""

import json
import sqlite3
from contextlib import closing
from pathlib import Path

from drivers.dice import ElectronicDice
from drivers.shuffler import WallsRaised
from engine import events as ev
from firmware.cli import main
from firmware.journal import signing
from firmware.journal.chain import GENESIS, link
from firmware.journal.cli import backup
from firmware.journal.schema import canonical
from firmware.journal.store import Journal
from firmware.resources import load_ruleset
from firmware.table.actor import Actor
from firmware.table.profile import load_profile
from firmware.table.service import Service
from tests.support.servicekit import Clock, StillShuffler, play_out, stack, take_queued


def play(journal: Path, hands: int, seed: int, *options: str) -> Path:
    """`mjtable run` on the simulated table: `hands` hands into `journal`."""
    argv = ["run", "--port", "0", "--journal", str(journal), "--hands", str(hands), *options]
    assert main([*argv, "--speed", "1000", "--seed", str(seed), "--json-summary"]) == 0
    return journal


def verify(capsys, path: Path, *options: str) -> tuple[int, list[str]]:
    capsys.readouterr()
    status = main(["verify", str(path), *options])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return status, out.splitlines() + err.splitlines()


def said(lines: list[str], text: str) -> bool:
    return any(text in line for line in lines)


def copy(journal: Path, tmp_path: Path) -> Path:
    dest = tmp_path / "copy.sqlite"
    backup(journal, dest)
    return dest


def rows(path: Path) -> list[tuple[int, str, dict]]:
    with Journal(path, readonly=True) as journal:
        return [(r.seq, r.kind, r.data()) for r in journal.rows()]


def seq_of(path: Path, test) -> int:
    """The first row (seq) whose (kind, data) passes `test`."""
    return next(seq for seq, kind, data in rows(path) if test(kind, data))


def record(name: str, hand: int | None = None):
    """A test for the device row of record `name` (of hand `hand`)."""
    return lambda kind, data: (
        kind == "device" and data["type"] == name and hand in (None, data.get("hand"))
    )


def relink(path: Path, edit, key=None) -> None:
    """The forger's rewrite: `edit(rows)` changes the (kind, data) list, then the rows are
    renumbered and the chain re-linked, so it holds again; with `key` (a DeviceKey), each
    HeadSigned signs the new head before it again, in its context as the table would."""
    with closing(sqlite3.connect(path)) as db:
        found = db.execute("SELECT kind, json FROM journal ORDER BY seq").fetchall()
        (session,) = db.execute("SELECT value FROM meta WHERE key = 'session_id'").fetchone()
        changed = edit([(kind, json.loads(text)) for kind, text in found])
        head, linked = GENESIS, []
        for seq, (kind, data) in enumerate(changed, start=1):
            if key is not None and data.get("type") == "HeadSigned":
                what = data.get("what", signing.HAND_END)  # "": the bare head, as before 35
                context = session if what else ""
                data = key.sign_head(data["t"], data["hand"], head, what, context).to_json()
            text = canonical(data)
            linked.append((seq, kind, text, head, link(head, text)))
            head = linked[-1][-1]
        db.execute("DELETE FROM journal")
        db.executemany("INSERT INTO journal VALUES (?, ?, ?, ?, ?)", linked)
        db.commit()


def row_of(event: ev.Event) -> tuple[str, dict]:
    """A record as a forger adds it: a device row."""
    return ("device", event.to_json())


def electronic_journal(path: Path) -> Path:
    """One WSOM hand at a table with electronic dice (the sim profile's walls, played out to
    a draw), its dice drawn by the seat buttons, the session closed: what `mjtable verify`
    recomputes the dice of."""
    clock = Clock()
    with Journal(path) as journal:
        service = Service(
            load_profile("sim"),
            load_ruleset("wsom2006"),
            journal,
            Actor(clock),
            StillShuffler(),
            dice=ElectronicDice(),
            out=lambda line: None,
        )
        stack(service, clock)
        service.actor.record(WallsRaised(clock.t, "A"))
        take_queued(service)
        hands = service.hands
        while hands.table.state in ("dice", "second_roll"):  # RULES.md 3.4: rolled twice
            clock.t += 1.5
            rolling = hands.table.state
            for side in range(4):  # the roller's side presses; the others' are not taken
                if hands.table.state == rolling:
                    hands.button(clock.t, side, "dice")
        play_out(hands, clock.t)
        service.close(clock.t)
    return path
