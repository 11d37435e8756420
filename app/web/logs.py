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


def redact_tokens_in_server_logs() -> None:
    """Install the filter once per logger (create_app may run more than once)."""
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(each, RedactTokens) for each in logger.filters):
            logger.addFilter(RedactTokens())
