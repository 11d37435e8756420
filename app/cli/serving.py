"""`scoreboard serve`: the one command that loads the web app (uvicorn imports it)."""

import contextlib
import ctypes
import gc
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import typer
import uvicorn
from fastapi import FastAPI
from pydantic import ValidationError

from app.db.engine import migrate
from app.realtime.turns import JudgesFirst
from app.settings import DEVELOPMENT_ADMIN_TOKEN, Settings, get_settings

# The whole web app is loaded with this module, in each worker process too (uvicorn imports
# serving_app from here), before serving_app's _settle_garbage_collector freezes it.
from app.web import create_app
from app.web.addresses import reach_lines
from app.web.live_protocol import HttpProtocol, LiveFeedProtocol
from app.web.logs import configure_logging


def serve(
    host: str | None,
    port: int | None,
    ssl_certfile: Path | None,
    ssl_keyfile: Path | None,
    workers: int = 1,
    role: str | None = None,
) -> None:
    if role is not None:
        # In the environment, so that every worker process reads the same (serving_app).
        os.environ["SCOREBOARD_ROLE"] = role
        get_settings.cache_clear()
    try:
        settings = get_settings()
    except ValidationError as error:
        typer.echo(f"scoreboard: invalid settings\n{error}", err=True)
        raise typer.Exit(code=2) from error
    if (ssl_certfile is None) != (ssl_keyfile is None):
        # One without the other would serve plain HTTP, or fail deep inside uvicorn.
        typer.echo("scoreboard: --ssl-certfile and --ssl-keyfile go together", err=True)
        raise typer.Exit(code=2)
    if workers > 1 and not settings.redis_url:
        # Each process has its own live feed: without the backplane a hand entered through
        # one would never reach the screens connected to the others.
        typer.echo(
            f"scoreboard: --workers {workers} needs SCOREBOARD_REDIS_URL: each process's live "
            'feed hears of the others\' hands through Redis (README, "Production")',
            err=True,
        )
        raise typer.Exit(code=2)
    if settings.role != "all" and not settings.redis_url:
        # A lane's process serves what the other lane's processes write: it hears of their
        # commits through Redis, as the feed of several processes does.
        typer.echo(
            f"scoreboard: --role {settings.role} needs SCOREBOARD_REDIS_URL: the judges' and "
            "the public's processes hear of each other's commits through Redis "
            "(docs/security.md)",
            err=True,
        )
        raise typer.Exit(code=2)
    as_json = settings.log_format == "json"
    if as_json:
        # this process's lines (a supervisor's, with workers), its secrets masked
        configure_logging(as_json=True, settings=settings)

    def say(line: str) -> None:
        # a log collector reads JSON lines only; a person, these as they are
        if as_json:
            logging.getLogger("scoreboard.serve").info(line)
        else:
            typer.echo(f"scoreboard: {line}", err=True)

    low = raise_open_files_limit(settings)  # before anything opens a socket
    if low is not None:
        say(low)
    if settings.role == "public":
        # The operating system runs the judges' processes first when the machine is short of
        # CPU (issue 32): a reader process is one a hostile spectator can keep busy.
        niceness = os.nice(settings.public_nice)
        say(f"the public lane's process runs at nice {niceness} (SCOREBOARD_PUBLIC_NICE)")
    elif settings.role == "judges":
        say("the judges' lane's process: the proxy sends it every write (deploy/Caddyfile)")
    bound_host = host if host is not None else settings.host
    bound_port = port if port is not None else settings.port
    # Where the tablets and phones can open it: the address the QR codes should carry.
    scheme = "http" if ssl_certfile is None else "https"
    for line in reach_lines(bound_host, bound_port, scheme, settings):
        say(line)
    if settings.admin_token.get_secret_value() == DEVELOPMENT_ADMIN_TOKEN:
        # The known development default only: a token of one's own is never printed.
        say(
            f"the admin console (/admin) takes the development token "
            f"{DEVELOPMENT_ADMIN_TOKEN!r}; set SCOREBOARD_ADMIN_TOKEN for the real day"
        )
    if workers > 1:
        # Each worker brings the schema to the head as it starts; on a database never
        # migrated, several at once raced to create the same tables, one failed, and uvicorn
        # stopped them all. Once here first, they find it at the head.
        migrate(settings.database_url)
    uvicorn.run(
        # each worker process calls it: it settles that process's collector, then builds
        "app.cli.serving:serving_app",
        factory=True,
        # Several processes share the one listening socket, each with its own event loop and
        # live feed (the backplane joins them); uvicorn starts again any that dies.
        workers=workers if workers > 1 else None,
        host=bound_host,
        port=bound_port,
        # Off unless asked for: per-message deflate keeps a compressor per connection, and
        # thousands of phones and screens would pay for it in memory and CPU (issue 5).
        ws_per_message_deflate=settings.ws_compression,
        # A client that answers no ping in time is gone (a phone off the hall's Wi-Fi).
        ws_ping_interval=settings.ws_ping_interval,
        ws_ping_timeout=settings.ws_ping_timeout,
        # A client's message over this is refused by the protocol itself (close 1009) before
        # it is buffered whole: uvicorn's default is 16 MiB (issue 14).
        ws_max_size=settings.ws_message_bytes,
        # The client's address behind a proxy: uvicorn takes X-Forwarded-For only from the
        # proxies in FORWARDED_ALLOW_IPS (127.0.0.1 unless set), as it does X-Forwarded-Proto
        # (app/web/guards.py; README, "What one client may ask").
        proxy_headers=True,
        ws=LiveFeedProtocol,  # lets the live feed write a frame once for every client
        http=HttpProtocol,  # uvicorn's own, freed at once after a websocket upgrade
        # HTTPS lets tablets on the hall's LAN use the service worker and crypto.randomUUID,
        # which browsers allow only in a secure context (docs/https.md).
        ssl_certfile=None if ssl_certfile is None else str(ssl_certfile),
        ssl_keyfile=None if ssl_keyfile is None else str(ssl_keyfile),
        # JSON: uvicorn's lines go through the app's (app/web/logs.py), and the request log
        # (one line per request, with its id, tournament, table and outcome) replaces the
        # access log's
        access_log=not as_json,
        log_config=None if as_json else uvicorn.config.LOGGING_CONFIG,
    )


