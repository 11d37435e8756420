"""No secret in any log line, however it is spelt (issues 14 and 32).

The judge's card opens `/judge#token=...`, and a browser never sends the fragment. An older
card's `/judge?token=...` does reach the server, and uvicorn's access log writes the path
with its query as the client sent it. A hostile probe (issue 32, item 4) had tokens written
under names spelt otherwise (`%74oken=`, `t=`, `token+=`) and the admin token as `?key=`:
so secrets are masked by what they are, not by the name they come under. Every line loses,
for `[redacted]`:
- each secret the server holds (the admin token, the metrics token, the check-in secret,
  the passwords of its database and Redis), however a line spells it: percent-encoded once
  or more, escaped by JSON or repr();
- anything shaped like a table token, which the server knows only by its hash;
- the value of any query parameter whose name ends in `token`, however that is spelt.
The filter sits on uvicorn's loggers, so it holds however the app is served (`scoreboard
serve`, or uvicorn with `--factory app.web:create_app`); `configure_logging`'s lines are
masked whole, as they are written.
"""

from __future__ import annotations

import json
import logging
import re
import secrets
import string
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

import structlog

from app.settings import DEVELOPMENT_ADMIN_TOKEN

if TYPE_CHECKING:
    from app.settings import Settings

REDACTED = "[redacted]"
# uvicorn.access: one line per request; uvicorn.error: websocket handshakes with their path.
LOGGERS = ("uvicorn.access", "uvicorn.error")
# A shorter secret is masked nowhere: production asks for 32 characters (app/settings.py),
# and masking a word of a few letters wherever it stood would garble every line (`/admin`).
MIN_SECRET_LENGTH = 8


def _spellings(char: str, any_case: bool = False) -> str:
    """A pattern of `char` as a line may spell it: as it is; percent-encoded once or more
    (`%2574` is `%74` is `t`), in capital or small hex digits; `+` for a space, as a form
    sends it; escaped by JSON, by repr() or by both (`\\"`, `\\u00e9`); or its UTF-8 bytes
    read as latin-1, as uvicorn reads a raw path."""
    ways: list[str] = []
    for each in sorted({char.lower(), char.upper()} if any_case else {char}):
        # Escaped first: a mask takes an escape whole, or a JSON line is left broken.
        if each == "\\":
            ways.append(r"(?:\\\\)+")  # in pairs: JSON's, repr's, or both
        else:
            for escaped in {json.dumps(each)[1:-1], repr(each)[1:-1]} - {each}:
                ways.append(r"\\+" + f"(?i:{re.escape(escaped.lstrip(chr(92)))})")
        if each == "'":  # repr() escapes it only in a string that holds a double quote too
            ways.append(r"\\+'")
        ways.append(re.escape(each))
        ways.append("".join(f"%(?:25)*(?i:{byte:02x})" for byte in each.encode()))
        if not each.isascii():
            ways.append(re.escape(each.encode().decode("latin-1")))
        if each == " ":
            ways.append(r"\+")
    return "(?:" + "|".join(ways) + ")"


def _written_with(char: str) -> str:
    """Every character `_spellings` may write `char` with, but `%` and hex digits."""
    escaped = json.dumps(char)[1:-1] + repr(char)[1:-1] + char.encode().decode("latin-1")
    return char + escaped + ("\\'" if char == "'" else "") + ("+" if char == " " else "")


def _spelt(text: str, any_case: bool = False) -> str:
    return "".join(_spellings(char, any_case) for char in text)


# `token=`, `access_token=`, `%74oken+=` ... as a query parameter, up to the next one.
_TOKEN_NAME = rf"[?&;][\w.~%+-]*?{_spelt('token', any_case=True)}(?:\+|%(?:25)*20)*="
# A backslash goes with what it escapes (`\\n`, `\\\\`), but never with a quote: in a JSON
# line the quote after the value is escaped, and the value ends before it.
_TOKEN_VALUE = r"""(?:[^&;#\s"'\\]|\\[^&;#\s"'])*"""
_TOKEN_PARAMETER = re.compile(f"(?P<name>{_TOKEN_NAME}){_TOKEN_VALUE}")
_NAME_KEPT = r"\g<name>" + REDACTED
# What secrets.token_urlsafe writes (a table token: app/web/guards.py, TABLE_TOKEN), each
# character as it is or percent-encoded.
TOKEN_LENGTH = 32
_URLSAFE = "A-Za-z0-9_-"
_URLSAFE_CHARACTERS = string.ascii_letters + string.digits + "_-"
_ENCODED_URLSAFE = r"%(?:25)*(?i:2d|3[0-9]|4[1-9a-f]|5[0-9af]|6[1-9a-f]|7[0-9a])"
# A run of 32 or more, standing alone. Only one with capitals and small letters both is
# masked (`_looks_random`): a table token's 32 characters lack one or the other about once
# in nine million, while the long runs a line holds as a matter of course are of one case
# (a UUID, a hex digest or request id, a Python name in a traceback).
_TOKEN_SHAPED = (
    rf"(?<![{_URLSAFE}])(?:[{_URLSAFE}]|{_ENCODED_URLSAFE}){{{TOKEN_LENGTH},}}(?![{_URLSAFE}])"
)
_ONE_CASE = re.compile("[a-z0-9_-]*|[A-Z0-9_-]*")
_URLSAFE_RUN = re.compile(f"[{_URLSAFE}]+")


