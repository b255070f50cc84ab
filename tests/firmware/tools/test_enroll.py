"""`mjtable enroll` (issue 19, HARDWARE.md's tag registry, SOFTWARE.md §4): a new tile set's
tags learned from the tiles, by the stacker's order of a sorted set or one by one with the kind
typed, written as a registry the table loads; duplicates, missing tiles and tiles of another set
refused with every reason and exit status 1, bad arguments with one line and status 2."""

import io
import re
import threading
from pathlib import Path

import pytest

from drivers.sim.reader import SimReader
from engine import events as ev
from engine.tiles import NAMES, kind_of, physical_set
from firmware.cli import main
from firmware.journal.store import Journal
from firmware.resources import load_ruleset
from firmware.table.actor import Actor
from firmware.table.profile import TABLES_DIR, load_profile
from firmware.table.registries import registry_digests
from firmware.table.service import Service
from firmware.table.tags import load_registry, sim_registry_text
from tests.support.servicekit import Clock

SIM_TAGS = TABLES_DIR / "sim-tags.csv"


def sim_set(tile_set: str, flowers: bool) -> list[bytes]:
    """The simulated set's tags in the sorted order (the sim's own registry)."""
    tag_of = {place: tag for tag, place in load_registry(SIM_TAGS).items()}
    return [tag_of[(tile_set, tile)] for tile in physical_set(flowers)]


def enroll(capsys, *argv) -> tuple[int | str | None, str, str]:
    try:
        status = main(["enroll", *map(str, argv)])
    except SystemExit as stop:  # argparse's refusal of an argument
        status = stop.code
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return status, out, err


def test_issue_19_the_simulated_stacker_enrolls_both_sets_as_the_sims_own_registry(
    tmp_path, capsys
):
    """The simulated stacker reads each simulated set sorted (144 tiles with CCM's flowers):
    set A, then set B added to the same file, make the sim's registry, byte for byte."""
    out = tmp_path / "tags.csv"
    for tile_set in ("A", "B"):
        status, said, err = enroll(capsys, "--ruleset", "ccm2012", "--set", tile_set, "-o", out)
        assert status == 0, err
        assert f"set {tile_set} enrolled, 144 tiles" in said
        assert "144 tiles, four of each kind in this order, then one of each flower" in err
    assert out.read_text() == sim_registry_text() == SIM_TAGS.read_text()


def test_issue_19_a_set_without_flowers_is_136_tiles_and_its_id_is_printed(tmp_path, capsys):
    """Under a rule book without flowers (wsom2006, the sim's) the sorted set is 136 tiles;
    the set id printed is the registry digest the journal records (tile_registries.py)."""
    out = tmp_path / "tags.csv"
    status, said, _ = enroll(capsys, "--set", "B", "-o", out)
    assert status == 0
    tags = load_registry(out)
    assert sorted(tile for _, tile in tags.values()) == physical_set(False)
    assert tags == {t: p for t, p in load_registry(SIM_TAGS).items() if p[0] == "B" and p[1] < 136}
    assert f"set id {registry_digests(tags)['B']}" in said


@pytest.mark.parametrize(
    "fault, reason",
    [
        ("duplicate", r"tag e004\w+ read 2 times \(as 1m\): one tile passed twice"),
        ("foreign", r"tag \w+ is tile 2 \(1m\) of set B in \S+sim-tags\.csv: a tile of another"),
        ("missing", r"missing tiles, kinds short of their count: P \(3 of 4\)"),
    ],
)
def test_issue_19_a_duplicate_a_foreign_tile_or_a_missing_one_is_refused(
    tmp_path, capsys, fault, reason
):
    """The simulated stacker with a tag read twice, a tile of the other set, the last tile
    never stacked: the set is refused (status 1) naming the tag or the kind; nothing written."""
    out = tmp_path / "tags.csv"
    status, said, err = enroll(capsys, "-o", out, "--faults", fault, "--wait", "0.3")
    assert status == 1 and said == ""
    assert "mjtable enroll: set A refused:" in err and re.search(reason, err)
    assert not out.exists()


