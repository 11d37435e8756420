"""The live feed, `WS /ws/tournaments/{tid}` (CONTRACT §3), for every audience.

On connect the client names its channels (`?channels=standings,clocks,table:12,player:P0042`)
and, to resume, the last version it holds (`?since=41`). It gets a `hello`, then for each
channel either what it missed or a snapshot, then changes as they commit, each with
`channel`, `since` (the version it applies on top of) and `version`. Frames are UTF-8 JSON in
binary frames, encoded once for all clients (`?format=text` sends text frames instead).
A `heartbeat` comes every 5 seconds. The client may send
`{"type": "subscribe", "channels": {"table:3": null}}`, `{"type": "unsubscribe", "channels":
["table:3"]}` or `{"type": "resync", "channels": ["standings"]}`.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from app.domain.log import format_time
from app.realtime.channels import valid_channel
from app.realtime.hub import GONE, HEARTBEAT_INTERVAL, Connection, Hub, encode
from app.services.errors import NotFound
from app.web.live_protocol import DIRECT_WRITE

DEFAULT_CHANNELS = "standings,clocks"
MAX_CHANNELS = 64
LIVE_PATH = re.compile(r"/ws/tournaments/([^/]+)")
BAD_REQUEST = 1008  # close code: a parameter of the URL is not valid (named in the reason)


def _channels(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    return list(dict.fromkeys(names))[:MAX_CHANNELS]


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


async def live(websocket: WebSocket, tournament: str) -> None:
    """`WS /ws/tournaments/{tid}?channels=...&since=...&format=...` (module docstring)."""
    hub: Hub = websocket.state.hub
    query = websocket.query_params
    wanted = _channels(query.get("channels", DEFAULT_CHANNELS))
    text = query.get("format") == "text"
    await websocket.accept()
    tournament_id = _number(tournament)
    if tournament_id is None:
        await websocket.close(BAD_REQUEST, f"tournament: {tournament!r} is not a tournament id")
        return
    since_text = query.get("since")
    since = None if since_text is None else _number(since_text)
    if since_text is not None and since is None:
        await websocket.close(BAD_REQUEST, "since: the version to resume from is a number")
        return
    bad = [name for name in wanted if not valid_channel(name)]
    if bad:
        await websocket.close(BAD_REQUEST, f"unknown channel {bad[0]!r}")
        return
    try:
        version = await asyncio.to_thread(hub.store.version, tournament_id)
    except NotFound:
        await websocket.close(GONE, f"tournament {tournament_id} does not exist")
        return

    if text:

        async def send(frame: bytes) -> None:
            await websocket.send_text(frame.decode())

    else:

        async def send(frame: bytes) -> None:
            await websocket.send_bytes(frame)

    async def close(code: int, reason: str) -> None:
        await websocket.close(code, reason)

    # uvicorn with app/web/live_protocol.py (`scoreboard serve`) lets the feed write frames
    # itself; under any other server every frame goes through `send`.
    frames = websocket.scope.get("extensions", {}).get(DIRECT_WRITE, {}).get("writer")
    connection = Connection(
        send,
        close,
        write_now=None if frames is None else frames.write,
        text=text,
        abort=None if frames is None else frames.abort,
    )
    feed = hub.feed(tournament_id)
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
    await feed.subscribe(connection, dict.fromkeys(wanted, since))
    writer = asyncio.create_task(feed.write(connection))
    connection.writer = writer
    try:
        while True:
            request = await _receive(websocket)
            if request is None:
                continue
            kind = request.get("type")
            names = request.get("channels") or {}
            if kind == "subscribe" and isinstance(names, dict):
                chosen = {
                    str(name): held if isinstance(held, int) else None
                    for name, held in list(names.items())[:MAX_CHANNELS]
                    if valid_channel(str(name))
                }
                await feed.subscribe(connection, chosen)
            elif kind == "unsubscribe" and isinstance(names, list):
                feed.unsubscribe(connection, [str(name) for name in names])
                feed.connections.add(connection)
            elif kind == "resync" and isinstance(names, list):
                connection.resync.update(str(n) for n in names if str(n) in connection.channels)
                connection.offer(None, b"")
    except WebSocketDisconnect:
        pass
    finally:
        feed.unsubscribe(connection)
        writer.cancel()
        # Never wait long on a writer stuck in a send to a socket that is gone: a handler
        # left waiting would hold up the server's shutdown.
        await asyncio.wait({writer}, timeout=1.0)


async def _receive(websocket: WebSocket) -> dict[str, Any] | None:
    message = await websocket.receive()
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message.get("code", 1000))
    text = message.get("text") or (message.get("bytes") or b"").decode(errors="replace")
    try:
        request = json.loads(text)
    except json.JSONDecodeError:
        return None
    return request if isinstance(request, dict) else None
