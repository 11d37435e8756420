"""Liveness and readiness, for load balancers, container health checks and the people running
the hall (issue 16).

- `/api/health`: the process is alive and its event loop answers. It touches nothing else,
  so a proxy or an orchestrator never restarts a process because its database is slow.
- `/api/ready`: whether this process can serve the tournament: its database answers and its
  schema is at the head of the migrations this code carries. Not ready is a 503, so the proxy
  sends it no traffic (compose.yaml's health checks and Caddy's use it).

Redis is reported, and does not make a process unready. Every process shares the one Redis:
were it to count, a Redis outage would take every process out of the proxy at once, when the
judges' hands never need it (the answer never waits on Redis, issue 14) and the feeds catch
up from the database by their version poll meanwhile. The technician sees `"redis":
"unreachable"` here and in the log, and the hall keeps running.

A check costs a database round trip and a Redis ping: the answer is kept READY_FRESH seconds
and shared by every request meanwhile, so a flood of checks costs one a second. A check still
running after READY_TIMEOUT answers "unreachable"; the next one waits for it rather than
starting another (a frozen database must not pile up threads).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Literal

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, Field
from sqlalchemy import Engine
from sqlalchemy.exc import SQLAlchemyError

from app import __version__
from app.db.engine import head_revision, schema_revision

router = APIRouter(prefix="/api", tags=["health"])
log = logging.getLogger(__name__)

READY_TIMEOUT = 2.0  # seconds a part may take to answer before it counts as unreachable
READY_FRESH = 1.0  # seconds an answer is reused


class Health(BaseModel):
    status: Literal["ok"]
    version: str


class Readiness(BaseModel):
    status: Literal["ready", "not ready"]
    database: Literal["ok", "unreachable"]
    migrations: Literal["at head", "not at head", "unknown"] = Field(
        description="`unknown` while the database does not answer"
    )
    schema_revision: str | None = Field(description="The database's (null: never migrated)")
    head_revision: str | None = Field(description="The newest migration this code carries")
    redis: Literal["ok", "unreachable", "not used"] = Field(
        description="Reported only: a process without Redis still serves (its feed polls)"
    )
    version: str
    process: str = Field(
        description="This process's id (random at each start; its row in server_processes): "
        "which of several processes behind the proxy answered"
    )


class ReadinessCheck:
    """One process's readiness, checked at most once every READY_FRESH seconds."""

    def __init__(
        self,
        database_url: str,
        engine: Engine,
        redis_ping: Callable[[], Awaitable[bool]] | None,
        process: str,
        *,
        fresh: float = READY_FRESH,
        timeout: float = READY_TIMEOUT,
    ) -> None:
        self.fresh = fresh
        self.timeout = timeout
        self.process = process
        self.database_url = database_url
        self.engine = engine
        self.redis_ping = redis_ping  # None: this process uses no Redis
        self._answer: Readiness | None = None
        self._answered_at = -float("inf")
        self._lock = asyncio.Lock()
        self._database: asyncio.Future[str | None] | None = None  # a check in flight

    async def answer(self) -> Readiness:
        async with self._lock:
            if self._answer is None or time.monotonic() - self._answered_at > self.fresh:
                self._answer = await self._check()
                self._answered_at = time.monotonic()
            return self._answer

    async def _check(self) -> Readiness:
        reached, revision = await self._schema_revision()
        redis = await self._redis()
        head = head_revision()  # read from the migration scripts once per process
        migrations: Literal["at head", "not at head", "unknown"] = (
            "unknown" if not reached else "at head" if revision == head else "not at head"
        )
        ready = reached and migrations == "at head"
        if not ready:
            log.warning("not ready: database %s, migrations %s", reached, migrations)
        return Readiness(
            status="ready" if ready else "not ready",
            database="ok" if reached else "unreachable",
            migrations=migrations,
            schema_revision=revision,
            head_revision=head,
            redis=redis,
            version=__version__,
            process=self.process,
        )

    async def _schema_revision(self) -> tuple[bool, str | None]:
        if self._database is None or self._database.done():
            self._database = asyncio.ensure_future(
                asyncio.to_thread(schema_revision, self.database_url, self.engine)
            )
        try:
            # shield: a check that times out goes on, and the next one waits for it
            return True, await asyncio.wait_for(asyncio.shield(self._database), self.timeout)
        except (TimeoutError, SQLAlchemyError, OSError) as error:
            log.warning("readiness: the database did not answer (%s)", type(error).__name__)
            return False, None

    async def _redis(self) -> Literal["ok", "unreachable", "not used"]:
        if self.redis_ping is None:
            return "not used"
        try:
            reached = await asyncio.wait_for(self.redis_ping(), self.timeout)
        except TimeoutError:
            reached = False
        return "ok" if reached else "unreachable"


@router.get("/health")
async def health() -> Health:
    return Health(status="ok", version=__version__)


@router.get(
    "/ready",
    responses={503: {"model": Readiness, "description": "Not ready: the proxy sends no traffic"}},
)
async def ready(request: Request, response: Response) -> Readiness:
    """Whether this process can serve: its database answers and is at the migrations' head.
    Redis is reported, not required."""
    check: ReadinessCheck = request.state.readiness
    answer = await check.answer()
    if answer.status != "ready":
        response.status_code = 503
    return answer
