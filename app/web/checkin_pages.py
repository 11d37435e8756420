"""A player's check-in on their phone (issue 18, part 4): the seating slip's QR code opens
the player's page, which links here; the player types the code printed on the slip.

No credential but the code (rule CI-1); wrong codes are counted per player and per address
and refused past a limit (CI-4, app/web/guards.py). The page is a plain form, so it works
on a phone without JavaScript; `POST /api/tournaments/{tid}/check-in` does the same for a
program.
"""

from __future__ import annotations

from urllib.parse import parse_qs, quote

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from app import i18n
from app.domain.checkin import MAX_CODE_INPUT
from app.domain.errors import MalformedInput, RuleViolation
from app.domain.tournament import Tournament
from app.services import checkin
from app.services.checkin import CheckInAnswer, WrongCode
from app.services.errors import NotFound
from app.services.store import TournamentStore
from app.web import languages
from app.web.deps import SettingsDep, StoreDep, TournamentId, TournamentsDep
from app.web.errors import PROBLEM_RESPONSES, said, told_to_a_player
from app.web.fields import PlayerRef, StrictBody
from app.web.guards import RateLimits, TooManyRequests, client_address
from app.web.pages import render
from app.web.spectator import TournamentParam, _missing, _tournament_of

pages = APIRouter(include_in_schema=False, dependencies=[Depends(languages.tournament_default)])
api = APIRouter(
    prefix="/api/tournaments",
    tags=["public"],
    responses={status: PROBLEM_RESPONSES[status] for status in (404, 409, 422, 429)},
)


class CheckInBody(StrictBody):
    player: PlayerRef
    # no length here: read_code refuses a long one under its rule (CI-1), and counts it
    code: str = Field(description="The code on the slip, such as K7M-4QX (rule CI-1)")


class CheckedInAnswer(BaseModel):
    tournament: int
    round: int
    player: str | int
    name: str
    how: str = Field(description='"slip" or "desk" (rule CI-2)')
    at: str | None
    late: bool = Field(description="After the round's scheduled start or its first play (CI-5)")
    already: bool = Field(description="Checked in before: nothing was written (CI-2)")
    version: int


def answer_of(kept: CheckInAnswer) -> CheckedInAnswer:
    return CheckedInAnswer(
        tournament=kept.tournament,
        round=kept.round,
        player=kept.player,
        name=kept.name,
        how=kept.how,
        at=None if kept.at is None else kept.at.isoformat().replace("+00:00", "Z"),
        late=kept.late,
        already=kept.already,
        version=kept.version,
    )


def _with_code(
    request: Request,
    store: TournamentStore,
    key: bytes,
    tournament_id: int,
    player: str,
    code: str,
) -> CheckInAnswer:
    """rules CI-1, CI-4: refused at once past the guessing limit; a wrong code counted."""
    limits: RateLimits = request.state.rate_limits
    address = client_address(request.scope)
    counted = f"{tournament_id}:{player}"
    refused = limits.check_in_refused(address, counted)
    if refused is not None:
        raise refused
    try:
        return checkin.check_in_with_code(store, tournament_id, player, code, key)
    except (WrongCode, MalformedInput) as error:
        if isinstance(error, WrongCode) or error.field == "code":
            limits.check_in_failed(address, counted)
        raise


@api.post("/{tournament_id}/check-in", response_model=CheckedInAnswer)
def check_in(
    request: Request,
    tournament_id: TournamentId,
    body: CheckInBody,
    store: StoreDep,
    settings: SettingsDep,
) -> CheckedInAnswer:
    """A player checks in for the round being played with the code on their seating slip
    (rules CI-1 to CI-5). A second check-in answers the first (`already`) and writes
    nothing. A wrong code is 422 (field `code`, rule CI-1); past the guessing limit, 429."""
    return answer_of(
        _with_code(
            request, store, settings.check_in_key, tournament_id, str(body.player), body.code
        )
    )


# -- the phone's page -----------------------------------------------------------------------


def _page_facts(tournament: Tournament, player_id: str) -> dict[str, object]:
    player = tournament.player_named(player_id)
    assert player is not None  # _tournament_of found the player first
    registered = tournament.players[player]
    state = tournament.current_round
    kept = tournament.check_ins.get(state.number, {}).get(player)
    return {
        "player": str(player),
        "name": registered.name,
        "local_name": registered.local_name,
        "round": state.number,
        "open": state.ended is None,
        "checked": kept,
    }


def _render(
    request: Request,
    tid: int,
    facts: dict[str, object],
    *,
    error: str | None = None,
    status: int = 200,
    code: str = "",
) -> HTMLResponse:
    shown, other = i18n.names_for(str(facts["name"]), facts["local_name"])  # type: ignore[arg-type]
    response = render(
        request,
        "spectator_checkin.html",
        tournament_id=tid,
        facts=facts,
        shown_name=shown,
        other_name=other,
        player_url=f"/p/{quote(str(facts['player']), safe='')}?t={tid}",
        action=f"/p/{quote(str(facts['player']), safe='')}/check-in?t={tid}{_lang(request)}",
        error=error,
        code=code,
    )
    response.status_code = status
    return response


def _lang(request: Request) -> str:
    """A page opened with ?lang= (a QR code, a shared link) answers its form in that language
    too: i18n.js carries the parameter along links, and a form's action is no link."""
    asked = request.query_params.get("lang")
    return "" if not asked else f"&lang={quote(asked[:35], safe='')}"


@pages.get("/p/{player_id}/check-in", response_class=HTMLResponse)
def check_in_page(
    request: Request,
    player_id: str,
    store: StoreDep,
    listed: TournamentsDep,
    tournament_id: TournamentParam = None,
) -> HTMLResponse:
    try:
        tid = _tournament_of(store, listed, player_id, tournament_id)
    except NotFound as error:
        return _missing(request, str(error))
    facts = store.read(tid, lambda t, _: _page_facts(t, player_id))
    return _render(request, tid, facts)


MAX_FORM = 1024  # a code box and nothing else


@pages.post("/p/{player_id}/check-in", response_class=HTMLResponse)
async def check_in_form(
    request: Request,
    player_id: str,
    store: StoreDep,
    listed: TournamentsDep,
    settings: SettingsDep,
    tournament_id: TournamentParam = None,
) -> HTMLResponse:
    """The form's answer: the page again, saying the player is checked in, or why not (the
    code kept in its box, so a typo is corrected rather than typed again)."""
    body = await request.body()
    try:
        fields = parse_qs(body[:MAX_FORM].decode(errors="replace"), max_num_fields=4)
    except ValueError:  # more fields than a code box sends: none of them is read
        fields = {}
    code = (fields.get("code") or [""])[0][: MAX_CODE_INPUT * 2]

    def run() -> HTMLResponse:
        try:
            tid = _tournament_of(store, listed, player_id, tournament_id)
        except NotFound as unknown:
            return _missing(request, str(unknown))
        problem: str | None = None
        status = 200
        try:
            _with_code(request, store, settings.check_in_key, tid, player_id, code)
        except RuleViolation as violation:
            problem = told_to_a_player(violation)
            status = 422 if isinstance(violation, MalformedInput) else 409
        except TooManyRequests as refused:
            problem, status = said(refused.detail), 429
        facts = store.read(tid, lambda t, _: _page_facts(t, player_id))
        return _render(request, tid, facts, error=problem, status=status, code=code)

    return await run_in_threadpool(run)
