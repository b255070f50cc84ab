"""The table's actor: one queue, one task, so the engine sees one input at a time.

Every input is stamped with the table's clock as it arrives and queued (DESIGN.md: nothing
reaches the engine around the queue): a device's record where it was seen, a referee's action
when the desk submits it. One task takes them in the order they came and hands each record to
`handle`; a submitted action is carried out in its turn, after everything stamped before it,
and its answer goes back to the desk awaiting it. Whatever handling an item raises goes to
`failed`: a bug becomes a fault and the table goes on; a journal that cannot be written
stops the table (firmware/table/storage.py). Once the actor stops, for whatever reason, `done` is
set: the run ends rather than stay up with nothing refereed.
"""

import asyncio

TICK = 0.05  # seconds of table time between two polls of the timers


class Tick:
    """Table time has passed: poll the timers (the shuffler's timeouts, the claim window)."""


class Actor:
    """`clock()` is the table's clock. Devices may queue records before anyone takes them:
    `run(handle, failed)` takes them, `handle(t, record)` doing what a record means and
    `failed(t, what, error)` told of an item (`what` names it) whose handling raised, while
    the error is handled (a log has its traceback)."""

    def __init__(self, clock):
        self.clock = clock
        self.queue: asyncio.Queue = asyncio.Queue()
        self.done = asyncio.Event()  # set to stop: the hands wanted played, or a signal

    @property
    def backlog(self) -> int:
        """Items waiting: a simulation slows down when the actor falls behind."""
        return self.queue.qsize()

    def record(self, record, t: float | None = None) -> None:
        """Queue a device record seen at time t (now if None); call on the loop's thread."""
        self.queue.put_nowait((self.clock() if t is None else t, record, None))

    def from_thread(self, loop, seen=None):
        """A callback for a driver's thread (a serial reader): stamp now, queue on `loop`.
        `seen(record)`, if given, is called on the loop as the record is queued: what it
        notes is in the queue (a simulation waits on it, firmware/run/simulated.py)."""

        def on_record(record):
            loop.call_soon_threadsafe(self._queued, (self.clock(), record, None), seen)

        return on_record

    def _queued(self, item, seen) -> None:
        if seen is not None:
            seen(item[1])
        self.queue.put_nowait(item)

    def submit(self, action) -> asyncio.Future:
        """Queue `action(t)`, stamped now, to be carried out in its turn; await the future
        for what it returns (or the exception it raised)."""
        answer = asyncio.get_running_loop().create_future()
        self.queue.put_nowait((self.clock(), action, answer))
        return answer

    def tick(self) -> None:
        self.record(Tick())

    async def ticker(self, period: float = TICK) -> None:
        while not self.done.is_set():
            await asyncio.sleep(period)
            self.tick()

    async def run(self, handle, failed) -> None:
        """Take the items in order until `done`; if `failed` itself raises, stop too."""
        try:
            while not self.done.is_set():
                t, item, answer = await self.queue.get()
                self.take(t, item, answer, handle, failed)
        finally:
            self.done.set()

    @staticmethod
    def take(t: float, item, answer: asyncio.Future | None, handle, failed) -> None:
        """Carry out one item: a submitted action if it has an `answer`, else a record."""
        try:
            result = item(t) if answer is not None else handle(t, item)
        except Exception as err:  # `failed` says whether the table goes on
            what = "submitted action" if answer is not None else f"{type(item).__name__} record"
            failed(t, what, err)
            if answer is not None and not answer.done():
                answer.set_exception(err)
            return
        if answer is not None and not answer.done():
            answer.set_result(result)