def test_issue_19_every_reason_is_given_at_once_from_a_file_of_reads(tmp_path, capsys):
    """A file of reads (one tag a line, `-` for a position not read): a gap at the first 5p
    and a tag read twice are both named, so the technician fixes all in one go."""
    tags = sim_set("A", False)
    lines = [tag.hex() for tag in tags]
    lines[16] = "-"  # the first 5p: not read
    lines[40] = lines[41]  # two 2p tiles read as one tag
    reads = tmp_path / "reads.txt"
    reads.write_text("\n".join(lines) + "\n")
    status, _, err = enroll(capsys, "-o", tmp_path / "tags.csv", "--reads", reads)
    assert status == 1
    assert f"tag {tags[41].hex()} read 2 times (as 2p)" in err
    assert "kinds short of their count: 5m (3 of 4)" in err
    lines = [tag.hex() for tag in tags] + [sim_set("B", True)[136].hex()]
    reads.write_text("\n".join(lines))
    status, _, err = enroll(capsys, "-o", tmp_path / "tags.csv", "--reads", reads)
    assert status == 1 and "137 positions read, a sorted set has 136" in err


def test_issue_19_an_existing_set_is_replaced_only_with_force_the_other_kept(tmp_path, capsys):
    """-o names a file holding set A: enrolling A again is refused (status 2, one line)
    unless --force, which replaces set A's rows and keeps set B's."""
    out = tmp_path / "tags.csv"
    out.write_text(SIM_TAGS.read_text())
    status, _, err = enroll(capsys, "--set", "A", "-o", out)
    assert status == 2 and err.strip().splitlines()[-1] == (
        f"mjtable enroll: {out} already holds set A: --force replaces it"
    )
    assert out.read_text() == SIM_TAGS.read_text()
    status, _, _ = enroll(capsys, "--set", "A", "-o", out, "--force")
    assert status == 0
    tags = load_registry(out)
    assert sum(1 for s, _ in tags.values() if s == "A") == 136  # the sim's rule book: no flowers
    assert {t: p for t, p in tags.items() if p[0] == "B"} == {
        t: p for t, p in load_registry(SIM_TAGS).items() if p[0] == "B"
    }


def test_issue_19_one_by_one_with_the_kind_typed_in_either_notation(tmp_path, capsys, monkeypatch):
    """--one-by-one: the technician types each tile's kind (RULES.md notation or Chinese),
    in any order; a typo is asked again. Each tag is enrolled as the kind typed."""
    tags = sim_set("A", False)
    order = list(reversed(range(136)))  # the tiles come in any order
    reads = tmp_path / "reads.txt"
    reads.write_text("\n".join(tags[i].hex() for i in order))
    typed = ["5x"] + [
        "東" if NAMES[kind_of(i)] == "E" else NAMES[kind_of(i)] for i in order
    ]  # a typo first
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(typed) + "\n"))
    status, said, err = enroll(capsys, "--one-by-one", "--reads", reads, "-o", tmp_path / "t.csv")
    assert status == 0, err
    assert "cannot read '5x'" in err
    assert "tile 136 of 136: put it alone on antenna 0" in said
    enrolled = load_registry(tmp_path / "t.csv")
    assert {t: kind_of(tile) for t, (_, tile) in enrolled.items()} == {
        tags[i]: kind_of(i) for i in range(136)
    }


def test_issue_19_one_by_one_ended_early_reports_the_kinds_short(tmp_path, capsys, monkeypatch):
    """An empty line ends the tiles: those not presented are missing, named by kind."""
    reads = tmp_path / "reads.txt"
    reads.write_text("\n".join(tag.hex() for tag in sim_set("A", False)))
    monkeypatch.setattr("sys.stdin", io.StringIO("1m\n1m\n1m\n1m\n2m\n\n"))
    status, _, err = enroll(capsys, "--one-by-one", "--reads", reads, "-o", tmp_path / "t.csv")
    assert status == 1
    assert "kinds short of their count: 2m (1 of 4), 3m (0 of 4)" in err


def test_issue_19_one_by_one_reads_each_tile_alone_on_the_antenna(tmp_path, capsys, monkeypatch):
    """--one-by-one on a zone reader (a simulated one on a pty, the production serial code):
    each kind typed is paired with the tag the antenna sees next, never the last tile's again;
    the tiles not presented are missing, by kind."""
    tags = sim_set("A", False)
    link = tmp_path / "zones"
    zones = "[readers.zones]               # the reader whose antennas lie under the table's zones"
    text = (TABLES_DIR / "sim.toml").read_text()
    text = text.replace(
        f'{zones}\nkind = "sim"', f'[readers.zones]\nkind = "serial"\npath = "{link}"'
    )
    (tmp_path / "sim.toml").write_text(text)
    (tmp_path / "sim-tags.csv").write_text(SIM_TAGS.read_text())
    shown: list[list[bytes]] = [[]]  # the tiles on antenna 0, latest last
    presented = [(tags[i], NAMES[kind_of(i)]) for i in (0, 1, 2, 3, 16)]  # 1m x4, one 5m

    def technician(prompt):
        """Puts the next tile alone on the antenna and types its kind; then no more."""
        if not presented:
            return ""
        tag, kind = presented.pop(0)
        shown.append([tag])
        return kind

    monkeypatch.setattr("builtins.input", technician)
    stop = threading.Event()
    with SimReader(link) as reader:

        def sweep():
            while not stop.wait(0.01):
                reader.inventory(0, shown[-1])

        threading.Thread(target=sweep, daemon=True).start()
        try:
            status, _, err = enroll(
                capsys, "--profile", tmp_path / "sim.toml", "--one-by-one", "-o", tmp_path / "t.csv"
            )
        finally:
            stop.set()
    assert status == 1, err
    short = "kinds short of their count: 2m (0 of 4), 3m (0 of 4), 4m (0 of 4), 5m (1 of 4), 6m"
    assert short in err and "1m (" not in err
    assert not (tmp_path / "t.csv").exists()


