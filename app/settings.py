"""The one settings class: every option comes from a `SCOREBOARD_*` environment variable."""

from functools import lru_cache
from typing import Literal, Self
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from app.db.engine import DatabaseTimeouts

# Good enough on a laptop; rejected in production so that no deployment runs on a known secret.
DEVELOPMENT_ADMIN_TOKEN = "development-admin-token"
MIN_PRODUCTION_ADMIN_TOKEN_LENGTH = 32


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="SCOREBOARD_")

    environment: Literal["development", "production"] = "development"
    database_url: str = "sqlite:///./scoreboard.db"
    # Seconds a connection waits for the database before it gives up (app/db/engine.py,
    # DatabaseTimeouts, issue 14): on PostgreSQL for a lock another connection holds, a
    # session idle inside a transaction (its process frozen) before the server ends it, and
    # one statement; on SQLite for another connection's write lock.
    db_lock_timeout: float = Field(default=3.0, gt=0)
    db_idle_in_transaction_timeout: float = Field(default=2.0, gt=0)
    db_statement_timeout: float = Field(default=30.0, gt=0)
    sqlite_busy_timeout: float = Field(default=10.0, gt=0)
    # Only needed when several processes serve one tournament (the Redis backplane).
    redis_url: str | None = None
    # Seconds the backplane waits for Redis to connect and to answer. Nobody's request waits
    # on them: changes are announced from a thread of their own (app/realtime/backplane.py).
    redis_connect_timeout: float = Field(default=2.0, gt=0)
    redis_socket_timeout: float = Field(default=2.0, gt=0)
    admin_token: SecretStr = SecretStr(DEVELOPMENT_ADMIN_TOKEN)
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535)
    # The address tablets and phones reach the hall server at: QR codes on seating slips
    # link to {public_url}/p/{player_id}, judges' cards to {public_url}/judge. Unset, the
    # admin pages use the address they were opened at (app/web/addresses.py).
    public_url: str | None = None
    # WebSocket per-message compression costs memory and CPU on every connection.
    ws_compression: bool = False
    # Seconds between websocket pings, and how long a client has to answer one before it is
    # dropped: a phone that left the hall's Wi-Fi never says goodbye. (The feed's heartbeat
    # is the other way round: it tells a client that the server is still there.)
    ws_ping_interval: float = Field(default=20.0, gt=0)
    ws_ping_timeout: float = Field(default=20.0, gt=0)

    @property
    def database_timeouts(self) -> DatabaseTimeouts:
        return DatabaseTimeouts(
            lock=self.db_lock_timeout,
            idle_in_transaction=self.db_idle_in_transaction_timeout,
            statement=self.db_statement_timeout,
            sqlite_busy=self.sqlite_busy_timeout,
        )

    @field_validator("public_url")
    @classmethod
    def _public_url_is_an_address(cls, url: str | None) -> str | None:
        if url is None or not url.strip():
            return None  # SCOREBOARD_PUBLIC_URL= (empty) is the same as unset
        parts = urlsplit(url.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(
                f"SCOREBOARD_PUBLIC_URL must be an http:// or https:// address with a host, "
                f"such as http://192.168.1.10:8000, not {url!r}"
            )
        if parts.query or parts.fragment:
            raise ValueError(
                f"SCOREBOARD_PUBLIC_URL is the server's address alone, without ?query or "
                f"#fragment: {url!r}"
            )
        return url.strip().rstrip("/")

    @model_validator(mode="after")
    def _refuse_unsafe_production_defaults(self) -> Self:
        if self.environment != "production":
            return self
        token = self.admin_token.get_secret_value()
        if token == DEVELOPMENT_ADMIN_TOKEN or len(token) < MIN_PRODUCTION_ADMIN_TOKEN_LENGTH:
            raise ValueError(
                "SCOREBOARD_ADMIN_TOKEN must be set to a secret of at least "
                f"{MIN_PRODUCTION_ADMIN_TOKEN_LENGTH} characters when "
                "SCOREBOARD_ENVIRONMENT=production (the development default is refused). "
                "Generate one with: python -c 'import secrets; print(secrets.token_urlsafe(32))'"
            )
        return self


@lru_cache
def get_settings() -> Settings:
    """The process-wide settings, read from the environment once."""
    return Settings()
