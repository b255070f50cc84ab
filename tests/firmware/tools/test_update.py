"""Updates (issue 19, "Logs and updates"; SOFTWARE.md §4): `mjtable update` installs a new
release beside the running one under the install prefix, checks it (its selftest, its
service started), switches `current` to it only then, keeps the one before as `previous` for
`mjtable rollback`; between hands only.

No network and no pip: the installer is a stand-in that lays down a release folder whose
`bin/mjtable` is a shell script printing a selftest's JSON, passing or failing, and whose `run`
tells the notify socket it is ready and prints a summary of one hand, or fails to start;
issue 32 item 7's tests also install a release that runs this checkout's own `mjtable`.
"""

import json
import os
import subprocess
import sys
from datetime import date

import pytest

from engine.wall import build_walls
from firmware.cli import main
from firmware.journal.store import Journal
from firmware.table.sessions import new_session
from firmware.tools import update, update_check
from tests.support.powercut import ServiceWriting, cut

PASSING = [{"name": "gpio", "ok": True, "detail": "every line", "advice": ""}]
FAILING = PASSING + [
    {"name": "zone reader", "ok": False, "detail": "no heartbeat", "advice": "plug it in"}
]


READY = (  # `mjtable run`'s stand-in: ready, as firmware/table/watchdog.py says it, one hand
    f'{sys.executable} -c "import os, socket; socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)'
    ".sendto(b'READY=1', os.environ['NOTIFY_SOCKET'])\"; echo '{\"hands\": 1}'"
)
CANNOT_START = "echo 'ModuleNotFoundError: No module named serial' >&2; exit 1"
THIS_CHECKOUT = f'exec {sys.executable} -m firmware.cli "$@"'  # a release that truly runs


class Installer:
    """pip_install's stand-in: each release's selftest prints `verdict` (and exits 1 on a
    failed check, as `mjtable selftest` does), its `run` does `service` (READY: says ready
    and plays one hand); `broken` makes the install itself fail."""

    def __init__(self):
        self.verdict, self.service, self.broken, self.installed = PASSING, READY, False, []

    def __call__(self, release, wanted):
        if self.broken:
            raise subprocess.CalledProcessError(1, ["pip", "install", *wanted])
        self.installed.append(wanted)
        (release / "bin").mkdir(parents=True)
        script = release / "bin" / "mjtable"
        status = 0 if all(check["ok"] for check in self.verdict) else 1
        selftest = f"echo '{json.dumps(self.verdict)}'; exit {status}"
        script.write_text(
            f'#!/bin/sh\nif [ "$1" = run ]; then {self.service}; exit $?; fi\n{selftest}\n'
        )
        script.chmod(0o755)


@pytest.fixture
def table(tmp_path, monkeypatch):
    """An install prefix, a data directory, a wheel file and the stand-in installer."""
    installer = Installer()
    monkeypatch.setattr(update, "pip_install", installer)
    prefix, data = tmp_path / "opt", tmp_path / "data"
    wheels = {v: tmp_path / f"mjtable-{v}-py3-none-any.whl" for v in ("0.1.0", "0.2.0", "0.3.0")}
    for wheel in wheels.values():
        wheel.write_bytes(b"PK")
    args = ["--prefix", str(prefix), "--data-dir", str(data)]
    return installer, prefix, data, wheels, args


def release_of(prefix, link="current"):
    """The release a link names, by its version ("0.2.0"), or None without the link."""
    path = prefix / link
    return os.readlink(path).split("/")[-1].rpartition("-")[0] if path.is_symlink() else None


def releases(prefix) -> list[str]:
    return sorted(p.name.rpartition("-")[0] for p in (prefix / "releases").iterdir())


