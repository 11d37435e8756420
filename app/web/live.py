"""The live feed, `WS /ws/tournaments/{tid}` (CONTRACT §3), for every audience.

On connect the client names its channels (`?channels=standings,clocks,table:12,player:P0042`)
and, to resume, the last version it holds (`?since=41`). It gets a `hello`, then for each
channel either what it missed or a snapshot, then changes as they commit, each with
`channel`, `since` (the version it applies on top of) and `version`. Frames are UTF-8 JSON in
binary frames, encoded once for all clients (`?format=text` sends text frames instead).
A `heartbeat` comes every 5 seconds. The client may send
`{"type": "subscribe", "channels": {"table:3": null}}`, `{"type": "unsubscribe", "channels":
["table:3"]}` or `{"type": "resync", "channels": ["standings"]}`.

What one client may ask (issue 14; docs/contract.md §4, "The live feed's limits"): at most
SCOREBOARD_WS_CHANNELS_PER_CONNECTION channels followed in all, messages of at most
SCOREBOARD_WS_MESSAGE_BYTES, at most SCOREBOARD_WS_MESSAGES_PER_SECOND messages a second (a
token bucket of SCOREBOARD_WS_MESSAGE_BURST), and SCOREBOARD_WS_CONNECTIONS_PER_ADDRESS
connections at once from one address. A channel has one name (`table:1`, never `table:01`:
app/realtime/channels.py, valid_channel); any other is refused. A request the feed refuses
but can read (channels over the limit, a name that is no channel's, a message that is not
JSON it can read) is answered with an `error` frame and the connection stays; a client over
a limit on what it sends is closed (CLOSE_CODES). A close reason never repeats what the
client sent, and always fits a close frame (123 bytes).
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from app import metrics
from app.domain.log import format_time
from app.realtime.channels import MAX_CHANNEL_NAME, valid_channel
from app.realtime.hub import GONE, HEARTBEAT_INTERVAL, Connection, Hub, encode
from app.services.errors import NotFound
from app.settings import Settings
from app.web.guards import client_address
from app.web.live_protocol import DIRECT_WRITE

DEFAULT_CHANNELS = "standings,clocks"
LIVE_PATH = re.compile(r"/ws/tournaments/([^/]+)")
BAD_REQUEST = 1008  # close code: a parameter of the URL is not valid (named in the reason)
TOO_BIG = 1009  # close code: a message over SCOREBOARD_WS_MESSAGE_BYTES (RFC 6455)
TOO_MANY = 4429  # close code: too many messages a second, or connections from one address
CLOSE_CODES = {
    BAD_REQUEST: "a parameter of the URL is not valid",
    TOO_BIG: "a message was too big",
    TOO_MANY: "too many messages a second, or too many connections from one address",
    GONE: "the tournament does not exist",
}
MAX_CLOSE_REASON = 123  # bytes: what a close frame holds after its code (RFC 6455 5.5)
# What a channel's name is, each written one way only (channels.valid_channel)
CHANNEL_NAMES = (
    "a channel's name (standings, clocks, table:N without a leading 0, player:ID, "
    f"at most {MAX_CHANNEL_NAME} characters)"
)


def reason(text: str) -> str:
    """A close reason that fits its frame: the server's own words, cut to 123 bytes of
    UTF-8 (never mid-character) should one ever run longer."""
    return text.encode()[:MAX_CLOSE_REASON].decode(errors="ignore")


def _channels(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    return list(dict.fromkeys(names))


def feed_first(app: ASGIApp) -> ASGIApp:
    """The live feed's websockets go straight to `live`, past the HTTP middleware and the
    router; everything else goes to `app`. Thousands of phones and hall screens each hold
    one for hours, and every layer in between kept a suspended coroutine, closures and an
    exit stack per connection: memory, and objects each full garbage collection walks while
    no update goes out (bench/fanout.py)."""

    async def dispatch(scope: Scope, receive: Receive, send: Send) -> None:
        match = LIVE_PATH.fullmatch(scope["path"]) if scope["type"] == "websocket" else None
        if match is None:
            await app(scope, receive, send)
        else:
            await live(WebSocket(scope, receive, send), match[1])

    return dispatch


def _number(text: str) -> int | None:
    """A tournament id or a version from the URL: ASCII digits, and small enough for the
    database's integers; None otherwise."""
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 18 else None


def _peer(websocket: WebSocket) -> str:
    """The client as host:port, as uvicorn gives it to the app (behind a proxy it trusts, the
    address that proxy forwarded): the log line names the screen that stopped reading."""
    client = websocket.client
    return "" if client is None else f"{client.host}:{client.port}"


