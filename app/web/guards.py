"""What one client may ask of the server (issue 14): request bodies bounded before anything
reads them, and rate limits on failed authentication and on writes, answered 429 with
`Retry-After`. The live feed's own limits are in app/web/live.py.

The client's address is the one uvicorn gives the app (`scope["client"]`): the socket's peer,
or, when the peer is a proxy uvicorn trusts (`--forwarded-allow-ips`, or the
`FORWARDED_ALLOW_IPS` variable; 127.0.0.1 by default), the address that proxy put in
`X-Forwarded-For`. A client outside the trusted proxies cannot choose its own address.
"""

from __future__ import annotations

import asyncio
import contextvars
import hashlib
import json
import logging
import math
import re
import secrets
import threading
import time
import weakref
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import limits
from fastapi import HTTPException
from fastapi.security.utils import get_authorization_scheme_param
from limits.storage import MemoryStorage, RedisStorage
from limits.strategies import MovingWindowRateLimiter
from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.domain.errors import say
from app.services.store import token_hash
from app.settings import Settings

log = logging.getLogger(__name__)

# Routes whose bodies are imports (a whole log, a CSV or a JSON list of players): the larger
# limit. Every other body (a hand, a correction, a deal, an admin's write) gets the small one.
IMPORTS = re.compile(r"/api/tournaments/(import|[^/]+/players|[^/]+/players\.csv)")
# How long Redis may take to answer a count before the request goes on without it: a rate
# limit must never be what stalls the judges (issue 14, "a stuck part").
REDIS_TIMEOUT = 0.25
# After Redis failed to count, this process counts alone (in memory) for this long before it
# asks Redis again: a Redis that never answers costs one wait of REDIS_TIMEOUT a minute, not
# one on every write.
REDIS_RETRY_AFTER = 60.0
MAX_GOOD_TOKENS = 100_000  # bounds the sets of good tokens and blocked addresses
# A guessing address's token that this process does not know waits for the next load of the
# tokens issued since the last (KnownTokens): at most this long, and so at most this often.
LOAD_TOKENS_EVERY = 0.5
# What a table token looks like: secrets.token_urlsafe(24) (TournamentStore.issue_table_token).
# A guess of any other shape cannot be one, and is refused at once, without a load.
TABLE_TOKEN = re.compile(r"[A-Za-z0-9_-]{32}")


def client_address(scope: Scope) -> str:
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


def _size(count: int) -> str:
    for unit, size in (("MiB", 1024 * 1024), ("KiB", 1024)):
        if count >= size and count % size == 0:
            return f"{count // size} {unit}"
    return f"{count:,} bytes"


def _bearer_token(scope: Scope) -> str | None:
    """The request's bearer token, read as the app reads it (fastapi.security.HTTPBearer:
    the first Authorization header, its scheme in any case), or None."""
    authorization = next(
        (value for name, value in scope["headers"] if name == b"authorization"), b""
    )
    scheme, token = get_authorization_scheme_param(authorization.decode("latin-1"))
    return token if scheme.lower() == "bearer" and token else None


def _is_admin(scope: Scope, settings: Settings) -> bool:
    token = _bearer_token(scope)
    expected = settings.admin_token.get_secret_value()
    return token is not None and secrets.compare_digest(token.encode(), expected.encode())


