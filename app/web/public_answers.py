"""The public lane's reads, made cheap and bounded (issue 32): no anonymous reader, however
many or however fast, holds up a judge.

Every GET of the public lane (app/web/lanes.py) goes through three steps:
1. **A rate limit per address**, before anything else is done for it: reads in general,
   searches, standings at a moment (`?at=`) and log downloads, each with its own setting
   (SCOREBOARD_PUBLIC_READS_PER_ADDRESS, _SEARCHES_, _MOMENTS_, _LOG_DOWNLOADS_). Counted in
   this process's memory: a read must never wait on Redis. A hall behind NAT, where every
   phone shares one address, raises them (docs/security.md).
2. **An answer made once per version.** A 200 answer is kept, keyed by its address, its
   query and the reader's language, and stamped with the version of the tournament it
   shows (of every tournament, for a page that names none). Until the version changes it is
   served from memory, with an ETag (a hash of its bytes) that answers a matching
   If-None-Match with 304, so the proxy or a CDN may keep it too. An answer that shows a
   clock (its seconds move without a new version, rule CL-6) is kept at most
   TIMED_FRESH seconds, as the live feed keeps its snapshots (hub.SNAPSHOT_FRESH). Readers
   asking for the same missing answer at once wait for the one that makes it.
3. **Bounded work.** An answer that has to be made takes one of SCOREBOARD_PUBLIC_CONCURRENCY
   places (2 by default); at most SCOREBOARD_PUBLIC_QUEUE requests wait for one, and the
   next is refused at once with 503 and Retry-After. So the public lane never holds more
   than that many of the server's threads, and the judges' requests (which need one too:
   their routes are plain functions that FastAPI runs in its thread pool) never queue
   behind readers. While every place is taken, an answer kept up to STALE_WHEN_BUSY ago is
   served rather than one more made. An answer to be made waits, in its place, while a
   request of the judges' lane is in flight in this process (app/realtime/turns.py).

The versions: this process's own commits are known at once (the store's subscriber),
another process's as the live feed hears of them through the backplane (the hub's
`heard`), and the database is asked for every tournament's version at most once every
VERSIONS_POLL seconds in any case (a notification Redis lost, a command-line import).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import math
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from limits.strategies import SlidingWindowCounterRateLimiter
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app import i18n
from app.domain.errors import say
from app.realtime.turns import JudgesFirst
from app.services.store import Listed
from app.settings import Settings
from app.web.guards import ProcessCounts, Rate, _per, _problem, client_address
from app.web.lanes import PUBLIC, lane_of

log = logging.getLogger(__name__)

# Seconds an answer showing a clock is served from memory: a late reader's countdown stays
# within a second of the server's (rule CL-6), as the feed's snapshots (hub.SNAPSHOT_FRESH).
TIMED_FRESH = timedelta(seconds=0.5)
# How old a kept answer may be, whatever the version since, to be served while every place
# for public work is taken (a reader hammering the pages): see _kept_or_made.
STALE_WHEN_BUSY = timedelta(seconds=1)
# Seconds between two readings of every tournament's version from the database: how long a
# change that no notification announced (Redis away, a `scoreboard import` beside the
# server) may take to reach the public answers. Announced changes arrive at once.
VERSIONS_POLL = 1.0
# Tournament ids found missing remembered at once (VersionBoard; a bound on the memory)
MAX_MISSING = 10_000
# An answer larger than this share of the cache is made every time (a whole day's log of a
# big event), never kept: it would push out everything else.
LARGEST_SHARE = 8

# Not kept: what is not a tournament's state (health, the OpenAPI document, the language
# switch and its cookie), and the static files (Starlette answers those with their own ETag).
_NOT_KEPT = re.compile(r"/static/.*|/api/(health|ready)|/openapi\.json|/docs(/.*)?|/language")
# Kept until the version changes: answers with no clock in them. Every other kept answer (the
# pages, the tables, the clocks, the feeds) is made again after TIMED_FRESH.
_UNTIMED = re.compile(
    r"/api/tournaments(/[^/]+(/standings|/log|/players/[^/]+|/tables/[^/]+/audit)?)?"
    r"|/search|/hall/[^/]+/players\.json|/i18n/.*|/spectator-sw\.js"
)
_TOURNAMENT_IN_PATH = re.compile(r"/(?:api/tournaments|feeds|hall|overlay)/(\d{1,10})(?:/|$)")


def _tournament_named(path: str) -> int | None:
    """The tournament a public address names in its path, if it names one."""
    found = _TOURNAMENT_IN_PATH.match(path)
    return int(found.group(1)) if found else None


class VersionBoard:
    """The newest version of each tournament this process knows of (see the module's text).
    Told from any thread; read on the event loop."""

    def __init__(self, tournaments: Callable[[], Sequence[Listed]]) -> None:
        self._tournaments = tournaments
        self.versions: dict[int, int] = {}
        self._polled_at = -math.inf
        self._polling: asyncio.Task[None] | None = None
        # tournament id -> when a poll last found it missing: a reader asking again and
        # again for one that does not exist costs no query each (at most one a VERSIONS_POLL)
        self._missing: OrderedDict[int, float] = OrderedDict()

    def heard(self, tournament_id: int, version: int) -> None:
        """A commit of this process, or one the backplane announced."""
        if version > self.versions.get(tournament_id, -1):
            self.versions[tournament_id] = version

    async def stamp(self, tournament_id: int | None) -> object:
        """What an answer about `tournament_id` (every tournament, for None) is made from:
        the same stamp, the same answer. A tournament not known here yet (made by another
        process a moment ago, or not there at all) is looked for in the database at once."""
        now = time.monotonic()
        unknown = (
            tournament_id is not None
            and tournament_id not in self.versions
            and now - self._missing.get(tournament_id, -math.inf) >= VERSIONS_POLL
        )
        if unknown or now - self._polled_at >= VERSIONS_POLL:
            if self._polling is None:
                self._polling = asyncio.create_task(self._poll())
            # shielded: a reader that goes away leaves the reading to the others
            await asyncio.shield(self._polling)
        if tournament_id is None:
            return tuple(sorted(self.versions.items()))
        if unknown and tournament_id not in self.versions:
            self._missing[tournament_id] = now
            self._missing.move_to_end(tournament_id)
            if len(self._missing) > MAX_MISSING:
                self._missing.popitem(last=False)
        return self.versions.get(tournament_id)

    async def _poll(self) -> None:
        try:
            started = time.monotonic()
            try:
                listed = await asyncio.to_thread(self._tournaments)
            except Exception:  # the database away: answers are made, and fail, as before
                log.warning("the tournaments' versions could not be read", exc_info=True)
                return
            for tournament in listed:
                self.heard(tournament.id, tournament.version)
            # A tournament deleted from the database (a restore) is forgotten.
            for gone in set(self.versions) - {t.id for t in listed}:
                del self.versions[gone]
            self._polled_at = started
        finally:
            self._polling = None


@dataclass(frozen=True)
class Kept:
    """A public answer as it was sent, and what it was made from."""

    stamp: object
    made_at: datetime  # by the server's clock, which the clocks it shows are read from
    timed: bool
    status: int
    headers: tuple[tuple[bytes, bytes], ...]
    body: bytes
    etag: bytes

    @property
    def size(self) -> int:
        return len(self.body) + sum(len(n) + len(v) for n, v in self.headers) + 200

    def recent(self, now: datetime) -> bool:
        """Made within STALE_WHEN_BUSY, whatever the version since."""
        return timedelta(0) <= now - self.made_at <= STALE_WHEN_BUSY

    def fresh(self, stamp: object, now: datetime) -> bool:
        if self.stamp != stamp:
            return False
        return not self.timed or timedelta(0) <= now - self.made_at <= TIMED_FRESH


@dataclass
class KeptAnswers:
    """The kept answers, least recently used first, within `capacity` bytes."""

    capacity: int
    answers: OrderedDict[tuple[Any, ...], Kept] = field(default_factory=OrderedDict)
    size: int = 0
    hits: int = 0
    misses: int = 0
    stale: int = 0  # answers of a moment ago, served while every place was taken

    def get(self, key: tuple[Any, ...]) -> Kept | None:
        kept = self.answers.get(key)
        if kept is not None:
            self.answers.move_to_end(key)
        return kept

    def put(self, key: tuple[Any, ...], kept: Kept) -> None:
        if kept.size * LARGEST_SHARE > self.capacity:
            return
        old = self.answers.pop(key, None)
        if old is not None:
            self.size -= old.size
        self.answers[key] = kept
        self.size += kept.size
        while self.size > self.capacity:
            _, dropped = self.answers.popitem(last=False)
            self.size -= dropped.size


class Busy(Exception):
    """Every place for public work is taken and the queue is full."""


class Places:
    """SCOREBOARD_PUBLIC_CONCURRENCY places for public work, and a queue of at most
    SCOREBOARD_PUBLIC_QUEUE requests waiting for one (on the event loop: no lock needed)."""

    def __init__(self, concurrency: int, queue: int) -> None:
        self.free = asyncio.Semaphore(concurrency)
        self.queue = queue
        self.waiting = 0
        self.refused = 0

    async def take(self) -> None:
        if self.free.locked() and self.waiting >= self.queue:
            self.refused += 1
            raise Busy
        self.waiting += 1
        try:
            await self.free.acquire()
        finally:
            self.waiting -= 1

    def give_back(self) -> None:
        self.free.release()

    def full(self) -> bool:
        return self.free.locked()


MAX_BLOCKED = 100_000  # addresses over a limit remembered at once (a bound on the memory)

# A kind of public read, by what it costs: its own limit per address.
_SEARCH = "search"
_MOMENT = "moment"
_LOG = "log"
_READ = "read"
_STANDINGS = re.compile(r"/api/tournaments/[^/]+/standings")
_LOG_PATH = re.compile(r"/api/tournaments/[^/]+/log")
_QUERY_NAMES = re.compile(rb"(?:^|&)(q|at)=([^&]*)")


def read_kind(path: str, query: bytes) -> str:
    """Which of the public limits a read counts against."""
    asked = {name: value for name, value in _QUERY_NAMES.findall(query)}
    if path == "/search" or (path == "/" and asked.get(b"q")):
        return _SEARCH
    if b"at" in asked and _STANDINGS.fullmatch(path):
        return _MOMENT
    if _LOG_PATH.fullmatch(path):
        return _LOG
    return _READ


class PublicLimits:
    """The public reads' limits per address, in this process's memory (a sliding window
    counter: one count a window, whatever the rate)."""

    def __init__(self, settings: Settings) -> None:
        self.limiter = SlidingWindowCounterRateLimiter(ProcessCounts())
        self.rates = {
            _READ: Rate.of(
                settings.public_reads_per_address,
                say("reads from this address"),
                "SCOREBOARD_PUBLIC_READS_PER_ADDRESS",
            ),
            _SEARCH: Rate.of(
                settings.searches_per_address,
                say("searches from this address"),
                "SCOREBOARD_SEARCHES_PER_ADDRESS",
            ),
            _MOMENT: Rate.of(
                settings.moments_per_address,
                say("standings at a moment from this address"),
                "SCOREBOARD_MOMENTS_PER_ADDRESS",
            ),
            _LOG: Rate.of(
                settings.log_downloads_per_address,
                say("log downloads from this address"),
                "SCOREBOARD_LOG_DOWNLOADS_PER_ADDRESS",
            ),
        }

        # (kind, address) -> time.monotonic() until which its reads are refused at once, by
        # the server's protocol before any of the app (app/web/live_protocol.py)
        self.blocked: dict[tuple[str, str], float] = {}
        self._refusals: dict[tuple[str, int], tuple[Message, Message]] = {}

    def refused(self, kind: str, address: str) -> tuple[Message, Message] | None:
        """The 429 to answer, or None when the read is within its limit (and counted)."""
        rate = self.rates[kind]
        if self.limiter.hit(rate.item, "public", kind, address):
            return None
        reset = self.limiter.get_window_stats(rate.item, "public", kind, address).reset_time
        wait = max(1, math.ceil(reset - time.time()))
        if len(self.blocked) >= MAX_BLOCKED:
            self.blocked.clear()
        self.blocked[(kind, address)] = time.monotonic() + wait
        return self._answer(rate, wait)

    def refused_at_once(self, kind: str, address: str) -> tuple[Message, Message] | None:
        """The 429 of a read from an address whose reads of this kind are refused until a
        moment still to come, made once for each wait; None otherwise (the app counts it).
        Until then a flood of them costs the server next to nothing (issue 32)."""
        until = self.blocked.get((kind, address))
        if until is None:
            return None
        left = until - time.monotonic()
        if left <= 0:
            del self.blocked[(kind, address)]
            return None
        wait = max(1, math.ceil(left))
        answer = self._refusals.get((kind, wait))
        if answer is None:
            answer = self._refusals[(kind, wait)] = self._answer(self.rates[kind], wait)
        return answer

    @staticmethod
    def _answer(rate: Rate, wait: int) -> tuple[Message, Message]:
        return _problem(
            429,
            say(
                "too many {counts}: at most {amount} {per} ({setting}); try again in "
                "{retry_after} s",
                counts=rate.counts,
                amount=rate.item.amount,
                per=_per(rate.item),
                setting=rate.setting,
                retry_after=wait,
            ),
            field="address",
            headers=[(b"retry-after", str(wait).encode())],
            close=False,
        )


class PublicAnswers:
    """One process's public lane: its limits, its kept answers and its places (see the
    module's text). Made by the app's lifespan, used by `answering_public`."""

    def __init__(
        self,
        settings: Settings,
        tournaments: Callable[[], Sequence[Listed]],
        clock: Callable[[], datetime],
        judges: JudgesFirst | None = None,
    ) -> None:
        self.clock = clock  # the store's: the time every clock on a page is shown at
        # A judge's request in flight in this process: no answer starts being made meanwhile
        self.judges = judges or JudgesFirst()
        self.board = VersionBoard(tournaments)
        self.kept = KeptAnswers(settings.public_cache_bytes)
        self.places = Places(settings.public_concurrency, settings.public_queue)
        self.limits = PublicLimits(settings)
        # key -> the answer being made for it, which readers asking meanwhile wait for
        self.making: dict[tuple[Any, ...], asyncio.Future[Kept | None]] = {}
        self.guard = threading.Lock()  # `heard` comes from writing threads

    def heard(self, tournament_id: int, version: int) -> None:
        with self.guard:
            self.board.heard(tournament_id, version)

    def committed(self, commit: Any) -> None:
        """The store's subscriber: this process's commits are known before their answer."""
        self.heard(commit.tournament_id, commit.version)


def _is_public_read(scope: Scope) -> bool:
    return scope["type"] == "http" and lane_of(scope["method"], scope["path"]) == PUBLIC


def answering_public(app: ASGIApp) -> ASGIApp:
    """The public lane's reads through PublicAnswers (module text); everything else as it is.
    Sits inside the reader's language (the key holds it) and after HEAD became GET."""

    async def answer(scope: Scope, receive: Receive, send: Send) -> None:
        public: PublicAnswers | None = scope.get("state", {}).get("public_answers")
        if public is None or not _is_public_read(scope) or scope["method"] != "GET":
            await app(scope, receive, send)
            return
        path = scope["path"]
        if path.startswith("/static/"):
            await app(scope, receive, send)  # files: cheap, and a page needs a dozen
            return
        refusal = public.limits.refused(
            read_kind(path, scope["query_string"]), client_address(scope)
        )
        if refusal is not None:
            for message in refusal:
                await send(message)
            return
        if _NOT_KEPT.fullmatch(path) is not None:
            await _bounded(public, app, scope, receive, send)
            return
        await _kept_or_made(public, app, scope, receive, send)

    return answer


async def _bounded(
    public: PublicAnswers, app: ASGIApp, scope: Scope, receive: Receive, send: Send
) -> None:
    await _in_a_place(public, app, scope, receive, send)


async def _in_a_place(
    public: PublicAnswers, app: ASGIApp, scope: Scope, receive: Receive, send: Send
) -> bool:
    """Answer within one of the places for public work, once the judges' requests in
    flight are answered (app/realtime/turns.py); False if every place and the queue are
    taken (answered 503)."""
    try:
        await public.places.take()
    except Busy:
        await _send_busy(send)
        return False
    try:
        await public.judges.patient().turn()
        await app(scope, receive, send)
    finally:
        public.places.give_back()
    return True


async def _send_busy(send: Send) -> None:
    for message in _problem(
        503,
        say(
            "the server is busy answering other readers (SCOREBOARD_PUBLIC_QUEUE); "
            "try again in a second"
        ),
        field="address",
        headers=[(b"retry-after", b"1")],
        close=False,
    ):
        await send(message)


async def _kept_or_made(
    public: PublicAnswers, app: ASGIApp, scope: Scope, receive: Receive, send: Send
) -> None:
    path = scope["path"]
    choice = i18n.current_choice()
    key = (path, scope["query_string"], choice.language, choice.chosen)
    stamp = await public.board.stamp(_tournament_named(path))
    while True:
        kept = public.kept.get(key)
        if kept is not None and kept.fresh(stamp, public.clock()):
            public.kept.hits += 1
            await _send_kept(kept, scope, send)
            return
        if kept is not None and public.places.full() and kept.recent(public.clock()):
            # Every place is taken: the answer of a moment ago (a version or two behind, its
            # `version` and ETag saying which) rather than one more to make. A reader who
            # hammers the pages makes no more work than one answer a key a STALE_WHEN_BUSY,
            # and a page's live feed brings it up to date as it connects (issue 32).
            public.kept.stale += 1
            await _send_kept(kept, scope, send)
            return
        making = public.making.get(key)
        if making is None:
            break
        # Another reader is making this very answer: wait for it rather than make it again
        # (a hall's phones all asking for the page after a hand).
        other = await asyncio.shield(making)
        if other is None or not other.fresh(stamp, public.clock()):
            break  # it was not kept (an error, or too large): this reader makes its own
    public.kept.misses += 1
    making = asyncio.get_running_loop().create_future()
    public.making[key] = making
    made: Kept | None = None
    try:
        made = await _make(
            public, app, scope, receive, send, stamp, timed=_UNTIMED.fullmatch(path) is None
        )
        if made is not None:
            public.kept.put(key, made)
    finally:
        if public.making.get(key) is making:
            del public.making[key]
        making.set_result(made)


async def _make(
    public: PublicAnswers,
    app: ASGIApp,
    scope: Scope,
    receive: Receive,
    send: Send,
    stamp: object,
    *,
    timed: bool,
) -> Kept | None:
    """Make the answer (within a place), send it, and return it to be kept: a whole 200
    answer that sets no cookie, or None."""
    start: Message | None = None
    parts: list[bytes] = []
    keep = True
    limit = public.kept.capacity // LARGEST_SHARE

    async def holding(message: Message) -> None:
        nonlocal start, keep
        if message["type"] == "http.response.start":
            headers = message.get("headers", ())
            keep = message["status"] == 200 and not any(n == b"set-cookie" for n, _ in headers)
            if keep:
                start = message
                return  # sent with its ETag once the body is whole
        elif start is not None and message["type"] == "http.response.body":
            parts.append(message.get("body", b""))
            if not message.get("more_body"):
                return
            if sum(map(len, parts)) > limit:
                # too large to keep: sent as it comes from here on
                keep = False
                await send(start)
                await send(
                    {"type": "http.response.body", "body": b"".join(parts), "more_body": True}
                )
                start = None
                parts.clear()
            return
        await send(message)

    made_at = public.clock()
    if not await _in_a_place(public, app, scope, receive, holding):
        return None
    if start is None or not keep:
        return None
    body = b"".join(parts)
    kept_headers = tuple(
        (n, v) for n, v in start.get("headers", ()) if n not in (b"content-length", b"etag")
    )
    kept = Kept(
        stamp=stamp,
        made_at=made_at,
        timed=timed,
        status=200,
        headers=kept_headers,
        body=body,
        etag=b'"' + hashlib.sha256(body).hexdigest()[:32].encode() + b'"',
    )
    await _send_kept(kept, scope, send)
    return kept


def _matches(asked: bytes, etag: bytes) -> bool:
    """If-None-Match holds this ETag (RFC 9110 13.1.2: weak comparison, or `*`)."""
    for each in asked.split(b","):
        candidate = each.strip()
        if candidate == b"*" or candidate.removeprefix(b"W/") == etag:
            return True
    return False


async def _send_kept(kept: Kept, scope: Scope, send: Send) -> None:
    asked = next((v for n, v in scope["headers"] if n == b"if-none-match"), None)
    headers = [*kept.headers, (b"etag", kept.etag)]
    if not any(n == b"cache-control" for n, _ in kept.headers):
        # The proxy may keep it, and must ask again (with the ETag) before it serves it.
        headers.append((b"cache-control", b"no-cache"))
    if asked is not None and _matches(asked, kept.etag):
        without = [(n, v) for n, v in headers if n != b"content-type"]
        await send({"type": "http.response.start", "status": 304, "headers": without})
        await send({"type": "http.response.body", "body": b""})
        return
    headers.append((b"content-length", str(len(kept.body)).encode()))
    await send({"type": "http.response.start", "status": kept.status, "headers": headers})
    await send({"type": "http.response.body", "body": kept.body})
