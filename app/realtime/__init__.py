"""Websocket hub, channels, versioned snapshots and the backplane (in-process or Redis)."""
