"""The HTTP and websocket application, built by `create_app` (run it with uvicorn's --factory)."""

import asyncio
import json
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import TypedDict

from fastapi import FastAPI
from prometheus_client import CollectorRegistry
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app import __version__, metrics
from app.db.engine import make_engine, migrate
from app.realtime.backplane import RedisBackplane
from app.realtime.hub import OWED_ANSWER, Hub, HubCollector
from app.realtime.turns import JudgesFirst
from app.services import search
from app.services.feeds import etag_matches, etag_of
from app.services.processes import Heartbeat
from app.services.store import TournamentStore
from app.settings import Settings, get_settings
from app.web import errors, languages, live, pages, routes
from app.web.deps import JUDGE_TABLE
from app.web.guards import (
    RateLimits,
    client_address,
    count_writes,
    limit_bodies,
    refuse_guessers,
)
from app.web.health import ReadinessCheck
from app.web.lanes import judges_first, public_only
from app.web.logs import log_request, redact_tokens_in_server_logs, request_id_of
from app.web.public_answers import PublicAnswers, answering_public


class AppState(TypedDict):
    """What the lifespan hands to every request as `request.state`."""

    settings: Settings
    store: TournamentStore
    hub: Hub
    rate_limits: RateLimits
    readiness: ReadinessCheck
    metrics: CollectorRegistry  # this app's own collectors (the live feed's), for /metrics
    public_answers: PublicAnswers  # the public lane's limits, kept answers and places


class ScoreboardApp(FastAPI):
    settings: Settings
    front: ASGIApp | None = None
    # The judges' requests in flight, which this process's public work waits for (issue 32)
    judges: JudgesFirst

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # A body over its limit is refused before anything reads it (issue 14), and a guess
        # from an address over its failed sign-ins (guards.refuse_guessers) before FastAPI's
        # own layers or any route see it: a hostile client's requests cost next to nothing.
        if self.front is None:
            # A write is counted against its limits once answered, by its status (issue 32).
            counted = count_writes(answers_first(super().__call__))
            # Counted in flight once past the refusals at once (issue 32): a flood of bad
            # tokens answered 429 by refuse_guessers holds no public work up.
            first = judges_first(counted, self.judges)
            guarded = limit_bodies(refuse_guessers(first), self.settings)
            if self.settings.role == "public":
                guarded = public_only(guarded)  # issue 32: the judges' lane is not served here
            self.front = timed(guarded)
        await self.front(scope, receive, send)

    def build_middleware_stack(self) -> ASGIApp:
        # The live feed's websockets skip the middleware and the routers (live.feed_first).
        # The reader's language is settled before any route composes a sentence (issue 17).
        # The public lane's reads are limited, kept and bounded in the reader's language
        # (app/web/public_answers.py, issue 32).
        stack = languages.speaking_reader(
            answering_public(super().build_middleware_stack()), self.settings.language
        )
        return live.feed_first(head_as_get(revalidated(stack)))


WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# The routes of a hand entry (CONTRACT §3): their outcomes are counted (metrics.HANDS)
HAND_ROUTES = ("/hands", "/corrections", "/voids")


