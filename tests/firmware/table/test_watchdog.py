"""The systemd notify protocol (SOFTWARE.md §7.2), against a datagram socket standing for
systemd's: READY once up, WATCHDOG pings at half the interval only while the service's actor
lives, nothing at all outside systemd."""

import asyncio
import contextlib
import socket

from firmware.table.watchdog import Notifier, keep_alive


def listening(tmp_path):
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.bind(str(tmp_path / "notify"))
    server.settimeout(2)
    return server


def test_ready_and_alive_reach_systemd_with_the_status(tmp_path):
    server = listening(tmp_path)
    notifier = Notifier({"NOTIFY_SOCKET": str(tmp_path / "notify"), "WATCHDOG_USEC": "10000000"})
    assert notifier.interval == 5.0  # half of WatchdogSec=10
    assert notifier.ready("hand 1: discard")
    assert server.recv(256) == b"READY=1\nSTATUS=hand 1: discard"
    notifier.alive("hand 1: draw")
    assert server.recv(256) == b"WATCHDOG=1\nSTATUS=hand 1: draw"
    server.close()


def test_outside_systemd_nothing_is_sent():
    notifier = Notifier({})
    assert notifier.interval is None and not notifier.ready("x") and not notifier.alive("x")


def test_pings_stop_when_the_actor_stops(tmp_path):
    """A hung actor (no tick taken lately) gets no ping, so systemd restarts the service."""
    server = listening(tmp_path)
    notifier = Notifier({"NOTIFY_SOCKET": str(tmp_path / "notify"), "WATCHDOG_USEC": "20000"})
    lives = iter([True, True, False, False])
    waits = []

    async def interval(seconds):  # a fake clock: four intervals, then stop
        waits.append(seconds)
        if len(waits) > 4:
            raise asyncio.CancelledError

    with contextlib.suppress(asyncio.CancelledError):
        asyncio.run(keep_alive(notifier, lambda: next(lives), lambda: "ok", interval))
    assert waits == [0.01] * 5
    server.settimeout(0.05)
    pings = []
    try:
        while True:
            pings.append(server.recv(64))
    except TimeoutError:
        pass
    assert pings == [b"WATCHDOG=1\nSTATUS=ok"] * 2
    server.close()
