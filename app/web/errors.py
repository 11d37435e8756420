"""One place maps every named error to HTTP (STYLE.md, convention 10): 409 for a move the
tournament's state forbids, 422 for malformed input, always with a message a judge can act on,
naming the field and the rule.

The API answers JSON (CONTRACT.md §3). A browser that opens a page (an HTML route, or an
address no route serves, outside the API and the feeds) gets the same status and sentence as
a page instead (issue 13: `/hall/99` showed raw JSON), with links to the same page of the
tournaments that do exist. A script that fetches a page (the admin console fetching the
slips) does not ask for text/html first, and keeps the JSON it reads the detail from.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import BaseModel, Field
from sqlalchemy.exc import DBAPIError, SQLAlchemyError
from sqlmodel import Session
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from app import i18n
from app.db import queries
from app.db.engine import is_transient
from app.domain.errors import HandRefused, IllegalMove, LogError, RuleViolation, Say, say
from app.domain.tournament import RoundUnfinished, UnfinishedTable
from app.i18n.korean import fit_particles
from app.services.errors import (
    DatabaseBusy,
    Forbidden,
    IdempotencyInProgress,
    IdempotencyMismatch,
    NotFound,
)
from app.services.store import TournamentStore
from app.web.fields import describe
from app.web.guards import TooManyRequests
from app.web.pages import templates

log = logging.getLogger(__name__)
_ = i18n.gettext


class Problem(BaseModel):
    """Every error answer: `detail` is the sentence to show; `field` and `rule` say where."""

    detail: str
    field: str | None = None
    rule: str | None = None
    line: int | None = None  # for an imported log: the line that broke the rule


PROBLEM_RESPONSES: dict[int | str, dict[str, object]] = {
    status: {"model": Problem} for status in (401, 403, 404, 409, 413, 422, 429)
}
# What any public read may also answer (issue 32; app/web/public_answers.py): more reads of
# its kind from one address than their limit, or every place for public work taken.
PUBLIC_READ_RESPONSES: dict[int | str, dict[str, object]] = {
    429: {
        "model": Problem,
        "description": "Too many reads of this kind from this address (its limit per address: "
        "SCOREBOARD_PUBLIC_READS_PER_ADDRESS, _SEARCHES_, _MOMENTS_, _LOG_DOWNLOADS_); "
        "Retry-After says when",
    },
    503: {
        "model": Problem,
        "description": "The server is busy answering other readers "
        "(SCOREBOARD_PUBLIC_QUEUE); Retry-After says when to ask again",
    },
}
# Seconds a client is told to wait before it sends a request again that the database could
# not take in time (503): about one lock timeout (app/db/engine.py).
RETRY_AFTER_BUSY = 1


class UnfinishedTableAnswer(BaseModel):
    group: str | None = Field(description="Round 1 of a format played in groups only")
    segment: int
    table: int
    hands: int = Field(description="Hands played")
    planned: int | None = Field(description="The segment's hands; null for an Ari Ari game")


class RoundUnfinishedProblem(Problem):
    """409 to a round end without confirmation: the tables that have not played out."""

    tables: list[UnfinishedTableAnswer]


def unfinished_answer(tables: Iterable[UnfinishedTable]) -> list[UnfinishedTableAnswer]:
    return [
        UnfinishedTableAnswer(
            group=table.group or None,
            segment=table.segment,
            table=table.table,
            hands=table.hands,
            planned=table.planned,
        )
        for table in tables
    ]


def said(message: object) -> str:
    """An error's sentence in the reader's language (issue 17): a `Say` by its template, a
    plain string by itself; English, as it was, wherever the catalog has no translation."""
    if not isinstance(message, Say):
        return i18n.gettext(str(message)) if isinstance(message, str) and message else str(message)
    values = {
        name: said(value) if isinstance(value, Say) else value
        for name, value in message.values.items()
    }
    try:
        text = (
            i18n.gettext(message.template).format(**values)
            if values
            else i18n.gettext(message.template)
        )
    except (KeyError, IndexError, ValueError):
        return str(message)  # a translation that lost a placeholder: English, never a 500
    # "{player}은(는)" as the catalog has to write it, "a1은" once the value is known
    return fit_particles(text) if values and i18n.current() == "ko" else text


def framed(field: str, message: object, rule: str) -> str:
    """`field 'F': MESSAGE (rule R)`, as RuleViolation says it, in the reader's language."""
    if i18n.current() == i18n.ENGLISH:
        return f"field {field!r}: {message} (rule {rule})"
    return _("field '{field}': {message} (rule {rule})").format(
        field=field, message=said(message), rule=rule
    )


