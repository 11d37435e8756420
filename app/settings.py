"""The one settings class: every option comes from a `SCOREBOARD_*` environment variable."""

import hashlib
import hmac
import math
import secrets
import string
from collections import Counter
from datetime import datetime, tzinfo
from functools import lru_cache
from typing import Literal, Self
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import limits
from pydantic import Field, SecretStr, ValidationInfo, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from app.db.timeouts import DatabaseTimeouts
from app.domain.languages import DEFAULT_LANGUAGE, LANGUAGES

# .env.example marks every value a deployment must set with it (compose.yaml; issue 16).
PLACEHOLDER = "CHANGE_ME"
# Good enough on a laptop; rejected in production so that no deployment runs on a known secret.
DEVELOPMENT_ADMIN_TOKEN = "development-admin-token"
MIN_PRODUCTION_ADMIN_TOKEN_LENGTH = 32
# Guessing a 128-bit secret is out of reach; secrets.token_urlsafe(32) carries 256 bits.
MIN_PRODUCTION_ADMIN_TOKEN_BITS = 128
MAKE_A_TOKEN = "python -c 'import secrets; print(secrets.token_urlsafe(32))'"

# The character classes a guesser would try, by size (anything else counts as punctuation).
_CLASSES = (string.ascii_lowercase, string.ascii_uppercase, string.digits)
_OTHER_CLASS_SIZE = 33  # printable ASCII punctuation and space


def estimated_entropy_bits(token: str) -> float:
    """A deliberately pessimistic estimate of how many bits a guesser must cover.

    Two estimates, and the smaller counts:
    - per character, log2 of the pool of the character classes the token uses (lower case 26,
      upper case 26, digits 10, anything else 33), over the characters a guesser could not
      predict: a character that repeats the one before (`aa`), continues a run (`ab`, `21`),
      or ends a 3-character piece seen earlier in the token (`abcabc`, `pass...pass`) counts
      for nothing;
    - the token's own Shannon entropy per character times its length, which catches a
      token drawn from few distinct characters however they are arranged.
    """
    if not token:
        return 0.0
    used = [cls for cls in _CLASSES if any(char in cls for char in token)]
    pool = sum(len(cls) for cls in used)
    if any(not any(char in cls for cls in _CLASSES) for char in token):
        pool += _OTHER_CLASS_SIZE
    seen: set[str] = set()
    unpredictable = 0
    for index, char in enumerate(token):
        piece = token[max(0, index - 2) : index + 1]
        before = token[index - 1] if index else None
        predictable = before is not None and (
            char == before or abs(ord(char) - ord(before)) == 1 or piece in seen
        )
        if len(piece) == 3:
            seen.add(piece)
        unpredictable += not predictable
    by_classes = unpredictable * math.log2(pool)
    counts = Counter(token)
    shannon = -sum(n / len(token) * math.log2(n / len(token)) for n in counts.values())
    return min(by_classes, shannon * len(token))