_ESCAPE = re.compile(r"u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|U[0-9a-fA-F]{8}|.", re.DOTALL)


def _looks_random(run: str) -> bool:
    decoded = run
    while "%" in decoded and (undone := unquote(decoded)) != decoded:
        decoded = undone
    return decoded != decoded.lower() and decoded != decoded.upper()


class Redactor:
    """Masks every spelling of the secrets it holds, anything shaped like a table token and
    the value of a `...token=` parameter.

    It runs on every line the server writes, so the common line costs a few scans in C and
    nothing more (a microsecond or two): the query's `...token=` values (a pattern that
    starts only at `?`, `&` or `;`), then a look for a run of the characters a secret or a
    token is written with, as long as the shortest of them. Only such a run (a token, a
    proxy's UUID) is read by the pattern of every spelling of the secrets and of the token's
    shape, which costs fifty times more a character or more; a run of one case only is skipped
    when no secret is of one case. A secret written with other characters than a token's
    (spaces, quotes) makes more runs long enough to be read: slower lines, as safe."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self.secrets = _worth_masking(secrets)
        # the longest first: one secret may begin another
        ordered = sorted(self.secrets, key=len, reverse=True)
        known = "|".join(_spelt(each) for each in ordered)
        self._known = re.compile(known) if known else None
        shaped = f"(?P<shaped>{_TOKEN_SHAPED})"
        self._pattern = re.compile(f"{known}|{shaped}" if known else shaped)
        written = set(_URLSAFE_CHARACTERS + "%").union(*map(_written_with, "".join(ordered)))
        shortest = min([TOKEN_LENGTH, *map(len, ordered)])
        self._long_run = b"a" * shortest
        # a line's UTF-8 bytes: a if it may be part of a secret, a space if not
        any_beyond_ascii = any(not char.isascii() for char in written)
        self._alphabet = bytes(
            ord("a") if chr(byte) in written or (byte >= 0x80 and any_beyond_ascii) else ord(" ")
            for byte in range(256)
        )
        self._one_case_secret = any(_ONE_CASE.fullmatch(each) for each in ordered)

    def __call__(self, text: str) -> str:
        if "=" in text:
            text = _TOKEN_PARAMETER.sub(_NAME_KEPT, text)
        runs = text.encode("utf-8", "surrogatepass").translate(self._alphabet)
        start = runs.find(self._long_run)
        if start == -1:
            return text
        if not text.isascii():  # its bytes are not its characters: read it all (rare)
            return self._pattern.sub(self._masked, text)
        pieces: list[str] = []
        done = 0
        while start != -1:
            end = runs.find(b" ", start)
            end = len(runs) if end == -1 else end
            plain = end - start >= TOKEN_LENGTH and _URLSAFE_RUN.fullmatch(text, start, end)
            escaped = text[start - 1 : start] == "\\"  # the run begins with an escape's letter
            if plain and not escaped and _looks_random(text[start:end]):  # a token, as it is
                pieces += (text[done:start], REDACTED)
                done = end
            elif self._one_case_secret or not _ONE_CASE.fullmatch(text, start, end):
                # not a UUID, a hex digest or a Python name: a secret may be in it, spelt
                for found in self._pattern.finditer(text, start, end):
                    pieces += (text[done : found.start()], self._masked(found))
                    done = found.end()
            start = runs.find(self._long_run, end)
        return "".join([*pieces, text[done:]]) if pieces else text

    def _masked(self, match: re.Match[str]) -> str:
        shaped = match.group("shaped")
        if shaped is None:
            return REDACTED
        escape = ""
        if match.start() and match.string[match.start() - 1] == "\\":
            # the run begins with what a backslash escapes (JSON's `\\n`, `\\u00e9`): it stays
            escaped = _ESCAPE.match(shaped)
            escape = "" if escaped is None else escaped.group()
            shaped = shaped[len(escape) :]
        if _looks_random(shaped):
            return escape + REDACTED
        # the run is no token, but a secret of one case may be inside it
        return escape + (shaped if self._known is None else self._known.sub(REDACTED, shaped))

    def learning(self, secrets: Iterable[str]) -> Redactor:
        """This one, or one holding these secrets too: a secret once known stays masked."""
        more = _worth_masking(secrets) - self.secrets
        return self if not more else Redactor(self.secrets | more)


def _worth_masking(secrets: Iterable[str]) -> frozenset[str]:
    # The development default is published (README, app/settings.py) and `scoreboard serve`
    # prints it on purpose, to say that the admin console takes it: it is no secret.
    return frozenset(
        each
        for each in secrets
        if len(each) >= MIN_SECRET_LENGTH and each != DEVELOPMENT_ADMIN_TOKEN
    )


def secrets_of(settings: Settings) -> list[str]:
    """The secrets the server holds in the clear (a table token is stored as its hash): its
    tokens, and the passwords in the addresses of its database and Redis."""
    held = [settings.admin_token, settings.metrics_token, settings.checkin_secret]
    addresses = [settings.database_url, settings.redis_url or ""]
    passwords = [urlsplit(address).password for address in addresses]
    return [
        *(each.get_secret_value() for each in held if each is not None),
        *(unquote(each) for each in passwords if each),
    ]


# The process's: what every installed filter and formatter masks. Its secrets are the union
# of every app's the process built (tests build apps with Settings of their own).
_server_redactor = Redactor()


def learn_secrets(settings: Settings | None) -> None:
    global _server_redactor
    if settings is not None:
        _server_redactor = _server_redactor.learning(secrets_of(settings))


def redact(text: str) -> str:
    return _server_redactor(text)


_TRACEBACKS = logging.Formatter()


class RedactTokens(logging.Filter):
    """Takes the secrets out of the record's message, arguments and exception text, then
    lets it through."""

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
        if record.exc_info and not record.exc_text:
            # a handler's formatter writes exc_text, once set, rather than the exception
            record.exc_text = _TRACEBACKS.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
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


def redact_tokens_in_server_logs(settings: Settings | None = None) -> None:
    """Install the filters once per logger (create_app may run more than once): the live
    feed's connection lines are dropped first, before anything reads them. The secrets of
    `settings` are masked from then on, in these lines and in configure_logging's."""
    learn_secrets(settings)
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(each, QuietLiveFeed) for each in logger.filters):
            logger.filters.insert(0, QuietLiveFeed())
        if not any(isinstance(each, RedactTokens) for each in logger.filters):
            logger.addFilter(RedactTokens())
    # In the text format nothing handles the app's own loggers: their warnings reach stderr
    # through logging's handler of last resort, masked there.
    last = logging.lastResort
    if last is not None and not any(isinstance(each, RedactTokens) for each in last.filters):
        last.addFilter(RedactTokens())