def violation_text(violation: RuleViolation) -> str:
    return framed(violation.field, violation.message, violation.rule)


def told_to_a_player(violation: RuleViolation) -> str:
    """A refusal on a player's own page: the sentence and the rule they can show the desk,
    without the field's name, which is a program's word ("code"), not theirs."""
    return _("{message} (rule {rule})").format(message=said(violation.message), rule=violation.rule)


def error_text(error: Exception) -> str:
    """An error that carries one sentence (NotFound, Forbidden...), in the reader's language."""
    return said(error.args[0]) if error.args else str(error)


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


# -- pages for a browser -----------------------------------------------------------------------

# Never a page: what programs read (CONTRACT.md §3), whatever their Accept header says.
NOT_PAGES = ("/api/", "/feeds/", "/ws/", "/openapi.json", "/static/")
HEADINGS = {
    401: i18n.lazy("The admin token is needed"),
    403: i18n.lazy("Not allowed"),
    404: i18n.lazy("Not found"),
    405: i18n.lazy("Not a page"),
    409: i18n.lazy("Not now"),
    422: i18n.lazy("This address is not right"),
    503: i18n.lazy("Busy for a moment"),
}
SOMETHING_WRONG = i18n.lazy("Something went wrong")
# A page of one tournament, by its place in the address: /hall/7, /overlay/7/top, /admin/7/...
TOURNAMENT_PAGE = re.compile(r"^/(hall|overlay|admin)/(\d+)(/[^?#]*)?$")


def wants_page(request: Request) -> bool:
    """A browser opening a page: it asks for HTML, at an HTML route (or at an address that
    no route serves, outside the API)."""
    if "text/html" not in request.headers.get("accept", ""):
        return False
    route = request.scope.get("route")
    if route is not None:
        return getattr(route, "response_class", None) is HTMLResponse
    return not request.url.path.startswith(NOT_PAGES)


def error_page(request: Request, status: int, detail: str) -> HTMLResponse:
    return templates.TemplateResponse(
        request,
        "error.html",
        {
            "status": status,
            "heading": _(HEADINGS.get(status, SOMETHING_WRONG)),
            "detail": detail,
            "path": request.url.path,
            "elsewhere": _elsewhere(request),
        },
        status_code=status,
    )


def _elsewhere(request: Request) -> list[dict[str, Any]]:
    """The same page of every tournament there is, when the address names one that is not."""
    match = TOURNAMENT_PAGE.match(request.url.path)
    store: TournamentStore | None = getattr(request.state, "store", None)
    if match is None or store is None:
        return []
    kind, wanted, rest = match.group(1), int(match.group(2)), match.group(3) or ""
    try:
        with Session(store.engine) as session:
            rows = [(row.id, row.name) for row in queries.list_tournaments(session)]
    except SQLAlchemyError:
        return []  # the page still says what was wrong
    if wanted in {tid for tid, _ in rows}:
        return []  # the tournament is there: something inside it is not
    return [
        {"name": name, "url": f"/{kind}/{tid}{rest}"}
        for tid, name in sorted(rows, key=lambda row: row[0] or 0, reverse=True)
        if tid is not None
    ]


async def answer(request: Request, response: JSONResponse) -> HTMLResponse | JSONResponse:
    """The problem as JSON, or as a page for a browser (with the same status and headers)."""
    if not wants_page(request):
        return response
    detail = Problem.model_validate_json(bytes(response.body)).detail
    # The page lists the tournaments (a query): in a thread, as a sync route would be.
    page = await run_in_threadpool(error_page, request, response.status_code, detail)
    for name, value in response.headers.items():
        if name.lower() not in ("content-type", "content-length"):
            page.headers[name] = value
    return page


