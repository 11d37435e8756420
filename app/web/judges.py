"""The judges' API: one table's tablet writes hands, corrections, voids and table events.

Every write needs the table's bearer token, or the head judge's (issue 18, part 3), which
writes at every table: the body names the table, and its lines say `"by": "head judge"`.
Hands, corrections and voids also need an `Idempotency-Key`, generated on the tablet, so
that a retry never enters a hand twice. Deals, early starts and seats are exactly once by
their natural key (the deal of that hand, ...), and a deal or an early start from a tablet's
outbox carries the tablet's time of it and its clock when sent (`time`, `sent`; rule CL-6,
README "Offline at the table")."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Header
from fastapi.responses import JSONResponse
from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from pydantic_core import PydanticCustomError

from app.domain.bounds import MAX_KEY_LENGTH
from app.domain.errors import MalformedInput, say
from app.domain.log import (
    DealRecorded,
    EarlyStart,
    Event,
    HandVoided,
    PenaltyGiven,
    SeatingRecorded,
    parse_time,
)
from app.domain.tournament import Tournament
from app.services.errors import Forbidden
from app.services.judging import (
    TableEventOutcome,
    TableScope,
    check_correction,
    check_new_hand,
    cut_changes,
    hand_event,
    sides_of_the_cut,
    submit_once,
    table_event,
)
from app.web.answers import Recorded, recorded_fields
from app.web.deps import JudgeDep, StoreDep, TournamentId
from app.web.errors import PROBLEM_RESPONSES
from app.web.fields import (
    Counters,
    Cycle,
    Fan,
    Fu,
    HandNumber,
    HandValue,
    PenaltyPoints,
    PlayerRef,
    PointChange,
    Round,
    Segment,
    StrictBody,
    Table,
    Yaku,
)

router = APIRouter(prefix="/api/tournaments/{tournament_id}", tags=["judges"])


def _ascii_key(key: str) -> str:
    """A key is printable ASCII (the tablet sends a UUID). HTTP hands a header's bytes over
    as Latin-1, so a key sent as UTF-8 would be stored as other characters than the client
    sent, and its retry might not match it: refused instead, naming the character."""
    for position, character in enumerate(key, start=1):
        if not "!" <= character <= "~":
            what = (
                say("a space")
                if character == " "
                else say("a character that is not ASCII")
                if ord(character) > 0x7F
                else say("the control character U+{code:04X}", code=ord(character))
            )
            raise PydanticCustomError(
                "idempotency_key",
                "must be printable ASCII without spaces, such as the UUID a tablet makes "
                "(3f2b8c1e-...); it holds {what} at character {position}",
                {
                    "what": what,
                    "position": position,
                    "sentence": say(
                        "must be printable ASCII without spaces, such as the UUID a tablet "
                        "makes (3f2b8c1e-...); it holds {what} at character {position}",
                        what=what,
                        position=position,
                    ),
                },
            )
    return key


IdempotencyKey = Annotated[
    str,
    Header(
        alias="Idempotency-Key",
        min_length=1,
        max_length=200,
        description="Generated on the tablet, once per hand; a retry sends the same key. "
        "1 to 200 printable ASCII characters, no spaces (the tablet sends a UUID)",
    ),
    AfterValidator(_ascii_key),
]


class SelfDrawResult(StrictBody):
    kind: Literal["self_draw"]
    winner: PlayerRef
    value: HandValue


class DiscardResult(StrictBody):
    kind: Literal["discard"]
    winner: PlayerRef
    discarder: PlayerRef
    value: HandValue


class DrawResult(StrictBody):
    kind: Literal["draw"]


class PointsResult(StrictBody):
    kind: Literal["points"]
    deltas: dict[str, PointChange]
    winner: PlayerRef | None = None
    value: HandValue | None = None


class AriAriFacts(StrictBody):
    """What every Ari Ari result may carry (docs/log-format.md §8): riichi declarations
    (AA-5), dead hands (AA-11), and the dealer and counters, which the server fills in
    when they are left out (AA-6, AA-8)."""

    riichi: list[PlayerRef] | None = None
    dead: list[PlayerRef] | None = None
    dealer: PlayerRef | None = None
    counters: Counters | None = None


class AriAriWin(StrictBody):
    winner: PlayerRef
    yaku: Yaku
    fan: Fan | None = None
    fu: Fu | None = None
    limit: str | None = Field(
        default=None, description="mangan, haneman, baiman, sanbaiman or yakuman"
    )


class RonResult(AriAriFacts):
    kind: Literal["ron"]
    discarder: PlayerRef
    wins: list[AriAriWin] = Field(description="One or more winners on the discard (AA-4)")


class TsumoResult(AriAriFacts, AriAriWin):
    kind: Literal["tsumo"]


class ExhaustiveDrawResult(AriAriFacts):
    kind: Literal["exhaustive_draw"]
    tenpai: list[PlayerRef] = []


class ChomboResult(AriAriFacts):
    kind: Literal["chombo"]
    offender: PlayerRef


HandResultBody = Annotated[
    SelfDrawResult
    | DiscardResult
    | DrawResult
    | PointsResult
    | RonResult
    | TsumoResult
    | ExhaustiveDrawResult
    | ChomboResult,
    Field(discriminator="kind"),
]


class TablePlace(BaseModel):
    # Strict like the log: "10" is not 10, and true is not 1 (CONTRACT §1).
    model_config = ConfigDict(strict=True)

    round: Round
    segment: Segment
    table: Table


class HandBody(TablePlace):
    """The `hand` fields of the log (CONTRACT §1); the rules check the rest."""

    hand: HandNumber
    result: HandResultBody
    id: str | None = Field(
        default=None,
        max_length=MAX_KEY_LENGTH,
        description="The hand's id in the log; if given, the Idempotency-Key",
    )


CallId = Annotated[
    str | None,
    Field(
        default=None,
        min_length=1,
        max_length=MAX_KEY_LENGTH,
        description="The judge's call this ruling answers (rule CA-5), by its id",
    ),
]


class CorrectionBody(HandBody):
    reason: str = Field(min_length=1, description="Why the hand is corrected (kept in the log)")
    call: CallId = None


class VoidBody(TablePlace):
    hand: HandNumber
    reason: str = Field(min_length=1)
    call: CallId = None


class TabletTime(TablePlace):
    """A table event from a tablet's outbox carries the tablet's time of it and the
    tablet's clock when it sent it (rule CL-6); without them the server's clock stamps it."""

    time: str | None = Field(
        default=None, description="When it happened, by the tablet's corrected clock (ISO 8601)"
    )
    sent: str | None = Field(
        default=None, description="The tablet's clock, corrected the same way, when it sent this"
    )


class DealBody(TabletTime):
    hand: HandNumber


class EarlyStartBody(TabletTime):
    pass


class SeatsBody(TablePlace):
    seats: list[PlayerRef] = Field(
        min_length=4, max_length=4, description="east, south, west, north"
    )
    cycle: Cycle | None = None


class JudgePenaltyBody(BaseModel):
    model_config = ConfigDict(strict=True)

    round: Round
    player: PlayerRef
    points: PenaltyPoints = Field(
        description="Negative: the points taken off (rule PN-1), within the format's bound"
    )
    reason: str = Field(min_length=1)
    table: Table | None = Field(
        default=None,
        description="The table it is given at: the head judge's token names it here (a "
        "table's token is for its own table)",
    )
    call: CallId = None


class CutChange(BaseModel):
    player: PlayerRef
    now: Literal["above", "below", "level"]


class HandAccepted(BaseModel):
    tournament: int
    version: int
    seq: int
    round: int
    segment: int
    table: int
    hand: int
    voided: bool
    deltas: dict[str, int] | None
    hands_entered: list[int]
    next_hand: int | None
    next_dealer: PlayerRef | None
    cut_changes: list[CutChange] = Field(
        description="Players the change moved across the cut line (rule ST-3)"
    )


def _scope(judge: JudgeDep) -> TableScope:
    return TableScope(judge.tournament_id, judge.table, judge.token_id, judge.head_judge)


def _answer(status: int, body: dict[str, Any]) -> JSONResponse:
    return JSONResponse(
        HandAccepted.model_validate(body).model_dump(mode="json"), status_code=status
    )


@router.post(
    "/hands",
    status_code=201,
    response_model=HandAccepted,
    responses=PROBLEM_RESPONSES,
)
def submit_hand(
    tournament_id: TournamentId,
    body: HandBody,
    key: IdempotencyKey,
    store: StoreDep,
    judge: JudgeDep,
) -> JSONResponse:
    """Enter a hand (CONTRACT §3). A retry with the same key returns the first answer."""
    raw = body.model_dump(mode="json", exclude_none=True)

    def build(tournament: Tournament) -> Any:
        event = hand_event(raw, key)
        check_new_hand(tournament, event)
        return tournament.with_table_state(event)

    status, answer = submit_once(store, tournament_id, _scope(judge), key, raw, build)
    return _answer(status, answer)


@router.post(
    "/corrections", status_code=201, response_model=HandAccepted, responses=PROBLEM_RESPONSES
)
def correct_hand(
    tournament_id: TournamentId,
    body: CorrectionBody,
    key: IdempotencyKey,
    store: StoreDep,
    judge: JudgeDep,
) -> JSONResponse:
    """Replace a hand already entered; the log keeps both, with the reason."""
    raw = body.model_dump(mode="json", exclude_none=True)

    def build(tournament: Tournament) -> Any:
        fields = {k: v for k, v in raw.items() if k != "reason"}
        event = hand_event(fields, key, reason=body.reason)
        check_correction(tournament, event)
        return tournament.with_table_state(event)

    status, answer = submit_once(store, tournament_id, _scope(judge), key, raw, build)
    return _answer(status, answer)


@router.post("/voids", status_code=201, response_model=HandAccepted, responses=PROBLEM_RESPONSES)
def void_hand(
    tournament_id: TournamentId,
    body: VoidBody,
    key: IdempotencyKey,
    store: StoreDep,
    judge: JudgeDep,
) -> JSONResponse:
    """Withdraw a hand entered by mistake, with the reason."""
    raw = body.model_dump(mode="json")

    def build(tournament: Tournament) -> Any:
        event = HandVoided(body.round, body.segment, body.table, body.hand, body.reason, body.call)
        check_correction(tournament, event)
        return event

    status, answer = submit_once(store, tournament_id, _scope(judge), key, raw, build)
    return _answer(status, answer)


class TableEventRecorded(Recorded):
    """A table event's answer: 201 with the line it appended, or 200 with the line that
    recorded it before (`already: "recorded"`: a retry, or another device was first), or,
    for the deal of a hand already entered, no line (`already: "entered"`)."""

    already: Literal["recorded", "entered"] | None = Field(
        default=None, description="Set when nothing was appended: the event was in before"
    )


TABLE_EVENT_RESPONSES: dict[int | str, dict[str, Any]] = {
    **PROBLEM_RESPONSES,
    200: {"model": TableEventRecorded, "description": "Recorded before: nothing appended"},
}


def table_event_answer(outcome: TableEventOutcome) -> JSONResponse:
    answer = TableEventRecorded(**recorded_fields(outcome.appended), already=outcome.already)
    return JSONResponse(answer.model_dump(mode="json"), status_code=200 if outcome.already else 201)


def tablet_time(body: TabletTime, rule: str) -> tuple[datetime | None, datetime | None]:
    """The tablet's time of the event and its clock when it sent it: both or neither."""
    if (body.time is None) != (body.sent is None):
        missing = "sent" if body.sent is None else "time"
        raise MalformedInput(
            "CL-6",
            missing,
            say("the tablet's time of the event and its clock when it sent it go together"),
        )
    if body.time is None or body.sent is None:
        return None, None
    return parse_time(body.time, "time", rule), parse_time(body.sent, "sent", "CL-6")