async def live(websocket: WebSocket, tournament: str) -> None:
    """`WS /ws/tournaments/{tid}?channels=...&since=...&format=...` (module docstring)."""
    hub: Hub = websocket.state.hub
    settings: Settings = websocket.state.settings
    address = client_address(websocket.scope)
    await websocket.accept()
    # Counted from the accept to the end of the handler, whatever happens in between.
    hub.addresses[address] = hub.addresses.get(address, 0) + 1
    try:
        await _serve(websocket, tournament, hub, settings, address)
    finally:
        left = hub.addresses.pop(address, 1) - 1
        if left > 0:
            hub.addresses[address] = left


async def _serve(
    websocket: WebSocket, tournament: str, hub: Hub, settings: Settings, address: str
) -> None:
    query = websocket.query_params
    limit = settings.ws_channels_per_connection
    if hub.addresses[address] > settings.ws_connections_per_address:
        await _close(
            websocket,
            TOO_MANY,
            f"too many connections from this address: at most "
            f"{settings.ws_connections_per_address} (SCOREBOARD_WS_CONNECTIONS_PER_ADDRESS)",
        )
        return
    wanted = _channels(query.get("channels", DEFAULT_CHANNELS))
    text = query.get("format") == "text"
    tournament_id = _number(tournament)
    if tournament_id is None:
        await _close(websocket, BAD_REQUEST, "tournament: the tournament id is a number")
        return
    since_text = query.get("since")
    since = None if since_text is None else _number(since_text)
    if since_text is not None and since is None:
        await _close(websocket, BAD_REQUEST, "since: the version to resume from is a number")
        return
    if len(wanted) > limit:
        await _close(websocket, BAD_REQUEST, f"channels: at most {limit} a connection")
        return
    if not all(valid_channel(name) for name in wanted):
        # Never the name itself: the client wrote it, and it may not even fit the frame.
        await _close(websocket, BAD_REQUEST, f"channels: one is not {CHANNEL_NAMES}")
        return
    feed = hub.feeds.get(tournament_id)
    if feed is not None and feed.subscribers and feed.version >= 0:
        # The version the feed's clients hold, as a heartbeat would say it: no thread and
        # no query per connection when the hall's phones all come back at once (issue 16).
        version = feed.heartbeat_version()
    else:
        try:
            version = await asyncio.to_thread(hub.store.version, tournament_id)
        except NotFound:
            await _close(websocket, GONE, f"tournament {tournament_id} does not exist")
            return
        feed = hub.feed(tournament_id)

    if text:

        async def send(frame: bytes) -> None:
            await websocket.send_text(frame.decode())

    else:

        async def send(frame: bytes) -> None:
            await websocket.send_bytes(frame)

    async def close(code: int, why: str) -> None:
        await _close(websocket, code, why)

    # uvicorn with app/web/live_protocol.py (`scoreboard serve`) lets the feed write frames
    # itself; under any other server every frame goes through `send`.
    frames = websocket.scope.get("extensions", {}).get(DIRECT_WRITE, {}).get("writer")
    connection = Connection(
        send,
        close,
        write_now=None if frames is None else frames.write,
        text=text,
        abort=None if frames is None else frames.abort,
        peer=_peer(websocket),
    )
    connection.offer(
        None,
        encode(
            {
                "type": "hello",
                "tournament": tournament_id,
                "version": version,
                "channels": wanted,
                "heartbeat_seconds": HEARTBEAT_INTERVAL,
                # a resuming client may get only old changes next: this sets its clock (CL-6)
                "server_time": format_time(hub.clock()),
            }
        ),
    )
    _absent(connection, await feed.subscribe(connection, dict.fromkeys(wanted, since)))
    writer = asyncio.create_task(feed.write(connection))
    connection.writer = writer
    bucket = TokenBucket(settings.ws_messages_per_second, settings.ws_message_burst)
    try:
        while True:
            # One message a turn of the event loop. The messages a client sent at once are
            # all queued already, and receiving a queued one does not wait: without this, a
            # burst of a client's allowance (SCOREBOARD_WS_MESSAGE_BURST subscribes of 64
            # made-up channels each) held the loop for 76 ms in one go, and a judge's hand
            # that came meanwhile waited all of it (bench/hostile.py, "subscribe flood").
            await asyncio.sleep(0)
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                raise WebSocketDisconnect(message.get("code", 1000))
            if not bucket.take():
                await close(
                    TOO_MANY,
                    f"too many messages: at most {settings.ws_messages_per_second:g} a second "
                    "(SCOREBOARD_WS_MESSAGES_PER_SECOND)",
                )
                return
            request = _request(message, settings.ws_message_bytes)
            if isinstance(request, int):
                await close(
                    TOO_BIG,
                    f"message too big: at most {request} bytes (SCOREBOARD_WS_MESSAGE_BYTES)",
                )
                return
            if isinstance(request, str):
                connection.offer(None, _error("message", request))
                continue
            kind = request.get("type")
            names = request.get("channels") or {}
            if kind == "subscribe" and isinstance(names, dict):
                chosen = {
                    str(name): _version(held) for name, held in names.items() if valid_channel(name)
                }
                if len(chosen) < len(names):
                    # A client that wrote `table:01` (a channel apart from `table:1` before
                    # issue 32) hears that nothing comes under that name, rather than wait.
                    connection.offer(
                        None,
                        _error(
                            "channels",
                            f"not followed: not {CHANNEL_NAMES}",
                            refused=[name for name in names if name not in chosen],
                        ),
                    )
                room = limit - len(connection.channels)
                new = [name for name in chosen if name not in connection.channels]
                if len(new) > room:
                    # The channels that fit are followed; the client hears which did not.
                    for name in new[max(room, 0) :]:
                        del chosen[name]
                    connection.offer(
                        None,
                        _error(
                            "channels",
                            f"at most {limit} channels a connection "
                            "(SCOREBOARD_WS_CHANNELS_PER_CONNECTION): "
                            f"{len(new) - max(room, 0)} of this subscribe not followed",
                            refused=new[max(room, 0) :],
                        ),
                    )
                if chosen:
                    _absent(connection, await feed.subscribe(connection, chosen))
            elif kind == "unsubscribe" and isinstance(names, list):
                # Only what it follows: leaving a channel it never joined would count as its
                # last client leaving, and keep the channel for another linger.
                feed.unsubscribe(
                    connection,
                    [n for n in names if isinstance(n, str) and n in connection.channels],
                )
                feed.connections.add(connection)
            elif kind == "resync" and isinstance(names, list):
                connection.resync.update(
                    n for n in names if isinstance(n, str) and n in connection.channels
                )
                connection.offer(None, b"")
    except WebSocketDisconnect:
        pass
    finally:
        feed.unsubscribe(connection)
        writer.cancel()
        # Never wait long on a writer stuck in a send to a socket that is gone: a handler
        # left waiting would hold up the server's shutdown.
        await asyncio.wait({writer}, timeout=1.0)
        # The cancelled writer's traceback holds its frame, and the frame this connection:
        # without this the two would be a reference cycle, freed only by a garbage
        # collection (app/web/live_protocol.py, "Reference cycles").
        connection.writer = None


