"""A tournament day end to end (issue 36 item 5): 2 rounds x 8 simulated tables for each rule
book through Mosquitto started with deploy/mosquitto's shipped configuration (TLS, a user a
table, the ACL), seated from a CSV plan of Chinese names, every sheet signed at its table and
received by the venue, 0 publishes denied in the broker's log, the standings after each round,
the event's results file read back, rulings made after their hand by the floor referee, a
waive of his undone and then applied at each table he was called to (the sheet carrying the
penalty once, as its alert proposed it), and every table's journal verified against the
venue's anchors (`mjtable venue anchors export`, `mjtable verify --anchors --key`). And
`mjtable venue --simulate --rounds` on the command line (issue 36 item 4)."""

import argparse
import asyncio
import csv
import json
from dataclasses import replace
from itertools import pairwise
from pathlib import Path

import pytest

from firmware.cli import main
from firmware.journal import device_key
from firmware.journal.store import Journal
from firmware.resources import load_ruleset
from firmware.venue.bus import VenueBus
from firmware.venue.day import play_day
from firmware.venue.day_referee import RULED_AGAIN
from firmware.venue.demo_truth import FleetBoard
from firmware.venue.event import Event
from firmware.venue.records import VenueRecords
from firmware.venue.seating import read_plan
from tests.support.shipped import VENUE_PASSWORD, shipped
from tests.support.venuekeys import VENUE_KEY

TABLES, ROUNDS, HANDS = 8, 2, 2
SURNAMES = "張王李劉陳楊黃趙吳周徐孫馬朱胡郭"
GIVEN = "偉芳娜洋"


