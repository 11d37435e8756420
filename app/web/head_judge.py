"""The head judge's override: a deal or an early start recorded by hand, with a reason;
and the head judge's own token (issue 18, part 3), which the admin issues and revokes.

The head judge is whoever holds the admin credential (`SCOREBOARD_ADMIN_TOKEN`): the
organizer's bearer token. A tablet whose clock was off by more than the bound the server
accepts (rule CL-6, `TABLET_CLOCK_BOUND`) has its deal or early start refused, since its
time cannot be trusted; a judge who forgot to record a deal before the deadline cannot
record it any more. In both cases the head judge decides the time and records the line
here: it carries the reason in `override`, `"by": "admin"`, and shows in the table's audit
list. The rules of the clock still apply to it (a deal after the deadline is refused, CL-3).
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from app.domain.errors import MalformedInput, say
from app.domain.log import DealRecorded, EarlyStart, parse_time
from app.domain.text import check_text
from app.services.judging import head_judge_event
from app.services.store import HEAD_JUDGE
from app.web.admin import RevokedAnswer, TokenInfo
from app.web.deps import AdminDep, StoreDep, TournamentId
from app.web.errors import PROBLEM_RESPONSES
from app.web.fields import HandNumber, Round, Segment, Table
from app.web.judges import TABLE_EVENT_RESPONSES, TableEventRecorded, table_event_answer

router = APIRouter(prefix="/api/tournaments/{tournament_id}", tags=["head judge"])


class OverrideBody(BaseModel):
    model_config = ConfigDict(strict=True)

    type: Literal["deal", "early_start"]
    round: Round
    segment: Segment
    table: Table
    hand: HandNumber | None = Field(default=None, description="For a deal")
    time: str = Field(description="When it happened, as the head judge decides (ISO 8601)")
    reason: str = Field(min_length=1, description="Why it is recorded by hand (kept in the log)")


@router.post(
    "/overrides",
    status_code=201,
    response_model=TableEventRecorded,
    responses=TABLE_EVENT_RESPONSES,
)
def record_override(
    tournament_id: TournamentId, body: OverrideBody, store: StoreDep, _: AdminDep
) -> JSONResponse:
    """Record a table's deal or early start by hand, at `time`, with the reason (the admin
    token only). The same deal or early start recorded before is answered as it stands (200)."""
    reason = body.reason.strip()
    if not reason:
        raise MalformedInput("CL-6", "reason", say("the head judge's override needs a reason"))
    # the log line names it `override`; the head judge wrote it as the request's `reason`
    check_text(reason, "CONTRACT §1", "reason")
    event: DealRecorded | EarlyStart
    if body.type == "deal":
        if body.hand is None:
            raise MalformedInput("CL-3", "hand", say("a deal names its hand"))
        time = parse_time(body.time, "time", "CL-3")
        event = DealRecorded(body.round, body.segment, body.table, body.hand, time, override=reason)
    else:
        if body.hand is not None:
            raise MalformedInput("CL-2", "hand", say("an early start names no hand"))
        time = parse_time(body.time, "time", "CL-2")
        event = EarlyStart(body.round, body.segment, body.table, time, True, override=reason)
    return table_event_answer(head_judge_event(store, tournament_id, event))


class HeadJudgeTokenBody(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")

    expires_at: datetime | None = Field(
        default=None,
        strict=False,
        description="When the token stops working (rule TK-1); by default the end of the "
        "hall's tournament day",
    )
    revoke_earlier: bool = Field(
        default=False, description="Reissue: revoke the earlier head-judge tokens in the same step"
    )


class HeadJudgeTokenAnswer(BaseModel):
    tournament: int
    token: str = Field(description="The head judge's bearer token; shown once, kept hashed")
    id: int = Field(description="What the token is revoked by (DELETE .../tokens/{id})")
    expires_at: datetime
    revoked: list[TokenInfo] = Field(description="The earlier head-judge tokens revoked with it")


@router.post(
    "/head-judge-tokens",
    status_code=201,
    response_model=HeadJudgeTokenAnswer,
    responses=PROBLEM_RESPONSES,
)
def issue_head_judge_token(
    tournament_id: TournamentId,
    store: StoreDep,
    _: AdminDep,
    body: HeadJudgeTokenBody | None = None,
) -> HeadJudgeTokenAnswer:
    """The head judge's token (the admin token only): what a judge can do at every table of
    this tournament, and no admin action. It expires as a table token does (rule TK-1)."""
    body = body or HeadJudgeTokenBody()
    issued = store.issue_table_token(
        tournament_id,
        0,
        expires_at=body.expires_at,
        revoke_earlier=body.revoke_earlier,
        role=HEAD_JUDGE,
    )
    return HeadJudgeTokenAnswer(
        tournament=tournament_id,
        token=issued.token,
        id=issued.record.id,
        expires_at=issued.record.expires_at,
        revoked=[TokenInfo.of(record) for record in issued.revoked],
    )


@router.delete("/head-judge-tokens", response_model=RevokedAnswer, responses=PROBLEM_RESPONSES)
def revoke_head_judge_tokens(
    tournament_id: TournamentId, store: StoreDep, _: AdminDep
) -> RevokedAnswer:
    """Revoke every live head-judge token of the tournament (rule TK-2)."""
    revoked = store.revoke_tokens(tournament_id, table=0, role=HEAD_JUDGE)
    return RevokedAnswer(revoked=[TokenInfo.of(record) for record in revoked])
