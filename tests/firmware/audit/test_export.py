"""Issue 16: `mjtable export sheet` (CSV, JSON, PDF on A4) and `export hands` (jsonl, mjai),
and the desk's download of the sheet, from short simulated journals.

The sheet is checked against the session that played the hands (firmware/sim/simulate.py's Game
keeps it), so a row rebuilt from the journal is the row the table had.
"""

import codecs
import csv
import io
import json
import os
from datetime import UTC, datetime, timedelta

import pytest
from pypdf import PdfReader
from starlette.testclient import TestClient

from engine import events as ev
from engine.table import Table
from firmware.audit import cli as export
from firmware.audit import hands as export_hands
from firmware.audit import sheet as export_sheet
from firmware.audit.sheet_csv import as_csv
from firmware.cli import main
from firmware.display.app import create_app
from firmware.journal.schema import canonical
from firmware.journal.store import Journal
from firmware.resources import load_ruleset
from firmware.sim.simulate import Game
from tests.support.servicekit import act, play_out

PIN = "246810"  # config/tables/sim.toml's
BASE = "http://127.0.0.1:8080"
PLAYERS = [
    {"name": "Alice Smith", "federation_id": "GB-0042"},
    {"name": "張偉", "federation_id": "HK-1001"},
    {"name": "Bob Jones", "federation_id": None},
    {"name": "Carla Díaz", "federation_id": "ES-7"},
]


def played(path, ruleset: str, hands: int = 2, seed: int = 3) -> Game:
    """A simulated session journaled at `path`, the venue's players named, hand 1 confirmed
    and the sheet signed up to it, as the desk journals them."""
    with Journal(path) as journal:
        journal.record(
            ev.VenueCommand(0.0, None, "c1", "start_session", {"players": PLAYERS}, None)
        )
        game = Game(load_ruleset(ruleset), seed, 0.05, journal=journal)
        for _ in range(hands):
            game.play_hand()
        first = game.session.sheet[0].to_json()
        journal.record(ev.ScoreConfirmed(game.t, None, 1, first))
        journal.record(ev.SheetSigned(game.t, None, 1, "Li Wei", (first,), journal.head))
    game.journal = None
    return game


@pytest.fixture(scope="module")
def wsom_game(tmp_path_factory):
    path = tmp_path_factory.mktemp("wsom") / "journal.sqlite"
    return path, played(path, "wsom2006")


@pytest.fixture(scope="module")
def ccm_game(tmp_path_factory):
    path = tmp_path_factory.mktemp("ccm") / "journal.sqlite"
    return path, played(path, "ccm2012")


def test_issue_16_sheet_csv_has_named_columns_one_row_per_hand_and_running_totals(wsom_game):
    """The score sheet as CSV: a header of named columns, a row per hand with the venue's
    players by name and federation id, and each total the one before with the hand's change
    and penalty (RULES.md 1.3: the payments sum to zero)."""
    path, game = wsom_game
    rows = list(csv.DictReader(io.StringIO(as_csv(export_sheet.sheet(path)).decode())))
    assert [int(r["hand"]) for r in rows] == [row.number for row in game.session.sheet]
    before = [0] * 4
    for r, row in zip(rows, game.session.sheet, strict=True):
        assert [r[f"player_{n}"] for n in (1, 2, 3, 4)] == [p["name"] for p in PLAYERS]
        ids = [r[f"federation_id_{n}"] or None for n in (1, 2, 3, 4)]
        assert ids == [p["federation_id"] for p in PLAYERS]
        totals = [int(r[f"total_{n}"]) for n in (1, 2, 3, 4)]
        assert totals == list(row.totals)
        for n in range(4):
            step = int(r[f"change_{n + 1}"]) + int(r[f"penalty_{n + 1}"])
            assert totals[n] == before[n] + step
        assert r["dealer"] == PLAYERS[row.dealer]["name"]
        assert r["zero_sum"] == "ok"
        before = totals
    assert [(r["confirmed"], r["signed_by"]) for r in rows] == [("yes", "Li Wei"), ("no", "")]