@router.post(
    "/deals", status_code=201, response_model=TableEventRecorded, responses=TABLE_EVENT_RESPONSES
)
def record_deal(
    tournament_id: TournamentId, body: DealBody, store: StoreDep, judge: JudgeDep
) -> JSONResponse:
    """The tiles of a hand are completely dealt (rule CL-3): at the tablet's `time`, sent
    from its outbox (perhaps long after, from offline) with `sent`, or now by the server's
    clock. The same deal recorded again is the deal in the log (200)."""
    arrived = store.clock()
    time, sent = tablet_time(body, "CL-3")
    event = DealRecorded(body.round, body.segment, body.table, body.hand, time or arrived, sent)
    outcome = table_event(
        store, tournament_id, _scope(judge), event, arrived=arrived if sent else None
    )
    return table_event_answer(outcome)


@router.post(
    "/early-starts",
    status_code=201,
    response_model=TableEventRecorded,
    responses=TABLE_EVENT_RESPONSES,
)
def record_early_start(
    tournament_id: TournamentId, body: EarlyStartBody, store: StoreDep, judge: JudgeDep
) -> JSONResponse:
    """All four players agree to start before the schedule (rule CL-2): at the tablet's
    `time` with `sent`, or now. An early start recorded again is the one in the log (200)."""
    arrived = store.clock()
    time, sent = tablet_time(body, "CL-2")
    event = EarlyStart(body.round, body.segment, body.table, time or arrived, True, sent)
    outcome = table_event(
        store, tournament_id, _scope(judge), event, arrived=arrived if sent else None
    )
    return table_event_answer(outcome)


