"""The referees' own secrets at the table (issue 19, "Credentials"; SOFTWARE.md §4): `mjtable
referee add|list|remove` keeps each secret as a salted scrypt hash in the data directory, and
the referee display lets an enrolled referee in by his secret and names him on his session;
with none enrolled, the profile's referee_pin, as before. The display's clock stands still.
"""

import asyncio
import hashlib
import io
import json
import stat
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from firmware.cli import main
from firmware.desk.referees import FILE, SCRYPT, RefereeError, Referees
from firmware.display.app import create_app
from firmware.web.auth import FREE, OK, SHIPPED_REFEREE_PIN, THROTTLED, RefereeAuth
from firmware.web.settings import listener_problem
from tests.support.displaykit import BASE, OWN_PAGE, PIN, FakeSource
from tests.support.scenes import view_of, wsom_scene

ALICE, BOB = "Alice Wong", "Bob"
ALICE_SECRET, BOB_SECRET = "east wind rises", "73915284"
STRANGER, TABLET = ("192.168.1.66", 40000), ("192.168.1.20", 50000)


def referee(*args, stdin: str = "", monkeypatch) -> int:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    return main(["referee", *args])


@pytest.fixture
def enrolled(tmp_path) -> Referees:
    referees = Referees(tmp_path / FILE)
    referees.add(ALICE, ALICE_SECRET)
    referees.add(BOB, BOB_SECRET)
    return referees


def test_issue_19_referee_add_list_remove_from_the_command_line(tmp_path, monkeypatch, capsys):
    """Issue 19: `referee add NAME` sets his secret in the data directory, `list` names the
    enrolled referees (never a hash), `remove` takes one away; removing one not enrolled is
    refused naming those who are."""
    folder = ["--data-dir", str(tmp_path)]
    add = ["add", ALICE, "--secret-stdin", *folder]
    assert referee(*add, stdin=ALICE_SECRET + "\n", monkeypatch=monkeypatch) == 0
    assert (
        referee("add", BOB, "--secret-stdin", *folder, stdin=BOB_SECRET, monkeypatch=monkeypatch)
        == 0
    )
    capsys.readouterr()
    assert referee("list", *folder, monkeypatch=monkeypatch) == 0
    listed = capsys.readouterr().out
    assert [line.split("  ")[0] for line in listed.splitlines()] == [ALICE, BOB]
    hashes = [
        e["secret"]["hash"] for e in json.loads((tmp_path / FILE).read_text())["referees"].values()
    ]
    assert not any(h in listed for h in hashes)
    assert referee("remove", BOB, *folder, monkeypatch=monkeypatch) == 0
    assert list(Referees(tmp_path / FILE).load()) == [ALICE]
    assert referee("remove", BOB, *folder, monkeypatch=monkeypatch) == 2
    assert f"no referee 'Bob' is enrolled (enrolled: {ALICE})" in capsys.readouterr().err


def test_issue_19_referee_add_asks_twice_and_refuses_two_different_secrets(
    tmp_path, monkeypatch, capsys
):
    """Issue 19: typed at the prompt (never echoed, getpass), the secret is asked twice; two
    that differ change nothing."""
    answers = iter([ALICE_SECRET, ALICE_SECRET + "x"])
    monkeypatch.setattr("getpass.getpass", lambda prompt: next(answers))
    assert referee("add", ALICE, "--data-dir", str(tmp_path), monkeypatch=monkeypatch) == 2
    assert "the two secrets differ: nothing was changed" in capsys.readouterr().err
    assert not (tmp_path / FILE).exists()
    monkeypatch.setattr("getpass.getpass", lambda prompt: ALICE_SECRET)
    assert referee("add", ALICE, "--data-dir", str(tmp_path), monkeypatch=monkeypatch) == 0
    referees = Referees(tmp_path / FILE)
    assert referees.is_secret_of(ALICE, ALICE_SECRET, referees.load())


@pytest.mark.parametrize(
    ("secret", "why"),
    [
        ("24681", "a PIN of 5 digits is too easily guessed"),
        ("short pass", None),  # 10 characters: a passphrase long enough
        ("shortpass", "a passphrase of 9 characters is too easily guessed"),
        ("246810", "the shipped PIN 246810 is known to everyone"),
    ],
)
def test_issue_19_weak_and_shipped_secrets_are_refused(tmp_path, monkeypatch, capsys, secret, why):
    """Issue 19 (the shipped PIN is refused) and auth.secret_problem: a PIN of 6 digits or
    more or a passphrase of 10 characters or more, never the profile's shipped 246810."""
    status = referee(
        "add",
        ALICE,
        "--secret-stdin",
        "--data-dir",
        str(tmp_path),
        stdin=secret,
        monkeypatch=monkeypatch,
    )
    if why is None:
        assert status == 0
    else:
        assert status == 2 and why in capsys.readouterr().err
        assert not (tmp_path / FILE).exists()


def test_issue_19_the_file_holds_salted_scrypt_hashes_never_a_secret(enrolled):
    """Issue 19: what is kept is scrypt's output with a random salt and its cost parameters
    (so it can be checked, and raised later); the secret is nowhere in the file, the file is
    its owner's alone (0600), and the same secret twice gets two salts."""
    text = enrolled.path.read_text()
    assert ALICE_SECRET not in text and BOB_SECRET not in text
    assert stat.S_IMODE(enrolled.path.stat().st_mode) == 0o600
    record = json.loads(text)["referees"][ALICE]["secret"]
    assert record["scheme"] == "scrypt" and {k: record[k] for k in SCRYPT} == SCRYPT
    expected = hashlib.scrypt(
        ALICE_SECRET.encode(), salt=bytes.fromhex(record["salt"]), dklen=32, **SCRYPT
    )
    assert record["hash"] == expected.hex() and len(bytes.fromhex(record["salt"])) == 16
    enrolled.add("Carol", ALICE_SECRET)
    carol = json.loads(enrolled.path.read_text())["referees"]["Carol"]["secret"]
    assert carol["salt"] != record["salt"] and carol["hash"] != record["hash"]
    assert list(enrolled.path.parent.iterdir()) == [enrolled.path]  # no temporary file left