def test_issue_19_an_update_switches_current_and_keeps_the_previous_release(table, capsys):
    """Issue 19: each update is a new release beside the running one; `current` names it,
    `previous` the one it replaced, and older ones are removed (the SD card's room)."""
    installer, prefix, _, wheels, args = table
    for version in ("0.1.0", "0.2.0", "0.3.0"):
        assert main(["update", str(wheels[version]), *args]) == 0
    assert release_of(prefix) == "0.3.0" and release_of(prefix, "previous") == "0.2.0"
    assert releases(prefix) == ["0.2.0", "0.3.0"]
    assert os.readlink(prefix / "current").startswith("releases/")  # relative: the prefix moves
    assert installer.installed[-1] == [str(wheels["0.3.0"].resolve())]
    assert "updated, every check passed: restart the service" in capsys.readouterr().out


def test_issue_31_update_says_each_step_as_it_begins(table, capsys):
    """Issue 31 "`update` shows progress": the install and the checks take minutes on a Pi;
    each step is said, numbered, before it begins, then the switch and the verdict."""
    _, prefix, _, wheels, args = table
    assert main(["update", str(wheels["0.2.0"]), *args]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line[:4] for line in lines[:3]] == ["1/3 ", "2/3 ", "3/3 "]
    release = os.readlink(prefix / "current").split("/")[-1]
    assert lines[0] == (
        f"1/3 installing mjtable 0.2.0 into {prefix / 'releases' / release} "
        "(pip: a minute or more on a Pi)"
    )
    assert lines[1].startswith(f"2/3 checking {release}: its selftest, then its service")
    assert lines[2] == f"3/3 switching to {release}"
    assert lines[3] == f"current -> {release}"
    assert lines[-1].startswith("updated, every check passed")


def test_issue_19_a_failed_selftest_after_an_update_switches_nothing(table, capsys):
    """Issue 19: the new release's own selftest runs before the switch; a failed check is
    named, `current` and `previous` are as they were, the failed release is gone, exit 1."""
    installer, prefix, _, wheels, args = table
    assert main(["update", str(wheels["0.1.0"]), *args]) == 0
    assert main(["update", str(wheels["0.2.0"]), *args]) == 0
    installer.verdict = FAILING
    assert main(["update", str(wheels["0.3.0"]), *args]) == 1
    out = capsys.readouterr().out
    assert "check FAILED: zone reader: no heartbeat" in out
    assert "removed, nothing switched" in out and "not updated" in out
    assert release_of(prefix) == "0.2.0" and release_of(prefix, "previous") == "0.1.0"
    assert releases(prefix) == ["0.1.0", "0.2.0"]


def test_issue_19_a_failed_install_switches_nothing(table, capsys):
    """Issue 19: pip failing (no network, a bad wheel) leaves the running release current and
    no half-made release behind."""
    installer, prefix, _, wheels, args = table
    assert main(["update", str(wheels["0.1.0"]), *args]) == 0
    installer.broken = True
    assert main(["update", str(wheels["0.2.0"]), *args]) == 2
    assert "the install failed, nothing switched" in capsys.readouterr().err
    assert release_of(prefix) == "0.1.0" and releases(prefix) == ["0.1.0"]


def test_issue_19_rollback_switches_to_the_previous_release(table, capsys):
    """Issue 19: `mjtable rollback` makes the previous release current; with none kept it
    says so. Issue 32 item 7: the release it leaves did not do, so it is not kept as
    `previous`: a second rollback has nothing to go back to, and the next update never
    makes it previous."""
    _, prefix, _, wheels, args = table
    assert main(["update", str(wheels["0.1.0"]), *args]) == 0
    assert main(["rollback", "--prefix", str(prefix)]) == 2
    assert "no previous release to go back to" in capsys.readouterr().err
    assert main(["update", str(wheels["0.2.0"]), *args]) == 0
    assert main(["rollback", "--prefix", str(prefix)]) == 0
    assert release_of(prefix) == "0.1.0" and release_of(prefix, "previous") is None
    assert "restart the service" in capsys.readouterr().out
    assert main(["rollback", "--prefix", str(prefix)]) == 2
    assert main(["update", str(wheels["0.3.0"]), *args]) == 0
    assert release_of(prefix) == "0.3.0" and release_of(prefix, "previous") == "0.1.0"
    assert releases(prefix) == ["0.1.0", "0.3.0"]


