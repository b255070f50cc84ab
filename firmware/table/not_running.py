"""Why the table is not running, for its own screen (issue 19).

When `mjtable run` cannot start as configured (status 2: a wrong profile, the shipped PIN on
the venue network, a garbled device key) or stops refereeing (status 3, firmware/table/storage.py),
systemd does not restart it (deploy/pi/mjtable.service) and the display it served is gone; the
kiosk (deploy/pi/kiosk.sh) then shows this file on the table's screen. The file lies in the
service's state directory, systemd's $STATE_DIRECTORY (/var/lib/mjtable), readable by the
kiosk's user; outside systemd there is none, nothing is written and the console says it all.
"""

import contextlib
import os
import re
import sys
from pathlib import Path

FILE_NAME = "not-running.txt"
CONFIG_STATUS = 2  # cannot start as configured: the unit's RestartPreventExitStatus
# A refusal of the referee's secret or the broadcast's token of the wrong type quotes the value
# (engine/schema.py's "expected text, got 246810"): never on the screen the players face; the
# service's log keeps the whole line.
SECRET_QUOTED = re.compile(r"(\[display\] (?:referee_pin|broadcast_token): expected [^,]*), got .*")


def path(environ=os.environ) -> Path | None:
    """The file in the service's state directory; None outside systemd."""
    folder = environ.get("STATE_DIRECTORY", "").split(":")[0]
    return Path(folder) / FILE_NAME if folder else None


def say(why: str, environ=os.environ) -> None:
    """`why` on the table's screen (a secret's value left out): a new file renamed over the
    old, mode 0644 whatever the service's umask (the kiosk runs as the desktop's user)."""
    target = path(environ)
    if target is None:
        return
    draft = target.with_name(FILE_NAME + ".new")
    shown = SECRET_QUOTED.sub(r"\1 (its value is not shown here)", why)
    try:
        fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            os.fchmod(fd, 0o644)
            os.write(fd, (shown + "\n").encode())
        finally:
            os.close(fd)
        os.replace(draft, target)
    except OSError as err:  # the console line is still in the service's log
        print(f"mjtable run: cannot write {target} for the screen: {err.strerror}", file=sys.stderr)


def clear(environ=os.environ) -> None:
    """A new start: the last one's reason no longer holds."""
    target = path(environ)
    if target is not None:
        with contextlib.suppress(OSError):  # the next refusal says why, if there is one
            target.unlink(missing_ok=True)


def refuse(message: str) -> int:
    """The table cannot start as configured: said on the console (the service's log) and on
    the table's screen; the status the unit does not restart on."""
    print(message, file=sys.stderr)
    say(message)
    return CONFIG_STATUS
