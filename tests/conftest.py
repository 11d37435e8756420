"""The whole suite runs in parallel by default (issue 15): the README's bare `pytest` takes
one pytest-xdist worker per core (`workers`), as if it were given `-n auto --dist loadfile`.

Not in `addopts`, where `-p no:xdist` would turn `-n` into an unknown option: a run that
says `-n` itself (`-n 0` for one process, to debug a test) or disables xdist keeps what it
said. `--dist loadfile` keeps each test file on one worker, so a module's browser, server
and fuzzing app are started once, as without xdist. Each worker has its own databases,
Redis channel and ports (tests/integration/conftest.py, live_setup.py).
"""

from __future__ import annotations

import os
from typing import Any

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):  # a worker: it runs the tests it is sent
        return
    if not config.pluginmanager.hasplugin("xdist"):
        return
    if config.option.numprocesses is None:
        config.option.numprocesses = workers()
        if config.option.dist == "no":
            config.option.dist = "loadfile"


def workers() -> int:
    """One worker per core this process may use. One more was tried (2026-12-04): 4 min 14 s
    twice against 4 min 56 s and 5 min 2 s, but from a fresh clone the live feed's test of
    slow and dead clients failed with it (the slow client's queue did not overflow as the
    test needs, the machine busier than it allows for); four on two cores was dropped the
    evening before (browser tests out of time)."""
    return len(os.sched_getaffinity(0))


def _route_contexts_built_once_per_process() -> None:
    """FastAPI (0.165) builds an included router's routes for each app that includes it, on
    the app's first requests: a pydantic TypeAdapter for every parameter of every route. On
    the day there is one app per process and it is paid once; here nearly every test makes
    an app of its own (`create_app` with the test's database), and paid it again: about two
    fifths of the in-process API tests' time (test_admin_api.py and test_judges_api.py on
    SQLite, 29.9 s -> 17.2 s). So the suite builds each route once per process and every
    app uses it.

    The same route gives the same context in every app: it is built from the route, its
    path and the include's options. The one thing of the app's it names is the provider of
    dependency overrides, and neither the app nor any test overrides a dependency (a test
    that did would need an app of its own here). The cache holds each route it keys by id,
    so that id is never another route's. Without that FastAPI internal, the suite
    runs as before, only slower."""
    import fastapi.routing

    context = getattr(fastapi.routing, "_EffectiveRouteContext", None)
    build = getattr(context, "from_api_route", None)
    if context is None or build is None:
        return
    # (id of the route, its path) -> (the route, its context); a route is not hashable
    built: dict[tuple[int, str], tuple[object, object]] = {}

    def from_api_route(cls: type, *, original_route: object, include_context: Any) -> object:
        key = (id(original_route), include_context.path_for(original_route))
        held = built.get(key)
        if held is None or held[0] is not original_route:
            held = (
                original_route,
                build(original_route=original_route, include_context=include_context),
            )
            built[key] = held
        return held[1]

    context.from_api_route = classmethod(from_api_route)


_route_contexts_built_once_per_process()
