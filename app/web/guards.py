"""What one client may ask of the server (issue 14): request bodies bounded before anything
reads them, and rate limits on failed authentication and on writes, answered 429 with
`Retry-After`. The live feed's own limits are in app/web/live.py.

The client's address is the one uvicorn gives the app (`scope["client"]`): the socket's peer,
or, when the peer is a proxy uvicorn trusts (`--forwarded-allow-ips`, or the
`FORWARDED_ALLOW_IPS` variable; 127.0.0.1 by default), the address that proxy put in
`X-Forwarded-For`. A client outside the trusted proxies cannot choose its own address.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import re
import time
from dataclasses import dataclass

import limits
from fastapi import HTTPException
from limits.storage import Storage, storage_from_string
from limits.strategies import MovingWindowRateLimiter
from starlette.types import ASGIApp, Message, Receive, Scope, Send

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
        too_large = f"at most {_size(limit)} are accepted here ({setting})"
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


async def _refuse(
    send: Send,
    status: int,
    detail: str,
    field: str = "body",
    headers: list[tuple[bytes, bytes]] | None = None,
) -> None:
    """A problem answer (app/web/errors.py, Problem) straight from the middleware. It closes
    the connection: whatever the client is still sending is never read."""
    body = json.dumps({"detail": detail, "field": field, "rule": None, "line": None}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
                *(headers or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def refuse_guessers(app: ASGIApp) -> ASGIApp:
    """A request with a token from an address over its failed sign-ins is answered 429 here,
    before routing, body parsing and the token check, unless its token has signed in before
    in this process (a judge behind the same NAT as someone guessing goes on): a guess then
    costs the server next to nothing (bench/hostile.py)."""

    async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
        rate_limits: RateLimits | None = scope.get("state", {}).get("rate_limits")
        if scope["type"] == "http" and rate_limits is not None and rate_limits.blocked:
            authorization = dict(scope["headers"]).get(b"authorization", b"")
            scheme, _, token = authorization.decode(errors="replace").partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                wait = rate_limits.guessing(client_address(scope), token.strip())
                if wait is not None:
                    limit = rate_limits.failures_per_address
                    await _refuse(
                        send,
                        429,
                        f"too many {limit.counts}: at most {limit.item.amount} "
                        f"{_per(limit.item)} ({limit.setting}); try again in {wait} s",
                        field="Authorization",
                        headers=[(b"retry-after", str(wait).encode())],
                    )
                    return
        await app(scope, receive, send)

    return guarded


def _per(item: limits.RateLimitItem) -> str:
    name = item.GRANULARITY.name
    return f"{item.multiples} {name}s" if item.multiples > 1 else f"a {name}"


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

    def __init__(self, settings: Settings) -> None:
        if settings.redis_url:
            self.storage: Storage = storage_from_string(
                settings.redis_url,
                key_prefix=settings.rate_limit_key_prefix,
                socket_timeout=REDIS_TIMEOUT,
                socket_connect_timeout=REDIS_TIMEOUT,
            )
        else:
            self.storage = storage_from_string("memory://")
        # A moving window: at most N in any rolling window, exactly (the counts are small)
        self.limiter = MovingWindowRateLimiter(self.storage)
        self.alone = MovingWindowRateLimiter(storage_from_string("memory://"))
        self.shared_again_at = 0.0  # time.monotonic() after which Redis is asked again
        self.failures_per_address = Rate.of(
            settings.auth_failures_per_address,
            "failed sign-ins from this address",
            "SCOREBOARD_AUTH_FAILURES_PER_ADDRESS",
        )
        self.failures_per_token = Rate.of(
            settings.auth_failures_per_token,
            "failed sign-ins with this token",
            "SCOREBOARD_AUTH_FAILURES_PER_TOKEN",
        )
        self.writes_per_address = Rate.of(
            settings.writes_per_address, "writes from this address", "SCOREBOARD_WRITES_PER_ADDRESS"
        )
        self.good: set[str] = set()  # digests of tokens that signed in (refuse_guessers)
        self.blocked: dict[str, float] = {}  # address -> until (time.monotonic())
        self.writes_per_token = Rate.of(
            settings.writes_per_token, "writes with this token", "SCOREBOARD_WRITES_PER_TOKEN"
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
            f"too many {rate.counts}: at most {item.amount} {per} ({rate.setting}); "
            f"try again in {retry_after} s",
            retry_after,
        )

    @staticmethod
    def digest(token: str) -> str:
        return hashlib.sha256(token.encode(errors="replace")).hexdigest()[:32]

    def signed_in(self, token: str) -> None:
        """A token that signed in: it passes `refuse_guessers` even from a blocked address."""
        if len(self.good) >= MAX_GOOD_TOKENS:
            self.good.clear()  # they sign in again, one request each
        self.good.add(self.digest(token))

    def guessing(self, address: str, token: str) -> int | None:
        """Seconds to wait, if this address is over its failed sign-ins and the token has
        not signed in in this process; else None (the app checks the token as usual)."""
        until = self.blocked.get(address)
        if until is None:
            return None
        left = until - time.monotonic()
        if left <= 0:
            del self.blocked[address]
            return None
        return None if self.digest(token) in self.good else max(1, math.ceil(left))

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
