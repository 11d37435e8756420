"""The organizer's check-in desk (issue 18, part 4): who is missing before the round, a
check-in at the desk, and a substitute in a missing player's seat (FM-9). Every route needs
the admin token. A late player's penalty is the existing `POST .../penalties` (PN-1), which
the console offers beside each late check-in.
"""

from __future__ import annotations

from datetime import datetime

from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel, Field

from app.domain import bounds
from app.domain.bounds import MAX_KEY_LENGTH
from app.services import checkin
from app.services.checkin import CheckedLine, MissingLine, PlayerLine, RollCallView
from app.web.answers import Recorded, recorded
from app.web.checkin_pages import CheckedInAnswer, answer_of
from app.web.deps import MAX_NUMBER, StoreDep, TournamentId, require_admin
from app.web.errors import PROBLEM_RESPONSES
from app.web.fields import PlayerRef, StrictBody

router = APIRouter(
    prefix="/api/tournaments",
    tags=["admin"],
    dependencies=[Depends(require_admin)],
    responses=PROBLEM_RESPONSES,
)


class DeskCheckInBody(StrictBody):
    player: PlayerRef
    round: int | None = Field(
        default=None, ge=1, le=bounds.ROUND.high, description="Default: the round being played"
    )


class SubstituteBody(StrictBody):
    """rule FM-9: `substitute`, a registered substitute's id, or `name` (and `country`) of
    one to register now; exactly one of the two."""

    player: PlayerRef = Field(description="The missing player whose seat the substitute takes")
    substitute: PlayerRef | None = None
    name: str | None = Field(default=None, min_length=1, max_length=200)
    country: str | None = Field(default=None, min_length=1, max_length=60)


class PlayerLineAnswer(BaseModel):
    player: str | int
    name: str
    country: str | None
    substitute: bool
    tables: list[int | None] = Field(description="The player's table in each segment")


class MissingAnswer(PlayerLineAnswer):
    replaced_by: str | int | None = Field(description="The substitute in their seat (FM-9)")


class CheckedAnswer(PlayerLineAnswer):
    how: str
    at: datetime | None
    late: bool = Field(description="rule CI-5")
    penalties: list[tuple[int, str]] = Field(description="(points, reason) in the round (PN-1)")


class RollCallAnswer(BaseModel):
    tournament: int
    round: int
    version: int
    expected: int
    checked_in: int
    started: bool = Field(description="Play has begun at a table: a check-in now is late")
    missing: list[MissingAnswer]
    late: list[CheckedAnswer]
    checked: list[CheckedAnswer]
    standby: list[PlayerLineAnswer] = Field(description="Substitutes checked in, not seated")


def _player(line: PlayerLine) -> dict[str, object]:
    return {
        "player": line.player,
        "name": line.name,
        "country": line.country,
        "substitute": line.substitute,
        "tables": list(line.tables),
    }


def _checked(line: CheckedLine) -> CheckedAnswer:
    return CheckedAnswer.model_validate(
        _player(line)
        | {"how": line.how, "at": line.at, "late": line.late, "penalties": list(line.penalties)}
    )


def _missing(line: MissingLine) -> MissingAnswer:
    return MissingAnswer.model_validate(_player(line) | {"replaced_by": line.replaced_by})


def roll_call_answer(view: RollCallView) -> RollCallAnswer:
    return RollCallAnswer(
        tournament=view.tournament,
        round=view.round,
        version=view.version,
        expected=view.expected,
        checked_in=view.checked_in,
        started=view.started,
        missing=[_missing(line) for line in view.missing],
        late=[_checked(line) for line in view.late],
        checked=[_checked(line) for line in view.checked],
        standby=[PlayerLineAnswer.model_validate(_player(line)) for line in view.standby],
    )


@router.get("/{tournament_id}/check-ins", response_model=RollCallAnswer)
def roll_call(
    tournament_id: TournamentId,
    store: StoreDep,
    round_number: int | None = Query(default=None, alias="round", ge=1, le=MAX_NUMBER),
) -> RollCallAnswer:
    """Who is expected in the round (its field and the substitutes it seats), who has
    checked in (late ones apart, CI-5) and who is missing, with their tables (CI-3)."""
    return roll_call_answer(checkin.read_roll_call(store, tournament_id, round_number))


@router.post("/{tournament_id}/check-ins", response_model=CheckedInAnswer)
def check_in_at_desk(
    tournament_id: TournamentId, body: DeskCheckInBody, store: StoreDep
) -> CheckedInAnswer:
    """The organizer checks a player in at the desk (`how`: "desk", CI-2); a second time
    answers the first and writes nothing."""
    return answer_of(
        checkin.check_in_at_desk(
            store, tournament_id, str(body.player)[:MAX_KEY_LENGTH], body.round
        )
    )


@router.post("/{tournament_id}/substitutes", status_code=201, response_model=Recorded)
def seat_substitute(tournament_id: TournamentId, body: SubstituteBody, store: StoreDep) -> Recorded:
    """rule FM-9, one action: the substitute (registered now from `name`, or `substitute`)
    takes the missing `player`'s seat at every table of the round that has not played
    (`seating` lines, SE-5) and is checked in at the desk."""
    return recorded(
        checkin.seat_substitute(
            store,
            tournament_id,
            str(body.player),
            substitute=None if body.substitute is None else str(body.substitute),
            name=body.name,
            country=body.country,
        )
    )
