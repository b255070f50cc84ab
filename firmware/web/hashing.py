"""Checking a secret against its salted hash off the table's event loop (issue 32 item 3).

scrypt is slow on purpose (some 60 ms and 16 MiB a try on x86, more on a Pi). Run on the loop
that referees the table, 60 wrong logins stalled the console for 10 s, and a stall past the
watchdog restarts the service. So every hash runs on one worker thread (hashlib's scrypt lets
go of the GIL while it works, so the loop goes on), and at most ADMITTED checks are admitted
at once, in the whole process: the one hashing and those waiting for it. One more is refused
at once (Busy: the login answers 429), never queued without bound.
"""

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

WORKERS = 1  # threads hashing: the table's loop keeps a core of the Pi's to itself
ADMITTED = 4  # checks at once, hashing or waiting: the last waits 4 hashes (0.25 s on x86)

T = TypeVar("T")


class Busy(Exception):
    """ADMITTED checks are under way: this one is refused without being hashed."""


class Hashing:
    """The process's worker and its cap (`HASHING`); `in_flight` counts the checks admitted."""

    def __init__(self, workers: int = WORKERS, admitted: int = ADMITTED):
        self._pool = ThreadPoolExecutor(workers, thread_name_prefix="mjtable-hashing")
        self.admitted, self.in_flight = admitted, 0

    async def run(self, check: Callable[..., T], *args) -> T:
        """`check(*args)` on the worker; Busy when ADMITTED are under way."""
        if self.in_flight >= self.admitted:
            raise Busy
        self.in_flight += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self._pool, check, *args)
        finally:
            self.in_flight -= 1


HASHING = Hashing()  # one per process: the cap is global, whoever logs in
