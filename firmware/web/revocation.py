"""What ends every session at once, and what ends one, kept where a restart finds them (issue
32 item 6): the key that signs the sessions, and the sessions logged out.

The key is SESSION_KEY in the data directory (mode 0600, made from `secrets` on first use):
a new key, the file replaced or deleted, ends every session it signed, open streams too, at
the next look, without a restart (it is looked at by its inode, size and time, once per
check). Each logout is kept in LOGOUTS beside it until the session would have expired, so a
restart does not open a session logged out before (issue 32 item 6: it did). Without a folder
(the venue's dashboard) both live in memory, and sessions end with the process.
"""

import json
import os
import secrets
import tempfile
import threading
from pathlib import Path

SESSION_KEY = "session.key"  # in the data directory (firmware/table/sessions.py data_dir)
LOGOUTS = "logouts.json"  # beside it: nonce -> when that session would have expired
KEY_BYTES = 32


def _written(path: Path, text: str) -> None:
    """`text` in `path`: written beside it, fsynced, renamed over it (whole or not at all),
    mode 0600; made by root (a trial run), given to the folder's owner, the service's user."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)  # mode 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        if os.geteuid() == 0:
            folder = path.parent.stat()
            os.chown(temporary, folder.st_uid, folder.st_gid)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def session_key(folder: Path | None) -> bytes:
    """The key that signs the sessions: SESSION_KEY in `folder`, made on first use; one that
    is not KEY_BYTES in hex is replaced (its sessions end). Without a folder, a new one in
    memory."""
    if folder is None:
        return secrets.token_bytes(KEY_BYTES)
    path = Path(folder) / SESSION_KEY
    try:
        key = bytes.fromhex(path.read_text(encoding="ascii").strip())
        if len(key) == KEY_BYTES:
            return key
    except (FileNotFoundError, ValueError):
        pass
    key = secrets.token_bytes(KEY_BYTES)
    _written(path, key.hex() + "\n")
    return key


class SessionKey:
    """The signing key of `folder`, read again when its file is another (a new key)."""

    def __init__(self, folder: Path | None):
        self.folder = folder
        self._key, self._version = session_key(folder), self._seen()

    def current(self) -> bytes:
        if self.folder is not None and self._seen() != self._version:
            self._key = session_key(self.folder)
            self._version = self._seen()
        return self._key

    def _seen(self) -> tuple | None:
        if self.folder is None:
            return None
        try:
            seen = (Path(self.folder) / SESSION_KEY).stat()
        except FileNotFoundError:
            return None
        return (seen.st_ino, seen.st_size, seen.st_mtime_ns)


class Logouts:
    """The sessions logged out (by their nonce) and when each would have expired: in LOGOUTS
    in `folder`, read once at the start; those expired are forgotten as others are added."""

    def __init__(self, folder: Path | None):
        self.path = None if folder is None else Path(folder) / LOGOUTS
        self._ended: dict[str, float] = {}
        self.unreadable = False  # a damaged file: no session opened before is trusted
        self._lock = threading.Lock()  # logouts are written from worker threads
        if self.path is not None:
            try:
                ended = json.loads(self.path.read_text(encoding="utf-8"))
                self._ended = {str(n): float(e) for n, e in ended.items()}
            except FileNotFoundError:
                pass
            except (OSError, ValueError, TypeError, AttributeError):
                self.unreadable = True

    def __contains__(self, nonce: str) -> bool:
        return nonce in self._ended

    def add(self, nonce: str, expires: float, now: float) -> str | None:
        """The session `nonce` is logged out; None once kept on disk, else why not (it is
        logged out in this process all the same). Blocking: call it off the loop."""
        with self._lock:
            self._ended = {n: e for n, e in self._ended.items() if e > now}
            self._ended[nonce] = expires
            if self.path is None:
                return None
            try:
                _written(self.path, json.dumps(self._ended, sort_keys=True) + "\n")
            except OSError as err:
                return f"{self.path}: {err.strerror}: the logout holds until a restart"
        return None