def app_of(wsom, referees):
    return create_app(
        FakeSource(view_of(wsom_scene(wsom))), PIN, clock=lambda: 1000.0, referees=referees
    )


def log_in(client: TestClient, secret: str, name: str | None = None):
    """The login as the table's own page sends it (guard.py wants its Origin)."""
    body = {"pin": secret} | ({"referee": name} if name else {})
    return client.post("/api/referee/login", json=body, headers=OWN_PAGE)


def check(auth: RefereeAuth, secret: str, t: float, client: str, name: str | None = None):
    """auth.check's verdict, as the login awaits it."""
    return asyncio.run(auth.check(secret, t, client, name))


def test_issue_19_the_display_lets_an_enrolled_referee_in_and_names_him(wsom, enrolled):
    """Issue 19: an enrolled referee's secret opens the referee's display; the session it opens
    remembers whose it is (issue 16 journals who acted), by cookie and by bearer alike; the
    profile's PIN opens nothing once referees are enrolled."""
    app = app_of(wsom, enrolled)
    client = TestClient(app, base_url=BASE, client=TABLET)
    answer = log_in(client, BOB_SECRET, BOB)
    assert answer.status_code == 200 and answer.json() == {"ok": True, "referee": BOB}
    assert client.get("/api/referee/state").status_code == 200
    other = TestClient(app, base_url=BASE, client=STRANGER)
    refused = log_in(other, PIN, BOB)
    assert refused.status_code == 403 and refused.json() == {"error": "wrong PIN"}
    auth = RefereeAuth(PIN, enrolled)
    assert check(auth, ALICE_SECRET, 0.0, TABLET[0], ALICE)[:3] == (OK, 0.0, ALICE)
    token = auth.open_session(ALICE)
    session = auth.session(token)
    assert session is not None and session.referee == ALICE
    assert check(auth, PIN, 0.0, TABLET[0], ALICE).status != OK


def test_issue_19_the_profile_pin_works_while_no_referee_is_enrolled(wsom, tmp_path):
    """Issue 19: with no referee enrolled (no file, or every one removed) the profile's
    referee_pin opens the display as before, naming no one."""
    referees = Referees(tmp_path / FILE)
    client = TestClient(app_of(wsom, referees), base_url=BASE, client=TABLET)
    answer = log_in(client, PIN)
    assert answer.status_code == 200 and answer.json() == {"ok": True}
    referees.add(ALICE, ALICE_SECRET)
    refused = log_in(client, PIN, ALICE)
    assert refused.status_code == 403 and refused.json() == {"error": "wrong PIN"}
    referees.remove(ALICE)  # read at each login: no restart
    assert log_in(client, PIN).status_code == 200


def test_issue_19_enrolled_secrets_keep_the_throttle_per_device(enrolled, monkeypatch):
    """Issue 20 item 1 with enrolled referees: a stranger's wrong secrets hold only him up,
    and while he waits his tries are not even hashed; the referee's tablet is let in."""
    auth, hashed = RefereeAuth(PIN, enrolled), []
    real = enrolled.is_secret_of
    monkeypatch.setattr(enrolled, "is_secret_of", lambda *args: hashed.append(1) or real(*args))
    for t in range(FREE + 1):
        check(auth, "00000000", float(t), STRANGER[0], ALICE)
    assert len(hashed) == FREE + 1
    assert check(auth, ALICE_SECRET, FREE + 1.0, STRANGER[0], ALICE).status == THROTTLED
    assert len(hashed) == FREE + 1
    assert check(auth, ALICE_SECRET, FREE + 1.0, TABLET[0], ALICE)[:3] == (OK, 0.0, ALICE)


def test_issue_19_an_unreadable_referees_file_lets_no_one_in_and_says_so(
    wsom, enrolled, monkeypatch, capsys
):
    """Issue 19: a damaged referees file is named, on the display (503, not the profile's PIN
    instead) and by `referee list`; never a crash."""
    enrolled.path.write_text('{"referees": {"Alice": {"set": 0}}}')
    client = TestClient(app_of(wsom, enrolled), base_url=BASE, client=TABLET)
    answer = log_in(client, PIN)
    assert answer.status_code == 503 and "not a referees file" in answer.json()["error"]
    folder = str(enrolled.path.parent)
    assert referee("list", "--data-dir", folder, monkeypatch=monkeypatch) == 2
    assert f"{enrolled.path}: not a referees file" in capsys.readouterr().err
    with pytest.raises(RefereeError, match="not a referee's name"):
        enrolled.add(" lead", ALICE_SECRET)


def test_issue_19_with_referees_enrolled_the_shipped_profile_pin_no_longer_blocks_the_display():
    """Issue 19 (SOFTWARE.md §4): beyond this machine the display refuses the shipped PIN,
    known to everyone; once referees have their own secrets the profile's PIN opens nothing,
    so the table may serve its display with it still in the profile."""
    tls = (Path("cert.pem"), Path("key.pem"))
    problem = listener_problem("0.0.0.0", SHIPPED_REFEREE_PIN, tls)
    assert problem is not None and problem[0] == "referee_pin"
    assert listener_problem("0.0.0.0", SHIPPED_REFEREE_PIN, tls, enrolled=True) is None
    assert listener_problem("0.0.0.0", SHIPPED_REFEREE_PIN, None, enrolled=True) is not None