@pytest.mark.parametrize("which", ["wsom_game", "ccm_game"])
def test_issue_16_sheet_json_is_the_sheet_the_session_had(which, request):
    """The JSON document's rows are the table's HandRecords (seed 004 §38 一 6: CCM's
    penalties sum to minus its dead points), with each penalty's offence and rule."""
    path, game = request.getfixturevalue(which)
    document = json.loads(export.rendered(export_sheet.sheet(path), "json"))
    assert document["players"] == PLAYERS
    fields = list(game.session.sheet[0].to_json())
    assert [{k: h[k] for k in fields} for h in document["hands"]] == [
        row.to_json() for row in game.session.sheet
    ]
    assert document["zero_sum"] is True
    for hand in document["hands"]:
        assert sum(hand["changes"]) == 0 and sum(hand["penalties"]) + hand["dead"] == 0
    offences = [o for h in document["hands"] for o in h["offences"]]
    assert offences and all(o["rule"].startswith("RULES.md") for o in offences)
    assert document["signatures"][0]["referee"] == "Li Wei"


def test_issue_16_a_sheet_made_while_the_table_deals_its_next_hand_is_whole(tmp_path, monkeypatch):
    """The desk's download and the venue's sheet are made while the table plays on: a hand
    dealt between the sheet's replay and its reading of the rows is in neither (the journal
    is read as of one moment), so the sheet is made, not refused."""
    path = tmp_path / "journal.sqlite"
    played(path, "wsom2006", hands=1)
    with Journal(path, readonly=True) as journal:
        walls = next(r for r in journal.rows() if r.kind == "hand").data()["walls"]
    before = export_sheet.sheet(path)
    replayed = export_sheet.replay

    def dealing_meanwhile(journal):
        result = replayed(journal)
        with Journal(path) as table:  # the table's own connection
            table.hand("wsom2006", 2, walls, 1e6)
        return result

    monkeypatch.setattr(export_sheet, "replay", dealing_meanwhile)
    assert export_sheet.sheet(path)["hands"] == before["hands"]
    monkeypatch.undo()
    assert export_sheet.sheet(path)["in_play"] == 2  # read again: the hand dealt is there


def test_seed_004_5_a_game_ended_by_its_time_ends_on_the_rebuilt_sheet_too(tmp_path, ccm):
    """A CCM game whose time ran out ends with the hand in play (seed 004 第五條); the journal
    does not say so, but the next hand's fresh chips do: the rebuilt sheet ends it there, and
    the next game's first hand is dealt by East again."""
    with Journal(tmp_path / "j.sqlite") as journal:
        game = Game(ccm, 3, 0.0, journal=journal)
        record = game.session.record
        game.session.record = lambda table, time_up=False: record(table, True)  # time is up
        game.play_hand()
        game.session.record = record
        game.play_hand()
    assert [g["hands"] for g in game.session.games] == [1]
    document = export_sheet.sheet(tmp_path / "j.sqlite")
    assert [g["ended"] for g in document["games"]] == [g["ended"] for g in game.session.games]
    fields = list(game.session.sheet[0].to_json())
    assert [{k: h[k] for k in fields} for h in document["hands"]] == [
        row.to_json() for row in game.session.sheet
    ]
    assert [h["dealer"] for h in document["hands"]] == [0, 0]


def test_issue_16_sheet_pdf_prints_the_players_chinese_too_and_the_totals(ccm_game):
    """The PDF (A4) opened and its text extracted: each player's name, the Chinese one in the
    CJK font, and the last hand's totals."""
    path, game = ccm_game
    reader = PdfReader(io.BytesIO(export.rendered(export_sheet.sheet(path), "pdf")))
    width, height = reader.pages[0].mediabox.width, reader.pages[0].mediabox.height
    assert sorted((round(width), round(height))) == [595, 842]  # A4 in points
    # pypdf reads the CJK font's two-byte codes with a NUL before each character
    text = "".join(page.extract_text() for page in reader.pages).replace("\x00", "")
    for player in PLAYERS:
        assert player["name"] in text
    last = game.session.sheet[-1]
    assert all(f"{t:+d}" in text for t in last.totals if t)
    assert "空碰" in text or "違規摸牌" in text  # CCM's rule references, in Chinese


