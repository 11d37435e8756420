"""No token in any log line (issue 14).

The judge's card opens `/judge#token=...`, and a browser never sends the fragment. An older
card's `/judge?token=...` does reach the server, and uvicorn's access log writes the path
with its query: this filter replaces the value of every `...token=` query parameter with
`[redacted]` before a line is written. It sits on uvicorn's loggers, so it holds however the
app is served (`scoreboard serve`, or uvicorn with `--factory app.web:create_app`).
"""

from __future__ import annotations

import logging
import re
import secrets
from typing import Any

import structlog

# `token=`, `access_token=`, `admin-token=` ... as a query parameter, up to the next one.
_TOKEN_IN_QUERY = re.compile(r"(?i)([?&;][\w.~-]*token=)[^&;#\s\"']*")
REDACTED = "[redacted]"
# uvicorn.access: one line per request; uvicorn.error: websocket handshakes with their path.
LOGGERS = ("uvicorn.access", "uvicorn.error")


def redact(text: str) -> str:
    return _TOKEN_IN_QUERY.sub(lambda match: match.group(1) + REDACTED, text)


class RedactTokens(logging.Filter):
    """Takes the token out of the record's arguments and message, then lets it through."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(redact(arg) if isinstance(arg, str) else arg for arg in record.args)
        elif isinstance(record.args, dict):
            record.args = {
                key: redact(arg) if isinstance(arg, str) else arg
                for key, arg in record.args.items()
            }
        return True


# The lines uvicorn and websockets write for every websocket that opens. The live feed's
# connections are the hall's phones and screens: thousands come back at once after the Wi-Fi
# drops, and these two lines a connection were a tenth of the server's time in that storm
# (bench/fanout.py), while they said nothing the metrics do not (scoreboard_feed_connections).
OPENED = "connection open"
ACCEPTED = '%s - "WebSocket %s" [accepted]'
LIVE_FEED_PATH = "/ws/tournaments/"


class QuietLiveFeed(logging.Filter):
    """Drops the lines of a live feed connection opening; a refused one is still logged."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg == OPENED:
            return False
        if record.msg == ACCEPTED and isinstance(record.args, tuple) and len(record.args) > 1:
            return not str(record.args[1]).startswith(LIVE_FEED_PATH)
        return True


def redact_tokens_in_server_logs() -> None:
    """Install the filters once per logger (create_app may run more than once): the live
    feed's connection lines are dropped first, before anything reads them."""
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(each, QuietLiveFeed) for each in logger.filters):
            logger.filters.insert(0, QuietLiveFeed())
        if not any(isinstance(each, RedactTokens) for each in logger.filters):
            logger.addFilter(RedactTokens())


# -- one line per request (issue 16) ---------------------------------------------------------

REQUESTS = "scoreboard.requests"
REQUEST_ID = "x-request-id"
# A request id a client or the proxy sends is kept if it looks like one: up to 64 of these.
_GOOD_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")


def request_id_of(headers: list[tuple[bytes, bytes]]) -> str:
    """The request's id: the proxy's or the client's X-Request-Id if it is a plain one, else a
    new one. It goes back in the answer's X-Request-Id, so a judge's report can name it."""
    for name, value in headers:
        if name == REQUEST_ID.encode():
            text = value.decode("latin-1")
            if _GOOD_REQUEST_ID.fullmatch(text):
                return text
            break
    return secrets.token_hex(8)


def configure_logging(as_json: bool) -> None:
    """The server's own lines (the request log, the app's warnings) through structlog: one
    JSON object a line for a log collector (production), or key=value lines for a person at
    a terminal. Only `scoreboard serve` calls it: a library or a test keeps its own logging."""
    renderer: Any = (
        structlog.processors.JSONRenderer()
        if as_json
        else structlog.dev.ConsoleRenderer(colors=False)
    )
    shared: list[Any] = [
        structlog.stdlib.ExtraAdder(),  # a request line's fields (log_request)
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    handler = logging.StreamHandler()
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=shared,
            processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, renderer],
        )
    )
    handler.addFilter(RedactTokens())
    root = logging.getLogger()
    root.handlers = [handler]
    root.setLevel(logging.INFO)


def log_request(**fields: Any) -> None:
    """One request's line (app/web/__init__.py, `timed`): what it asked and how it ended,
    never a header, a query or a body, where a token would be."""
    requests = logging.getLogger(REQUESTS)
    if requests.isEnabledFor(logging.INFO):  # only under `scoreboard serve` (configure_logging)
        requests.info("request", extra=fields)