def limit_bodies(app: ASGIApp, settings: Settings) -> ASGIApp:
    """Refuse a request body over its route's limit with 413, before the app (any route, the
    token check, the JSON parser) reads it: at once from its Content-Length, and, for a body
    sent in chunks, as soon as the chunks pass the limit. The answer closes the connection,
    so the rest of a body already on its way is never read.

    The large limit (IMPORTS) is the admin token's alone: every route that has it is an
    admin's (app/web/admin.py; a route of another credential that needs it must be taught
    here). Without the admin token such a route has the small limit, and a body over it
    is answered as a failed sign-in before any of it is read (issue 32: 16 MiB bodies were
    read and parsed before their 401, ten at once took the server from 128 to 752 MiB)."""

    async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        signed_in_first = False
        if IMPORTS.fullmatch(scope["path"]) is None:
            limit, setting = settings.body_limit_bytes, "SCOREBOARD_BODY_LIMIT_BYTES"
        elif _is_admin(scope, settings):  # constant time
            limit, setting = settings.import_body_limit_bytes, "SCOREBOARD_IMPORT_BODY_LIMIT_BYTES"
        else:
            limit, setting = settings.body_limit_bytes, "SCOREBOARD_BODY_LIMIT_BYTES"
            signed_in_first = True
        headers = dict(scope["headers"])
        length = headers.get(b"content-length")
        if length is not None:
            declared = int(length) if length.isdigit() else None
            if declared is not None and declared <= limit:
                # The server delivers no more than Content-Length: nothing to count.
                await app(scope, receive, send)
            elif declared is None:
                await _refuse(send, 400, "the Content-Length header is not a number")
            elif signed_in_first:
                await _unread(app, scope, send)
            else:
                too_large = f"at most {_size(limit)} are accepted here ({setting})"
                await _refuse(send, 413, f"the request body is {declared:,} bytes: {too_large}")
            return
        if b"chunked" not in headers.get(b"transfer-encoding", b"").lower():
            await app(scope, receive, send)
            return
        # A body in chunks: read it here, up to the limit, then hand it to the app whole.
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit and signed_in_first:
                await _unread(app, scope, send)
                return
            if size > limit:
                too_large = f"at most {_size(limit)} are accepted here ({setting})"
                await _refuse(send, 413, f"the request body is larger: {too_large}")
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if delivered:
                return await receive()  # a disconnect, for whoever waits for one
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}

        await app(scope, replay, send)

    return guarded


async def _unread(app: ASGIApp, scope: Scope, send: Send) -> None:
    """The app's answer to a request on a large-limit route without the admin token, whose
    body is over the small limit, given no body at all: its admin check refuses it as any
    failed sign-in (app/web/deps.py, require_admin: 401 with WWW-Authenticate, or 429 past
    the failed sign-ins, counted either way, in the reader's language), or, from an address
    over them, `refuse_guessers` does. Then the connection closes, so the body on its way
    is never read."""
    given = False

    async def no_body() -> Message:
        nonlocal given
        if given:
            return {"type": "http.disconnect"}  # never the client's: its body is not read
        given = True
        return {"type": "http.request", "body": b"", "more_body": False}

    async def closing(message: Message) -> None:
        if message["type"] == "http.response.start":
            kept = [(n, v) for n, v in message.get("headers", ()) if n.lower() != b"connection"]
            message = {**message, "headers": [*kept, (b"connection", b"close")]}
        await send(message)

    await app(scope, no_body, closing)


def _problem(
    status: int,
    detail: str,
    field: str = "body",
    headers: Sequence[tuple[bytes, bytes]] = (),
    close: bool = True,
) -> tuple[Message, Message]:
    """A problem answer (app/web/errors.py, Problem) for the middleware to send: its start
    and its body. With `close`, the connection closes after it, and whatever the client is
    still sending is never read."""
    body = json.dumps({"detail": detail, "field": field, "rule": None, "line": None}).encode()
    start_headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        *([(b"connection", b"close")] if close else []),
        *headers,
    ]
    start = {"type": "http.response.start", "status": status, "headers": start_headers}
    return start, {"type": "http.response.body", "body": body}


async def _refuse(send: Send, status: int, detail: str) -> None:
    for message in _problem(status, detail):
        await send(message)


# Set in the task of a request refused by `refuse_guessers`: its access-log line is dropped
# (QuietRefusals). An address guessing tokens makes thousands a minute; the log says once
# that it is refused (RateLimits.failed_authentication), not once for each guess.
_REFUSED_QUIETLY: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "refused_quietly", default=False
)