def plan_csv() -> str:
    """32 players, each with a Chinese name, moved round to round (no two meet twice)."""
    lines = ["\ufeffround,table,seat,name,federation_id,country"]
    for number in range(1, ROUNDS + 1):
        for t in range(TABLES):
            for s, wind in enumerate("東南西北"):
                # round 1: table t holds 4t..4t+3; round 2: the seat s player of table t+s
                n = 4 * t + s if number == 1 else 4 * ((t + s) % TABLES) + s
                name = SURNAMES[n % 16] + GIVEN[n // 16 % 4] + GIVEN[n % 4]
                lines.append(f"{number},T{t + 1:02d},{wind},{name},CN-{n:04d},China")
    return "\n".join(lines) + "\n"


@pytest.mark.slow  # about a minute a rule book on a quiet machine
@pytest.mark.parametrize("ruleset", ["wsom2006", "ccm2012"])
def test_a_day_on_the_shipped_broker(reachable, ruleset, capsys):
    """Issue 36 'Done when': every table named, every sheet signed and received, no publish
    denied, standings after each round, the results file read back, a ruling made after its
    hand ended in every round, one waive undone at least (then applied: on the sheet the
    venue received, once, at its first offence's points), and `mjtable verify --anchors`
    passing every table's journal (issue 35's anchors, the venue's own records)."""
    tables = [f"T{n:02d}" for n in range(1, TABLES + 1)]
    passwords = {name: f"pw-{name}" for name in tables[1:]}
    kit = shipped(reachable, tables[0], users=passwords)
    passwords[tables[0]] = kit.settings.password
    config = kit.broker.config
    config.write_text(config.read_text() + "log_type debug\n")  # mosquitto says "Denied" there
    plan = read_plan(plan_csv().encode("utf-8"))
    results = reachable / "results"
    records = reachable / "records.sqlite"

    def settings_of(name: str):
        return replace(kit.settings, user=name, password=passwords[name])

    async def day() -> tuple[dict, Event]:
        board = FleetBoard("hall", VenueRecords(records))
        event = Event(board)
        event.seat(plan)
        bus = VenueBus(board, "127.0.0.1", kit.broker.port, "venue", VENUE_PASSWORD)
        bus.key = VENUE_KEY
        feeding = asyncio.create_task(bus.run())
        args = argparse.Namespace(
            simulate=TABLES,
            rounds=ROUNDS,
            hands=HANDS,
            speed=50.0,
            ruleset=ruleset,
            results_dir=str(results),
            broker=("127.0.0.1", kit.tls_port),  # each table's user and TLS: settings_of
        )
        try:
            summary = await play_day(args, board, event, bus, reachable, settings_of)
        finally:
            feeding.cancel()
            await asyncio.gather(feeding, return_exceptions=True)
        pins.update((name, board.records.pins.pinned(name)) for name in tables)
        received.update(
            ((name, session), log.score_sheet["sheet"])
            for name, table in board.tables.items()
            for session, log in table.sessions.items()
            if log.score_sheet
        )
        board.records.close()
        return summary, event

    pins: dict = {}
    received: dict = {}  # (table, session) -> the latest score sheet the venue received

    kit.broker.start()
    try:
        summary, event = asyncio.run(day())
    finally:
        kit.broker.stop()
    assert summary["complete"] and summary["rounds"] == ROUNDS
    assert summary["hands"] == TABLES * ROUNDS * HANDS
    assert summary["sheets"] == TABLES * ROUNDS, "every sheet signed and received"
    assert summary["unnamed"] == 0, "every table named on the grid, the board, the rounds"
    assert (summary["gaps"], summary["duplicates"], summary["concealed_leaks"]) == (0, 0, 0)
    log = kit.broker.log.read_text(errors="replace") + _store_log(kit.broker.config)
    assert "Denied" not in log, [line for line in log.splitlines() if "Denied" in line][:5]
    for number in range(1, ROUNDS + 1):  # the standings after each round, names as planned
        ranked = event.closed[number]
        assert len(ranked) == 4 * TABLES and all(p["final"] for p in ranked)
        seated = {p.name for four in plan.rounds[number].values() for p in four}
        assert {p["name"] for p in ranked} == seated
    with open(summary["results"], encoding="utf-8") as file:
        lines = list(csv.DictReader(file))
    assert len(lines) == 4 * TABLES
    assert {line["games"] for line in lines} == {str(ROUNDS)}
    assert {line["country"] for line in lines} == {"China"}
    assert {line["name"] for line in lines} == {p.name for p in plan.everyone().values()}
    assert lines[0]["place"] == "1"
    document = json.loads(Path(summary["results"]).with_suffix(".json").read_text("utf-8"))
    assert document["rounds"] == [1, 2] and len(document["results"]) == 4 * TABLES
    late = {n: _late_rulings(reachable / f"round{n}") for n in range(1, ROUNDS + 1)}
    assert all(late.values()), f"a ruling after its hand ended in every round: {late}"
    assert summary["late_rulings"] == sum(late.values())
    undone = _waives_undone(reachable, received, ruleset)
    assert summary["waives_undone"] == undone >= 1, "the floor referee undoes a waive"
    _verified_against_the_anchors(reachable, records, pins, capsys)


def _late_rulings(folder: Path) -> int:
    """Rulings journaled after their hand had ended (naming it), each a penalty applied."""
    count = 0
    for path in folder.glob("*.sqlite"):
        with Journal(path, readonly=True) as journal:
            rows = [(row.kind, row.data()) for row in journal.rows()]
        for (kind, data), (_, after) in pairwise(rows):
            ruling = kind == "input" and data.get("type") == "Ruling" and data.get("hand")
            count += bool(ruling and after.get("type") == "PenaltyApplied")
    return count


def _waives_undone(folder: Path, received: dict, ruleset: str) -> int:
    """The waives undone (a WaiveUndone reopening its penalty) in every table's journal;
    each then applied, on its hand's line of the sheet the venue received once, with the
    points its alert proposed, the rule book's for the nth offence its report was (seed 004
    第三章: a waived report is no offence, so CCM's 10 points do not become 20)."""
    catalogue = load_ruleset(ruleset).table_rules.penalties
    assert catalogue is not None
    count = 0
    for path in sorted(folder.glob("round*/*.sqlite")):
        with Journal(path, readonly=True) as journal:
            rows, session = [(row.kind, row.data()) for row in journal.rows()], journal.session_id
        hand, proposed, undone = None, {}, []
        for (kind, data), (_, after) in pairwise(rows):
            if kind == "hand":
                hand = data["hand_number"]
            elif data.get("type") == "Alert" and data.get("needs_ruling"):
                proposed[(hand, data["id"])] = data["penalty"]
            elif data.get("type") == "WaiveUndone" and after.get("type") == "PenaltyReopened":
                undone.append(proposed[(data["hand"], data["alert"])] | {"hand": data["hand"]})
        lines = {line["number"]: line for line in received[(path.stem, session)]["hands"]}
        for penalty in undone:
            line = lines[penalty["hand"]]
            (applied,) = [o for o in line["offences"] if o["reason"] == RULED_AGAIN]
            offence = catalogue.offences[penalty["offence"]]
            nth = offence.points[min(penalty["nth"], len(offence.points)) - 1]
            assert applied["offence"] == penalty["offence"]
            assert applied["points"] == penalty["points"] == nth, (path, penalty, applied)
        count += len(undone)
    return count


def _verified_against_the_anchors(folder: Path, records: Path, pins: dict, capsys) -> None:
    """Issue 36 'Done when' with issue 35: the venue's anchors exported from its records by
    `mjtable venue anchors export`; `mjtable verify --anchors --key` with the key the venue
    pinned (each table's own device key) passes every table's journal of every round."""
    anchors = folder / "anchors.json"
    export = ["venue", "anchors", "export", "--records", str(records), "--venue", "hall"]
    assert main([*export, "-o", str(anchors)]) == 0
    journals = sorted(folder.glob("round*/*.sqlite"))
    assert len(journals) == TABLES * ROUNDS
    for journal in journals:
        pinned = pins[journal.stem]
        assert pinned and pinned[0] == device_key.load(folder / f"{journal.stem}.key").fingerprint
        capsys.readouterr()
        code = main(["verify", str(journal), "--anchors", str(anchors), "--key", pinned[0]])
        said = capsys.readouterr()
        assert code == 0, f"{journal}: {said.out}{said.err}"
        assert " 0 signatures" not in said.out and " 0 seals" not in said.out, said.out


def _store_log(config: Path) -> str:
    """The shipped config logs to a file of its own (under the test folder's store)."""
    for line in config.read_text().splitlines():
        if line.startswith("log_dest file "):
            path = Path(line.removeprefix("log_dest file "))
            return path.read_text(errors="replace") if path.exists() else ""
    return ""


@pytest.mark.slow  # a few seconds: a fleet, a broker, a dashboard
def test_the_demo_day_on_the_command_line(broker, tmp_path, capsys):
    """Issue 36 item 4: `mjtable venue --simulate 4 --rounds 2 --ruleset ccm2012
    --json-summary` seats the hall from --seating, plays both rounds, prints the standings
    after each and one JSON line with the day's counts and the results file's path."""
    plan = tmp_path / "plan.csv"
    lines = ["round,table,seat,name,federation_id,country"]
    for number in (1, 2):
        for t in range(4):
            for s, wind in enumerate("ESWN"):
                n = 4 * t + s if number == 1 else 4 * ((t + s) % 4) + s
                lines.append(f"{number},t{t + 1:03d},{wind},選手{n},ID{n},HK")
    plan.write_text("\n".join(lines) + "\n", encoding="utf-8")
    given = f"venue --broker {broker.address} --venue hall --port 0 --simulate 4 --rounds 2"
    more = f"--hands 1 --speed 100 --ruleset ccm2012 --seating {plan} --results-dir {tmp_path}"
    assert main([*given.split(), *more.split(), "--json-summary"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert [line.split(":")[0] for line in out if line.startswith("round ")] == [
        "round 1",
        "round 2",
    ]
    summary = json.loads(out[-1])
    for key in ("tables", "rounds", "hands", "sheets", "unnamed", "late_rulings", "gaps"):
        assert key in summary
    assert summary["waives_undone"] >= 1, "the floor referee undoes a waive (issue 36)"
    assert (summary["tables"], summary["rounds"], summary["sheets"]) == (4, 2, 8)
    assert (summary["unnamed"], summary["duplicates"], summary["concealed_leaks"]) == (0, 0, 0)
    assert summary["late_rulings"] >= 1, "the floor referee rules after the hand (issue 36)"
    with open(summary["results"], encoding="utf-8") as file:
        results = list(csv.DictReader(file))
    assert len(results) == 16 and {r["book"] for r in results} == {"CCM"}
    assert all(r["name"].startswith("選手") and r["games"] == "2" for r in results)
