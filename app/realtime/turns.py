"""The judges first (issue 32): in one process serving both lanes, public work waits while a
judge's request is being answered.

One `scoreboard serve` answers a judge's hand on the same core, and under the same
interpreter lock, as the public's work: the live feed working out a hall's channels, a
spectator's page, a search, a standings moment. Python hands its lock between busy threads
every few hundredths of a millisecond (serving.py's switch interval), so each thread busy
with public work took an equal share from the judge: with two of them, a 15 ms hand took
45 ms. Limits per address bound how much public work there is; they cannot say when it runs.

So public work asks for its turn at the points where it can stop cheaply (before a public
answer is made, between two channels of the feed, between two channels' changes sent), and
waits there while any request of the judges' lane is in flight. A judge's hand then shares
the core with at most the piece of public work already under way (one channel, one answer
being made). Each piece of public work waits a bounded time in all (an answer PATIENCE, an
update of the live feed its `answer_wait`, 50 ms), so a stream of judges' requests slows the
public but never stops it; behind the proxy the lanes are
processes of their own (app/web/lanes.py) and the public one never waits.

The counting is on the event loop (the middleware, app/web/__init__.py); the waiting is on
the loop (asyncio) or in a worker thread (threading), so both are kept in step.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
import weakref

# Seconds one piece of public work (an answer made, one update of the feed) waits in all for
# the judges: past it, it goes on beside them. A judge's hand takes some 15 ms; five a second
# keep the public waiting about a tenth of the time.
PATIENCE = 0.5


class JudgesFirst:
    """How many requests of the judges' lane are in flight, and a way for public work to
    wait until there are none."""

    def __init__(self, patience: float = PATIENCE) -> None:
        self.patience = patience
        self.in_flight = 0
        self.waited = 0.0  # seconds public work waited, in all (for the bench and metrics)
        self.waiting = 0  # pieces of public work waiting now
        self._counting = threading.Lock()  # `waiting` and `waited` change in several threads
        self._idle = threading.Event()
        self._idle.set()
        # each event loop's own event, made on that loop
        self._loops_idle: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Event]
        self._loops_idle = weakref.WeakKeyDictionary()

    def begin(self) -> None:
        """A judges' request has come in (on the event loop)."""
        self.in_flight += 1
        self._idle.clear()
        for idle in self._loops_idle.values():
            idle.clear()

    def end(self) -> None:
        """... and has been answered."""
        self.in_flight -= 1
        if self.in_flight > 0:
            return
        self._idle.set()
        here = _running_loop()
        for loop, idle in list(self._loops_idle.items()):
            if loop is here:
                idle.set()
            elif not loop.is_closed():
                loop.call_soon_threadsafe(idle.set)

    def _loop_idle(self) -> asyncio.Event:
        """The running loop's event. A server has one loop; a test's client may run the app
        on one loop and a websocket's session on another."""
        loop = asyncio.get_running_loop()
        idle = self._loops_idle.get(loop)
        if idle is None:
            idle = self._loops_idle[loop] = asyncio.Event()
            if self.in_flight == 0:
                idle.set()
        return idle

    def patient(self, patience: float | None = None) -> Patience:
        """The budget of waiting for one piece of public work (`patience`, else the
        judges' own)."""
        return Patience(self, self.patience if patience is None else patience)


class Patience:
    """One piece of public work's waiting, at most the judges' `patience` in all."""

    def __init__(self, judges: JudgesFirst, patience: float) -> None:
        self.judges = judges
        self.left = patience

    def wait(self) -> None:
        """From a worker thread: wait while a judge's request is in flight."""
        judges = self.judges
        if self.left <= 0 or judges._idle.is_set():
            return
        started = self._began()
        judges._idle.wait(self.left)
        self._spent(started)

    async def turn(self) -> None:
        """On the event loop: the same."""
        judges = self.judges
        if self.left <= 0 or judges.in_flight == 0:
            return
        started = self._began()
        with contextlib.suppress(TimeoutError):  # past its patience: it goes on
            await asyncio.wait_for(judges._loop_idle().wait(), self.left)
        self._spent(started)

    def _began(self) -> float:
        with self.judges._counting:
            self.judges.waiting += 1
        return time.monotonic()

    def _spent(self, started: float) -> None:
        seconds = time.monotonic() - started
        self.left -= seconds
        with self.judges._counting:
            self.judges.waiting -= 1
            self.judges.waited += seconds


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
