"""Issue 32 item 3, "Nothing slow on the table's loop": a referee's secret is hashed off the
event loop that referees the table, one hash a try (his name looks his record up), and at
most hashing.ADMITTED tries at once in the whole process, one more answered 429 at once.

No test times anything: a hash is made to last a number of the table's ticks (the simulated
device's, which advances table time), and the table's waits are counted in those ticks.
"""

import asyncio
import threading

import httpx
import pytest

from firmware.desk import referees as referees_module
from firmware.desk.referees import FILE, Referees
from firmware.display.app import create_app
from firmware.journal.store import Journal
from firmware.table.actor import TICK, Tick
from firmware.web import hashing
from firmware.web.auth import FREE, OK, THROTTLED, WRONG, RefereeAuth
from tests.support.displaykit import BASE, OWN_PAGE, PIN, FakeSource
from tests.support.scenes import view_of, wsom_scene
from tests.support.servicekit import Clock, dealt_service

NAMES = ("Alice Wong", "Bob", "Carol")
SECRETS = ("east wind rises", "73915284", "red dragon 2026")
HASH_TICKS = 10  # a hash lasts this many of the table's ticks (scrypt: 60 ms, a tick 50 ms)
BOUND = 1  # ticks an input may wait before the table takes it
PATIENCE = 5.0  # s: a hang's bound, how long the device waits for the table to take an input


@pytest.fixture
def enrolled(tmp_path) -> Referees:
    referees = Referees(tmp_path / FILE)
    for name, secret in zip(NAMES, SECRETS, strict=True):
        referees.add(name, secret)
    return referees


def test_issue_32_item_3_a_try_costs_one_hash_whoever_is_enrolled(enrolled, monkeypatch):
    """Issue 32 item 3 "the referee's identity looked up by a name": with three referees
    enrolled a try is one hash, his name's record (a name nobody has: a decoy's, as long),
    where each try was one hash per referee."""
    hashed: list[str] = []
    real = referees_module.matches
    monkeypatch.setattr(
        referees_module,
        "matches",
        lambda record, secret: hashed.append(record["salt"]) or real(record, secret),
    )
    auth = RefereeAuth(PIN, enrolled)
    salts = {name: entry["secret"]["salt"] for name, entry in enrolled.load().items()}

    def attempt(secret, client, name):
        return asyncio.run(auth.check(secret, 0.0, client, name))

    assert attempt("wrong secret 1", "10.0.0.1", "Bob").status == WRONG
    assert attempt(SECRETS[2], "10.0.0.2", "Carol")[:3] == (OK, 0.0, "Carol")
    assert attempt(SECRETS[0], "10.0.0.3", "Mallory").status == WRONG
    assert hashed == [salts["Bob"], salts["Carol"], referees_module.DECOY["salt"]]
    refused = attempt(SECRETS[0], "10.0.0.4", None)  # no name: refused before any hash
    assert refused.status == 422 and len(hashed) == 3


def test_issue_32_item_3_tries_past_the_cap_are_answered_429_unhashed(enrolled, monkeypatch):
    """Issue 32 item 3 "a global cap on concurrent verifications with queued requests
    answered 429": while ADMITTED tries are hashing or waiting for the worker, the next one
    (another client's) is refused at once, busy, never hashed, and costs its client no
    wrong try; once they are done it is hashed."""
    release, started = threading.Event(), []
    monkeypatch.setattr(
        referees_module,
        "matches",
        lambda record, secret: started.append(1) or not release.wait(PATIENCE),
    )
    auth = RefereeAuth(PIN, enrolled)

    async def attack():
        tries = [
            asyncio.ensure_future(auth.check("0000000" + str(n), 0.0, f"10.0.1.{n}", "Bob"))
            for n in range(hashing.ADMITTED)
        ]
        await asyncio.sleep(0)  # each admitted, in the worker's queue
        one_more = await auth.check("00000009", 0.0, "10.0.2.1", "Bob")
        release.set()
        return one_more, await asyncio.gather(*tries)

    one_more, verdicts = asyncio.run(attack())
    assert one_more.status == THROTTLED and one_more.busy
    assert [v.status for v in verdicts] == [WRONG] * hashing.ADMITTED
    assert len(started) == hashing.ADMITTED and hashing.HASHING.in_flight == 0
    assert auth.tracked == hashing.ADMITTED  # the busy client holds no wrong try
    later = asyncio.run(auth.check("00000009", 0.0, "10.0.2.1", "Bob"))
    assert later.status == WRONG and len(started) == hashing.ADMITTED + 1