def serving_app() -> FastAPI:
    """The app as `scoreboard serve` runs it, in each of its processes."""
    return_freed_memory()
    _switch_threads_often()
    if get_settings().log_format == "json":
        configure_logging(as_json=True, settings=get_settings())  # in each worker too
    app = create_app()
    build_every_route(app)
    _settle_garbage_collector()  # after the app is built: what it built is frozen too
    Collector(app.judges).start()  # type: ignore[attr-defined]
    return app


def build_every_route(app: FastAPI) -> int:
    """Build what FastAPI builds for each router on the first request it matches, now, before
    serving: each included router's routes, their parameters and answers' validators. Lazily,
    a router first reached mid-tournament held the event loop 183 ms (pydantic making its
    schemas), a judge's hand with it (bench/hostile.py on one process, issue 32: a public
    route first asked for twelve seconds into the attack). FastAPI 0.165 keeps them in each
    included router (`effective_candidates`, `effective_low_priority_routes`); an older or
    newer FastAPI without them builds nothing here and goes on building on first use. The
    number of routers built."""

    def build(routes: Sequence[Any]) -> int:
        built = 0
        for route in routes:
            candidates = getattr(route, "effective_candidates", None)
            low_priority = getattr(route, "effective_low_priority_routes", None)
            if callable(candidates) and callable(low_priority):
                low_priority()
                built += 1 + build(candidates())
        return built

    return build(app.router.routes)


