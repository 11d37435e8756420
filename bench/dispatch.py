"""What one request costs the app in-process, from the ASGI call to its answer.

    python -m bench.dispatch                       # /api/health, the public list, an admin GET
    python -m bench.dispatch /api/tournaments      # one path
    python -m bench.dispatch --profile /api/health # and cProfile's busiest functions

No server and no socket: the app is called as uvicorn would call it, with its lifespan run
first, on a fresh SQLite file, REQUESTS times a path, and it prints the mean wall time a
request. It shows what the app's own layers cost (middleware, routing, dependencies, the
thread pool's hops), which a benchmark over the network hides among the rest: a plain `def`
dependency is a hop to FastAPI's thread pool and back, and /api/health went from 1,150 to
163 us a request when its handler and the store and settings lookups became `async def`.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import tempfile
import time
from collections.abc import Mapping, MutableMapping
from pathlib import Path
from typing import Any

from app.settings import Settings
from app.web import create_app

REQUESTS = 2000
ADMIN_TOKEN = "dispatch-bench-admin-token-0123456789abcdef"
# (path, with the admin token): tournament 1 does not exist, so the admin GET is answered 404
# by its handler, after every dependency has run
PATHS = [("/api/health", False), ("/api/tournaments", False), ("/api/tournaments/1/tokens", True)]


def scope_of(path: str, admin: bool, state: Mapping[str, Any]) -> dict[str, Any]:
    headers = [(b"host", b"127.0.0.1")]
    if admin:
        headers.append((b"authorization", f"Bearer {ADMIN_TOKEN}".encode()))
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
        "state": dict(state),  # uvicorn gives each request a copy of the lifespan's state
    }


async def measure(paths: list[tuple[str, bool]], requests: int, profile: bool) -> None:
    folder = Path(tempfile.mkdtemp(prefix="dispatch-"))
    database = f"sqlite:///{folder / 'scoreboard.db'}"
    settings = Settings(database_url=database, admin_token=ADMIN_TOKEN)  # type: ignore[arg-type]
    app = create_app(settings)

    async def call(path: str, admin: bool, state: Mapping[str, Any]) -> int:
        sent: list[MutableMapping[str, Any]] = []

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: MutableMapping[str, Any]) -> None:
            sent.append(message)

        await app(scope_of(path, admin, state), receive, send)
        status: int = sent[0]["status"]
        return status

    async with app.router.lifespan_context(app) as state:
        for path, admin in paths:
            status = await call(path, admin, state or {})  # the first request builds caches
            start = time.perf_counter()
            for _ in range(requests):
                await call(path, admin, state or {})
            each = (time.perf_counter() - start) / requests
            print(f"{path:32} {'admin' if admin else 'public':6} {status}  {each * 1e6:7.0f} us")
            if profile:
                profiler = cProfile.Profile()
                profiler.enable()
                for _ in range(requests):
                    await call(path, admin, state or {})
                profiler.disable()
                pstats.Stats(profiler).sort_stats("tottime").print_stats(20)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("path", nargs="?", help="one path (default: three of them)")
    parser.add_argument("--admin", action="store_true", help="send the admin token")
    parser.add_argument("--requests", type=int, default=REQUESTS)
    parser.add_argument("--profile", action="store_true")
    options = parser.parse_args()
    paths = [(options.path, options.admin)] if options.path else PATHS
    print(f"{options.requests} requests each, in-process (mean wall time a request)")
    asyncio.run(measure(paths, options.requests, options.profile))


if __name__ == "__main__":
    main()
