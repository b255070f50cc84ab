"""The ids of the venue commands a table has taken, each with the time it expires (issue 35).

A command is taken only within WINDOW of when the venue issued it (firmware/uplink/commands.py),
and only once: a command caught on the hall's network and sent again is a replay. Its id must
be remembered until the window has closed, whatever the table does meanwhile: a restart, or a
new session, whose journal starts afresh (before issue 35 a captured command was taken again
once the table began a new journal). So the ids live in a file of the table's own, beside its
device key, written whole at each command taken (`write_whole`); an id whose window has closed is
dropped, so the file holds minutes of a hall's commands. A file that cannot be read starts
empty, said in the log (the journal's rows still recall the current session's ids).
"""

import json
import logging
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

log = logging.getLogger("mjtable.uplink")

FILE_NAME = "venue-commands-seen"  # beside the device key (firmware/journal/device_key.py)


class SeenCommands:
    """The ids taken and their expiry (Unix seconds), kept in `path` (None: in memory only)."""

    def __init__(self, path: Path | None):
        self.path = path
        self.expiry: dict[str, float] = self._read() if path is not None else {}

    def __contains__(self, command_id: str) -> bool:
        return command_id in self.expiry

    def remember(self, ids: Iterable[str], expires: float, now: float) -> None:
        """The commands `ids` taken, refused as replays until `expires`; the ids expired by
        `now` dropped, the rest written (once)."""
        self.expiry = {i: e for i, e in self.expiry.items() if e >= now}
        self.expiry |= dict.fromkeys(ids, expires)
        if self.path is not None:
            self._write(self.path)

    def _read(self) -> dict[str, float]:
        assert self.path is not None
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as err:
            log.warning("uplink: the venue commands seen %s cannot be read (%s)", self.path, err)
            return {}
        if not isinstance(data, dict):
            return {}
        return {i: e for i, e in data.items() if isinstance(e, int | float)}

    def _write(self, path: Path) -> None:
        try:
            write_whole(path, json.dumps(self.expiry).encode("utf-8"))
        except OSError as err:
            log.warning("uplink: the venue commands seen %s cannot be written (%s)", path, err)


def write_whole(path: Path, data: bytes) -> None:
    """`data` into `path`, written to a file of its own, fsynced, then renamed over the old:
    a power cut leaves the old file or the new (OSError if it cannot)."""
    draft = None
    try:
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        draft = Path(name)
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(draft, path)
        draft = None
    finally:
        if draft is not None:
            draft.unlink(missing_ok=True)