# glibc's allocator, as `scoreboard serve` sets it (return_freed_memory). By default a
# block freed raises the size above which blocks are mapped apart (and given back to the
# system when freed) to its own size, up to 32 MiB: after a few large answers (a log
# download, a body read) every later one came from the heap, between small objects that
# live on, and was never given back. Each thread also took an arena of its own (up to 8 a
# core). Under every attack at once a process grew from 283 to 431-456 MiB and stayed
# there, where Python's own objects had grown by 10 MiB (bench/hostile.py on one process,
# issue 32); with a fixed threshold and two arenas, 393 MiB.
MAPPED_APART_FROM = 128 * 1024  # bytes: glibc's default threshold, kept fixed
MALLOC_ARENAS = 2
_M_MMAP_THRESHOLD, _M_ARENA_MAX = -3, -8  # mallopt's parameters, from glibc's malloc.h


def return_freed_memory() -> bool:
    """Set glibc's allocator so that large blocks freed go back to the system (see above).
    False where the C library is not glibc (macOS, Alpine's musl): it keeps its own ways."""
    try:
        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    arenas = mallopt(_M_ARENA_MAX, MALLOC_ARENAS)
    return bool(mallopt(_M_MMAP_THRESHOLD, MAPPED_APART_FROM)) and bool(arenas)


# How long a thread holds the interpreter while another waits for it (Python's default,
# 5 ms). The live feed works out a hall's channels in a thread (app/realtime/replica.py),
# about 100 ms an update; meanwhile each time a judge's request (or the event loop) let go
# of the interpreter for a moment of I/O, a database query, a socket, it waited up to the
# whole interval to have it back: some fifty such moments a hand made a hand's 20 ms
# several hundred (issue 32, bench/hostile.py on one process). A shorter turn costs the
# feed's thread a little more switching.
SWITCH_INTERVAL = 0.0005


def _switch_threads_often() -> None:
    sys.setswitchinterval(SWITCH_INTERVAL)


# Python's cyclic garbage collector stops the event loop while it runs. With its defaults, a
# full collection walks every object of the process (the 150,000 or so loaded at start, and
# over a hundred for each client of the live feed), and they kept coming while hands were
# entered. bench/fanout.py at 1,000 clients, one run of 60 hands: with the defaults, 4 full
# collections, the longest 309 ms without a single update (and the walk grows with the
# clients); with the settings below, none, and no collection over 73 ms.
YOUNG_GENERATION = 10_000  # objects, not 700: a hand's update is done before a collection
# A full collection after 370 of the middle generation's, not 10: under a hostile client's
# load (thousands of requests and frames a second) full collections came every few seconds
# and each walked the tournament's state and the live feed's copy of it, 200 ms without an
# answer (bench/hostile.py, issue 32); none came in its runs since. Cycles are rare here
# (reference counting frees nearly everything), so what waits for a full collection is small.
OLD_GENERATION = 370
# The middle generation collected after every third young one's, not every eleventh: each
# walks what survived the young collections since the last, and under a hostile client's
# load (its connections, its channels, their caches, all new) the first one walked eleven
# young collections' survivors at once, 146 to 183 ms without an answer; a third as many
# a time spreads the same walk. OLD_GENERATION is raised with it, so that a full collection
# comes as rarely as before: after 3 x 371 young collections, as 11 x 101 did.
MIDDLE_GENERATION = 2