def test_issue_32_item_3_tries_sent_at_once_from_one_address_wait_in_turn(enrolled, monkeypatch):
    """Issue 32 item 3 with issue 20's throttle: tries sent at once from one address, while
    the hashes are under way, are counted as one after another; past the FREE ones the
    next is throttled uncompared, as it would be had he waited for each answer."""
    release, started = threading.Event(), []
    monkeypatch.setattr(
        referees_module,
        "matches",
        lambda record, secret: started.append(1) or not release.wait(PATIENCE),
    )
    auth = RefereeAuth(PIN, enrolled)

    async def at_once():
        tries = [
            asyncio.ensure_future(auth.check(f"0000000{n}", 0.0, "10.0.3.1", "Bob"))
            for n in range(FREE)
        ]
        await asyncio.sleep(0)
        one_more = await auth.check("00000009", 0.0, "10.0.3.1", "Bob")
        release.set()
        return one_more, await asyncio.gather(*tries)

    one_more, verdicts = asyncio.run(at_once())
    assert one_more.status == THROTTLED and not one_more.busy and one_more.wait == 1.0
    assert [v.status for v in verdicts] == [WRONG] * FREE and len(started) == FREE


class Device:
    """The table's devices on their own thread, as the readers' are: each input stamped with
    table time as it comes, then table time goes on a tick. It waits for the table to take
    each input, as long as PATIENCE; a table that does not is stalled: table time runs on
    a hash's length without it (the players do not stop), and the test ends. `ticks` is how
    many it made, `waits` each input's wait in ticks."""

    def __init__(self, clock: Clock, actor, loop):
        self.clock, self.actor, self.loop = clock, actor, loop
        self.ticks, self.taken, self.waits = 0, 0, []
        self.stalled = False
        self.done = threading.Event()
        self.changed = threading.Condition()

    def run(self) -> None:
        ahead = 0  # ticks made since the table stalled
        while not self.done.is_set():
            with self.changed:
                self.clock.t += TICK
                self.ticks += 1
                item = (self.clock(), Tick(), None)
                self.loop.call_soon_threadsafe(self.actor.queue.put_nowait, item)
                self.changed.notify_all()
                if self.stalled:  # the world goes on a hash's length, then the test ends
                    ahead += 1
                    if ahead >= HASH_TICKS:
                        self.done.set()
                elif not self.changed.wait_for(
                    lambda: self.taken >= self.ticks or self.done.is_set(), PATIENCE
                ):
                    self.stalled = True

    def take(self, t: float) -> None:
        """The table takes an input stamped `t` (on its loop): how long it waited, in ticks."""
        with self.changed:
            self.waits.append(round((self.clock() - t) / TICK))
            self.taken += 1
            self.changed.notify_all()

    def hash_lasting(self, record, secret) -> bool:
        """A hash that lasts HASH_TICKS of table time (a wrong secret)."""
        with self.changed:
            until = self.ticks + HASH_TICKS
            self.changed.wait_for(lambda: self.ticks >= until or self.done.is_set(), PATIENCE)
        return False


def test_issue_32_item_3_sixty_wrong_logins_from_20_addresses_never_hold_the_table(
    tmp_path, wsom, enrolled, monkeypatch
):
    """Issue 32 item 3: 60 wrong logins from 20 addresses (3 each, all free of the throttle)
    while the table plays, each hash lasting HASH_TICKS of table time: no input waits more
    than BOUND tick before the table takes it (on the loop, every hash held every input
    behind it), and every login is answered wrong or busy."""
    clock = Clock()
    with Journal(tmp_path / "j.sqlite") as journal:
        service = dealt_service(journal, clock)
        app = create_app(
            FakeSource(view_of(wsom_scene(wsom))),
            PIN,
            clock=lambda: 1000.0,
            referees=enrolled,
            data_dir=tmp_path,
        )

        async def play() -> list[int]:
            device = Device(clock, service.actor, asyncio.get_running_loop())
            monkeypatch.setattr(referees_module, "matches", device.hash_lasting)

            def handle(t, item):
                service.handle(t, item)
                device.take(t)

            table = asyncio.create_task(service.actor.run(handle, service.failed))
            world = threading.Thread(target=device.run, daemon=True)
            world.start()

            async def guesses(n: int) -> list[int]:
                transport = httpx.ASGITransport(app, client=(f"192.168.7.{n + 10}", 40000))
                async with httpx.AsyncClient(transport=transport, base_url=BASE) as client:
                    answers = []
                    for guess in range(3):
                        body = {"referee": NAMES[n % 3], "pin": f"9{n:02d}{guess:05d}"}
                        answer = await client.post(
                            "/api/referee/login", json=body, headers=OWN_PAGE
                        )
                        answers.append(answer.status_code)
                    return answers

            try:
                answers = await asyncio.gather(*(guesses(n) for n in range(20)))
            finally:
                device.done.set()
                service.actor.done.set()
                service.actor.queue.put_nowait((clock(), Tick(), None))
                await table
                world.join(PATIENCE)
            assert max(device.waits) <= BOUND, f"inputs waited up to {max(device.waits)} ticks"
            assert not device.stalled
            assert device.ticks >= HASH_TICKS  # a hash lasted, and the table took each tick
            return [status for per_address in answers for status in per_address]

        statuses = asyncio.run(play())
        assert len(statuses) == 60 and set(statuses) <= {403, 429}
        assert 403 in statuses  # hashed, and wrong
