"""uvicorn's websocket protocol, plus a way for the live feed to put a frame on the socket
at once (issue 5).

A hand reaches thousands of hall screens and phones. Through ASGI, each of them costs an
`await websocket.send()` in a writer task of its own, then Starlette's send wrappers, then
uvicorn serializing the same frame again for every client: most of the server's time per
delivered message. Frames from a server are not masked, so one message is the same bytes on
every socket; the feed serializes it once (app/realtime/hub.py, `wire`) and hands those bytes
to `FrameWriter.write`, which writes them to an idle client's transport in one call.

The writer is offered to the app as an ASGI scope extension (`DIRECT_WRITE`), so the app
still runs under any ASGI server: without the extension every frame goes the ordinary way.
The writer refuses (returns False) whenever the ordinary way must be taken instead: before
the handshake, after a close, with per-message compression (a frame then depends on the
connection's compressor), and while the transport's buffer is over its high-water mark (a
client that is not reading: the frame waits in the feed's bounded queue, and the hub's sweep
ends the client if it stays stuck). Through the same extension the hub cuts the connection
of a client that never reads up to its close frame (`FrameWriter.abort`).
"""

from __future__ import annotations

from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.http11 import Request
from websockets.protocol import State

DIRECT_WRITE = "scoreboard.websocket.direct_write"


class FrameWriter:
    """Writes frames serialized once for every client to one client's socket, when that is safe."""

    __slots__ = ("protocol",)

    def __init__(self, protocol: LiveFeedProtocol) -> None:
        self.protocol = protocol

    def write(self, frame: bytes) -> bool:
        """Write `frame` now, or say False and write nothing."""
        protocol = self.protocol
        if (
            protocol.close_sent
            or protocol.disconnected
            or not protocol.handshake_complete
            or not protocol.writable.is_set()  # over the high-water mark: not reading
            or protocol.conn.state is not State.OPEN
            or protocol.conn.extensions  # compression: each frame is the connection's own
            or protocol.transport.is_closing()
        ):
            return False
        protocol.transport.write(frame)
        return True

    def abort(self) -> None:
        """Cut the connection now, whatever is still buffered for it."""
        self.protocol.transport.abort()


# What FrameWriter reads of uvicorn's protocol: if a uvicorn release renames any of them,
# the extension is not offered and every frame takes the ordinary way (slower, still right)
USED = ("close_sent", "disconnected", "handshake_complete", "writable", "conn", "transport")


class LiveFeedProtocol(WebSocketsSansIOProtocol):
    """`scoreboard serve` runs uvicorn with this as its websocket protocol."""

    def handle_connect(self, event: Request) -> None:
        super().handle_connect(event)
        # The ASGI task has been created but has not run: it sees the extension.
        scope: Any = getattr(self, "scope", None)
        if scope is not None and all(hasattr(self, name) for name in USED):
            scope["extensions"][DIRECT_WRITE] = {"writer": FrameWriter(self)}
