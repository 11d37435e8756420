"""The HTTP and websocket application, built by `create_app` (run it with uvicorn's --factory)."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TypedDict

from fastapi import FastAPI

from app import __version__
from app.db.engine import make_engine, migrate
from app.services.store import TournamentStore
from app.settings import Settings, get_settings
from app.web import errors, routes


class AppState(TypedDict):
    """What the lifespan hands to every request as `request.state`."""

    settings: Settings
    store: TournamentStore
    # The realtime hub and its backplane join here with the live feed.


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the application; nothing is opened or connected until its lifespan starts."""
    app_settings = settings if settings is not None else get_settings()

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[AppState]:
        # The server brings the schema to the newest revision before it serves (README).
        migrate(app_settings.database_url)
        engine = make_engine(app_settings.database_url)
        try:
            yield AppState(settings=app_settings, store=TournamentStore(engine))
        finally:
            engine.dispose()

    app = FastAPI(title="WSOM Scoreboard", version=__version__, lifespan=lifespan)
    app.include_router(routes.router)
    errors.install(app)
    return app