def test_issue_16_export_writes_a_new_file_only_and_a_bad_journal_is_one_line(
    wsom_game, tmp_path, capsys, monkeypatch
):
    """`-o FILE` never overwrites; a bad journal exits 2 with one line; a PDF is not sent to
    a terminal."""
    path, _ = wsom_game
    out = tmp_path / "sheet.csv"
    assert main(["export", "sheet", str(path), "--format", "csv", "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8").startswith("table,hand,round,")
    assert main(["export", "sheet", str(path), "--format", "csv", "-o", str(out)]) == 2
    assert "exists" in capsys.readouterr().err
    bad = tmp_path / "bad.sqlite"
    bad.write_text("not a journal")
    assert main(["export", "hands", str(bad), "--format", "jsonl"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a journal" in err
    monkeypatch.setattr("sys.stdout.isatty", lambda: True)
    with pytest.raises(export_sheet.ExportError, match="terminal"):
        export.write(b"%PDF", None, binary=True)


def test_issue_16_hands_jsonl_lines_are_events_that_replay_to_the_same_outputs(wsom_game):
    """docs/events.md "Hand records": every line an event of the schema with its hand; the
    inputs, applied to the table its hand line deals, give the outputs that follow them."""
    path, _ = wsom_game
    lines = [json.loads(line) for line in export_hands.export(path, "jsonl").splitlines()]
    table, expected, got, hands = None, [], [], set()
    for line in lines:
        if line["kind"] == "hand":
            deal = line["deal"]
            table = Table(load_ruleset(deal["ruleset"]), deal["walls"])
            hands.add(line["hand"])
            continue
        event = ev.from_json(line["event"])  # refuses an unknown type or a missing field
        if line["kind"] == "input":
            got += [canonical(o.to_json()) for o in table.apply(event)]
        elif line["kind"] == "output":
            expected.append(canonical(line["event"]))
    assert hands == {1, 2} and expected and got == expected


def test_issue_16_mjai_of_wsom_hands_has_the_riichi_events_in_order(wsom_game):
    """mjai for WSOM (136 tiles): start_game, then per hand start_kyoku with 13 tiles each,
    draws and discards, calls, a hora or ryukyoku, end_kyoku; end_game; tiles in mjai's
    notation, a real tile as the dora marker, and a note saying what riichi's format cannot
    (no dora in WSOM) as a line of mjai's `none` (issue 34)."""
    path, game = wsom_game
    lines = [json.loads(line) for line in export_hands.export(path, "mjai").splitlines()]
    types = [line["type"] for line in lines]
    assert types[0] == "start_game" and types[-1] == "end_game"
    assert lines[0]["names"] == [p["name"] for p in PLAYERS]
    assert lines[1]["type"] == "none" and "dora" in lines[1]["text"]
    assert types.count("start_kyoku") == types.count("end_kyoku") == len(game.session.sheet)
    jsonl = [json.loads(line) for line in export_hands.export(path, "jsonl").splitlines()]
    discards = [r for r in jsonl if r.get("event", {}).get("type") == "Discarded"]
    assert types.count("dahai") == len(discards)
    tiles = {f"{n}{s}" for s in "mps" for n in range(1, 10)} | set("ESWNPFC")
    known = {"tsumo", "dahai", "chi", "pon", "daiminkan", "ankan", "kakan", "none"}
    for start in (i for i, t in enumerate(types) if t == "start_kyoku"):
        end = types.index("end_kyoku", start)
        kyoku = lines[start:end]
        assert [len(t) for t in kyoku[0]["tehais"]] == [13] * 4
        assert kyoku[0]["dora_marker"] in tiles
        assert kyoku[1]["type"] == "tsumo" and kyoku[1]["actor"] == kyoku[0]["oya"]
        assert sum(t in ("hora", "ryukyoku") for t in types[start:end]) >= 1
        assert set(types[start + 1 : end]) <= known | {"hora", "ryukyoku"}
        for line in kyoku:
            for tile in [line.get("pai")] + line.get("consumed", []):
                assert tile is None or tile in tiles
            if line["type"] == "dahai":
                assert line["pai"] in tiles and 0 <= line["actor"] < 4


def test_issue_16_mjai_refuses_ccm_hands_with_flowers(ccm_game, capsys):
    """CCM (144 tiles, flowers) has no mjai form: refused with a clear line, exit 2."""
    path, _ = ccm_game
    with pytest.raises(export_hands.Inexpressible, match="144 tiles"):
        export_hands.export(path, "mjai")
    assert main(["export", "hands", str(path), "--format", "mjai"]) == 2
    assert "jsonl" in capsys.readouterr().err


def test_issue_16_the_desk_s_download_needs_the_referee_and_serves_the_live_sheet(desk):
    """/api/referee/sheet.csv: 401 without the referee's credentials; with them the CSV of
    the live session, the hand the referee confirmed marked so."""
    play_out(desk.service.hands, desk.service.clock())
    act(desk, "confirm_score", {"hand": 1})
    client = TestClient(create_app(desk, PIN), base_url=BASE)
    assert client.get("/api/referee/sheet.csv").status_code == 401
    answer = client.get("/api/referee/sheet.csv", headers={"Authorization": f"Bearer {PIN}"})
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(answer.text)))
    session = desk.service.status().session
    assert [int(r["total_1"]) for r in rows] == [row.totals[0] for row in session.sheet]
    assert [r["confirmed"] for r in rows] == ["yes"]
    missing = client.get("/api/referee/sheet.doc", headers={"Authorization": f"Bearer {PIN}"})
    assert missing.status_code == 404
    page = client.get("/").text  # the referee view links each format
    assert all(f'href="/api/referee/sheet.{fmt}"' in page for fmt in ("csv", "json", "pdf"))


def _csv_rows(data: bytes) -> list[dict]:
    return list(csv.DictReader(io.StringIO(data.decode("utf-8"))))


def _wins(path) -> list[tuple[int, dict]]:
    """(hand, Won event) of each win the journal holds."""
    lines = [json.loads(line) for line in export_hands.export(path, "jsonl").splitlines()]
    return [(r["hand"], r["event"]) for r in lines if r.get("event", {}).get("type") == "Won"]


@pytest.mark.parametrize(("seed", "discarded"), [(3, True), (4, False)])
def test_issue_34_sheet_csv_gives_each_win_its_winner_discarder_value_and_patterns(
    tmp_path, seed, discarded
):
    """Per hand the winner, the discarder or `self-draw`, the value (CCM's fans, T of RULES.md
    4.11) and its patterns; a draw leaves them empty."""
    path = tmp_path / "journal.sqlite"
    game = played(path, "ccm2012", seed=seed)
    rows = {int(r["hand"]): r for r in _csv_rows(as_csv(export_sheet.sheet(path)))}
    (hand, won), *_ = _wins(path)
    assert (won["from_seat"] is not None) == discarded
    record = game.session.sheet[hand - 1]
    row = rows[hand]
    assert row["winner"] == PLAYERS[record.winners[0]]["name"]
    if discarded:
        assert row["discarder"] == PLAYERS[(record.dealer + won["from_seat"]) % 4]["name"]
    else:
        assert row["discarder"] == "self-draw"
    assert int(row["value"]) == won["score"]["total"] > 0
    for pattern in won["score"]["patterns"]:
        assert f"{pattern['name']} {pattern['points']}" in row["patterns"]
    for other in (r for n, r in rows.items() if n != hand):
        assert other["result"] == "draw" and other["winner"] == other["discarder"] == ""


def test_issue_34_sheet_csv_names_the_table_its_round_and_when_each_hand_began(desk):
    """A table's sheet: its profile's name, the round's wind, and the time of day (UTC) the
    walls went up, as a spreadsheet reads a date and time."""
    play_out(desk.service.hands, desk.service.clock())
    now = datetime.now(UTC).replace(tzinfo=None)  # the walls went up as the fixture began
    (row,) = _csv_rows(as_csv(desk.score_sheet()))
    assert (row["table"], row["hand"], row["round"]) == ("sim-1", "1", "E")
    started = datetime.strptime(row["started_utc"], "%Y-%m-%d %H:%M:%S")
    assert now - timedelta(hours=1) <= started <= now


def test_issue_34_excel_gets_the_csv_with_a_bom_so_chinese_names_read_right(wsom_game, tmp_path):
    """`--excel`: UTF-8 with its byte order mark, which Excel on Windows needs to read 張偉
    from a double-clicked file; without it, plain UTF-8; on another format, refused."""
    path, _ = wsom_game
    for flags, name in (([], "plain.csv"), (["--excel"], "excel.csv")):
        out = tmp_path / name
        assert main(["export", "sheet", str(path), "--format", "csv", *flags, "-o", str(out)]) == 0
    excel, plain = (tmp_path / "excel.csv").read_bytes(), (tmp_path / "plain.csv").read_bytes()
    assert excel == codecs.BOM_UTF8 + plain and not plain.startswith(codecs.BOM_UTF8)
    assert "張偉" in excel.decode("utf-8-sig").splitlines()[1]
    assert main(["export", "sheet", str(path), "--format", "json", "--excel"]) == 2


def test_issue_34_json_sheet_holds_no_path_of_the_machine(wsom_game):
    """The JSON sheet names its journal by the file's name, never where it lies."""
    path, _ = wsom_game
    text = export.rendered(export_sheet.sheet(path), "json").decode("utf-8")
    assert json.loads(text)["journal"] == path.name
    assert str(path.parent) not in text and os.sep + path.name not in text