def test_issue_19_a_reader_that_is_not_there_is_named(tmp_path, capsys):
    """The stacker reader of the profile missing (unplugged, no udev name), or no antenna to
    present tiles on (the simulated table): status 1 naming it; nothing written."""
    path = load_profile("reference-pi").stacker_reader.path
    status, _, err = enroll(capsys, "--profile", "reference-pi", "-o", tmp_path / "t.csv")
    assert status == 1 and f"mjtable enroll: the stacker reader {path}: cannot open" in err
    status, _, err = enroll(capsys, "--one-by-one", "-o", tmp_path / "t.csv")
    assert status == 1 and "no tiles to put on an antenna: give --reads FILE" in err
    assert not (tmp_path / "t.csv").exists()


def test_issue_19_the_enrolled_set_id_is_journaled_when_a_session_begins(tmp_path, capsys):
    """A session played with the enrolled registry records the set id enroll printed
    (RegistriesRecorded, firmware/table/registries.py), so the journal says which set played."""
    _, said, _ = enroll(capsys, "--set", "A", "-o", tmp_path / "tags.csv")
    enroll(capsys, "--set", "B", "-o", tmp_path / "tags.csv")
    set_id = re.search(r"set id (\w+)", said)[1]
    profile_text = (TABLES_DIR / "sim.toml").read_text().replace("sim-tags.csv", "tags.csv")
    (tmp_path / "sim.toml").write_text(profile_text)
    profile = load_profile(tmp_path / "sim.toml")
    with Journal(tmp_path / "session.sqlite") as journal:
        ruleset = load_ruleset("wsom2006")
        Service(profile, ruleset, journal, Actor(Clock()), Standing(), out=lambda line: None)
    with Journal(tmp_path / "session.sqlite", readonly=True) as journal:
        records = [row.event() for row in journal.rows() if row.kind == "device"]
    began = [r for r in records if isinstance(r, ev.RegistriesRecorded)]
    assert len(began) == 1 and began[0].digests["A"] == set_id


class Standing:
    """The machine, standing ready (the service's shuffler, as
    tests/firmware/audit/test_verify.py's)."""

    state, set_in_play, set_ready, counts, fault = "ready", None, "A", (34, 34, 34, 34), None

    def poll(self, t):
        pass


@pytest.mark.parametrize(
    "argv, names",
    [
        (["--set", "C", "-o", "x.csv"], "--set"),
        (["--faults", "jam", "-o", "x.csv"], "--faults"),
        (["--wait", "0", "-o", "x.csv"], "--wait"),
        (["--reads", "no-such-file", "-o", "x.csv"], "--reads"),
        ([], "-o FILE"),
        (["-o", "no-such-folder/x.csv"], "no folder no-such-folder"),
        (["--reads", "reads.txt", "--faults", "foreign", "-o", "x.csv"], "--faults"),
        (["--profile", "no-such-table", "-o", "x.csv"], "--profile"),
        (["--profile", "reference-pi", "--faults", "foreign", "-o", "x.csv"], "--faults"),
    ],
)
def test_issue_19_a_bad_argument_exits_2_with_one_line(tmp_path, capsys, monkeypatch, argv, names):
    """A wrong command is told in one line naming the argument, status 2; nothing written."""
    monkeypatch.chdir(tmp_path)
    Path("reads.txt").write_text("")
    status, said, err = enroll(capsys, *argv)
    lines = [line for line in err.splitlines() if not line.startswith(("usage:", " "))]
    assert status == 2 and said == "" and len(lines) == 1 and names in lines[0]
    assert not Path("x.csv").exists()
