"""The judges' calls (issue 18, part 3): their states, table by table, citing the rules
CA-1 to CA-5 as docs/contract.md §4 numbers them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app.domain.calls import (
    CALL_REASONS,
    Call,
    CallMade,
    CallResolved,
    CallTaken,
    make_call,
    open_calls,
    resolve_call,
    ruling_on,
    take_call,
)
from app.domain.errors import IllegalMove, MalformedInput

AT = datetime(2026, 12, 4, 10, 0, tzinfo=UTC)


def later(seconds: int) -> datetime:
    return AT + timedelta(seconds=seconds)


def called(call_id: str = "c1", table: int = 3, reason: str = "dispute") -> dict[str, Call]:
    return {call_id: make_call({}, CallMade(1, table, reason, call_id), AT)}


@pytest.mark.parametrize("reason", CALL_REASONS)
def test_a_call_names_a_reason_of_the_list_and_waits(reason: str) -> None:
    # rule CA-1, CA-3
    call = make_call({}, CallMade(1, 3, reason, "c1"), AT)
    assert (call.state, call.reason, call.called_at) == ("waiting", reason, AT)


@pytest.mark.parametrize("reason", ["", "bored", "Dispute", "late player"])
def test_a_reason_not_on_the_list_is_refused_naming_field_and_rule(reason: str) -> None:
    # rule CA-1
    with pytest.raises(MalformedInput) as refused:
        make_call({}, CallMade(1, 3, reason, "c1"), AT)
    assert (refused.value.field, refused.value.rule) == ("reason", "CA-1")


def test_a_call_id_is_used_once() -> None:
    # rule CA-2
    with pytest.raises(IllegalMove) as refused:
        make_call(called(), CallMade(1, 4, "chombo", "c1"), AT)
    assert (refused.value.field, refused.value.rule) == ("id", "CA-2")


# rule CA-3: (steps before, the step, what follows: a state or the refused field)
STEPS = [
    ((), "take", "taken"),
    ((), "resolve", "resolved"),
    (("take",), "resolve", "resolved"),
    (("take",), "take", "call"),
    (("resolve",), "take", "call"),
    (("resolve",), "resolve", "call"),
    (("take", "resolve"), "resolve", "call"),
]


def step(calls: dict[str, Call], what: str, at: datetime, table: int = 3) -> Call:
    if what == "take":
        return take_call(calls, CallTaken(1, table, "c1"), at)
    return resolve_call(calls, CallResolved(1, table, "c1", "settled"), at)


@pytest.mark.parametrize(("before", "what", "after"), STEPS)
def test_the_steps_of_a_call(before: tuple[str, ...], what: str, after: str) -> None:
    calls = called()
    for n, earlier in enumerate(before, start=1):
        calls["c1"] = step(calls, earlier, later(n * 60))
    if after in ("taken", "resolved"):
        assert step(calls, what, later(600)).state == after
    else:
        with pytest.raises(IllegalMove) as refused:
            step(calls, what, later(600))
        assert (refused.value.field, refused.value.rule) == (after, "CA-3")


def test_a_step_names_the_calls_own_table_and_an_existing_call() -> None:
    # rule CA-3
    with pytest.raises(IllegalMove) as refused:
        step(called(), "take", later(1), table=4)
    assert (refused.value.field, refused.value.rule) == ("table", "CA-3")
    with pytest.raises(IllegalMove) as unknown:
        take_call({}, CallTaken(1, 3, "nope"), AT)
    assert (unknown.value.field, unknown.value.rule) == ("call", "CA-3")


@pytest.mark.parametrize("note", ["", "   ", "x" * 1001])
def test_a_resolved_call_needs_a_note_of_bounded_length(note: str) -> None:
    # rule CA-3
    with pytest.raises(MalformedInput) as refused:
        resolve_call(called(), CallResolved(1, 3, "c1", note), later(1))
    assert (refused.value.field, refused.value.rule) == ("note", "CA-3")


# rule CA-4: (taken after, asked at, the wait)
WAITS = [
    (None, 0, 0),
    (None, 95, 95),
    (30, 95, 30),  # taken: the wait stops
    (30, 5000, 30),
]


@pytest.mark.parametrize(("taken", "now", "waited"), WAITS)
def test_a_call_waits_from_when_it_was_made_until_it_is_taken(
    taken: int | None, now: int, waited: int
) -> None:
    calls = called()
    if taken is not None:
        calls["c1"] = take_call(calls, CallTaken(1, 3, "c1"), later(taken))
    assert calls["c1"].waited(later(now)) == waited


def test_a_call_without_a_time_has_no_wait() -> None:
    # a log another program wrote, without `at`
    call = make_call({}, CallMade(1, 3, "dispute", "c1"), None)
    assert call.waited(AT) is None


def test_open_calls_come_in_the_order_they_were_made() -> None:
    # rule CA-4
    calls: dict[str, Call] = {}
    for n, (call_id, table) in enumerate([("b", 9), ("a", 2), ("c", 5)]):
        calls[call_id] = make_call(calls, CallMade(1, table, "dispute", call_id), later(n))
    calls["a"] = resolve_call(calls, CallResolved(1, 2, "a", "ok"), later(10))
    assert [call.id for call in open_calls(calls)] == ["b", "c"]


# rule CA-5: (the ruling's round, its table or None for a penalty, refused?)
RULINGS = [
    (1, 3, False),
    (1, None, False),
    (1, 4, True),
    (2, 3, True),
    (2, None, True),
]


@pytest.mark.parametrize(("round_number", "table", "refused"), RULINGS)
def test_a_ruling_answers_a_call_of_its_own_round_and_table(
    round_number: int, table: int | None, refused: bool
) -> None:
    calls = called()
    if refused:
        with pytest.raises(IllegalMove) as refusal:
            ruling_on(calls, "c1", round_number, table, "penalty")
        assert (refusal.value.field, refusal.value.rule) == ("call", "CA-5")
    else:
        assert ruling_on(calls, "c1", round_number, table, "penalty").rulings == ("penalty",)


def test_a_ruling_names_a_call_that_exists() -> None:
    with pytest.raises(IllegalMove) as refusal:
        ruling_on({}, "nope", 1, 3, "hand")
    assert refusal.value.rule == "CA-5"
