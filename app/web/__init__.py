"""The HTTP and websocket application, built by `create_app` (run it with uvicorn's --factory)."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TypedDict

from fastapi import FastAPI

from app import __version__
from app.settings import Settings, get_settings
from app.web import routes


class AppState(TypedDict):
    """What the lifespan hands to every request as `request.state`."""

    settings: Settings
    # The database engine, the realtime hub and its backplane join here in later issues.


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the application; nothing is opened or connected until its lifespan starts."""
    app_settings = settings if settings is not None else get_settings()

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[AppState]:
        yield AppState(settings=app_settings)

    app = FastAPI(title="WSOM Scoreboard", version=__version__, lifespan=lifespan)
    app.include_router(routes.router)
    return app
