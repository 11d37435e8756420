"""Small helpers the browser tests share."""

from __future__ import annotations

from typing import Any


def wait_for(page: Any, predicate: str, timeout_ms: int = 10_000) -> None:
    """Wait until a JavaScript predicate holds in the page (polls, then fails with a timeout)."""
    page.wait_for_function(predicate, timeout=timeout_ms)
