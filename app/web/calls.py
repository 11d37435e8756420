"""The head judge's desk (issue 18, part 3): tablets call a judge, the head judge answers.

- `POST /api/tournaments/{tid}/calls` (a table's token for its own table, or the head
  judge's; an `Idempotency-Key`, the call's id): a call, exactly once (rules CA-1, CA-2).
- `GET .../calls` (the head judge's token): every call with its note and its rulings.
- `POST .../calls/{id}/taken` and `.../calls/{id}/resolved` (`{"note"}`): the head judge's
  steps (rule CA-3).
- `GET /head-judge/{tid}`: the head judge's page, signed in like a tablet, with the token
  after `#` (the browser never sends it).

The `calls` live channel carries the open calls without the notes (channels are public).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Path, Request
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from app.domain.bounds import MAX_KEY_LENGTH
from app.domain.calls import CALL_REASONS, MAX_NOTE_LENGTH, Call
from app.domain.log import format_time
from app.read.calls import CallData, call_data
from app.services import calls
from app.services.judging import TableScope
from app.web import languages
from app.web.deps import HeadJudgeDep, JudgeDep, StoreDep, TournamentId
from app.web.errors import PROBLEM_RESPONSES
from app.web.fields import Round, Table
from app.web.judges import IdempotencyKey
from app.web.pages import render

router = APIRouter(prefix="/api/tournaments/{tournament_id}", tags=["head judge"])
pages = APIRouter(include_in_schema=False, dependencies=[Depends(languages.tournament_default)])

CallIdPath = Annotated[str, Path(min_length=1, max_length=MAX_KEY_LENGTH)]


class CallBody(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")

    round: Round
    table: Table
    reason: str = Field(
        max_length=40, description="Why: " + ", ".join(CALL_REASONS) + " (rule CA-1)"
    )


class ResolveBody(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")

    note: str = Field(
        max_length=MAX_NOTE_LENGTH, description="What the head judge decided (rule CA-3)"
    )


class CallAnswer(BaseModel):
    """A call as it stands after the request; `already` when nothing was appended."""

    tournament: int
    version: int
    seq: int | None = Field(description="The line this request appended, if any")
    call: dict[str, object]
    already: Literal[True] | None = None


class SeatedPlayer(BaseModel):
    player: str | int
    name: str


class CallRecord(BaseModel):
    id: str
    round: int
    table: int
    reason: str
    state: str
    called_at: str | None
    taken_at: str | None
    resolved_at: str | None
    waited: int | None = Field(description="Seconds it waited to be taken, or until now")
    note: str | None
    rulings: list[str] = Field(description="The types of the lines that answered it (CA-5)")
    seated: list[SeatedPlayer] = Field(
        description="Who sits at the table now (a call not resolved), for a penalty"
    )


class CallsAnswer(BaseModel):
    tournament: int
    tournament_name: str
    version: int
    server_time: str
    reasons: list[str]
    calls: list[CallRecord]


def _scope(judge: JudgeDep) -> TableScope:
    return TableScope(judge.tournament_id, judge.table, judge.token_id, judge.head_judge)


def _answer(tournament_id: int, outcome: calls.CallOutcome) -> JSONResponse:
    data: CallData = call_data(outcome.call)
    answer = CallAnswer(
        tournament=tournament_id,
        version=outcome.version,
        seq=None if outcome.appended is None else outcome.appended.first_seq,
        call=dict(data),
        already=None if outcome.appended is not None else True,
    )
    return JSONResponse(
        answer.model_dump(mode="json"), status_code=200 if outcome.appended is None else 201
    )


@router.post(
    "/calls",
    status_code=201,
    response_model=CallAnswer,
    responses={**PROBLEM_RESPONSES, 200: {"model": CallAnswer, "description": "Called before"}},
)
def make_call(
    tournament_id: TournamentId,
    body: CallBody,
    key: IdempotencyKey,
    store: StoreDep,
    judge: JudgeDep,
) -> JSONResponse:
    """Call the head judge to a table, with a reason (rule CA-1); the Idempotency-Key is the
    call's id, so a call sent again is the call in the log (200; rule CA-2)."""
    outcome = calls.make_call(
        store, tournament_id, _scope(judge), key, body.round, body.table, body.reason
    )
    return _answer(tournament_id, outcome)


def _record(call: Call, now: datetime, desk: calls.Desk) -> CallRecord:
    data = call_data(call)
    return CallRecord(
        **data,
        resolved_at=None if call.resolved_at is None else format_time(call.resolved_at),
        waited=call.waited(now),
        note=call.note,
        rulings=list(call.rulings),
        seated=[SeatedPlayer(player=p, name=n) for p, n in desk.seated.get(call.id, [])],
    )


@router.get("/calls", response_model=CallsAnswer, responses=PROBLEM_RESPONSES)
def list_calls(tournament_id: TournamentId, store: StoreDep, judge: HeadJudgeDep) -> CallsAnswer:
    """Every call of the tournament in the order made (rule CA-4), with the head judge's
    notes (the head judge's token only)."""
    _scope(judge).check(tournament_id, 0)
    now = store.clock()
    desk = calls.calls_of(store, tournament_id)
    return CallsAnswer(
        tournament=tournament_id,
        tournament_name=desk.name,
        version=desk.version,
        server_time=format_time(now),
        reasons=list(CALL_REASONS),
        calls=[_record(call, now, desk) for call in desk.calls],
    )


@router.post(
    "/calls/{call_id}/taken",
    status_code=201,
    response_model=CallAnswer,
    responses={**PROBLEM_RESPONSES, 200: {"model": CallAnswer, "description": "Taken before"}},
)
def take_call(
    tournament_id: TournamentId, call_id: CallIdPath, store: StoreDep, judge: HeadJudgeDep
) -> JSONResponse:
    """The head judge takes a waiting call (rule CA-3); again: answered as it stands (200)."""
    return _answer(tournament_id, calls.take_call(store, tournament_id, _scope(judge), call_id))


@router.post(
    "/calls/{call_id}/resolved",
    status_code=201,
    response_model=CallAnswer,
    responses={**PROBLEM_RESPONSES, 200: {"model": CallAnswer, "description": "Resolved before"}},
)
def resolve_call(
    tournament_id: TournamentId,
    call_id: CallIdPath,
    body: ResolveBody,
    store: StoreDep,
    judge: HeadJudgeDep,
) -> JSONResponse:
    """The head judge resolves a call with a note (rule CA-3). The note is kept in the log
    and read here; the live channel never carries it."""
    outcome = calls.resolve_call(store, tournament_id, _scope(judge), call_id, body.note)
    return _answer(tournament_id, outcome)


@pages.get("/head-judge/{tournament_id}", response_class=HTMLResponse)
def head_judge_page(request: Request, tournament_id: TournamentId) -> HTMLResponse:
    """The head judge's page; the token stays in the browser, never in the HTML."""
    return render(request, "head_judge.html", tournament_id=tournament_id)
