"""The journal's disk, watched (issue 20 item 7): a table that cannot journal cannot referee.

Every input is committed to the journal before it is applied (DESIGN.md), so a table whose
journal cannot be written must stop refereeing, and say so plainly: never let play go on
unrecorded under a screen that advises to play on. Two signs are watched:

- the free space of the journal's folder (os.statvfs), every CHECK_SECONDS of table time on
  the actor's tick and before each hand: under WARN_FACTOR times the profile's `[journal]
  min_free_mb` it is a lasting fault on the referee's board, while someone can still free
  space; under `min_free_mb` it is a stop (DiskFull);
- every write: firmware/journal/store.py turns any SQLite error of a write, the ROLLBACK after a
  failed COMMIT included, into StorageFailure.

On a stop the service (firmware/table/service.py) takes no more inputs (the one whose write failed
was not applied), journals nothing more, not even the stop, and tells the console and the
display why; `mjtable run` tells systemd and exits with EXIT_STATUS, which the unit does not
restart (deploy/pi/mjtable.service): a restart onto a full disk would only loop, each start
cutting into the hand, while the technician wants the table stopped with its reason shown.
"""

import os

from firmware.journal.failures import DiskFull, StorageFailure

EXIT_STATUS = 3  # `mjtable run` stopped refereeing: its journal's disk is full or failing
CHECK_SECONDS = 10.0  # of table time between two looks at the free space
WARN_FACTOR = 2  # free space under this many times min_free_mb is a fault on the board
DEVICE = "journal disk"  # the fault board's name for it
MB = 1024 * 1024


class DiskWatch:
    """The free space of the folder of `journal_path` against `min_free_mb`; its faults go on
    the fault board `faults` (firmware/table/faults.py). `statvfs` is os.statvfs but in a test."""

    def __init__(self, journal_path, min_free_mb: float, faults, statvfs=os.statvfs):
        self.folder = os.path.dirname(os.path.abspath(journal_path))
        self.min_free_mb, self.faults, self.statvfs = min_free_mb, faults, statvfs
        self.checked: float | None = None  # table time of the latest look
        self.free_mb: float | None = None  # what it saw then

    def poll(self, t: float) -> None:
        """On the actor's tick: look if CHECK_SECONDS have passed since the latest look."""
        if self.checked is None or t - self.checked >= CHECK_SECONDS:
            self.check(t)

    def check(self, t: float) -> None:
        """Look now: DiskFull under the threshold; under the warning level a lasting fault,
        cleared once there is room again. A folder that cannot be looked at is a failing
        disk too."""
        self.checked = t
        try:
            stat = self.statvfs(self.folder)
        except OSError as err:
            raise StorageFailure(
                f"the journal's folder {self.folder} cannot be read: {err.strerror}"
            ) from err
        free = self.free_mb = stat.f_bavail * stat.f_frsize / MB
        where = f"{free:.0f} MB free for the journal in {self.folder}"
        if free < self.min_free_mb:
            raise DiskFull(
                f"disk full: {where}, under the {self.min_free_mb:.10g} MB of [journal] min_free_mb"
            )
        if free < WARN_FACTOR * self.min_free_mb:
            self.faults.report(
                t,
                DEVICE,
                "low space",
                f"{where}: under {self.min_free_mb:.10g} MB the table stops refereeing",
                "call the technician to free space on the journal's disk before it is full",
            )
        else:
            self.faults.clear(t, DEVICE, "low space")
