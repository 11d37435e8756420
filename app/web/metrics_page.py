"""`GET /metrics`: this process's figures for Prometheus (issue 16; app/metrics.py).

Behind a token of its own, SCOREBOARD_METRICS_TOKEN, never the admin's: the scraper holds it
in its configuration, and it reads figures, nothing else. Unset, the page is off (404). A
wrong token counts as a failed sign-in like any other (guards.py). Prometheus scrapes each
process on its own address, not through the proxy, which would pick one at random.
"""

from __future__ import annotations

import secrets
from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Request, Response
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest

from app.web.deps import Credentials, SettingsDep, unauthorized

router = APIRouter(tags=["health"])


def require_metrics_reader(
    request: Request, settings: SettingsDep, credentials: Credentials
) -> None:
    token = settings.metrics_token
    if token is None:
        raise HTTPException(404, "metrics are off here: set SCOREBOARD_METRICS_TOKEN to serve them")
    if credentials is None or not secrets.compare_digest(
        credentials.credentials.encode(), token.get_secret_value().encode()
    ):
        raise unauthorized(request, credentials, "this is not the metrics token")


MetricsReader = Annotated[None, Depends(require_metrics_reader)]


@router.get("/metrics", include_in_schema=False)
async def metrics(request: Request, _: MetricsReader) -> Response:
    """The process's counters and histograms, then what the live feed holds now: read here,
    on the event loop, which alone changes it (the check above runs in the thread pool: the
    failed sign-in it may count can wait on Redis)."""
    own: CollectorRegistry = request.state.metrics
    body = generate_latest(REGISTRY) + generate_latest(own)
    return Response(body, media_type=CONTENT_TYPE_LATEST)
