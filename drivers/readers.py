"""A tile reader's serial port, read by a thread that heals after an unplug: `Reader`, and the
records it makes about the link, `ReaderLost` and `ReaderBack`.

The frames it reads are drivers/reader_frames.py's, parsed by drivers/reader_parser.py
(the protocol: drivers/README.md, "Tile reader serial protocol"). Nothing outside drivers/
is imported.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import serial

from drivers.reader_frames import FrameRecord
from drivers.reader_parser import FrameParser

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ReaderLost:
    """Host side: the reader on `path` went away (unplugged, unopenable or silent)."""

    path: str
    reason: str


@dataclass(frozen=True, slots=True)
class ReaderBack:
    """Host side: the reader on `path` is open again and has sent a valid frame."""

    path: str


Record = FrameRecord | ReaderLost | ReaderBack


# --- the port ----------------------------------------------------------------------------------


class Reader:
    """One tile reader on a serial port, read by a thread; records go to `on_record`.

    Why a thread and not pyserial-asyncio-fast: the reader only talks and the host only
    listens, so a single blocking `read()` with a short timeout is the whole job, and the same
    code path serves the CLI, the tests and the service without an event loop. The unplug,
    close and reopen cycle stays in one place with plain pyserial calls (open and close never
    block the service's loop, which was the point of the -fast wrapper). The cost is one thread
    per reader; `on_record` is called on that thread, so the asyncio service passes
    `lambda r: loop.call_soon_threadsafe(queue.put_nowait, r)`.

    `path` is opened again by name after every loss: give it a stable name
    (the udev links of deploy/pi/99-mjtable.rules, or `/dev/serial/by-id/...`); pyserial URLs
    (`socket://`, `rfc2217://`) work too. Records: the frame records of `FrameParser`, plus
    `ReaderLost(path, reason)` once when the link goes (port error, cannot open, or
    `silence_timeout` seconds without a valid frame, on `clock`, which a simulation sets to
    the table time it runs, so that a busy machine's stall is no silence of its reader) and
    `ReaderBack(path)` at the first valid frame after it comes back. `close()` stops the
    thread within about `read_timeout` plus the time `on_record` takes.
    """

    def __init__(
        self,
        path: str,
        on_record: Callable[[Record], object],
        *,
        baudrate: int = 115200,
        silence_timeout: float | None = 3.0,
        read_timeout: float = 0.05,
        backoff_initial: float = 0.05,
        backoff_max: float = 2.0,
    ) -> None:
        self.path = path
        self.parser = FrameParser()
        self.reconnects = 0
        self._on_record = on_record
        self._baudrate = baudrate
        self._silence_timeout = silence_timeout
        self._read_timeout = read_timeout
        self._backoff_initial = backoff_initial
        self._backoff_max = backoff_max
        self.clock: Callable[[], float] = time.monotonic  # what silence is judged on
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._online = True  # optimistic until the first failure
        self.opened = threading.Event()  # set while the port is open (tests wait on it)

    # lifecycle

    def start(self) -> Reader:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._run, name=f"reader {self.path}", daemon=True
            )
            self._thread.start()
        return self

    def close(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def __enter__(self) -> Reader:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def online(self) -> bool:
        return self._online

    # the thread

    def _emit(self, record: Record) -> None:
        try:
            self._on_record(record)
        except Exception:  # a faulty consumer must not kill the reader
            log.exception("reader %s: on_record failed on %r", self.path, record)

    def _lost(self, reason: str) -> None:
        self.opened.clear()  # before the loss is told: whoever hears of it finds it clear
        if self._online:
            self._online = False
            log.warning("reader %s lost: %s", self.path, reason)
            self._emit(ReaderLost(self.path, reason))

    def _open(self) -> serial.SerialBase:
        return serial.serial_for_url(
            self.path, baudrate=self._baudrate, timeout=self._read_timeout, exclusive=True
        )

    def _run(self) -> None:
        backoff = self._backoff_initial
        while not self._stop.is_set():
            try:
                port = self._open()
            except (serial.SerialException, OSError, ValueError) as exc:
                self._lost(f"cannot open: {exc}")
                self._stop.wait(backoff)
                backoff = min(backoff * 2, self._backoff_max)
                continue
            self.opened.set()
            try:
                if self._pump(port):
                    backoff = self._backoff_initial
            finally:
                self.opened.clear()
                with contextlib.suppress(Exception):  # closing a vanished device may fail too
                    port.close()
                self.parser.reset()
            if not self._stop.is_set():
                self.reconnects += 1
                self._stop.wait(backoff)
                backoff = min(backoff * 2, self._backoff_max)

    def _pump(self, port: serial.SerialBase) -> bool:
        """Read until stop, error or silence; True if a valid frame arrived on this opening."""
        spoke = False
        last_frame = self.clock()
        while not self._stop.is_set():
            try:
                data = port.read(max(1, port.in_waiting))
            except (serial.SerialException, OSError) as exc:
                self._lost(f"port error: {exc}")
                return spoke
            now = self.clock()
            records = self.parser.feed(data) if data else []
            if records:
                last_frame = now
                spoke = True
                if not self._online:
                    self._online = True
                    log.info("reader %s back", self.path)
                    self._emit(ReaderBack(self.path))
                for record in records:
                    self._emit(record)
            elif self._silence_timeout is not None and now - last_frame > self._silence_timeout:
                self._lost(f"silent for {self._silence_timeout:g} s")
                return spoke
        return spoke
