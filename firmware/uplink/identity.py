"""Who the table is, as its `status` on the bus says it (issue 34, docs/uplink.md): the
firmware's version, the machine's model, digests of the profile and the rule book it runs,
its device key's fingerprint, the free space of its journal's disk, its uptime, and the
birth of its connection, so that an organiser lists the hall's tables from the broker alone
and the venue tells a stale last will from a fresh "online".

The birth is a count kept in a file beside the device key (the table's, not a session's:
a new session's journal starts afresh, the count must not), one up at each connection to the
broker, so also at each start. The last will is set before the connection with the
connection's birth, so an "offline" a broker sends late names the birth it ended. An attempt
that never said online keeps its birth for the next: a broker away for an hour costs no
count and no write of the file every few seconds.
"""

import hashlib
import logging
import platform
import shutil
import time
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

from firmware.bus import contract
from firmware.uplink.seen import write_whole

log = logging.getLogger("mjtable.uplink")

BIRTH_FILE = "uplink-birth"  # beside the device key (firmware/journal/device_key.py)
DEVICE_TREE_MODEL = Path("/proc/device-tree/model")  # "Raspberry Pi 4 Model B Rev 1.4"


def file_sha256(path: Path) -> str:
    """The hex SHA-256 of a file's bytes: `sha256sum` of the profile or the rule book."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def machine_model() -> str:
    """The machine's own name for its model (a Raspberry Pi's device tree), else its
    system and processor ("Linux x86_64") where there is none."""
    try:
        model = DEVICE_TREE_MODEL.read_bytes().rstrip(b"\0").decode("utf-8", "replace").strip()
    except OSError:
        model = ""
    return model or f"{platform.system()} {platform.machine()}"


def next_birth(path: Path) -> int:
    """The count kept in `path` one up, written back whole (`write_whole`: a power cut
    leaves the old count or the new). A count that cannot be read starts again from 1, said
    in the log; one that cannot be written is used all the same (the next start may then
    repeat it)."""
    try:
        before = int(path.read_text(encoding="ascii").strip())
    except FileNotFoundError:
        before = 0
    except (OSError, ValueError, UnicodeDecodeError) as err:
        log.warning("uplink: the birth count %s cannot be read (%s): starting at 1", path, err)
        before = 0
    birth = max(before, 0) + 1
    try:
        write_whole(path, f"{birth}\n".encode("ascii"))
    except OSError as err:
        log.warning("uplink: the birth count %s cannot be written (%s)", path, err)
    return birth


class Identity:
    """The table's identity for its `status` messages. `profile` None: a simulated fleet's
    table, which has no profile; `key_fingerprint` None: no device key. `clock` is
    monotonic seconds (the uptime's)."""

    def __init__(
        self,
        *,
        profile: Path | None,
        rules: Path,
        key_fingerprint: str | None,
        journal: Path,
        births: Path,
        clock: Callable[[], float] = time.monotonic,
        dice: str | None = None,
    ):
        self.firmware = metadata.version("mjtable")
        self.model = machine_model()
        self.profile_sha256 = None if profile is None else file_sha256(profile)
        self.rules_sha256 = file_sha256(rules)
        self.key_fingerprint = key_fingerprint
        self.dice = dice  # the profile's dice, which `mjtable verify` holds each hand to
        self.journal, self.births, self.clock = Path(journal), Path(births), clock
        self.started = clock()
        self.birth = 0  # none yet: born() at each connection
        self.announced = False  # an online said under this birth

    def born(self) -> int:
        """A new connection's birth: the count one up, kept; the same as the last attempt's
        while no online was said under it."""
        if self.birth == 0 or self.announced:
            self.birth, self.announced = next_birth(self.births), False
        return self.birth

    def status(self, online: bool) -> contract.Status:
        """The `status` payload as of now: online, or the offline of this birth."""
        self.announced = self.announced or online
        return contract.Status(
            status=contract.STATUSES[0] if online else contract.STATUSES[1],
            birth=self.birth,
            firmware=self.firmware,
            model=self.model,
            profile_sha256=self.profile_sha256,
            rules_sha256=self.rules_sha256,
            key_fingerprint=self.key_fingerprint,
            disk_free_bytes=self._disk_free(),
            uptime_seconds=round(self.clock() - self.started, 3),
            dice=self.dice,
        )

    def _disk_free(self) -> int:
        try:
            return shutil.disk_usage(self.journal.parent).free
        except OSError:  # the journal's folder gone: the table stops on its own
            return 0
