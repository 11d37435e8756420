"""Python's collections between the judges' requests (issue 32; app/cli/serving.Collector):
a generation due is collected when no judge's request is in flight, or once it has waited
COLLECTION_WAITS_AT_MOST, and never before it is due."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from app.cli.serving import COLLECTION_WAITS_AT_MOST, Collector
from app.realtime.turns import JudgesFirst


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def collector_alone() -> Iterator[None]:
    """Python's own collector off, and small thresholds, for the test's length."""
    was_enabled, thresholds = gc.isenabled(), gc.get_threshold()
    gc.disable()
    gc.collect()
    gc.set_threshold(100, 2, 2)
    yield
    gc.set_threshold(*thresholds)
    if was_enabled:
        gc.enable()


def _make_due() -> list[list[int]]:
    """Containers, each an allocation counted (and uncounted when it is freed: kept)."""
    kept = [[index] for index in range(500)]
    assert gc.get_count()[0] > gc.get_threshold()[0]
    return kept


@pytest.mark.usefixtures("collector_alone")
def test_a_collection_due_waits_for_the_judges_in_flight_then_runs() -> None:
    judges, clock = JudgesFirst(), Clock()
    collector = Collector(judges, clock)
    assert collector.look() is None  # nothing due yet
    kept = _make_due()
    judges.begin()
    assert collector.look() is None and collector.postponed == 1
    assert gc.get_count()[0] > gc.get_threshold()[0]  # still due: nothing was collected
    judges.end()
    assert collector.look() == 0  # the young generation, as Python would have chosen
    assert gc.get_count()[0] <= gc.get_threshold()[0] and kept


@pytest.mark.usefixtures("collector_alone")
def test_a_collection_waits_no_longer_than_its_bound_and_the_oldest_due_is_taken() -> None:
    judges, clock = JudgesFirst(), Clock()
    collector = Collector(judges, clock)
    judges.begin()  # a judge always in flight
    generations, kept = [], []
    for _ in range(20):
        kept.append(_make_due())
        assert collector.look() is None  # due from now
        clock.now += COLLECTION_WAITS_AT_MOST
        generations.append(collector.look())
    assert None not in generations
    # past 2 young collections the middle one is due, past 2 of those the oldest
    assert {0, 1, 2} <= set(generations)
