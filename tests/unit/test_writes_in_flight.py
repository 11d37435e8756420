"""The write limits count a write once it is answered (issue 32), and count the writes still
in flight as taken, so that a burst sent at once cannot all pass before one is counted
(app/web/guards.py, RateLimits.write and written). In memory: no I/O."""

from __future__ import annotations

import pytest

from app.settings import Settings
from app.web.guards import RateLimits, TooManyRequests

TABLET = "198.51.100.20"


def limits() -> RateLimits:
    return RateLimits(Settings(writes_per_token="5/minute", writes_per_address="100/minute"))


def test_a_burst_of_writes_in_flight_cannot_pass_the_limit() -> None:
    rate_limits = limits()
    flying = [rate_limits.write(TABLET, "table-token-1") for _ in range(5)]

    with pytest.raises(TooManyRequests) as refused:
        rate_limits.write(TABLET, "table-token-1")
    assert "SCOREBOARD_WRITES_PER_TOKEN" in str(refused.value.detail)
    rate_limits.write(TABLET, "table-token-2")  # another token has its own count

    for write in flying:  # all taken: counted
        rate_limits.written(write, 201)
        rate_limits.landed(write)
    with pytest.raises(TooManyRequests):
        rate_limits.write(TABLET, "table-token-1")


def test_a_refused_write_frees_its_place_and_a_failed_one_keeps_it() -> None:
    rate_limits = limits()
    for status in (409, 422, 403, 429):  # refused: not counted
        write = rate_limits.write(TABLET, "table-token-1")
        rate_limits.written(write, status)
        rate_limits.landed(write)
    for status in (201, 200, 503, 500):  # taken, or failed on after it began: counted
        write = rate_limits.write(TABLET, "table-token-1")
        rate_limits.written(write, status)
        rate_limits.landed(write)

    rate_limits.write(TABLET, "table-token-1")  # the 5th
    with pytest.raises(TooManyRequests):
        rate_limits.write(TABLET, "table-token-1")
    assert rate_limits.in_flight == {
        ("writes", "token", "table-token-1"): 1,
        ("writes", "address", TABLET): 1,
    }
