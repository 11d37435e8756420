"""What every request model is made of: strict types like the log's, bounded numbers and
player ids, each refusal naming its field and rule (issue 14).

`"value": "10"` was taken as 10 in a result while `"round": "1"` was refused: a request
body is read as strictly as a log line (CONTRACT §1), on the judges' and the organizer's
routes alike. A number's bound is the domain's (app/domain/bounds.py), so a request and a
log line are refused alike, and the refusal carries the rule for the error handler.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, PlainValidator, WithJsonSchema
from pydantic_core import PydanticCustomError

from app.domain import ariari, bounds
from app.domain.bounds import Bound
from app.domain.errors import say
from app.domain.hands import is_player_id


class StrictBody(BaseModel):
    """A request body read as strictly as a log line: "10" is not 10, true is not 1, and
    an unknown field is refused (a misspelt field is never taken for a missing one)."""

    model_config = ConfigDict(strict=True, extra="forbid")


def bounded(bound: Bound, description: str | None = None) -> Any:
    """An integer within `bound`, refused with the bound's rule (the handler shows it)."""

    def check(value: int) -> int:
        if not bound.low <= value <= bound.high:
            refusal = bound.refusal(value)
            # "sentence": the refusal as a `say`, for the handler to say in the reader's language
            raise PydanticCustomError("bound", refusal, {"rule": bound.rule, "sentence": refusal})
        return value

    return Annotated[
        int,
        AfterValidator(check),
        Field(
            description=description, json_schema_extra={"minimum": bound.low, "maximum": bound.high}
        ),
    ]


def describe(value: object) -> str:
    """What was sent instead, in a judge's words."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, dict):
        return say("an object")
    if isinstance(value, list):
        return say("a list")
    if isinstance(value, str):
        return say("the text {text}", text=repr(value[:40]))
    if isinstance(value, int | float):
        return say("the number {number}", number=bounds.short(value))
    return say("something else")


def _player_ref(value: object) -> str | int:
    if not is_player_id(value):
        raise PydanticCustomError(
            "player_id",
            "a player id such as P0001 is needed, not {got}",
            {
                "rule": "CONTRACT §1",
                "got": describe(value),
                "sentence": say(
                    "a player id such as P0001 is needed, not {got}", got=describe(value)
                ),
            },
        )
    assert isinstance(value, str | int)
    return value


# A player named by a request: an id as the log writes it, a string or an integer
# (CONTRACT §1), of at most 64 characters or within the database's integers.
PlayerRef = Annotated[
    str | int,
    PlainValidator(_player_ref),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "string", "maxLength": bounds.MAX_PLAYER_ID_LENGTH},
                {"type": "integer"},
            ],
            "description": "A player id, such as P0001",
        }
    ),
]

Round = bounded(bounds.ROUND)
Segment = bounded(bounds.SEGMENT)
Table = bounded(bounds.TABLE)
HandNumber = bounded(bounds.HAND)
Cycle = bounded(bounds.CYCLE)
Minutes = bounded(bounds.MINUTES)
# rule HS-3: the format's own bounds are the rules' check; no format goes beyond this
HandValue = bounded(Bound(0, bounds.MAX_HAND_VALUE, "HS-3", "a hand's value"))
# rule HS-7: the format bounds each change by the biggest hand (3 x its maximum value)
PointChange = bounded(
    Bound(-3 * bounds.MAX_HAND_VALUE, 3 * bounds.MAX_HAND_VALUE, "HS-7", "a hand's point change")
)
# rule PN-1: a deduction; the format sets how big (Format.max_penalty)
PenaltyPoints = bounded(
    Bound(-bounds.MAX_PENALTY, -1, "PN-1", "a penalty: a deduction given as a negative number")
)
# the Ari Ari counts a judge enters (rules AA-2, AA-6, AA-19, AA-20)
Fan = bounded(Bound(1, ariari.MAX_FAN, "AA-2", "a number of fan"))
Fu = bounded(Bound(20, 110, "AA-19", "a number of fu"))
Yaku = bounded(Bound(1, ariari.MAX_YAKU, "AA-20", "a number of yaku"))
Counters = bounded(Bound(0, ariari.MAX_COUNTERS, "AA-6", "a number of counters"))