class QuietRefusals(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not _REFUSED_QUIETLY.get()


def _quiet_refusals_in_access_log() -> None:
    logger = logging.getLogger("uvicorn.access")
    if not any(isinstance(each, QuietRefusals) for each in logger.filters):
        # first, so that the record goes no further (app/web/logs.py's redaction included)
        logger.filters.insert(0, QuietRefusals())


def refuse_guessers(app: ASGIApp) -> ASGIApp:
    """A request with a token from an address over its failed sign-ins is answered 429 here,
    before routing, body parsing and the token check, unless the token is one this process
    knows (KnownTokens: a judge behind the same NAT as someone guessing goes on, a new
    tablet too). A guess then costs the server next to nothing (bench/hostile.py): a 429
    made once for each wait, no line in the access log, and the connection kept (the body,
    within its limit already, is read by the server and dropped)."""
    _quiet_refusals_in_access_log()

    async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
        rate_limits: RateLimits | None = scope.get("state", {}).get("rate_limits")
        if scope["type"] == "http" and rate_limits is not None:
            guess = rate_limits.guess(client_address(scope), scope["headers"])
            if guess is not None and not await rate_limits.known(guess.token):
                quiet = _REFUSED_QUIETLY.set(True)
                try:
                    for message in rate_limits.guess_refused(guess.wait):
                        await send(message)
                finally:
                    _REFUSED_QUIETLY.reset(quiet)  # the access-log line is written by now
                return
        await app(scope, receive, send)

    return guarded


STATUS_LINES = {
    408: b"HTTP/1.1 408 Request Timeout\r\n",
    429: b"HTTP/1.1 429 Too Many Requests\r\n",
}


def raw_answer(
    messages: tuple[Message, Message], default_headers: Sequence[tuple[bytes, bytes]]
) -> bytes:
    """An answer made by `_problem` as the bytes an HTTP/1.1 server writes for it, with the
    server's own headers (Date, Server) first, as uvicorn writes them."""
    start, body = messages
    lines = [STATUS_LINES[start["status"]]]
    for name, value in (*default_headers, *start["headers"]):
        lines += [name, b": ", value, b"\r\n"]
    lines += [b"\r\n", body["body"]]
    return b"".join(lines)


@dataclass(frozen=True)
class Guess:
    """A request with a bearer token from an address over its failed sign-ins."""

    wait: int  # seconds until the address may try again
    token: str


def _per(item: limits.RateLimitItem) -> str:
    """The limit's window, said in the reader's language (issue 17)."""
    name, count = item.GRANULARITY.name, item.multiples
    if count > 1:
        many = {
            "second": say("{count} seconds", count=count),
            "minute": say("{count} minutes", count=count),
            "hour": say("{count} hours", count=count),
            "day": say("{count} days", count=count),
        }
        return many.get(name, f"{count} {name}s")
    one = {
        "second": say("a second"),
        "minute": say("a minute"),
        "hour": say("a hour"),
        "day": say("a day"),
    }
    return one.get(name, f"a {name}")


class TooManyRequests(HTTPException):
    """429 with Retry-After, naming the limit and what it counts; `field` is the header that
    carried what was counted (app/web/errors.py answers it as a problem)."""

    def __init__(self, detail: str, retry_after: int, field: str = "Authorization") -> None:
        super().__init__(429, detail, headers={"Retry-After": str(retry_after)})
        self.field = field


@dataclass(frozen=True)
class Rate:
    item: limits.RateLimitItem
    counts: str  # what is counted, in the organizer's words
    setting: str

    @staticmethod
    def of(text: str, counts: str, setting: str) -> Rate:
        return Rate(limits.parse(text), counts, setting)


# Seconds between two sweeps of a process's own counters for those that have expired.
SWEEP_EVERY = 1.0


class ProcessCounts(MemoryStorage):
    """The limits library's counters in this process's memory, swept by one thread of their
    own. The library's own storage starts a new thread (a 10 ms timer) on a count whenever
    the last has ended, and waits on the event loop until that thread runs: with the
    interpreter busy with public work that was up to milliseconds a request, at a few
    hundred refused requests a second 7% of the loop (issue 32, bench/hostile.py's profile)."""

    def __init__(self) -> None:
        super().__init__()
        sweeper = threading.Thread(
            target=_sweep, args=(weakref.ref(self),), name="limits-sweep", daemon=True
        )
        sweeper.start()

    def _MemoryStorage__schedule_expiry(self) -> None:  # noqa: N802 (the library's name)
        """Counting starts no thread: the sweeper expires them (see _sweep)."""


def _sweep(counts: weakref.ref[ProcessCounts]) -> None:
    """Expire the counters every SWEEP_EVERY seconds for as long as they are in use."""
    while True:
        time.sleep(SWEEP_EVERY)
        alive = counts()
        if alive is None:
            return
        alive._MemoryStorage__expire_events()  # type: ignore[attr-defined]
        del alive  # held no longer than a sweep: the counters go when their owner does


class RateLimits:
    """The counters: in this process's memory, or in Redis so that every process serving the
    tournament shares them. If Redis does not answer, this process counts alone for a while
    (`_ask`): a limit never opens for want of its store."""

    def __init__(
        self,
        settings: Settings,
        issued_after: Callable[[int], Sequence[tuple[int, str]]] | None = None,
    ) -> None:
        self.storage: RedisStorage | MemoryStorage
        if settings.redis_url:
            self.storage = RedisStorage(
                settings.redis_url,
                key_prefix=settings.rate_limit_key_prefix,
                socket_timeout=REDIS_TIMEOUT,
                socket_connect_timeout=REDIS_TIMEOUT,
            )
        else:
            self.storage = ProcessCounts()
        # A moving window: at most N in any rolling window, exactly (the counts are small)
        self.limiter = MovingWindowRateLimiter(self.storage)
        self.alone = (
            MovingWindowRateLimiter(ProcessCounts()) if settings.redis_url else self.limiter
        )
        self.shared_again_at = 0.0  # time.monotonic() after which Redis is asked again
        self.failures_per_address = Rate.of(
            settings.auth_failures_per_address,
            say("failed sign-ins from this address"),
            "SCOREBOARD_AUTH_FAILURES_PER_ADDRESS",
        )
        self.failures_per_token = Rate.of(
            settings.auth_failures_per_token,
            say("failed sign-ins with this token"),
            "SCOREBOARD_AUTH_FAILURES_PER_TOKEN",
        )
        self.writes_per_address = Rate.of(
            settings.writes_per_address,
            say("writes from this address"),
            "SCOREBOARD_WRITES_PER_ADDRESS",
        )
        self.blocked: dict[str, float] = {}  # address -> until (time.monotonic())
        # writes begun and not yet answered, per (what is counted, key); see `write`
        self.in_flight: Counter[tuple[str, ...]] = Counter()
        self._flying = threading.Lock()
        self.known_tokens = KnownTokens(settings, issued_after)
        self._guess_refusals: dict[int, tuple[Message, Message]] = {}  # by the wait
        self.writes_per_token = Rate.of(
            settings.writes_per_token, say("writes with this token"), "SCOREBOARD_WRITES_PER_TOKEN"
        )
        # rule CI-4: wrong check-in codes (app/web/checkin_pages.py)
        self.check_in_failures = (
            Rate.of(
                settings.checkin_failures_per_player,
                say("wrong check-in codes for this player"),
                "SCOREBOARD_CHECKIN_FAILURES_PER_PLAYER",
            ),
            Rate.of(
                settings.checkin_failures_per_address,
                say("wrong check-in codes from this address"),
                "SCOREBOARD_CHECKIN_FAILURES_PER_ADDRESS",
            ),
        )

    def _counts(self) -> MovingWindowRateLimiter:
        """Redis's counts, or this process's own while Redis was lately found away."""
        return self.limiter if time.monotonic() >= self.shared_again_at else self.alone

    def _ask(
        self, rate: Rate, question: Callable[[MovingWindowRateLimiter], float | None]
    ) -> float | None:
        """The question (a count or a test: the window's reset time if refused, else None)
        asked of the counts. A limit whose store is away counts in this process instead:
        it never opens (issue 32), and Redis is not asked again, nor waited for, for
        REDIS_RETRY_AFTER (a Redis that never answers costs one REDIS_TIMEOUT a minute)."""
        counts = self._counts()
        try:
            return question(counts)
        except Exception:
            if counts is self.alone:
                raise
            log.warning(
                "rate limit %s not counted in Redis; counting in this process for %.0f s",
                rate.setting,
                REDIS_RETRY_AFTER,
                exc_info=True,
            )
            self.shared_again_at = time.monotonic() + REDIS_RETRY_AFTER
        return question(self.alone)

    def _hit(self, rate: Rate, *key: str) -> TooManyRequests | None:
        """Count one against the limit: the 429 if it is over, else None."""

        def hit(counts: MovingWindowRateLimiter) -> float | None:
            if counts.hit(rate.item, *key):
                return None
            return counts.get_window_stats(rate.item, *key).reset_time

        reset = self._ask(rate, hit)
        return None if reset is None else self._too_many(rate, reset)

    def _over(self, rate: Rate, cost: int, *key: str) -> float | None:
        """The window's reset time if `cost` more would be over the limit, else None;
        nothing is counted."""

        def test(counts: MovingWindowRateLimiter) -> float | None:
            if counts.test(rate.item, *key, cost=cost):
                return None
            return counts.get_window_stats(rate.item, *key).reset_time

        return self._ask(rate, test)

    @staticmethod
    def _too_many(rate: Rate, reset: float) -> TooManyRequests:
        retry_after = max(1, math.ceil(reset - time.time()))
        item = rate.item
        return TooManyRequests(
            say(
                "too many {counts}: at most {amount} {per} ({setting}); try again in "
                "{retry_after} s",
                counts=rate.counts,
                amount=item.amount,
                per=_per(item),
                setting=rate.setting,
                retry_after=retry_after,
            ),
            retry_after,
        )

    def check_in_refused(self, address: str, player: str) -> TooManyRequests | None:
        """rule CI-4: the 429 for a player, or an address, over its wrong codes (before the
        code is even compared, so that the right one cannot come by guessing on); else None."""
        per_player, per_address = self.check_in_failures
        for rate, key in ((per_player, ("player", player)), (per_address, ("address", address))):
            reset = self._over(rate, 1, "check-in", *key)
            if reset is None:
                continue
            wait = max(1, math.ceil(reset - time.time()))
            return TooManyRequests(
                say(
                    "too many {counts}: at most {amount} {per} ({setting}); try again in "
                    "{retry_after} s, or check in at the desk",
                    counts=rate.counts,
                    amount=rate.item.amount,
                    per=_per(rate.item),
                    setting=rate.setting,
                    retry_after=wait,
                ),
                wait,
                field="code",
            )
        return None

    def check_in_failed(self, address: str, player: str) -> None:
        """rule CI-4: count a wrong code, for the player and for the address."""
        per_player, per_address = self.check_in_failures
        self._hit(per_player, "check-in", "player", player)
        self._hit(per_address, "check-in", "address", address)

    @staticmethod
    def digest(token: str) -> str:
        return hashlib.sha256(token.encode(errors="replace")).hexdigest()[:32]

    def signed_in(self, token: str) -> None:
        """A token that signed in: it passes `refuse_guessers` even from a blocked address."""
        self.known_tokens.add(token_hash(token))

    async def known(self, token: str) -> bool:
        return await self.known_tokens.known(token)

    def known_at_once(self, token: str) -> bool | None:
        return self.known_tokens.known_at_once(token)

    def guess(self, address: str, headers: Sequence[tuple[bytes, bytes]]) -> Guess | None:
        """The request's bearer token, if it comes from an address over its failed sign-ins
        (refused unless the token is known: `known`, `known_at_once`); else None."""
        if not self.blocked:
            return None  # nearly always: not a single address is guessing
        wait = self.blocked_for(address)
        if wait is None:
            return None
        authorization = next((value for name, value in headers if name == b"authorization"), b"")
        scheme, _, token = authorization.decode(errors="replace").partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            return None
        return Guess(wait, token)

    def blocked_for(self, address: str) -> int | None:
        """Seconds to wait, if this address is over its failed sign-ins; else None."""
        until = self.blocked.get(address)
        if until is None:
            return None
        left = until - time.monotonic()
        if left <= 0:
            del self.blocked[address]
            return None
        return max(1, math.ceil(left))

    def guess_refused(self, wait: int) -> tuple[Message, Message]:
        """The 429 of `refuse_guessers`, made once for each wait in seconds (at most 60 of
        them with the default limit)."""
        answer = self._guess_refusals.get(wait)
        if answer is None:
            limit = self.failures_per_address
            answer = _problem(
                429,
                f"too many {limit.counts}: at most {limit.item.amount} "
                f"{_per(limit.item)} ({limit.setting}); try again in {wait} s",
                field="Authorization",
                headers=[(b"retry-after", str(wait).encode())],
                close=False,
            )
            if len(self._guess_refusals) >= MAX_GOOD_TOKENS:
                self._guess_refusals.clear()
            self._guess_refusals[wait] = answer
        return answer

    def failed_authentication(self, address: str, token: str | None) -> TooManyRequests | None:
        """Count a failed sign-in: the 429 to answer instead of the 401 once it is over a
        limit, else None. Only failures count: a good token is never refused by them, so a
        judge behind the same address as someone guessing goes on entering hands."""
        refused = self._hit(self.failures_per_address, "auth-failures", "address", address)
        if refused is not None:
            # Until the window frees a slot, this address's guesses are answered before the
            # app sees them (refuse_guessers): each costs the server next to nothing.
            retry_after = int((refused.headers or {}).get("Retry-After", "1"))
            if len(self.blocked) >= MAX_GOOD_TOKENS:
                self.blocked.clear()
            if self.blocked_for(address) is None:
                log.warning(
                    "%s is over its failed sign-ins (%s): for %d s its guesses are answered "
                    "429 before the app, without an access-log line each",
                    address,
                    self.failures_per_address.setting,
                    retry_after,
                )
            self.blocked[address] = time.monotonic() + retry_after
        if token:
            # The counter is keyed by the token's digest: no token is ever stored in Redis.
            digest = self.digest(token)
            refused = self._hit(self.failures_per_token, "auth-failures", "token", digest) or (
                refused
            )
        return refused

    def write(self, address: str, credential: str) -> Write:
        """A write with a good credential (`credential` names it, never the token itself)
        begins, or is refused 429 if it would pass either limit. It is counted once it is
        answered (`written`, by `count_writes`), and until then it is in flight: the
        writes in flight in this process are tested as if counted, so a burst of writes
        sent at once with one token cannot all pass before any of them is counted (other
        processes' writes in flight are not seen: a burst split over N processes may pass
        the limit by what each has in flight, a thread pool's worth at most)."""
        write = Write(address, credential)
        rates = (
            (self.writes_per_token, write.per_token),
            (self.writes_per_address, write.per_address),
        )
        with self._flying:
            for _, key in rates:
                self.in_flight[key] += 1
            costs = [self.in_flight[key] for _, key in rates]
        try:
            for (rate, key), cost in zip(rates, costs, strict=True):
                reset = self._over(rate, cost, *key)
                if reset is not None:
                    raise self._too_many(rate, reset)
        except BaseException:
            self.landed(write)
            raise
        return write

    def written(self, write: Write, status: int) -> None:
        """Count a write that `write` let begin, now that it is answered with `status`.

        What counts (issue 32): a write the server took (below 400), and one it failed on
        (5xx, or no answer: it may have been written, and a flood that makes the database
        fail is what the limit is for). A write it refused (4xx: the rules, a bad body,
        another table's token) is not counted: it is the judge's to correct, and counted,
        600 refused hands made the judge's good hand wait 40 s for the window."""
        if not 400 <= status < 500:
            self._hit(self.writes_per_token, *write.per_token)
            self._hit(self.writes_per_address, *write.per_address)

    def landed(self, write: Write) -> None:
        """The write is no longer in flight: counted (`written`) or refused."""
        with self._flying:
            for key in (write.per_token, write.per_address):
                self.in_flight[key] -= 1
                if self.in_flight[key] <= 0:
                    del self.in_flight[key]


@dataclass(frozen=True)
class Write:
    """A write that the rate limits let begin (RateLimits.write), until it is counted."""

    address: str
    credential: str

    @property
    def per_token(self) -> tuple[str, str, str]:
        return ("writes", "token", self.credential)

    @property
    def per_address(self) -> tuple[str, str, str]:
        return ("writes", "address", self.address)


# request.state: the writes a request's credentials let begin (app/web/deps.py), counted by
# `count_writes` once the request is answered
WRITES_BEGUN = "writes_begun"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def count_writes(app: ASGIApp) -> ASGIApp:
    """Every write that the rate limits let begin is counted by the status of its answer
    (RateLimits.written), after the answer is sent (issue 32: a refused write is not)."""

    async def counting(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in SAFE_METHODS:
            await app(scope, receive, send)
            return
        status = 500  # no answer at all: as the server's failure

        async def noting(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await app(scope, receive, noting)
        finally:
            begun: list[Write] = scope.get("state", {}).get(WRITES_BEGUN) or []
            for write in begun:
                rate_limits: RateLimits = scope["state"]["rate_limits"]
                try:
                    # The count may wait on Redis: off the event loop. (A thread started is
                    # waited for even when the request is cancelled.)
                    await run_in_threadpool(rate_limits.written, write, status)
                finally:
                    # after its count, so that a write is never neither in flight nor counted
                    rate_limits.landed(write)

    return counting


class KnownTokens:
    """The hashes of the tokens `refuse_guessers` lets through from an address over its
    failed sign-ins: the admin and metrics tokens, every table token issued (revoked and
    expired ones too, issue 32: the app answers each that it was revoked or expired, rule
    TK-2, where a guess gets the cheap 429), and any token that signed in on this process. A
    token it does not know waits for a load of the tokens issued since the last one, started
    after the request came (at most one every LOAD_TOKENS_EVERY): a tablet given a new token,
    on any process, is never refused for its address's guesses. A guess that looks like a
    table token waits as well: it costs the server no more, and the guesser its time."""

    def __init__(
        self, settings: Settings, issued_after: Callable[[int], Sequence[tuple[int, str]]] | None
    ) -> None:
        self.admin = settings.admin_token.get_secret_value().encode()
        # the scraper's token too: Prometheus behind the NAT of someone guessing goes on
        metrics = settings.metrics_token
        self.metrics = None if metrics is None else metrics.get_secret_value().encode()
        self.issued_after = issued_after
        self.hashes: set[str] = set()
        self.last_id = 0  # of the newest token loaded
        self.loaded_at = -math.inf  # time.monotonic() at the start of the last load
        self.loading: asyncio.Task[None] | None = None
        self.failed = False  # the last load: then every token goes on to the app's check

    def add(self, hashed: str) -> None:
        if len(self.hashes) >= MAX_GOOD_TOKENS:
            self.hashes.clear()  # loaded again, or signed in again, one request each
            self.last_id = 0
        self.hashes.add(hashed)

    def known_at_once(self, token: str) -> bool | None:
        """Whether the token is known, or None when only a load of the tokens issued since
        the last one can tell (a token shaped like a table token and not yet loaded)."""
        given = token.encode()
        if token_hash(token) in self.hashes or secrets.compare_digest(given, self.admin):
            return True
        if self.metrics is not None and secrets.compare_digest(given, self.metrics):
            return True
        if self.issued_after is None or TABLE_TOKEN.fullmatch(token) is None:
            return False
        return None

    async def known(self, token: str) -> bool:
        at_once = self.known_at_once(token)
        if at_once is not None:
            return at_once
        hashed = token_hash(token)
        came = time.monotonic()
        while self.loaded_at < came:
            if self.loading is None:
                self.loading = asyncio.create_task(self._load())
            # shielded: a guess whose client goes away leaves the load to the others
            await asyncio.shield(self.loading)
        return self.failed or hashed in self.hashes

    async def _load(self) -> None:
        assert self.issued_after is not None
        try:
            await asyncio.sleep(max(0.0, self.loaded_at + LOAD_TOKENS_EVERY - time.monotonic()))
            started = time.monotonic()
            try:
                rows = await asyncio.to_thread(self.issued_after, self.last_id)
            except Exception:  # the database away: the app's own check answers, as always
                log.warning("the tokens issued since %d could not be loaded", self.last_id)
                self.failed = True
            else:
                self.failed = False
                for token_id, hashed in rows:
                    self.add(hashed)
                    self.last_id = max(self.last_id, token_id)
            self.loaded_at = started
        finally:
            self.loading = None
