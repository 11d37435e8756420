"""The `calls` channel's state (issue 18, part 3): the judges' calls not yet resolved, in
the order they were made (rule CA-4), for the head judge's page and the tablets.

Channels are public: a call's reason and times go out, never the head judge's note, which
only the head judge's API reads (app/web/calls.py). The waits tick on the page, from the
server's time (rule CL-6): the state holds when each call was made, never a wait.
"""

from __future__ import annotations

from typing import TypedDict

from app.domain.calls import Call, CallState, open_calls
from app.domain.log import format_time
from app.domain.tournament import Tournament


class CallData(TypedDict):
    id: str
    round: int
    table: int
    reason: str
    state: CallState
    called_at: str | None  # the server's time it was made (rule CA-4), ISO 8601
    taken_at: str | None


class CallsState(TypedDict):
    calls: list[CallData]


def call_data(call: Call) -> CallData:
    return CallData(
        id=call.id,
        round=call.round,
        table=call.table,
        reason=call.reason,
        state=call.state,
        called_at=None if call.called_at is None else format_time(call.called_at),
        taken_at=None if call.taken_at is None else format_time(call.taken_at),
    )


def calls_state(tournament: Tournament) -> CallsState:
    """rule CA-4: the open calls, first made first."""
    return CallsState(calls=[call_data(call) for call in open_calls(tournament.calls)])
