"""A served process builds every route before its first request (issue 32;
app/cli/serving.build_every_route): FastAPI builds a router's routes, their parameters and
validators on the first request that reaches it, and one first reached mid-tournament held
the event loop 183 ms, a judge's hand with it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import fastapi.routing
import pytest
from fastapi.testclient import TestClient

from app.cli.serving import build_every_route
from app.settings import Settings
from app.web import create_app

# Routes of several routers: public pages and reads, the judges', the admin's, health.
ASKED = (
    "/api/health",
    "/api/tournaments",
    "/api/tournaments/no-such/standings",
    "/hall",
    "/judge",
    "/admin",
    "/no/such/page",
)


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The routes FastAPI builds while the test runs, by path."""
    built: list[str] = []
    context = fastapi.routing._EffectiveRouteContext
    original = context.from_api_route

    def counted(*args: Any, **kwargs: Any) -> Any:
        made = original(*args, **kwargs)
        built.append(getattr(made.original_route, "path", "?"))
        return made

    monkeypatch.setattr(context, "from_api_route", counted)
    yield built


def _ask_each(settings: Settings, built_first: bool, builds: list[str]) -> list[str]:
    app = create_app(settings)
    if built_first:
        assert build_every_route(app) > 1  # the app's router and the routers it includes
    before = len(builds)
    with TestClient(app) as client:
        for path in ASKED:
            client.get(path)
    return builds[before:]


def test_a_process_built_before_serving_builds_no_route_on_a_request(
    settings: Settings, builds: list[str]
) -> None:
    assert _ask_each(settings, True, builds) == []


def test_without_it_the_first_requests_build_their_routers(
    settings: Settings, builds: list[str]
) -> None:
    """The cost the build before serving takes out of the first requests: what this test
    watches is what FastAPI does (if a FastAPI builds nothing lazily, this says so)."""
    assert len(_ask_each(settings, False, builds)) > 10