def test_issue_19_an_update_is_refused_while_a_hand_is_in_play(table, capsys):
    """Issue 19 (updates between sessions only): the current session's journal, replayed
    read-only, has its last hand ended: an update goes ahead; a hand begun and not ended:
    refused, nothing installed, since the new version would take that hand up."""
    installer, prefix, data, wheels, args = table
    journal = new_session(data, "sim", date(2026, 12, 2))
    assert main(["simulate", "--hands", "1", "--seed", "3", "--journal", str(journal)]) == 0
    assert main(["update", str(wheels["0.1.0"]), *args]) == 0
    with Journal(journal) as j:  # the next hand dealt
        j.hand("wsom2006", 2, build_walls(list(range(136)), 17), 900.0)
    assert main(["update", str(wheels["0.2.0"]), *args]) == 2
    err = capsys.readouterr().err
    assert f"hand 2 of {journal.name} is open" in err and "void it" in err
    assert len(installer.installed) == 1 and release_of(prefix) == "0.1.0"
    assert sorted(p.name for p in data.iterdir()) == ["current", journal.name]  # no -wal left


def test_issue_19_an_update_is_refused_while_the_service_writes_the_session(table, capsys):
    """Issue 19: a session a table is writing (the service running, whose devices the
    selftest needs too) refuses the update, saying to stop the service first."""
    installer, prefix, data, wheels, args = table
    journal = new_session(data, "sim", date(2026, 12, 2))
    with ServiceWriting(journal):
        assert main(["update", str(wheels["0.1.0"]), *args]) == 2
    assert f"the service is running, writing {journal.name}: stop it" in capsys.readouterr().err
    assert installer.installed == [] and not prefix.exists()
    assert main(["update", str(wheels["0.1.0"]), *args]) == 0  # closed: between sessions


def test_issue_31_after_a_cut_an_update_names_the_open_hand_and_how_to_end_it(table, capsys):
    """Issue 31 "maintenance after a cut": after a power cut mid-hand the service is not
    running; the refusal names the hand left open and how to end it (start the service,
    finish or void the hand, stop it), never "stop the service"."""
    installer, prefix, data, wheels, args = table
    journal = new_session(data, "sim", date(2026, 12, 2))
    cut(journal, deal=4)
    assert main(["update", str(wheels["0.1.0"]), *args]) == 2
    err = capsys.readouterr().err
    assert f"hand 4 of {journal.name} is open" in err and "stop it first" not in err
    assert "systemctl start mjtable" in err and "void it" in err
    assert installer.installed == [] and not prefix.exists()


@pytest.mark.parametrize(
    ("given", "why"),
    [
        ([], "give a wheel file or --index URL (one of them)"),
        (["WHEEL", "--index", "https://pypi.example/simple"], "give a wheel file or --index"),
        (["WHEEL", "--version", "1.0"], "--version goes with --index"),
        (["notes.txt"], "notes.txt is not an mjtable wheel (mjtable-VERSION-...whl)"),
        (["mjtable-9.9-py3-none-any.whl"], "no such file"),
        (["--index", "pypi.example"], "--index 'pypi.example' is not a URL"),
        (["WHEEL", "--wheelhouse", "/no/such/folder"], "--wheelhouse /no/such/folder: no such"),
        (["--index", "https://pypi.example/simple", "--wheelhouse", "."], "goes with a wheel"),
    ],
)
def test_issue_19_a_wrong_update_command_is_named_in_one_line(table, capsys, given, why):
    """Issue 19, cli.py's rule: a wrong command gets one line naming the problem, status 2,
    and nothing is installed."""
    installer, prefix, _, wheels, args = table
    given = [str(wheels["0.1.0"]) if g == "WHEEL" else g for g in given]
    assert main(["update", *given, *args]) == 2
    err = capsys.readouterr().err
    assert why in err and len(err.strip().splitlines()) == 1
    assert installer.installed == [] and not prefix.exists()