def _absent(connection: Connection, channels: list[str]) -> None:
    if channels:
        connection.offer(
            None,
            _error(
                "channels",
                "not followed: no such player or table in this tournament",
                refused=channels,
            ),
        )


async def _close(websocket: WebSocket, code: int, why: str) -> None:
    metrics.CLOSES.labels(code=str(code)).inc()
    await websocket.close(code, reason(why))


class TokenBucket:
    """Messages a client may send: `burst` at once, refilled at `rate` a second."""

    __slots__ = ("rate", "burst", "tokens", "at")

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.at = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


def _version(held: object) -> int | None:
    """The version a client says it holds: a number the database's versions can be."""
    if isinstance(held, int) and not isinstance(held, bool) and 0 <= held < 2**63:
        return held
    return None


def _error(field: str, detail: str, **more: Any) -> bytes:
    """An `error` frame: the feed refused a request, and says which part and why."""
    return encode({"type": "error", "field": field, "detail": detail, **more})


def _request(message: Any, max_bytes: int) -> dict[str, Any] | str | int:
    """The client's request; a str saying why it cannot be read; or the byte limit it is
    over. A message nested thousands deep is refused here, never a RecursionError."""
    raw = message.get("bytes")
    if raw is None:
        raw = (message.get("text") or "").encode()
    if len(raw) > max_bytes:  # uvicorn refuses these already under `scoreboard serve`
        return max_bytes
    try:
        request = json.loads(raw)
    except RecursionError:
        return "the message is nested too deep to read"
    except ValueError:  # not JSON, not UTF-8, or a number of thousands of digits
        return "the message is not JSON the feed can read"
    if not isinstance(request, dict):
        return "the message is a JSON object with a type"
    return request
