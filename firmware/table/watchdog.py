"""systemd's notify protocol for the table's service (SOFTWARE.md §7.2): READY=1 once the
devices are up, then WATCHDOG=1 at half the watchdog interval for as long as the service's
actor keeps taking its ticks, so a hung service is restarted; STATUS= shows the hand in
`systemctl status`; STOPPING=1 as it stops, with why ("NOT REFEREEING: disk full: ...",
firmware/table/storage.py). Twenty lines of standard library rather than a package: the protocol
is one datagram. Outside systemd (no NOTIFY_SOCKET) every call does nothing.
"""

import asyncio
import os
import socket


class Notifier:
    def __init__(self, environ=os.environ):
        address = environ.get("NOTIFY_SOCKET", "")
        self.address = "\0" + address[1:] if address.startswith("@") else address
        usec = environ.get("WATCHDOG_USEC", "")
        self.interval = int(usec) / 2_000_000 if usec.isdigit() and int(usec) else None

    def send(self, *fields: str) -> bool:
        """One notification; False when there is no systemd to tell."""
        if not self.address:
            return False
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as link:
            link.sendto("\n".join(fields).encode(), self.address)
        return True

    def ready(self, status: str) -> bool:
        return self.send("READY=1", f"STATUS={status}")

    def alive(self, status: str) -> bool:
        return self.send("WATCHDOG=1", f"STATUS={status}")

    def stopping(self, status: str) -> bool:
        return self.send("STOPPING=1", f"STATUS={status}")


async def keep_alive(notifier: Notifier, alive, status, sleep=asyncio.sleep) -> None:
    """Ping at half the interval while `alive()` (the actor took a tick since the last
    ping); a hung actor stops the pings and systemd restarts the service."""
    while notifier.interval:
        await sleep(notifier.interval)
        if alive():
            notifier.alive(status())