def install(app: FastAPI) -> None:
    @app.exception_handler(RuleViolation)
    async def rule_violation(request: Request, error: RuleViolation) -> Response:
        status = 409 if isinstance(error, IllegalMove) else 422
        response = problem(status, violation_text(error), field=error.field, rule=error.rule)
        return await answer(request, response)

    @app.exception_handler(RoundUnfinished)
    async def round_unfinished(_: Request, error: RoundUnfinished) -> JSONResponse:
        body = RoundUnfinishedProblem(
            detail=violation_text(error),
            field=error.field,
            rule=error.rule,
            tables=unfinished_answer(error.tables),
        )
        return JSONResponse(body.model_dump(), status_code=409)

    @app.exception_handler(LogError)
    async def log_error(_: Request, error: LogError) -> JSONResponse:
        violation = error.violation
        status = 409 if isinstance(violation, IllegalMove) else 422
        detail = i18n.gettext("line {line}: {violation}").format(
            line=error.line_number, violation=violation_text(violation)
        )
        return problem(
            status, detail, field=violation.field, rule=violation.rule, line=error.line_number
        )

    @app.exception_handler(HandRefused)
    async def hand_refused(request: Request, error: HandRefused) -> Response:
        # A table's play stopped at a hand (an Ari Ari game): the hand, then its violation,
        # as the exception says it in English, in the reader's language.
        violation = error.violation
        status = 409 if isinstance(violation, IllegalMove) else 422
        detail = i18n.gettext("hand {hand}: {violation}").format(
            hand=error.hand, violation=violation_text(violation)
        )
        response = problem(status, detail, field=violation.field, rule=violation.rule)
        return await answer(request, response)

    @app.exception_handler(RequestValidationError)
    async def malformed(request: Request, error: RequestValidationError) -> Response:
        return await answer(request, _malformed(error))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> Response:
        return await answer(request, _http_error(error, request.method))

    @app.exception_handler(TooManyRequests)
    async def too_many(_: Request, error: TooManyRequests) -> JSONResponse:
        response = problem(429, said(error.detail), field=error.field)
        response.headers.update(error.headers or {})
        return response

    @app.exception_handler(NotFound)
    async def not_found(request: Request, error: NotFound) -> Response:
        return await answer(request, problem(404, error_text(error)))

    @app.exception_handler(IdempotencyMismatch)
    async def mismatch(_: Request, error: IdempotencyMismatch) -> JSONResponse:
        return problem(422, error_text(error), field="Idempotency-Key", rule="CONTRACT §3")

    @app.exception_handler(IdempotencyInProgress)
    async def in_progress(_: Request, error: IdempotencyInProgress) -> JSONResponse:
        return problem(409, error_text(error), field="Idempotency-Key", rule="CONTRACT §3")

    @app.exception_handler(Forbidden)
    async def forbidden(request: Request, error: Forbidden) -> Response:
        return await answer(
            request, problem(403, error_text(error), field=error.field, rule=error.rule)
        )

    @app.exception_handler(DatabaseBusy)
    async def database_busy(request: Request, error: DatabaseBusy) -> Response:
        return await answer(request, _busy(error_text(error)))

    @app.exception_handler(DBAPIError)
    async def database_error(request: Request, error: DBAPIError) -> Response:
        if not is_transient(error):
            raise error  # a bug, not the database's state: the server's own 500
        log.warning("database not available in time, answered 503: %s", error.orig)
        return await answer(
            request,
            _busy(_("the database did not answer in time; nothing was changed, send it again")),
        )


def _busy(detail: str) -> JSONResponse:
    """503 with Retry-After: a judge's tablet keeps the hand in its outbox and sends it
    again (with the same Idempotency-Key, so it is entered once)."""
    response = problem(503, detail)
    response.headers["Retry-After"] = str(RETRY_AFTER_BUSY)
    return response


