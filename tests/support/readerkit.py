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


def wait_for(predicate, timeout=5.0, poke=None):
    """Poll `predicate` until true or a bounded deadline; `poke` runs each round (e.g. a write)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if poke is not None:
            poke()
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()
