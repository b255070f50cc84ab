"""What a reader thread reports, collected across threads, and a bounded wait for it."""

import threading
import time


class Collected:
    def __init__(self):
        self.records = []
        self.lock = threading.Lock()

    def __call__(self, record):
        with self.lock:
            self.records.append(record)

    def snapshot(self):
        with self.lock:
            return list(self.records)


def wait_for(predicate, timeout=60.0, poke=None):
    """Poll `predicate` until true; `poke` runs each round (e.g. a write). The bound only
    ends a wait for what never comes: a busy machine makes it later, never wrong (issue 29)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if poke is not None:
            poke()
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()