def test_issue_19_an_index_install_asks_pip_for_the_version_chosen(table):
    """Issue 19 (an index the venue chooses): pip is given that index and the version."""
    installer, prefix, _, _, args = table
    url = "https://pypi.example/simple"
    assert main(["update", "--index", url, "--version", "0.4.0", *args]) == 0
    assert installer.installed == [["--index-url", url, "mjtable==0.4.0"]]
    assert release_of(prefix) == "0.4.0"


def test_issue_31_an_update_from_a_wheelhouse_asks_no_index(table, tmp_path):
    """Issue 31 (a venue without internet): with --wheelhouse, pip is told to look in that
    folder only."""
    installer, prefix, _, wheels, args = table
    wheelhouse = str(tmp_path)
    assert main(["update", str(wheels["0.2.0"]), "--wheelhouse", wheelhouse, *args]) == 0
    offline = ["--no-index", "--find-links", wheelhouse, str(wheels["0.2.0"])]
    assert installer.installed == [offline] and release_of(prefix) == "0.2.0"


def test_issue_31_a_wheel_carrying_no_lock_is_not_installed(tmp_path, capsys):
    """Issue 31 ("pinned to the hash"): the dependencies are installed only by the lock the
    new wheel carries; a wheel without one is refused, its release removed, nothing
    switched."""
    wheel = tmp_path / "mjtable-0.2.0-py3-none-any.whl"
    wheel.write_bytes(b"PK\x05\x06" + bytes(18))  # an empty zip
    prefix = tmp_path / "opt"
    with pytest.raises(update.UpdateError, match="carries no lock of its dependencies"):
        update.update(prefix, "0.2.0", [str(wheel)], "p.toml", True, update.pip_install)
    assert list((prefix / "releases").iterdir()) == [] and not (prefix / "current").exists()


def test_issue_32_item_7_a_release_whose_service_cannot_start_is_never_switched_to(table, capsys):
    """Issue 32 item 7: a release whose selftest passes but whose `mjtable run` dies at its
    start (a module missing) fails the check before the switch: named, removed, `current`
    and `previous` as they were, never "every check passed"."""
    installer, prefix, _, wheels, args = table
    assert main(["update", str(wheels["0.1.0"]), *args]) == 0
    assert main(["update", str(wheels["0.2.0"]), *args]) == 0
    capsys.readouterr()
    installer.service = CANNOT_START
    assert main(["update", str(wheels["0.3.0"]), *args]) == 1
    out = capsys.readouterr().out
    assert "check FAILED: the service never said it was ready (status 1)" in out
    assert "No module named serial" in out and "every check passed" not in out
    assert release_of(prefix) == "0.2.0" and release_of(prefix, "previous") == "0.1.0"
    assert releases(prefix) == ["0.1.0", "0.2.0"]


@pytest.mark.slow
def test_issue_32_item_7_the_check_plays_a_hand_on_the_new_release(table, capsys, tmp_path):
    """Issue 32 item 7: the new release (here this checkout's own `mjtable`) is started from
    the installed profile on a scratch journal: on the simulated table it plays one hand and
    stops; started as a real table's (its devices taken), it says ready and stops on SIGTERM
    with status 0. The table's data directory gets no trial session."""
    installer, prefix, data, wheels, args = table
    installer.service = THIS_CHECKOUT
    assert main(["update", str(wheels["0.1.0"]), *args]) == 0
    assert "every check passed" in capsys.readouterr().out
    release = prefix / os.readlink(prefix / "current")
    assert update_check.trial(release, "sim", simulated=False) == []
    assert not data.exists() or not any(data.iterdir())