def timed(app: ASGIApp) -> ASGIApp:
    """Every HTTP request timed and written down once it is answered:
    - its time, by method, route template and status (metrics.REQUEST_SECONDS), and a hand
      entry's outcome with the rule its refusal names (metrics.HANDS, read from the problem
      it answered);
    - one line in the request log (logs.log_request): its id (also sent back as
      X-Request-Id), the route, the tournament, the table of a judge's token, the status,
      the outcome with a refusal's rule, and the time taken. Never a header, a query or a
      body: that is where tokens are.
    A path no route matched is "unmatched": a label never holds what a client made up."""

    async def timing(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        started = time.perf_counter()
        request_id = request_id_of(scope["headers"])
        status = 500  # an exception before any answer: the server's error
        refusal: bytearray | None = None  # a refusal's problem, as it is sent

        async def noting(message: Message) -> None:
            nonlocal status, refusal
            if message["type"] == "http.response.start":
                status = message["status"]
                if status >= 400:
                    refusal = bytearray()
                headers = [*message.get("headers", ()), (b"x-request-id", request_id.encode())]
                message = {**message, "headers": headers}
            elif refusal is not None and len(refusal) < PROBLEM_BYTES:
                refusal += message.get("body", b"")
            await send(message)

        try:
            await app(scope, receive, noting)
        finally:
            seconds = time.perf_counter() - started
            route = getattr(scope.get("route"), "path", None) or "unmatched"
            metrics.REQUEST_SECONDS.labels(scope["method"], route, str(status)).observe(seconds)
            rule = None if refusal is None else _rule_of(refusal)
            if _hand_entry(scope["method"], route):
                if 200 <= status < 300:
                    metrics.HANDS.labels("accepted", "").inc()
                else:
                    metrics.HANDS.labels("refused", rule or f"HTTP {status}").inc()
            log_request(
                request_id=request_id,
                method=scope["method"],
                route=route,
                tournament=_tournament_of(scope),
                table=scope.get("state", {}).get(JUDGE_TABLE),
                status=status,
                outcome="ok" if status < 400 else "refused" if status < 500 else "error",
                rule=rule,
                ms=round(seconds * 1000, 1),
                client=client_address(scope),
            )

    return timing


PROBLEM_BYTES = 4096  # of a refusal's answer read for its rule: a problem is far shorter


def _hand_entry(method: str, route: str) -> bool:
    return method == "POST" and route.endswith(HAND_ROUTES)


def _tournament_of(scope: Scope) -> int | None:
    """The tournament a request's route names, as the route takes it (10 digits at most)."""
    named = str(scope.get("path_params", {}).get("tournament_id", ""))
    return int(named) if named.isascii() and named.isdigit() and len(named) <= 10 else None


def _rule_of(problem: bytearray) -> str | None:
    """The rule a refusal's problem names (RULES.md, CONTRACT.md), if it names one."""
    try:
        rule = json.loads(bytes(problem)).get("rule")
    except (ValueError, AttributeError):
        return None
    return rule if isinstance(rule, str) and len(rule) <= 40 else None


def answers_first(app: ASGIApp) -> ASGIApp:
    """Every write owes its client an answer (hub.OWED_ANSWER), resolved once the answer's
    last part is sent, or the request ends without one: the live feed's update of what the
    write committed waits for it, so a judge's answer never waits for the hall's update."""

    async def owing(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in WRITES:
            await app(scope, receive, send)
            return
        answer: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        async def answering(message: Message) -> None:
            await send(message)
            last = message["type"] == "http.response.body" and not message.get("more_body")
            if last and not answer.done():
                answer.set_result(None)

        owed = OWED_ANSWER.set(answer)
        try:
            await app(scope, receive, answering)
        finally:
            OWED_ANSWER.reset(owed)
            if not answer.done():
                answer.set_result(None)

    return owing


def head_as_get(app: ASGIApp) -> ASGIApp:
    """Every GET answers HEAD too, with the same status and headers and no body (RFC 9110
    9.3.2): vision mixers and monitors check a feed or a page with HEAD, and FastAPI's
    routes answer it 405 (issue 13). The body is dropped here as well as by uvicorn."""

    async def answer(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await app(scope, receive, send)
            return

        async def without_body(message: Message) -> None:
            if message["type"] == "http.response.body":
                message = {**message, "body": b""}
            await send(message)

        await app({**scope, "method": "GET"}, receive, without_body)

    return answer


REVALIDATED = "/api/"  # the JSON API's snapshots (the feeds make their own ETags)


def revalidated(app: ASGIApp) -> ASGIApp:
    """Every JSON answer of the API to a GET carries an ETag (a hash of its body) and
    `Cache-Control: no-cache`, and a GET that sends a current one back as If-None-Match is
    answered 304 with no body: a CDN or the proxy can keep the standings and the other
    snapshots and revalidate them, and a poller gets bytes only when something changed
    (docs/scaling.md). The answer is still made; only its bytes are saved."""

    async def answer(scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope["method"] != "GET"
            or not scope["path"].startswith(REVALIDATED)
        ):
            await app(scope, receive, send)
            return
        start: Message | None = None
        body = bytearray()

        async def held(message: Message) -> None:
            nonlocal start
            if start is None and message["type"] == "http.response.start":
                headers = dict(message.get("headers", ()))
                json_answer = headers.get(b"content-type", b"").startswith(b"application/json")
                if message["status"] == 200 and json_answer and b"etag" not in headers:
                    start = message  # held until the whole body is here to be hashed
                    return
            elif start is not None and message["type"] == "http.response.body":
                body.extend(message.get("body", b""))
                if message.get("more_body"):
                    return
                await _send_revalidated(scope, start, bytes(body), send)
                return
            await send(message)

        await app(scope, receive, held)

    return answer


async def _send_revalidated(scope: Scope, start: Message, body: bytes, send: Send) -> None:
    etag = etag_of(body)
    asked = next((v for n, v in scope["headers"] if n == b"if-none-match"), b"")
    kept = [(n, v) for n, v in start.get("headers", ()) if n != b"content-length"]
    headers = [*kept, (b"etag", etag.encode()), (b"cache-control", b"no-cache")]
    if etag_matches(asked.decode("latin-1"), etag):
        without = [(n, v) for n, v in headers if n != b"content-type"]
        await send({**start, "status": 304, "headers": without})
        await send({"type": "http.response.body", "body": b""})
        return
    headers.append((b"content-length", str(len(body)).encode()))
    await send({**start, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the application; nothing is opened or connected until its lifespan starts."""
    app_settings = settings if settings is not None else get_settings()
    # No token in the access log, however spelt, nor any secret these settings hold (issue 32).
    redact_tokens_in_server_logs(app_settings)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[AppState]:
        engine = make_engine(app_settings.database_url, app_settings.database_timeouts)
        try:
            # The server brings the schema to the newest revision before it serves (README).
            migrate(app_settings.database_url, engine)
            store = TournamentStore(
                engine,
                hall_zone=app_settings.hall_zone,
                claim_window=timedelta(seconds=app_settings.claim_window),
            )
            # Before the first search of a name in Chinese characters (issue 32), beside the
            # start rather than in its way: a busy machine took seconds over them.
            threading.Thread(
                target=search.load_dictionaries, name="search-dictionaries", daemon=True
            ).start()
            # This process's heartbeat: its claims are released at once if it dies (issue 14).
            # A public process claims nothing and keeps no heartbeat: its heartbeat was the
            # public lane's one hold on the database's write lock, which every hand needs, and
            # at nice 10 under the public's load that hold lasts until the process is given
            # the CPU again (issue 32).
            heartbeat = Heartbeat(engine, store.clock)
            if app_settings.role != "public":
                await asyncio.to_thread(heartbeat.start)
        except BaseException:
            # A start that fails (a schema it cannot migrate, a database that does not answer)
            # leaves no connection open behind it.
            engine.dispose()
            raise
        store.process = heartbeat.identity
        hub = Hub(
            store,
            judges=app.judges,
            send_timeout=app_settings.ws_send_timeout,
            close_grace=app_settings.ws_close_grace,
            linger=app_settings.ws_resume_seconds,
        )
        await hub.start()  # it subscribes to the store's commits
        backplane = None
        if app_settings.redis_url:
            # Several processes serve one feed: each change is announced to all of them.
            backplane = RedisBackplane(
                app_settings.redis_url,
                hub,
                socket_timeout=app_settings.redis_socket_timeout,
                connect_timeout=app_settings.redis_connect_timeout,
                channel=app_settings.redis_channel,
            )
            await backplane.start()  # it subscribes to the store's commits too
        # The store's clock as it is when asked (a test moves it by hand).
        public_answers = PublicAnswers(
            app_settings, store.tournaments, lambda: store.clock(), app.judges
        )
        store.subscribe(public_answers.committed)
        hub.heard.append(public_answers.heard)
        own_metrics = CollectorRegistry(auto_describe=True)
        own_metrics.register(HubCollector(hub))
        try:
            yield AppState(
                settings=app_settings,
                store=store,
                hub=hub,
                rate_limits=RateLimits(app_settings, store.token_hashes_after),
                readiness=ReadinessCheck(
                    app_settings.database_url,
                    engine,
                    None if backplane is None else backplane.ping,
                    heartbeat.identity.id,
                ),
                metrics=own_metrics,
                public_answers=public_answers,
            )
        finally:
            if backplane is not None:
                await backplane.stop()
            await hub.stop()
            if app_settings.role != "public":
                await asyncio.to_thread(heartbeat.stop)
            engine.dispose()

    # FastAPI's own /docs and /redoc load their scripts from a CDN: pages.install_docs
    # serves /docs from our copy instead, and ReDoc is not offered.
    app = ScoreboardApp(
        title="WSOM Scoreboard",
        version=__version__,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    app.settings = app_settings
    app.judges = JudgesFirst()
    app.include_router(routes.router)
    app.include_router(languages.router)
    pages.mount_static(app)
    pages.install_docs(app)
    errors.install(app)
    return app
