"""A queue and an event for one live feed connection, at a fraction of asyncio's memory.

A hall holds thousands of live feed connections for hours, and each had two asyncio.Queue
(the feed's frames waiting for a slow client, and uvicorn's messages from the client) and an
asyncio.Event (uvicorn's "the socket takes writes"). asyncio makes four deques for a queue
and one for an event, each 760 bytes empty: 6.8 KiB of a connection's 29.7, for queues that
are empty nearly all the time and an event nearly nobody waits on (bench/fanout.py: memory
per connection against a bare `websockets` server's, issue 16). These keep nothing until
something waits: a deque only while items are queued, a future only while someone waits.

They do what their users ask of asyncio's, and nothing more: the feed's writer and uvicorn's
websocket protocol (app/web/live_protocol.py), one consumer each.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Generic, TypeVar

T = TypeVar("T")


class SmallQueue(Generic[T]):
    """A FIFO with `put_nowait`, `get_nowait`, `get` and `empty`, bounded by `limit` (0: not
    bounded; QueueFull past it), for one consumer at a time."""

    __slots__ = ("items", "waiter", "limit")

    def __init__(self, limit: int = 0) -> None:
        self.items: deque[T] | None = None  # only while something is queued
        self.waiter: asyncio.Future[None] | None = None  # the consumer waiting in get()
        self.limit = limit

    def __len__(self) -> int:
        return 0 if self.items is None else len(self.items)

    def empty(self) -> bool:
        return not self.items

    def qsize(self) -> int:
        return len(self)

    def put_nowait(self, item: T) -> None:
        if self.items is None:
            self.items = deque()
        elif self.limit and len(self.items) >= self.limit:
            raise asyncio.QueueFull
        self.items.append(item)
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def get_nowait(self) -> T:
        if not self.items:
            raise asyncio.QueueEmpty
        item = self.items.popleft()
        if not self.items:
            self.items = None  # its block of 64 slots goes back at once
        return item

    async def get(self) -> T:
        while not self.items:
            waiter = asyncio.get_running_loop().create_future()
            self.waiter = waiter
            try:
                await waiter
            finally:
                if self.waiter is waiter:
                    self.waiter = None
        return self.get_nowait()


class SmallEvent:
    """asyncio.Event's `set`, `clear`, `is_set` and `wait`, with its waiters kept only while
    there are any."""

    __slots__ = ("flag", "waiters")

    def __init__(self) -> None:
        self.flag = False
        self.waiters: list[asyncio.Future[None]] | None = None

    def is_set(self) -> bool:
        return self.flag

    def set(self) -> None:
        if self.flag:
            return
        self.flag = True
        waiters, self.waiters = self.waiters, None
        for waiter in waiters or ():
            if not waiter.done():
                waiter.set_result(None)

    def clear(self) -> None:
        self.flag = False

    async def wait(self) -> bool:
        if self.flag:
            return True
        waiter = asyncio.get_running_loop().create_future()
        if self.waiters is None:
            self.waiters = []
        self.waiters.append(waiter)
        try:
            await waiter
        finally:
            if self.waiters is not None and waiter in self.waiters:
                self.waiters.remove(waiter)
                if not self.waiters:
                    self.waiters = None
        return True
