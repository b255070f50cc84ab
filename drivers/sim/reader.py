"""A simulated USB tile reader: a real pty that the production `drivers.readers.Reader` opens.

The simulated table talks to the same pyserial code as a real reader does (DESIGN.md drivers/):
a pty pair stands for the USB serial device, and `link` (a /dev/serial/by-id style symlink to
the pty's slave) is its stable name. Frames follow drivers/README.md, built by the encoders of
drivers/reader_frames.py.

The caller (the simulator, on the asyncio loop) only queues frames; one writer thread writes
them to the pty master in queue order, so a full pty buffer (the host not reading) never
blocks the caller and frames are never reordered. Faults a real reader shows are injected
here: dropped and crosstalk ("ghost") reads in `sweep`, and the USB cable pulled (`unplug`).
"""

from __future__ import annotations

import contextlib
import os
import queue
import select
import threading
import tty
from pathlib import Path

from drivers.reader_frames import (
    NO_ANTENNA,
    Inventory,
    encode_button,
    encode_error,
    encode_heartbeat,
    encode_inventory,
    encode_stacked,
)

WRITE_WAIT = 0.02  # seconds the writer holds the pty waiting for room (how long unplug waits)


class SimReader:
    """A simulated reader behind `link`. `injected` counts the faults `sweep` injected;
    `discarded` counts frames lost because the cable was out; `last_sweep` is the frames of
    the latest sweep as sent, so a test can compare them with what the host received.
    `awaited` is the heartbeat that closes the frames sent since the cable was last plugged
    in (None if none was sent): a simulation waits until the host has taken it (`mark`).
    With `lockstep` (a simulation that waits for its host, firmware/run/simulated.py), frames
    are lost until the simulation has seen the host open the port since the cable went in
    (`host_open`), as a real reader's are before its host opens the port (which flushes
    whatever came before), whenever that was."""

    def __init__(self, link: str | Path, lockstep: bool = False) -> None:
        self.link = Path(link)
        self.injected = {"drop": 0, "ghost": 0}
        self.discarded = 0
        self.last_sweep: tuple[Inventory, ...] = ()
        self._seq = 0
        self.heartbeat_seq = 0  # the latest heartbeat sent
        self.awaited: int | None = None
        self.lockstep = lockstep
        self.host_open = not lockstep
        self._unmarked = False  # frames sent since the latest heartbeat
        self._pty = threading.Lock()  # the writer holds it while it writes; unplug waits
        self._master: int | None = None
        self._slave: int | None = None
        self._generation = 0  # bumped at every (un)plug: frames queued before it are lost
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self.link.parent.mkdir(parents=True, exist_ok=True)
        self.replug()
        self._writer = threading.Thread(
            target=self._write_frames, daemon=True, name=f"sim reader {self.link.name}"
        )
        self._writer.start()

    # the frames of drivers/README.md

    def inventory(self, antenna: int, tags) -> None:
        self._send(encode_inventory(antenna, tags))

    def stacked(self, position: int, tag: bytes) -> None:
        self._send(encode_stacked(position, tag))

    def heartbeat(self) -> None:
        self._send(encode_heartbeat(self._seq))
        self.heartbeat_seq = self._seq
        if self.host_open:
            self.awaited = self._seq
        self._seq = (self._seq + 1) & 0xFF
        self._unmarked = False

    def mark(self) -> None:
        """A heartbeat after the frames sent since the latest one, if any: once the host
        has taken it, it has taken them all (frames are never reordered)."""
        if self._unmarked:
            self.heartbeat()

    def button(self, side: int, button: str) -> None:
        """A seat's button wired to this reader's board ([buttons] kind = "zone_reader")."""
        self._send(encode_button(side, button))

    def error(self, code: int, antenna: int = NO_ANTENNA) -> None:
        self._send(encode_error(code, antenna))

    def sweep(
        self, antennas: dict[int, list[bytes]], rng, drop: float = 0.0, ghost: float = 0.0
    ) -> dict[str, int]:
        """One inventory per antenna, in antenna order, even when empty, as a multiplexed
        reader sends every sweep. `antennas` holds the tags truly on each antenna; each read
        is lost with probability `drop`, and each frame gains, with probability `ghost`, one
        tag another antenna truly sees (crosstalk). Returns the faults injected."""
        faults = {"drop": 0, "ghost": 0}
        frames = []
        for antenna in sorted(antennas):
            seen = [tag for tag in antennas[antenna] if rng.random() >= drop]
            faults["drop"] += len(antennas[antenna]) - len(seen)
            if rng.random() < ghost:
                near = [
                    tag
                    for other in sorted(antennas)
                    if other != antenna
                    for tag in antennas[other]
                    if tag not in seen
                ]
                if near:
                    seen.append(rng.choice(near))
                    faults["ghost"] += 1
            frames.append(Inventory(antenna, tuple(seen)))
        for frame in frames:
            self.inventory(frame.antenna, frame.tags)
        self.last_sweep = tuple(frames)
        for kind, n in faults.items():
            self.injected[kind] += n
        return faults

    # the USB cable

    def unplug(self) -> None:
        """Pull the cable: the host's read fails as on a real unplug and the by-id link
        vanishes; frames sent until `replug` are lost (counted in `discarded`). The link goes
        first: a host reopening it by name never finds the closed pty's number, which the
        system may already have given another program's pty."""
        self.link.unlink(missing_ok=True)
        with self._pty:
            self._generation += 1
            self._close_pty()

    def replug(self) -> None:
        """Plug the cable back: a new pty, the same link (the host reopens it by name), which
        names the new pty before the old one is closed."""
        master, slave = os.openpty()
        tty.setraw(slave)  # no echo, no line editing: bytes pass as they are
        os.set_blocking(master, False)
        temporary = self.link.with_name(self.link.name + ".new")
        temporary.unlink(missing_ok=True)
        os.symlink(os.ttyname(slave), temporary)
        os.replace(temporary, self.link)  # one step: the host never sees a half-made link
        with self._pty:
            self._generation += 1
            self._close_pty()
            self._master, self._slave = master, slave
        self.awaited, self.host_open = None, not self.lockstep  # the frames before it are lost

    def close(self) -> None:
        """Unplug for good: frames still queued are dropped, the writer thread ends."""
        self.unplug()
        self._queue.put(None)
        self._writer.join()

    def __enter__(self) -> SimReader:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # the writer thread

    @property
    def plugged(self) -> bool:
        return self._master is not None

    def _send(self, frame: bytes) -> None:
        """Queue `frame` for the writer; it is lost if the cable is out when it is written, or
        if the host had not opened the port when it was sent (generation -1)."""
        self._queue.put((self._generation if self.host_open else -1, frame))
        self._unmarked = self.host_open

    def _close_pty(self) -> None:
        for fd in (self._master, self._slave):
            if fd is not None:
                os.close(fd)
        self._master = self._slave = None

    def _write_frames(self) -> None:
        while (item := self._queue.get()) is not None:
            generation, frame = item
            pending = memoryview(frame)
            while pending:
                with self._pty:
                    if generation != self._generation or self._master is None:
                        self.discarded += 1  # only this thread counts: no lock needed
                        break
                    _, room, _ = select.select([], [self._master], [], WRITE_WAIT)
                    if room:
                        with contextlib.suppress(BlockingIOError):
                            pending = pending[os.write(self._master, pending) :]
