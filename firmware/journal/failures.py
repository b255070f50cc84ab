"""What goes wrong with a journal (firmware/journal/store.py): a file that cannot be opened or
read, a write that failed or a disk too full, and the stop of refereeing that such a failure
causes (`Stopped`, which the table's status and the public view tell).
"""

from dataclasses import dataclass


class JournalError(Exception):
    """A journal that cannot be opened or read: missing, not a journal, or corrupt."""


class StorageFailure(JournalError):
    """A write to the journal failed: the table stops refereeing (firmware/table/storage.py)."""


class DiskFull(StorageFailure):
    """Less free space for the journal than the profile's `[journal] min_free_mb`
    (firmware/table/storage.py watches it)."""


@dataclass(frozen=True)
class Stopped:
    """Why the table stopped refereeing at table time `t`: `kind` ("disk full", "write
    error") chooses the public view's words, `why` is the detail for the referee and the
    technician."""

    t: float
    kind: str
    why: str

    @classmethod
    def by(cls, t: float, failure: StorageFailure) -> "Stopped":
        return cls(t, "disk full" if isinstance(failure, DiskFull) else "write error", str(failure))

    def line(self) -> str:
        """For the console and `systemctl status`."""
        return f"NOT REFEREEING: {self.why}"
