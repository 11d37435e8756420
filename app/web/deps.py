"""Request dependencies as `Annotated` aliases (STYLE.md, convention 7)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, HTTPException, Path, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from app.services.errors import TokenRefused
from app.services.store import TournamentStore
from app.settings import Settings

# Tournament ids, rounds, tables and hands fit the database's 32-bit integers; a bigger
# number is refused as malformed input (422) before any query sees it.
MAX_NUMBER = 2**31 - 1
TournamentId = Annotated[int, Path(ge=1, le=MAX_NUMBER)]
RoundNumber = Annotated[int, Path(le=MAX_NUMBER)]  # the rules say what a bad round is
TableNumber = Annotated[int, Path(ge=1, le=MAX_NUMBER)]

bearer = HTTPBearer(auto_error=False, description="An admin token or a judge's table token")


def get_store(request: Request) -> TournamentStore:
    store: TournamentStore = request.state.store
    return store


def get_settings(request: Request) -> Settings:
    settings: Settings = request.state.settings
    return settings


StoreDep = Annotated[TournamentStore, Depends(get_store)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
Credentials = Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]


def _unauthorized(message: str) -> HTTPException:
    return HTTPException(401, message, headers={"WWW-Authenticate": "Bearer"})


def require_admin(settings: SettingsDep, credentials: Credentials) -> None:
    if credentials is None:
        raise _unauthorized("an admin token is needed (Authorization: Bearer ...)")
    expected = settings.admin_token.get_secret_value()
    if not secrets.compare_digest(credentials.credentials.encode(), expected.encode()):
        raise _unauthorized("this is not the admin token")


@dataclass(frozen=True)
class Judge:
    """A judge's credential: one table of one tournament."""

    tournament_id: int
    table: int
    token_id: int


def require_judge(store: StoreDep, credentials: Credentials) -> Judge:
    if credentials is None:
        raise _unauthorized("a table token is needed (Authorization: Bearer ...)")
    try:
        # Read from the database on every request: a revocation holds at once everywhere.
        token = store.judge_token(credentials.credentials)
    except TokenRefused as refused:  # unknown, revoked or expired, rule TK-2
        raise _unauthorized(str(refused)) from None
    return Judge(token.tournament_id, token.table, token.id)


AdminDep = Annotated[None, Depends(require_admin)]
JudgeDep = Annotated[Judge, Depends(require_judge)]