def _settle_garbage_collector() -> None:
    """What is loaded before serving lives as long as the process: frozen, no collection
    walks it again. With a larger young generation, the temporary objects of a hand's update
    die young instead of being promoted, so full collections stop coming in steady play."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_GENERATION, MIDDLE_GENERATION, OLD_GENERATION)


# How often the collector looks whether a collection is due (Collector), and
# the longest a due collection waits for the judges' requests in flight to be answered.
COLLECTOR_LOOKS_EVERY = 0.005
COLLECTION_WAITS_AT_MOST = 1.0


class Collector:
    """Python's collections, at the moments no judge's request is in flight (issue 32).

    A collection holds the interpreter from start to end: under a hostile client's load the
    young and middle generations' took up to 22 and 44 ms of the processor (bench/hostile.py
    on one process, with the thresholds above), each landing wherever an allocation passed
    the threshold, in the middle of a judge's hand as often as not. So the collector does not
    start by itself (gc.disable): a thread of its own looks every COLLECTOR_LOOKS_EVERY
    seconds, and when a generation is due (its count past its threshold, as Python would
    have judged) collects it, once the judges' requests in flight are answered, or after
    COLLECTION_WAITS_AT_MOST seconds whatever they do."""

    def __init__(self, judges: JudgesFirst, clock: Callable[[], float] = time.monotonic) -> None:
        self.judges = judges
        self.clock = clock
        self.due_since: float | None = None
        self.postponed = 0  # looks that found a collection due and a judge in flight

    def look(self) -> int | None:
        """Collect the generation due, if one is and its moment has come: which one."""
        thresholds, counts = gc.get_threshold(), gc.get_count()
        if counts[0] <= thresholds[0]:
            return None
        now = self.clock()
        self.due_since = now if self.due_since is None else self.due_since
        if self.judges.in_flight and now - self.due_since < COLLECTION_WAITS_AT_MOST:
            self.postponed += 1
            return None
        generation = 2 if counts[2] > thresholds[2] else 1 if counts[1] > thresholds[1] else 0
        gc.collect(generation)
        self.due_since = None
        return generation

    def start(self) -> threading.Thread:
        gc.disable()

        def looking() -> None:
            while True:
                time.sleep(COLLECTOR_LOOKS_EVERY)
                self.look()

        thread = threading.Thread(target=looking, name="collector", daemon=True)
        thread.start()
        return thread


# Open files a hall's server wants at least: one per phone, screen and tablet connected (a
# hall of 1,024 players brings about 1,500), each request under way and each database
# connection, with room to spare; and room for everyone else beside the connections one
# address may hold (SCOREBOARD_WS_CONNECTIONS_PER_ADDRESS, raised for a hall behind NAT).
OPEN_FILES_WANTED = 4096
OPEN_FILES_BESIDE_ONE_ADDRESS = 1024
# What the limit comes to where the hard limit is "unlimited" (macOS refuses that as a soft
# limit)
OPEN_FILES_UNLIMITED = 65536


def raise_open_files_limit(settings: Settings) -> str | None:
    """Raise this process's open-files limit to its hard limit (worker processes inherit it),
    and say so when even that is low for a hall: None when it is not.

    Every connection is an open file. At the soft limit many systems start with, 1,024, the
    hall's phones alone could reach it, and so did a client that held 1,100 sockets with
    half a request each: every new request failed (issue 32). Only the administrator can
    raise the hard limit."""
    try:
        import resource
    except ImportError:  # not a POSIX system: no limit of this kind to raise
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    ceiling = OPEN_FILES_UNLIMITED if hard == resource.RLIM_INFINITY else hard
    if soft != resource.RLIM_INFINITY and soft < ceiling:
        with contextlib.suppress(ValueError, OSError):  # kept as it is: said below if low
            resource.setrlimit(resource.RLIMIT_NOFILE, (ceiling, hard))
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    per_address = settings.ws_connections_per_address
    wanted = max(OPEN_FILES_WANTED, per_address + OPEN_FILES_BESIDE_ONE_ADDRESS)
    if soft == resource.RLIM_INFINITY or soft >= wanted:
        return None
    return (
        f"open files: at most {soft:,} at once (the hard limit, which only the administrator "
        f"raises), one for each phone, screen and tablet connected and each request under way; "
        f"one address alone may hold {per_address:,} live feed connections "
        f"(SCOREBOARD_WS_CONNECTIONS_PER_ADDRESS) and a hall wants {wanted:,} or more. Raise "
        "the hard limit: ulimit -Hn, LimitNOFILE= (systemd), --ulimit nofile= (Docker)"
    )
