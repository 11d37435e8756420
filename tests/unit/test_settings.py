import pytest
from pydantic import ValidationError

from app.settings import DEVELOPMENT_ADMIN_TOKEN, Settings

STRONG_TOKEN = "x7Yq2-9fKpL0wRt3ZbN8vC1mHs4JdE6a"


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test sees only the SCOREBOARD_* variables it sets itself."""
    for name in [
        "SCOREBOARD_ENVIRONMENT",
        "SCOREBOARD_DATABASE_URL",
        "SCOREBOARD_REDIS_URL",
        "SCOREBOARD_ADMIN_TOKEN",
        "SCOREBOARD_HOST",
        "SCOREBOARD_PORT",
    ]:
        monkeypatch.delenv(name, raising=False)


def test_development_defaults_work() -> None:
    settings = Settings()

    assert settings.environment == "development"
    assert settings.database_url == "sqlite:///./scoreboard.db"
    assert settings.redis_url is None
    assert settings.admin_token.get_secret_value() == DEVELOPMENT_ADMIN_TOKEN
    assert (settings.host, settings.port) == ("127.0.0.1", 8000)
    assert DEVELOPMENT_ADMIN_TOKEN not in repr(settings)


def test_production_without_admin_token_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCOREBOARD_ENVIRONMENT", "production")

    with pytest.raises(ValidationError, match="SCOREBOARD_ADMIN_TOKEN"):
        Settings()


@pytest.mark.parametrize("token", [DEVELOPMENT_ADMIN_TOKEN, "short-secret", STRONG_TOKEN[:-1]])
def test_production_with_default_or_short_admin_token_is_refused(
    monkeypatch: pytest.MonkeyPatch, token: str
) -> None:
    monkeypatch.setenv("SCOREBOARD_ENVIRONMENT", "production")
    monkeypatch.setenv("SCOREBOARD_ADMIN_TOKEN", token)

    with pytest.raises(ValidationError, match="at least 32 characters"):
        Settings()


def test_production_with_strong_admin_token_works(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCOREBOARD_ENVIRONMENT", "production")
    monkeypatch.setenv("SCOREBOARD_ADMIN_TOKEN", STRONG_TOKEN)
    monkeypatch.setenv("SCOREBOARD_DATABASE_URL", "postgresql://scoreboard@db/scoreboard")

    settings = Settings()

    assert settings.environment == "production"
    assert settings.admin_token.get_secret_value() == STRONG_TOKEN
    assert settings.database_url == "postgresql://scoreboard@db/scoreboard"


def test_unknown_environment_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCOREBOARD_ENVIRONMENT", "staging")

    with pytest.raises(ValidationError, match="environment"):
        Settings()
