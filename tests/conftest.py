"""Fixtures more than one package's tests use: the configured rulesets, a dealt desk, a broker,
the browser; the paths of the checkout and the screenshots' options (their fixtures are
tests/firmware/display/conftest.py's: pytest reads options from this conftest only). A fixture
of one package's tests goes to that package's conftest.py (issue 29). The tests need nothing
outside the checkout (no ../shared beside it)."""

import os
import tempfile
from pathlib import Path

import pytest

from firmware.desk.desk import Desk
from firmware.journal.store import Journal
from firmware.resources import load_ruleset
from tests.support.chromium import browser  # noqa: F401  (a fixture: the browser tests')
from tests.support.servicekit import Clock, dealt_service

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data"
WSOM_EXAMPLES = DATA / "wsom_examples.jsonl"  # a copy of ../shared/rules/wsom_examples.jsonl


TMPFS = Path("/dev/shm")  # memory: an fsync there returns at once


def pytest_configure(config):
    """The tests' files (tmp_path, and every tempfile) in memory where Linux gives a tmpfs and
    TMPDIR names no other place: a journal commit fsyncs (synchronous=FULL, SOFTWARE.md 7.1),
    and on a disk that other work shares each fsync waits its turn, most of the fast subset's
    time. No test asserts that a write reached the disk: the power cuts kill a process, whose
    writes the kernel keeps, and the slow fsync is told by a fake clock. Not where it is
    mounted noexec (a container's often is): tests run the scripts they write there."""
    if "TMPDIR" in os.environ or not TMPFS.is_dir() or not os.access(TMPFS, os.W_OK | os.X_OK):
        return
    if not os.statvfs(TMPFS).f_flag & os.ST_NOEXEC:
        tempfile.tempdir = str(TMPFS)


def pytest_addoption(parser):
    parser.addoption(
        "--screenshot",
        metavar="PATH",
        help="write the referee view's screenshot there (README's docs/display.png); "
        "by default it goes to a temporary folder, so no test writes into the checkout",
    )
    parser.addoption(
        "--broadcast-screenshot",
        metavar="PATH",
        help="write the broadcast view's screenshot there (README's docs/broadcast.png); "
        "by default it goes to a temporary folder too",
    )
    parser.addoption(
        "--result-screenshot",
        metavar="PATH",
        help="write the result panel's screenshot there (README's docs/result.png); "
        "by default it goes to a temporary folder too",
    )
    parser.addoption(
        "--board-screenshot",
        metavar="PATH",
        help="write the hall board's screenshot there (README's docs/board.png); "
        "by default it goes to a temporary folder too",
    )


@pytest.fixture(scope="session")
def wsom():
    return load_ruleset("wsom2006")


@pytest.fixture(scope="session")
def ccm():
    return load_ruleset("ccm2012")


@pytest.fixture
def desk(tmp_path):
    """The referee's desk on a service whose first hand is dealt (tests/support/servicekit.py)."""
    journal = Journal(tmp_path / "j.sqlite")
    yield Desk(dealt_service(journal, Clock()), "test table")
    journal.close()


@pytest.fixture
def broker(tmp_path):
    """A real Mosquitto on a free loopback port, anonymous (tests/support/broker.py)."""
    from tests.support.broker import Broker

    running = Broker(tmp_path / "broker").start()
    yield running
    running.stop()


@pytest.fixture
def reachable():
    """A folder user mosquitto can read (the shipped config's broker, started as root, drops
    to it): pytest's tmp_path lies under one only root may enter."""
    with tempfile.TemporaryDirectory(prefix="mjtable-test-") as folder:
        os.chmod(folder, 0o755)
        yield Path(folder)