def _malformed(error: RequestValidationError) -> JSONResponse:
    # One of pydantic's ErrorDetails, which FastAPI hands over untyped.
    first: Mapping[str, Any] = (
        error.errors()[0] if error.errors() else {"loc": (), "msg": "malformed request"}
    )
    given = first.get("ctx")
    context: Mapping[str, object] = given if isinstance(given, dict) else {}
    if first.get("type") == "json_invalid":
        reason = context.get("error", "")
        return problem(
            422,
            framed("body", say("is not valid JSON: {reason}", reason=reason), "CONTRACT §3"),
            field="body",
            rule="CONTRACT §3",
        )
    field = field_name(first.get("loc", ()))
    if str(first.get("type", "")).startswith("union_tag"):
        # the result's `kind` is what is wrong (or missing), not the whole result
        field = f"{field}.{str(context.get('discriminator', 'kind')).strip(chr(39))}"
    message, rule = judge_words(first, field)
    return problem(422, framed(field, message, rule), field=field, rule=rule)


# What a hand's result can be: the WSOM ways a hand ends (rule HS-1), then Ari Ari's (AA-30)
WSOM_KINDS = ("self_draw", "discard", "draw", "points")
ARIARI_KINDS = ("ron", "tsumo", "exhaustive_draw", "chombo")
# The rule that gives a field its meaning, by its name (the last part of its place): the
# rule a judge or an organizer looks up when the field is missing or of the wrong type.
FIELD_RULES = {
    "round": "FM-1",
    "segment": "FM-8",
    "table": "FM-9",
    "hand": "FM-7",
    "cycle": "SE-8",
    "seats": "SE-5",
    "minutes": "CL-2",
    "time": "CL-3",
    "sent": "CL-6",
    "start": "FM-8",
    "result": "HS-1",
    "kind": "HS-1",
    "winner": "HS-1",
    "discarder": "HS-1",
    "value": "HS-3",
    "deltas": "HS-7",
    "points": "PN-1",
    "wins": "AA-4",
    "yaku": "AA-20",
    "fan": "AA-2",
    "fu": "AA-19",
    "limit": "AA-2",
    "counters": "AA-6",
    "dealer": "AA-8",
    "riichi": "AA-5",
    "dead": "AA-11",
    "tenpai": "AA-9",
    "offender": "AA-10",
    "amounts": "PR-2",
    "rate": "SC-3",
    "seed": "SE-1",
    "replaces": "SE-1",
    "draw_seed": "ST-5",
    "group": "FM-2",
    "substitute": "FM-9",
    "format": "FM-1",
    "how": "CI-2",  # a check-in's (issue 18, part 4; docs/contract.md)
}


def field_name(loc: Iterable[object]) -> str:
    """The field as a judge names it: ("body", "result", "self_draw", "winner") is
    "result.winner". pydantic puts the result's kind into the place of a field inside it
    (the member of the union it tried); the judge never typed that, so it goes."""
    parts = [str(part) for part in loc][1:]  # "body", "header", "query" or "path" first
    named = [
        part
        for index, part in enumerate(parts)
        if not (index > 0 and parts[index - 1] == "result" and part in (*WSOM_KINDS, *ARIARI_KINDS))
    ]
    return ".".join(named) or "body"


def _expected(kinds: Iterable[str]) -> str:
    return ", ".join(kinds)


