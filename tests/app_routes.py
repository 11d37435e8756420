"""The application's routes, read from the app itself, so that a route added later is held to
what the tests walking them check (tests/integration/test_table_token_scope.py, tests/unit/
test_lanes.py, tests/e2e/test_every_page_in_every_language.py).

FastAPI (0.165) keeps an included router as a router of its own in `app.routes` (its
`original_router`), not its routes: a walk over `app.routes` alone finds none of them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fastapi.routing import APIRoute


def api_routes(routes: Any) -> Iterator[APIRoute]:
    """Every APIRoute under `routes`, included routers' too."""
    for route in routes:
        if isinstance(route, APIRoute):
            yield route
        yield from api_routes(getattr(route, "routes", ()))
        if (included := getattr(route, "original_router", None)) is not None:
            yield from api_routes(included.routes)


def calls(dependant: Any) -> Iterator[Any]:
    """Every function a route depends on, however deep."""
    yield dependant.call
    for each in dependant.dependencies:
        yield from calls(each)
