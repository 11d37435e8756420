"""The backplane between server processes: Redis pub/sub, when SCOREBOARD_REDIS_URL is set.

Only a notification travels ("tournament T is at version V"): every process reads the state
itself from the database, the source of truth, so a message lost by Redis (pub/sub is at most
once) costs a moment, never a wrong screen. The hub's version poll notices a gap; after a
reconnect every feed resynchronizes from the database at once.

No judge waits on Redis (issue 14): the store calls `publish` after the commit, in the
request's thread, and `publish` only leaves the announcement for the backplane's own
publishing thread. A Redis that accepts connections and never answers holds up that thread
alone; the announcements waiting meanwhile are kept one per tournament (only the newest
version matters), so they never pile up, and the other processes' version poll (the hub's
VERSION_POLL_INTERVAL) brings their feeds up to date as if Redis were away.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import logging
import threading

import redis
import redis.asyncio as aioredis

from app import metrics
from app.realtime.hub import Hub
from app.realtime.source import Commit

log = logging.getLogger(__name__)

CHANNEL = "scoreboard:changes"
RECONNECT_DELAY = 0.5  # seconds; doubles up to RECONNECT_MAX while Redis is away
RECONNECT_MAX = 5.0


# Seconds `stop` waits for the publishing thread to finish what it is sending; a Redis that
# never answers keeps it longer, and the process does not wait for it (a daemon thread).
STOP_GRACE = 1.0


class RedisBackplane:
    def __init__(
        self,
        url: str,
        hub: Hub,
        *,
        socket_timeout: float = 2.0,
        connect_timeout: float = 2.0,
        channel: str = CHANNEL,
    ) -> None:
        self.url = url
        self.hub = hub
        self.channel = channel
        # A plain client, used by the publishing thread alone.
        self.publisher = redis.Redis.from_url(
            url, socket_timeout=socket_timeout, socket_connect_timeout=connect_timeout
        )
        self.connect_timeout = connect_timeout
        self.socket_timeout = socket_timeout
        self.task: asyncio.Task[None] | None = None
        self._pinger: aioredis.Redis | None = None  # the readiness check's client (`ping`)
        # tournament -> the newest committed version not yet announced
        self._pending: dict[int, int] = {}
        self._wake = threading.Condition()
        self._stopping = False
        self._thread: threading.Thread | None = None

    def publish(self, commit: Commit) -> None:
        """The store's subscriber, in the writing thread after the commit: never waits."""
        with self._wake:
            held = self._pending.get(commit.tournament_id, -1)
            self._pending[commit.tournament_id] = max(held, commit.version)
            self._wake.notify()

    def _announce(self) -> None:
        """The publishing thread: each tournament's newest version, as soon as Redis takes it."""
        while True:
            with self._wake:
                while not self._pending and not self._stopping:
                    self._wake.wait()
                if self._stopping:
                    return
                pending, self._pending = self._pending, {}
            for tournament_id, version in pending.items():
                message = json.dumps({"tournament": tournament_id, "version": version})
                try:
                    with metrics.REDIS_SECONDS.labels(command="publish").time():
                        self.publisher.publish(self.channel, message)
                except redis.RedisError:
                    # The change is committed; other processes catch up by polling the version.
                    log.warning("redis publish failed; other processes will catch up by polling")

    async def start(self) -> None:
        self.hub.store.subscribe(self.publish)
        self._thread = threading.Thread(
            target=self._announce, name="redis-backplane-publisher", daemon=True
        )
        self._thread.start()
        self.task = asyncio.create_task(self._listen())

    async def ping(self) -> bool:
        """Whether Redis answers now (the readiness check, app/web/health.py)."""
        if self._pinger is None:
            self._pinger = aioredis.Redis.from_url(
                self.url,
                socket_timeout=self.socket_timeout,
                socket_connect_timeout=self.connect_timeout,
            )
        try:
            with metrics.REDIS_SECONDS.labels(command="ping").time():
                # redis-py types ping() as a bool or an awaitable of one: the asyncio
                # client's is always the awaitable
                answer = self._pinger.ping()
                return bool(await answer) if inspect.isawaitable(answer) else bool(answer)
        except (redis.RedisError, OSError):
            return False

    async def stop(self) -> None:
        if self._pinger is not None:
            with contextlib.suppress(Exception):
                await self._pinger.aclose()
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
        with self._wake:
            self._stopping = True
            self._wake.notify()
        if self._thread is not None:
            await asyncio.to_thread(self._thread.join, STOP_GRACE)
        if self._thread is None or not self._thread.is_alive():
            self.publisher.close()  # else it is still in use: the process exit closes it

    async def _listen(self) -> None:
        delay = RECONNECT_DELAY
        while True:
            # No socket timeout: a subscriber waits for messages as long as there are none.
            client = aioredis.Redis.from_url(self.url, socket_connect_timeout=self.connect_timeout)
            try:
                pubsub = client.pubsub()
                await pubsub.subscribe(self.channel)
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
