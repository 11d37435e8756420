"""One place maps every named error to HTTP (STYLE.md, convention 10): 409 for a move the
tournament's state forbids, 422 for malformed input, always with a message a judge can act on,
naming the field and the rule."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.domain.errors import IllegalMove, LogError, RuleViolation
from app.domain.tournament import RoundUnfinished
from app.services.errors import Forbidden, IdempotencyInProgress, IdempotencyMismatch, NotFound


class Problem(BaseModel):
    """Every error answer: `detail` is the sentence to show; `field` and `rule` say where."""

    detail: str
    field: str | None = None
    rule: str | None = None
    line: int | None = None  # for an imported log: the line that broke the rule


PROBLEM_RESPONSES: dict[int | str, dict[str, object]] = {
    status: {"model": Problem} for status in (401, 403, 404, 409, 422)
}


def problem(
    status: int,
    detail: str,
    *,
    field: str | None = None,
    rule: str | None = None,
    line: int | None = None,
) -> JSONResponse:
    body = Problem(detail=detail, field=field, rule=rule, line=line)
    return JSONResponse(body.model_dump(), status_code=status)


def install(app: FastAPI) -> None:
    @app.exception_handler(RuleViolation)
    async def rule_violation(_: Request, error: RuleViolation) -> JSONResponse:
        status = 409 if isinstance(error, IllegalMove) else 422
        return problem(status, str(error), field=error.field, rule=error.rule)

    @app.exception_handler(RoundUnfinished)
    async def round_unfinished(_: Request, error: RoundUnfinished) -> JSONResponse:
        # the tables a round end would cut short, for the console to list before the
        # organizer confirms (app.web.admin.RoundUnfinishedProblem)
        body = Problem(detail=str(error), field=error.field, rule=error.rule).model_dump()
        body["tables"] = [
            {
                "group": table.group or None,
                "segment": table.segment,
                "table": table.table,
                "hands": table.hands,
                "planned": table.planned,
            }
            for table in error.tables
        ]
        return JSONResponse(body, status_code=409)

    @app.exception_handler(LogError)
    async def log_error(_: Request, error: LogError) -> JSONResponse:
        violation = error.violation
        status = 409 if isinstance(violation, IllegalMove) else 422
        return problem(
            status, str(error), field=violation.field, rule=violation.rule, line=error.line_number
        )

    @app.exception_handler(RequestValidationError)
    async def malformed(_: Request, error: RequestValidationError) -> JSONResponse:
        first = error.errors()[0] if error.errors() else {"loc": (), "msg": "malformed request"}
        if first.get("type") == "json_invalid":
            context = first.get("ctx")
            reason = context.get("error", "") if isinstance(context, dict) else ""
            return problem(
                422,
                f"field 'body': is not valid JSON: {reason} (rule CONTRACT §3)",
                field="body",
                rule="CONTRACT §3",
            )
        # ("body", "result", "value") names the field "result.value"; ("header", ...) likewise
        location = [str(part) for part in first.get("loc", ())][1:]
        field = ".".join(location) or "body"
        return problem(
            422,
            f"field {field!r}: {first.get('msg')} (rule CONTRACT §3)",
            field=field,
            rule="CONTRACT §3",
        )

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, error: StarletteHTTPException) -> JSONResponse:
        if error.status_code == 400:
            # FastAPI's own answer to a body it cannot decode (not UTF-8, say): the same
            # 422 as any other malformed body, so a tablet handles one case.
            return problem(
                422,
                f"field 'body': cannot be read as JSON: {error.detail} (rule CONTRACT §3)",
                field="body",
                rule="CONTRACT §3",
            )
        response = problem(error.status_code, str(error.detail))
        response.headers.update(error.headers or {})
        return response

    @app.exception_handler(NotFound)
    async def not_found(_: Request, error: NotFound) -> JSONResponse:
        return problem(404, str(error))

    @app.exception_handler(IdempotencyMismatch)
    async def mismatch(_: Request, error: IdempotencyMismatch) -> JSONResponse:
        return problem(422, str(error), field="Idempotency-Key", rule="CONTRACT §3")

    @app.exception_handler(IdempotencyInProgress)
    async def in_progress(_: Request, error: IdempotencyInProgress) -> JSONResponse:
        return problem(409, str(error), field="Idempotency-Key", rule="CONTRACT §3")

    @app.exception_handler(Forbidden)
    async def forbidden(_: Request, error: Forbidden) -> JSONResponse:
        return problem(403, str(error))