# -- one line per request (issue 16) ---------------------------------------------------------

REQUESTS = "scoreboard.requests"
REQUEST_ID = "x-request-id"
# A request id a client or the proxy sends is kept if it looks like one: up to 64 of these,
# and nothing the logs would mask (issue 32, item 4). It is written in the request's line and
# sent back, so an id that holds a secret, or 32 characters or more of a token's alphabet
# with capitals and small letters both, is replaced: a client sending its token as the id
# (by mistake, or to have it written down) never sees it logged or echoed. A proxy's ids keep
# theirs: a UUID (Caddy's {http.request.uuid}, 8-4-4-4-12 hex), nginx's 32 hex digits, a
# short hex id or a ULID are of one case, or short.
_GOOD_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")


def request_id_of(headers: list[tuple[bytes, bytes]]) -> str:
    """The request's id: the proxy's or the client's X-Request-Id if it is a plain one, else a
    new one. It goes back in the answer's X-Request-Id, so a judge's report can name it."""
    for name, value in headers:
        if name == REQUEST_ID.encode():
            text = value.decode("latin-1")
            if _GOOD_REQUEST_ID.fullmatch(text) and redact(text) == text:
                return text
            break
    return secrets.token_hex(8)


def configure_logging(as_json: bool, settings: Settings | None = None) -> None:
    """The server's own lines (the request log, the app's warnings) through structlog: one
    JSON object a line for a log collector (production), or key=value lines for a person at
    a terminal. Only `scoreboard serve` calls it: a library or a test keeps its own logging.
    Each line is masked whole as it is written, with the secrets of `settings` among those."""
    learn_secrets(settings)
    renderer: Any = (
        structlog.processors.JSONRenderer()
        if as_json
        # Plain tracebacks: rich's would show each frame's locals (a token among them) and
        # wrap a long value over lines in a box, where no mask could find it whole.
        else structlog.dev.ConsoleRenderer(
            colors=False, exception_formatter=structlog.dev.plain_traceback
        )
    )
    shared: list[Any] = [
        structlog.stdlib.ExtraAdder(),  # a request line's fields (log_request)
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    # An exception's traceback as text (JSON): the line held only the exception's repr.
    tracebacks: list[Any] = [structlog.processors.format_exc_info] if as_json else []
    handler = logging.StreamHandler()
    handler.setFormatter(
        MaskedLines(
            foreign_pre_chain=shared,
            processors=[
                structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                *tracebacks,
                renderer,
            ],
        )
    )
    root = logging.getLogger()
    root.handlers = [handler]
    root.setLevel(logging.INFO)


class MaskedLines(structlog.stdlib.ProcessorFormatter):
    """A line masked as it is written: its message, every field of a request's line and an
    exception's text, in the one pass, whoever logged it."""

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


def log_request(**fields: Any) -> None:
    """One request's line (app/web/__init__.py, `timed`): what it asked and how it ended,
    never a header, a query or a body, where a token would be."""
    requests = logging.getLogger(REQUESTS)
    if requests.isEnabledFor(logging.INFO):  # only under `scoreboard serve` (configure_logging)
        requests.info("request", extra=fields)