class Settings(BaseSettings):
    # hide_input_in_errors: an error never echoes a value read from the environment (the
    # admin token above all), only what the validators below say.
    model_config = SettingsConfigDict(env_prefix="SCOREBOARD_", hide_input_in_errors=True)

    environment: Literal["development", "production"] = "development"
    database_url: str = "sqlite:///./scoreboard.db"
    # Seconds a connection waits for the database before it gives up (app/db/engine.py,
    # DatabaseTimeouts, issue 14): on PostgreSQL for a lock another connection holds, a
    # session idle inside a transaction (its process frozen) before the server ends it, and
    # one statement; on SQLite for another connection's write lock.
    db_lock_timeout: float = Field(default=3.0, gt=0)
    db_idle_in_transaction_timeout: float = Field(default=4.0, gt=0)
    db_statement_timeout: float = Field(default=30.0, gt=0)
    sqlite_busy_timeout: float = Field(default=10.0, gt=0)
    # Only needed when several processes serve one tournament (the Redis backplane).
    redis_url: str | None = None
    # Seconds the backplane waits for Redis to connect and to answer. Nobody's request waits
    # on them: changes are announced from a thread of their own (app/realtime/backplane.py).
    redis_connect_timeout: float = Field(default=2.0, gt=0)
    redis_socket_timeout: float = Field(default=2.0, gt=0)
    # The backplane's pub/sub channel. Redis pub/sub knows no database numbers: servers that
    # share a Redis but not a database (another event, a test run beside this one) each
    # need their own.
    redis_channel: str = Field(default="scoreboard:changes", min_length=1)
    admin_token: SecretStr = SecretStr(DEVELOPMENT_ADMIN_TOKEN)
    # The secret the seating slips' check-in codes are derived from (issue 18, part 4; rule
    # CI-1). Unset, a key derived from the admin token, which production requires to be a
    # real secret: so no deployment prints codes anyone could work out. Set it to keep the
    # printed codes when the admin token changes; production holds it to the same strength.
    checkin_secret: SecretStr | None = None
    # Wrong check-in codes (rule CI-4): per player and round, and per address (a hall behind
    # NAT shares one address, so that one is generous). Past either, 429 until the window
    # frees, the right code included.
    checkin_failures_per_player: str = "5/10 minutes"
    checkin_failures_per_address: str = "60/minute"
    # `json`: one JSON object a line, a request's line among them (issue 16; compose.yaml
    # sets it); `text`: uvicorn's own lines, as a person at a terminal reads them.
    log_format: Literal["text", "json"] = "text"
    # The bearer token Prometheus sends for /metrics (issue 16); unset, /metrics is off.
    metrics_token: SecretStr | None = None
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535)
    # The address tablets and phones reach the hall server at: QR codes on seating slips
    # link to {public_url}/p/{player_id}, judges' cards to {public_url}/judge (or to staff_url,
    # below). Unset, the admin pages use the address they were opened at (app/web/addresses.py).
    public_url: str | None = None
    # The staff's own entry (issue 32, docs/security.md "The staff's entry"): a second proxy at
    # the judges' priority on an address the public's Wi-Fi cannot reach. Set, the judges'
    # cards and the scorer's sheets link to {staff_url}/judge and /scorer, and the players'
    # slips, the hall and the overlays stay on public_url. Unset, they all use public_url.
    staff_url: str | None = None
    # WebSocket per-message compression costs memory and CPU on every connection.
    ws_compression: bool = False
    # Seconds between websocket pings, and how long a client has to answer one before it is
    # dropped: a phone that left the hall's Wi-Fi never says goodbye. (The feed's heartbeat
    # is the other way round: it tells a client that the server is still there.)
    ws_ping_interval: float = Field(default=20.0, gt=0)
    ws_ping_timeout: float = Field(default=20.0, gt=0)
    # Seconds a live client may take to accept one frame before it is closed (4008: too
    # slow to keep up), and then to read up to that close before its connection is cut. A
    # screen or phone that stops reading (its Wi-Fi gone, a page put away) costs the server
    # its queue and socket buffers for that long (app/realtime/hub.py).
    ws_send_timeout: float = Field(default=10.0, ge=1, le=300)
    ws_close_grace: float = Field(default=5.0, ge=0.5, le=60)
    # Seconds the feed keeps a channel's changes after its last client left, for clients
    # that come back with the versions they hold: when the hall's Wi-Fi drops, every phone
    # may leave at once and return seconds later (app/realtime/hub.py, `linger`). 0 forgets
    # a channel as soon as nobody follows it.
    ws_resume_seconds: float = Field(default=60.0, ge=0, le=3600)
    # Seconds an Idempotency-Key claimed by a request of a live process is held before a
    # retry may take it over, for a request that is only slow. A claim of a process that is
    # gone (killed, or frozen past its heartbeat), or of a request no longer running, is
    # taken over at once (app/services/judging.py, issue 14).
    claim_window: float = Field(default=10.0, ge=1, le=300)
    # The hall's time zone (an IANA name such as Asia/Macau): a judge's table token expires
    # at the end of the hall's tournament day (app/domain/tokens.py). Unset: this machine's.
    hall_timezone: str | None = None
    # The pages' language for a reader who chose none, where a tournament names none either
    # (issue 17): en, ja, zh-Hant, zh-Hans or ko.
    language: str = DEFAULT_LANGUAGE

    @field_validator("language")
    @classmethod
    def _language_is_spoken(cls, language: str) -> str:
        if language not in LANGUAGES:
            raise ValueError(f"must be one of {', '.join(LANGUAGES)} (issue 17)")
        return language

    @field_validator("hall_timezone")
    @classmethod
    def _hall_timezone_is_known(cls, name: str | None) -> str | None:
        if name is None or not name.strip():
            return None
        try:
            ZoneInfo(name.strip())
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(
                f"SCOREBOARD_HALL_TIMEZONE must be a time zone name such as Asia/Macau or "
                f"Europe/London, not {name!r}"
            ) from None
        return name.strip()

    @property
    def staff_address(self) -> tuple[str | None, str]:
        """The address the staff's codes open (a judge's card, a scorer's sheet) as far as
        the settings say it, and the setting that says it (named in a loopback warning):
        SCOREBOARD_STAFF_URL where the staff have an entry of their own (issue 32), else
        SCOREBOARD_PUBLIC_URL. None: neither is set, and the page takes the request's."""
        if self.staff_url is not None:
            return self.staff_url, "SCOREBOARD_STAFF_URL"
        return self.public_url, "SCOREBOARD_PUBLIC_URL"

    @property
    def hall_zone(self) -> tzinfo:
        if self.hall_timezone is not None:
            return ZoneInfo(self.hall_timezone)
        local = datetime.now().astimezone().tzinfo
        assert local is not None
        return local

    @property
    def check_in_key(self) -> bytes:
        """rule CI-1: the key of the slips' check-in codes."""
        if self.checkin_secret is not None and self.checkin_secret.get_secret_value():
            return self.checkin_secret.get_secret_value().encode()
        admin = self.admin_token.get_secret_value().encode()
        return hmac.new(admin, b"scoreboard check-in codes", hashlib.sha256).digest()

    @property
    def database_timeouts(self) -> DatabaseTimeouts:
        return DatabaseTimeouts(
            lock=self.db_lock_timeout,
            idle_in_transaction=self.db_idle_in_transaction_timeout,
            statement=self.db_statement_timeout,
            sqlite_busy=self.sqlite_busy_timeout,
        )

    # -- what one client may ask of the server (issue 14: no anonymous client exhausts it) --
    # The live feed, per connection: channels followed in all (a hall screen follows 2, a
    # tablet 1 or 2, a phone its player, its table and the players it follows) ...
    ws_channels_per_connection: int = Field(default=64, ge=1)
    # ... messages from the client, a token bucket: a reconnect is one subscribe, a phone
    # following players one each, a client that missed changes one resync per channel
    ws_messages_per_second: float = Field(default=10.0, gt=0)
    ws_message_burst: int = Field(default=100, ge=1)
    # ... and the size of one message (64 channel names of the longest fit in 16 KiB)
    ws_message_bytes: int = Field(default=32 * 1024, ge=1024)
    # Live feed connections open at once from one address. A hall behind NAT, where every
    # phone and screen shares one address, needs this raised (README, "The live feed").
    ws_connections_per_address: int = Field(default=200, ge=1)
    # Request bodies, refused (413) before anything reads them: a hand or any other write
    # is well under 2 KiB; a log, a CSV or a JSON list of players may be megabytes.
    body_limit_bytes: int = Field(default=16 * 1024, ge=1024)
    import_body_limit_bytes: int = Field(default=16 * 1024 * 1024, ge=1024)
    # Seconds a connection has to send a request's whole head (its line and headers), from
    # when it opens or its request begins: a socket that sent half a request and then
    # nothing held an open file for ever, and enough of them left none for anyone else
    # (issue 32; app/web/live_protocol.py, HttpProtocol). A phone on the hall's Wi-Fi sends
    # a head, a kilobyte or two, in well under a second.
    header_timeout: float = Field(default=10.0, ge=1, le=300)
    # Seconds a request's body may go without a byte, and beyond what its size needs at
    # BODY_BYTES_PER_SECOND (app/web/live_protocol.py) in all: a client that sent a head
    # and then a body a byte at a time held its connection, and in one process a judges'
    # request in flight that the public's work waits for, for as long as it liked. A hand is
    # a few hundred bytes; a 16 MiB player list has 266 s more.
    body_timeout: float = Field(default=10.0, ge=1, le=300)
    # Rate limits (the `limits` library's notation, "100/minute"), answered 429 with
    # Retry-After; in memory for one process, in Redis (SCOREBOARD_REDIS_URL) for several.
    # Failed authentication (a wrong or missing token), per address and per wrong token:
    auth_failures_per_address: str = "100/minute"
    auth_failures_per_token: str = "20/minute"
    # Writes with a good token. A judge enters a hand a minute or so; a tablet back online
    # sends its whole outbox at once, one entry after the other, as fast as they are answered.
    writes_per_token: str = "600/minute"
    writes_per_address: str = "12000/minute"  # a hall behind NAT: 256 tablets replaying
    rate_limit_key_prefix: str = "scoreboard"  # of the counters' keys in Redis

    # -- the lanes (issue 32: no anonymous client, alone or combined, slows a judge's hand) --
    # Which lane this process serves (app/web/lanes.py): `all` on its own; behind the proxy,
    # `judges` (every write and the judges', head judge's and organizer's pages) and `public`
    # (what spectators, hall screens and TV graphics read), each in processes of its own.
    # `scoreboard serve --role` sets it.
    role: Literal["all", "judges", "public"] = "all"
    # The nice value a `public` process takes at start (0 to 19): when the machine is short
    # of CPU, the operating system runs the judges' processes first (docs/security.md).
    public_nice: int = Field(default=10, ge=0, le=19)
    # Public reads per address (app/web/public_answers.py), counted in each process's memory:
    # every read; searches by name; standings at a moment (`?at=`, the time slider); the
    # whole log. A hall behind NAT, where every phone shares one address, raises them.
    public_reads_per_address: str = "1200/minute"
    searches_per_address: str = "60/minute"
    moments_per_address: str = "60/minute"
    log_downloads_per_address: str = "30/minute"
    # Public answers made at once (the rest wait, up to the queue; past it, 503), and the
    # memory the answers kept for their version may take.
    public_concurrency: int = Field(default=2, ge=1, le=64)
    public_queue: int = Field(default=256, ge=0, le=100_000)
    public_cache_bytes: int = Field(default=64 * 1024 * 1024, ge=1024 * 1024)

    @field_validator("public_url", "staff_url")
    @classmethod
    def _is_an_address(cls, url: str | None, info: ValidationInfo) -> str | None:
        name = f"SCOREBOARD_{(info.field_name or '').upper()}"
        if url is None or not url.strip():
            return None  # SCOREBOARD_PUBLIC_URL= (empty) is the same as unset
        parts = urlsplit(url.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(
                f"{name} must be an http:// or https:// address with a host, "
                f"such as http://192.168.1.10:8000, not {url!r}"
            )
        if parts.query or parts.fragment:
            raise ValueError(
                f"{name} is the server's address alone, without ?query or #fragment: {url!r}"
            )
        return url.strip().rstrip("/")

    @field_validator(
        "auth_failures_per_address",
        "auth_failures_per_token",
        "writes_per_token",
        "writes_per_address",
        "checkin_failures_per_player",
        "checkin_failures_per_address",
        "public_reads_per_address",
        "searches_per_address",
        "moments_per_address",
        "log_downloads_per_address",
    )
    @classmethod
    def _is_a_rate(cls, rate: str) -> str:
        try:
            limits.parse(rate)
        except ValueError as error:
            raise ValueError(f"a rate such as '100/minute' or '10/second', not {rate!r}") from error
        return rate

    @model_validator(mode="after")
    def _refuse_unsafe_production_defaults(self) -> Self:
        if self.environment != "production":
            return self
        left = [
            name
            for name, value in (
                ("SCOREBOARD_ADMIN_TOKEN", self.admin_token.get_secret_value()),
                (
                    "SCOREBOARD_METRICS_TOKEN",
                    "" if self.metrics_token is None else self.metrics_token.get_secret_value(),
                ),
                ("SCOREBOARD_DATABASE_URL", self.database_url),
                ("SCOREBOARD_REDIS_URL", self.redis_url or ""),
                ("SCOREBOARD_PUBLIC_URL", self.public_url or ""),
                ("SCOREBOARD_STAFF_URL", self.staff_url or ""),
                (
                    "SCOREBOARD_CHECKIN_SECRET",
                    "" if self.checkin_secret is None else self.checkin_secret.get_secret_value(),
                ),
            )
            if PLACEHOLDER in value
        ]
        if left:
            # .env.example's placeholders (compose.yaml): a copy not filled in must not start
            raise ValueError(
                f"{', '.join(left)} still hold{'s' if len(left) == 1 else ''} the {PLACEHOLDER} "
                "placeholder of .env.example: replace each with the real value (README, "
                f'"Production"). Generate a secret with: {MAKE_A_TOKEN}'
            )
        token = self.admin_token.get_secret_value()
        # The messages below never quote the token, not even in part: it is the secret.
        if token == DEVELOPMENT_ADMIN_TOKEN or len(token) < MIN_PRODUCTION_ADMIN_TOKEN_LENGTH:
            raise ValueError(
                "SCOREBOARD_ADMIN_TOKEN must be set to a secret of at least "
                f"{MIN_PRODUCTION_ADMIN_TOKEN_LENGTH} characters when "
                "SCOREBOARD_ENVIRONMENT=production (the development default is refused). "
                f"Generate one with: {MAKE_A_TOKEN}"
            )
        checkin = "" if self.checkin_secret is None else self.checkin_secret.get_secret_value()
        why = None if not checkin else _weaker_than_the_admin_token(checkin, token)
        if why is not None:
            # rule CI-1: a code derived from a guessable secret is a code anyone can print
            raise ValueError(
                "SCOREBOARD_CHECKIN_SECRET is refused when SCOREBOARD_ENVIRONMENT=production: "
                f"{why} (or leave it unset: the codes then derive from the admin token). "
                f"Generate one with: {MAKE_A_TOKEN}"
            )
        bits = estimated_entropy_bits(token)
        if bits < MIN_PRODUCTION_ADMIN_TOKEN_BITS:
            raise ValueError(
                "SCOREBOARD_ADMIN_TOKEN is too easy to guess for production: about "
                f"{round(max(bits, 0.0))} bits of entropy estimated, at least "
                f"{MIN_PRODUCTION_ADMIN_TOKEN_BITS} needed (repeated characters, runs such as "
                "abc or 123, and repeated pieces count for nothing; a word or a pattern is "
                f"not a secret). Generate one with: {MAKE_A_TOKEN}"
            )
        metrics = "" if self.metrics_token is None else self.metrics_token.get_secret_value()
        # Empty, no bearer matches it (/metrics answers 401 to all): nothing to guess.
        why = None if not metrics else _weaker_than_the_admin_token(metrics, token)
        if why is not None:
            # Whoever reads /metrics with a guessed token learns the hall's traffic; with the
            # admin token's own value, whoever can read it (a Prometheus config) is admin.
            raise ValueError(
                f"SCOREBOARD_METRICS_TOKEN is refused when SCOREBOARD_ENVIRONMENT=production: "
                f"{why} (or leave it unset: /metrics is then off). Generate one with: "
                f"{MAKE_A_TOKEN}"
            )
        return self


def _weaker_than_the_admin_token(secret: str, admin_token: str) -> str | None:
    """Why a production secret other than the admin token falls short of the admin token's
    own rule (never quoting it), or None."""
    if len(secret) < MIN_PRODUCTION_ADMIN_TOKEN_LENGTH:
        return f"a secret of at least {MIN_PRODUCTION_ADMIN_TOKEN_LENGTH} characters is needed"
    bits = estimated_entropy_bits(secret)
    if bits < MIN_PRODUCTION_ADMIN_TOKEN_BITS:
        return (
            f"it must be as hard to guess as the admin token: about {round(max(bits, 0.0))} "
            f"bits of entropy estimated, at least {MIN_PRODUCTION_ADMIN_TOKEN_BITS} needed"
        )
    if secrets.compare_digest(secret.encode(), admin_token.encode()):
        return "it must not be the same as the admin token"
    return None


@lru_cache
def get_settings() -> Settings:
    """The process-wide settings, read from the environment once."""
    return Settings()