@router.post(
    "/seats", status_code=201, response_model=TableEventRecorded, responses=TABLE_EVENT_RESPONSES
)
def record_seats(
    tournament_id: TournamentId, body: SeatsBody, store: StoreDep, judge: JudgeDep
) -> JSONResponse:
    """The seats drawn at the table (rule SE-5), or a cycle's seats (rules SE-8, SE-9). The
    same seats recorded again are the seating in the log (200)."""
    seats = (body.seats[0], body.seats[1], body.seats[2], body.seats[3])
    event = SeatingRecorded(body.round, body.segment, body.table, seats, body.cycle)
    return table_event_answer(table_event(store, tournament_id, _scope(judge), event))


class PenaltyRecorded(Recorded):
    cut_changes: list[CutChange] = Field(
        description="Players the penalty moved across the cut line (rule ST-3)"
    )


@router.post(
    "/table-penalties",
    status_code=201,
    response_model=PenaltyRecorded,
    responses=PROBLEM_RESPONSES,
)
def judge_penalty(
    tournament_id: TournamentId, body: JudgePenaltyBody, store: StoreDep, judge: JudgeDep
) -> PenaltyRecorded:
    """A score penalty (rule PN-1) for a player seated at the judge's table this round; the
    head judge names the `table` (any table)."""
    scope = _scope(judge)
    if judge.head_judge and body.table is None:
        raise MalformedInput(
            "PN-1", "table", say("the head judge's penalty names the table it is given at")
        )
    table = judge.table if body.table is None else body.table
    scope.check(tournament_id, table)
    before: dict[Any, Any] = {}
    after: dict[Any, Any] = {}

    def seated_penalty(tournament: Tournament) -> list[Event]:
        if body.round in tournament.rounds:
            before.update(sides_of_the_cut(tournament, body.round))
        return seated_penalty_line(tournament)

    def measured(session: Any, appended: Any, tournament: Tournament) -> None:
        after.update(sides_of_the_cut(tournament, body.round))

    def seated_penalty_line(tournament: Tournament) -> list[Event]:
        # Decided under the append's lock: a redraw cannot move the player away between
        # the check and the line. rule PN-1: the judge's own table, in the segment it is
        # playing now; the rules then check the points against the format's bound.
        segment = tournament.current_segment(body.round, table)
        state = tournament.rounds.get(body.round)
        seats = () if state is None or segment is None else state.tables[(segment, table)].seats
        if body.player not in seats:
            # No segment at this table now: no seats to list (each case its own sentence).
            sentence = (
                say(
                    "field 'player': player {player} does not sit at table {table} in round "
                    "{round}; a judge penalizes the players at their own table, the head judge "
                    "any player (rule PN-1)",
                    player=repr(body.player),
                    table=table,
                    round=body.round,
                )
                if segment is None or not seats
                else say(
                    "field 'player': player {player} does not sit at table {table} in segment "
                    "{segment} of round {round} (it seats {seats}); a judge penalizes the "
                    "players at their own table, the head judge any player (rule PN-1)",
                    player=repr(body.player),
                    table=table,
                    segment=segment,
                    round=body.round,
                    seats=", ".join(map(str, seats)),
                )
            )
            raise Forbidden(
                sentence,
                field="player",
                rule="PN-1",
            )
        # The head judge's names its table: their token names none, and the table's audit
        # list finds it by the line (issue 18, part 3).
        where = table if judge.head_judge else None
        return [PenaltyGiven(body.round, body.player, body.points, body.reason, body.call, where)]

    appended = store.append(tournament_id, seated_penalty, scope.author, finish=measured)
    return PenaltyRecorded(
        **recorded_fields(appended),
        cut_changes=[CutChange(**change) for change in cut_changes(before, after)],
    )
