"""Request dependencies as `Annotated` aliases (STYLE.md, convention 7)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, HTTPException, Path, Query, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from app.domain.errors import say
from app.services.errors import Forbidden, TokenEnded, TokenRefused
from app.services.store import Listed, TournamentStore
from app.settings import Settings
from app.web.guards import SAFE_METHODS, WRITES_BEGUN, RateLimits, Write, client_address

# Tournament ids, rounds, tables and hands fit the database's 32-bit integers; a bigger
# number is refused as malformed input (422) before any query sees it.
MAX_NUMBER = 2**31 - 1
TournamentId = Annotated[int, Path(ge=1, le=MAX_NUMBER)]
RoundNumber = Annotated[int, Path(le=MAX_NUMBER)]  # the rules say what a bad round is
TableNumber = Annotated[int, Path(ge=1, le=MAX_NUMBER)]
RoundParam = Annotated[
    int | None,
    Query(alias="round", ge=1, le=MAX_NUMBER, description="The round (default: the current round)"),
]

JUDGE_TABLE = "judge_table"  # request.state: the table of the judge's token, once checked

bearer = HTTPBearer(auto_error=False, description="An admin token or a judge's table token")


# The dependencies that only look something up are `async def`: FastAPI runs a plain `def`
# dependency in its thread pool, a hop there and back on every request for a dict lookup.
# Those that may wait stay plain functions, off the event loop: the database, and the rate
# limits' counters in Redis (require_admin, require_judge), which a stuck Redis would hold.


async def get_store(request: Request) -> TournamentStore:
    store: TournamentStore = request.state.store
    return store


async def get_settings(request: Request) -> Settings:
    settings: Settings = request.state.settings
    return settings


StoreDep = Annotated[TournamentStore, Depends(get_store)]
SettingsDep = Annotated[Settings, Depends(get_settings)]


def get_tournaments(store: StoreDep) -> list[Listed]:
    return store.tournaments()


# Every tournament on this server, oldest first (the public list, the spectator's choice)
TournamentsDep = Annotated[list[Listed], Depends(get_tournaments)]
Credentials = Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]


def unauthorized(request: Request, credentials: Credentials, message: str) -> HTTPException:
    # issue 14: every failed sign-in is counted; past a limit the answer is 429 (guards.py)
    rate_limits: RateLimits = request.state.rate_limits
    token = None if credentials is None else credentials.credentials
    too_many = rate_limits.failed_authentication(client_address(request.scope), token)
    if too_many is not None:
        return too_many
    return HTTPException(401, message, headers={"WWW-Authenticate": "Bearer"})


def _signed_in(request: Request, token: str, credential: str) -> None:
    """issue 14: a good token passes a blocked address's guard, and writes are rate limited
    per credential and per address (guards.py): refused here if over a limit, counted once
    answered (guards.count_writes; issue 32, a refused write is not counted)."""
    rate_limits: RateLimits = request.state.rate_limits
    rate_limits.signed_in(token)
    if request.method not in SAFE_METHODS:
        write = rate_limits.write(client_address(request.scope), credential)
        begun: list[Write] | None = getattr(request.state, WRITES_BEGUN, None)
        if begun is None:
            setattr(request.state, WRITES_BEGUN, [write])
        else:
            begun.append(write)


def require_admin(request: Request, settings: SettingsDep, credentials: Credentials) -> None:
    if credentials is None:
        raise unauthorized(
            request, credentials, say("an admin token is needed (Authorization: Bearer ...)")
        )
    expected = settings.admin_token.get_secret_value()
    if not secrets.compare_digest(credentials.credentials.encode(), expected.encode()):
        raise unauthorized(request, credentials, say("this is not the admin token"))
    _signed_in(request, credentials.credentials, "admin")


@dataclass(frozen=True)
class Judge:
    """A judge's credential: one table of one tournament, or (`head_judge`, issue 18) every
    table of it, whose `table` is then 0."""

    tournament_id: int
    table: int
    token_id: int
    head_judge: bool = False


def require_judge(request: Request, store: StoreDep, credentials: Credentials) -> Judge:
    if credentials is None:
        raise unauthorized(
            request, credentials, say("a table token is needed (Authorization: Bearer ...)")
        )
    try:
        # Read from the database on every request: a revocation holds at once everywhere.
        token = store.judge_token(credentials.credentials)
    except TokenEnded as ended:
        # rule TK-2: a token that was issued, revoked or expired, is told so, even from an
        # address over its failed sign-ins (issue 32): it is no guess, and its tablet must
        # learn to ask for a new one, not to wait. Not counted as a failed sign-in either:
        # it costs the server what a live token's request does (this one read).
        raise HTTPException(401, ended.args[0], headers={"WWW-Authenticate": "Bearer"}) from None
    except TokenRefused as refused:  # unknown: a guess, or a token of another server
        raise unauthorized(request, credentials, refused.args[0]) from None
    _signed_in(request, credentials.credentials, f"table-token-{token.id}")
    # for the request's log line (a head judge's names no table)
    setattr(request.state, JUDGE_TABLE, "head judge" if token.head_judge else token.table)
    return Judge(token.tournament_id, token.table, token.id, token.head_judge)


def require_head_judge(judge: Annotated[Judge, Depends(require_judge)]) -> Judge:
    """The head judge's token (issue 18, part 3): a table's token gets 403."""
    if not judge.head_judge:
        raise Forbidden(
            say("this needs the head judge's token; a table token opens its own table only"),
            field="Authorization",
            rule="CA-3",
        )
    return judge


def refuse_head_judge_on_a_tablet(judge: Judge) -> None:
    """A tablet draws its token's table: the head judge's token has none (403)."""
    if judge.head_judge:
        raise Forbidden(
            say(
                "this is the head judge's token: open the head judge's page, "
                "/head-judge/{tournament}",
                tournament=judge.tournament_id,
            ),
            field="Authorization",
        )


AdminDep = Annotated[None, Depends(require_admin)]
JudgeDep = Annotated[Judge, Depends(require_judge)]
HeadJudgeDep = Annotated[Judge, Depends(require_head_judge)]
