"""The HTTP and websocket application, built by `create_app` (run it with uvicorn's --factory)."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TypedDict

from fastapi import FastAPI
from starlette.types import ASGIApp

from app import __version__
from app.db.engine import make_engine, migrate
from app.realtime.backplane import RedisBackplane
from app.realtime.hub import Hub
from app.services.store import TournamentStore
from app.settings import Settings, get_settings
from app.web import errors, live, pages, routes


class AppState(TypedDict):
    """What the lifespan hands to every request as `request.state`."""

    settings: Settings
    store: TournamentStore
    hub: Hub


class ScoreboardApp(FastAPI):
    def build_middleware_stack(self) -> ASGIApp:
        # The live feed's websockets skip the middleware and the routers (live.feed_first).
        return live.feed_first(super().build_middleware_stack())


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the application; nothing is opened or connected until its lifespan starts."""
    app_settings = settings if settings is not None else get_settings()

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[AppState]:
        # The server brings the schema to the newest revision before it serves (README).
        migrate(app_settings.database_url)
        engine = make_engine(app_settings.database_url)
        store = TournamentStore(engine)
        hub = Hub(store)
        await hub.start()
        store.subscribers.append(hub.committed)
        backplane = None
        if app_settings.redis_url:
            # Several processes serve one feed: each change is announced to all of them.
            backplane = RedisBackplane(app_settings.redis_url, hub)
            store.subscribers.append(backplane.publish)
            await backplane.start()
        try:
            yield AppState(settings=app_settings, store=store, hub=hub)
        finally:
            if backplane is not None:
                await backplane.stop()
            await hub.stop()
            engine.dispose()

    app = ScoreboardApp(title="WSOM Scoreboard", version=__version__, lifespan=lifespan)
    app.include_router(routes.router)
    pages.mount_static(app)
    errors.install(app)
    return app