def judge_words(error: Any, field: str) -> tuple[str, str]:
    """pydantic's complaint as a sentence a judge can act on, and the rule it breaks."""
    kind = error.get("type", "")
    context = error.get("ctx") or {}
    given = error.get("input")
    name = field.rsplit(".", 1)[-1]
    rule = str(context.get("rule") or FIELD_RULES.get(name, "CONTRACT §3"))
    if kind in ("union_tag_invalid", "union_tag_not_found") and name in ("result", "kind"):
        kinds = {"wsom": _expected(WSOM_KINDS), "ariari": _expected(ARIARI_KINDS)}
        if kind == "union_tag_not_found":
            return say(
                "how the hand ended is needed; one of {wsom} (rule HS-1), or in an Ari Ari "
                "tournament {ariari} (rule AA-30)",
                **kinds,
            ), "HS-1"
        return say(
            "{tag} is not a way a hand ends; one of {wsom} (rule HS-1), or in an Ari Ari "
            "tournament {ariari} (rule AA-30)",
            tag=repr(str(context.get("tag", ""))[:40]),
            **kinds,
        ), "HS-1"
    sentence = context.get("sentence")
    if isinstance(sentence, Say):  # our own validators' refusals (app/web/fields.py)
        return sentence, rule
    if kind in ("union_tag_invalid", "union_tag_not_found"):
        return f"{error.get('msg')}", rule
    if kind == "missing":
        return say("is needed"), rule
    if kind == "extra_forbidden":
        return say("is not a field here: check its spelling"), rule
    if kind in ("int_type", "int_parsing", "int_from_float"):
        return say("a whole number such as 10 is needed, not {given}", given=describe(given)), rule
    if kind in ("string_type", "string_sub_type"):
        return say("text is needed, not {given}", given=describe(given)), rule
    if kind in ("bool_type", "bool_parsing"):
        return say("true or false is needed, not {given}", given=describe(given)), rule
    if kind in ("list_type", "tuple_type"):
        return say("a list is needed, not {given}", given=describe(given)), rule
    if kind in ("dict_type", "model_type", "model_attributes_type", "dataclass_type"):
        return say("an object {{...}} is needed, not {given}", given=describe(given)), rule
    if kind == "literal_error":
        return say(
            "{given} is not one of {expected}",
            given=describe(given),
            expected=context.get("expected", ""),
        ), rule
    if kind in ("too_long", "too_short"):
        english = str(error.get("msg", "")).replace("Value should", "it should")
        return _as_said(_length_words(kind, context), english), rule
    if kind in ("string_too_short", "string_too_long"):
        return _as_said(_length_words(kind, context), str(error.get("msg", ""))), rule
    return str(error.get("msg", "is not right")), rule


def _length_words(kind: str, context: Mapping[str, Any]) -> Say | None:
    """pydantic's sentence about a length, as a `say` (one per case) for the reader's language."""
    least, most, actual = (context.get(k) for k in ("min_length", "max_length", "actual_length"))
    if kind == "string_too_short":
        if least == 1:
            return say("String should have at least 1 character")
        return say("String should have at least {least} characters", least=least)
    if kind == "string_too_long":
        if most == 1:
            return say("String should have at most 1 character")
        return say("String should have at most {most} characters", most=most)
    if context.get("field_type") != "List":
        return None
    if kind == "too_short":
        return say(
            "List should have at least {least} items after validation, not {actual}",
            least=least,
            actual=actual,
        )
    return say(
        "List should have at most {most} items after validation, not {actual}",
        most=most,
        actual=actual,
    )


def _as_said(sentence: Say | None, english: str) -> str:
    # pydantic's own English stays the answer wherever ours would say it otherwise
    return sentence if sentence is not None and sentence == english else english


# Starlette's own answers carry the bare HTTP phrase ("Not Found"), which no reader's language
# has: said in ours instead (issue 17), for an address with no route and a method it lacks.
ADDRESS_NOT_THERE = i18n.lazy("There is nothing at this address")
METHOD_NOT_TAKEN = i18n.lazy("This address does not take a {method} request")


def _http_error(error: StarletteHTTPException, method: str) -> JSONResponse:
    if error.status_code == 400:
        # FastAPI's own answer to a body it cannot decode (not UTF-8, say): the same
        # 422 as any other malformed body, so a tablet handles one case.
        return problem(
            422,
            framed(
                "body", say("cannot be read as JSON: {reason}", reason=error.detail), "CONTRACT §3"
            ),
            field="body",
            rule="CONTRACT §3",
        )
    detail = said(error.detail)
    if error.status_code == 404 and error.detail == HTTPStatus.NOT_FOUND.phrase:
        detail = said(say(ADDRESS_NOT_THERE))
    elif error.status_code == 405 and error.detail == HTTPStatus.METHOD_NOT_ALLOWED.phrase:
        detail = said(say(METHOD_NOT_TAKEN, method=method[:16]))
    response = problem(error.status_code, detail)
    response.headers.update(error.headers or {})
    return response
