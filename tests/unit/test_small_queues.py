"""The live feed's small queue and event (app/realtime/queues.py) do what asyncio's do for
their users: the feed's writer and uvicorn's websocket protocol (issue 16)."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.realtime.queues import SmallEvent, SmallQueue

LIMIT = 4
# ("put", n) or ("get", None), as the feed and uvicorn call them
operations = st.lists(
    st.one_of(st.tuples(st.just("put"), st.integers()), st.tuples(st.just("get"), st.none())),
    max_size=40,
)


def outcomes(
    queue: SmallQueue[int] | asyncio.Queue[int], steps: list[tuple[str, int | None]]
) -> list[object]:
    seen: list[object] = []
    for kind, item in steps:
        try:
            if kind == "put":
                assert item is not None
                queue.put_nowait(item)
                seen.append(("put", queue.qsize()))
            else:
                seen.append(("got", queue.get_nowait()))
        except (asyncio.QueueFull, asyncio.QueueEmpty) as refused:
            seen.append(type(refused).__name__)
        seen.append(queue.empty())
    return seen


@given(operations)
def test_the_small_queue_answers_as_asyncios_bounded_queue_does(
    steps: list[tuple[str, int | None]],
) -> None:
    async def both() -> None:
        assert outcomes(SmallQueue(LIMIT), steps) == outcomes(asyncio.Queue(LIMIT), steps)

    asyncio.run(both())


def test_an_empty_queue_keeps_no_deque_and_a_waiting_get_gets_the_next_item() -> None:
    async def scenario() -> None:
        queue: SmallQueue[str] = SmallQueue()
        assert queue.items is None
        waiting = asyncio.create_task(queue.get())
        await asyncio.sleep(0)
        assert queue.waiter is not None
        queue.put_nowait("hand 12")
        assert await asyncio.wait_for(waiting, 1.0) == "hand 12"
        assert queue.items is None and queue.waiter is None

    asyncio.run(scenario())


def test_a_cancelled_get_leaves_the_queue_usable() -> None:
    async def scenario() -> None:
        queue: SmallQueue[str] = SmallQueue()
        waiting = asyncio.create_task(queue.get())
        await asyncio.sleep(0)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        assert queue.waiter is None
        queue.put_nowait("a")
        assert await asyncio.wait_for(queue.get(), 1.0) == "a"

    asyncio.run(scenario())


def test_the_small_event_wakes_every_waiter_on_set_and_not_after_clear() -> None:
    async def scenario() -> None:
        writable = SmallEvent()
        assert not writable.is_set() and writable.waiters is None
        waiters = [asyncio.create_task(writable.wait()) for _ in range(3)]
        await asyncio.sleep(0)
        assert writable.waiters is not None and len(writable.waiters) == 3
        writable.set()
        assert await asyncio.wait_for(asyncio.gather(*waiters), 1.0) == [True, True, True]
        assert writable.waiters is None
        writable.clear()
        held = asyncio.create_task(writable.wait())
        await asyncio.sleep(0.01)
        assert not held.done()
        held.cancel()
        with pytest.raises(asyncio.CancelledError):
            await held
        assert writable.waiters is None
        assert await asyncio.wait_for(SmallEvent.wait(set_event()), 1.0) is True

    asyncio.run(scenario())


def set_event() -> SmallEvent:
    event = SmallEvent()
    event.set()
    return event
