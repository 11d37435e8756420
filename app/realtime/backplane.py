"""The backplane between server processes: Redis pub/sub, when SCOREBOARD_REDIS_URL is set.

Only a notification travels ("tournament T is at version V"): every process reads the state
itself from the database, the source of truth, so a message lost by Redis (pub/sub is at most
once) costs a moment, never a wrong screen. The hub's version poll notices a gap; after a
reconnect every feed resynchronizes from the database at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging

import redis
import redis.asyncio as aioredis

from app.realtime.hub import Hub
from app.services.store import Appended

log = logging.getLogger(__name__)

CHANNEL = "scoreboard:changes"
RECONNECT_DELAY = 0.5  # seconds; doubles up to RECONNECT_MAX while Redis is away
RECONNECT_MAX = 5.0


class RedisBackplane:
    def __init__(self, url: str, hub: Hub) -> None:
        self.url = url
        self.hub = hub
        # The store publishes from its writing thread, after the commit: a plain client there.
        self.publisher = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
        self.task: asyncio.Task[None] | None = None

    def publish(self, appended: Appended) -> None:
        message = json.dumps({"tournament": appended.tournament_id, "version": appended.version})
        try:
            self.publisher.publish(CHANNEL, message)
        except redis.RedisError:
            # The change is committed; other processes catch up by polling the version.
            log.warning("redis publish failed; other processes will catch up by polling")

    async def start(self) -> None:
        self.task = asyncio.create_task(self._listen())

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
        self.publisher.close()

    async def _listen(self) -> None:
        delay = RECONNECT_DELAY
        while True:
            client = aioredis.Redis.from_url(self.url)
            try:
                pubsub = client.pubsub()
                await pubsub.subscribe(CHANNEL)
                delay = RECONNECT_DELAY
                # Whatever was published while we were away is lost: catch up from the database.
                self._resync_all()
                async for message in pubsub.listen():
                    if message.get("type") != "message":
                        continue
                    try:
                        data = json.loads(message["data"])
                        self.hub.notify(int(data["tournament"]), int(data["version"]))
                    except (ValueError, KeyError, TypeError):
                        log.warning("ignoring a malformed backplane message")
            except (redis.RedisError, OSError):
                log.warning("redis backplane lost; reconnecting in %.1f s", delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, RECONNECT_MAX)
            finally:
                with contextlib.suppress(Exception):
                    await client.aclose()

    def _resync_all(self) -> None:
        for feed in self.hub.feeds.values():
            feed.dirty.set()
