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
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import limits
from fastapi import HTTPException
from limits.storage import MemoryStorage, RedisStorage
from limits.strategies import MovingWindowRateLimiter
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


def limit_bodies(app: ASGIApp, settings: Settings) -> ASGIApp:
    """Refuse a request body over its route's limit with 413, before the app (any route, the
    token check, the JSON parser) reads it: at once from its Content-Length, and, for a body
    sent in chunks, as soon as the chunks pass the limit. The answer closes the connection,
    so the rest of a body already on its way is never read."""

    async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        if IMPORTS.fullmatch(scope["path"]) is not None:
            limit, setting = settings.import_body_limit_bytes, "SCOREBOARD_IMPORT_BODY_LIMIT_BYTES"
        else:
            limit, setting = settings.body_limit_bytes, "SCOREBOARD_BODY_LIMIT_BYTES"
        headers = dict(scope["headers"])
        length = headers.get(b"content-length")
        if length is not None:
            declared = int(length) if length.isdigit() else None
            if declared is not None and declared <= limit:
                # The server delivers no more than Content-Length: nothing to count.
                await app(scope, receive, send)
            elif declared is None:
                await _refuse(send, 400, "the Content-Length header is not a number")
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


STATUS_LINES = {429: b"HTTP/1.1 429 Too Many Requests\r\n"}


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


class RateLimits:
    """The counters: in this process's memory, or in Redis so that every process serving the
    tournament shares them. If Redis does not answer, the request goes on uncounted."""

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
            self.storage = MemoryStorage()
        # A moving window: at most N in any rolling window, exactly (the counts are small)
        self.limiter = MovingWindowRateLimiter(self.storage)
        self.alone = MovingWindowRateLimiter(MemoryStorage())
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

    def _hit(self, rate: Rate, *key: str) -> TooManyRequests | None:
        limiter = self.limiter if time.monotonic() >= self.shared_again_at else self.alone
        try:
            if limiter.hit(rate.item, *key):
                return None
            reset = limiter.get_window_stats(rate.item, *key).reset_time
        except Exception:  # Redis away or stuck: a limit must never stop the judges
            log.warning(
                "rate limit %s not counted in Redis; counting in this process for %.0f s",
                rate.setting,
                REDIS_RETRY_AFTER,
                exc_info=True,
            )
            self.shared_again_at = time.monotonic() + REDIS_RETRY_AFTER
            return None
        retry_after = max(1, math.ceil(reset - time.time()))
        item = rate.item
        per = _per(item)
        return TooManyRequests(
            say(
                "too many {counts}: at most {amount} {per} ({setting}); try again in "
                "{retry_after} s",
                counts=rate.counts,
                amount=item.amount,
                per=per,
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
            try:
                if self.limiter.test(rate.item, "check-in", *key):
                    continue
                reset = self.limiter.get_window_stats(rate.item, "check-in", *key).reset_time
            except Exception:  # Redis away: as _hit, a limit never stops the hall
                log.warning("check-in limit %s not read", rate.setting, exc_info=True)
                return None
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

    def write(self, address: str, credential: str) -> None:
        """Count a write with a good credential (`credential` names it, never the token
        itself); raise 429 past either limit."""
        refused = self._hit(self.writes_per_token, "writes", "token", credential)
        refused = self._hit(self.writes_per_address, "writes", "address", address) or refused
        if refused is not None:
            raise refused


class KnownTokens:
    """The hashes of the tokens `refuse_guessers` lets through from an address over its
    failed sign-ins: the admin token, every table token issued and not revoked when last
    loaded from the database, and any token that signed in on this process. A token revoked
    since, or expired, is let through too: the app checks it, as for any request. A token
    it does not know waits for a load of the tokens issued since the last one, started after
    the request came (at most one every LOAD_TOKENS_EVERY): a tablet given a new token, on
    any process, is never refused for its address's guesses. A guess that looks like a
    table token waits as well: it costs the server no more, and the guesser its time."""

    def __init__(
        self, settings: Settings, issued_after: Callable[[int], Sequence[tuple[int, str]]] | None
    ) -> None:
        self.admin = settings.admin_token.get_secret_value().encode()
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
        if token_hash(token) in self.hashes or secrets.compare_digest(token.encode(), self.admin):
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
