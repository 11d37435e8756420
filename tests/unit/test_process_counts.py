"""A process's own rate-limit counters (issue 32; app/web/guards.ProcessCounts): counting
starts no thread, and the counters that expire are swept all the same."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import limits
import pytest
from limits.strategies import MovingWindowRateLimiter, SlidingWindowCounterRateLimiter

from app.web import guards
from app.web.guards import ProcessCounts


def _until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 30
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.01)


def test_counting_starts_no_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """The library's memory storage started a 10 ms timer thread on a count whenever the last
    had ended, and waited for it to run, on the event loop (7% of it under bench/hostile.py's
    attacks)."""
    counts = ProcessCounts()
    _until(lambda: not counts.timer.is_alive(), "the library's first timer never ended")
    started: list[str] = []
    real_start = threading.Thread.start

    def start(thread: threading.Thread) -> None:
        started.append(thread.name)
        real_start(thread)

    monkeypatch.setattr(threading.Thread, "start", start)
    window = SlidingWindowCounterRateLimiter(counts)
    moving = MovingWindowRateLimiter(counts)
    rate = limits.parse("1000/minute")
    for address in range(50):
        assert window.hit(rate, f"203.0.113.{address}")
        assert moving.hit(rate, f"198.51.100.{address}")
    assert started == []


def test_expired_counters_are_swept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(guards, "SWEEP_EVERY", 0.05)
    counts = ProcessCounts()
    limiter = MovingWindowRateLimiter(counts)
    rate = limits.parse("1/second")
    assert limiter.hit(rate, "203.0.113.9")
    assert not limiter.hit(rate, "203.0.113.9")  # counted: the second is refused
    assert counts.events
    _until(lambda: not any(counts.events.values()), "the expired count was never swept")
    assert limiter.hit(rate, "203.0.113.9")  # and the window is free again
