import secrets
from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic import ValidationError

from app.settings import (
    DEVELOPMENT_ADMIN_TOKEN,
    MIN_PRODUCTION_ADMIN_TOKEN_BITS,
    Settings,
    estimated_entropy_bits,
)

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


# Issue 14: a production admin token of 32 a's was accepted, length being the only check.
WEAK_TOKENS = [
    "a" * 32,
    "abc" * 11,
    "password1234" * 3,
    "Password1234!" * 4,
    "0123456789abcdefghijklmnopqrstuvwxyz",
    "P@ssw0rd" * 8,
]


@pytest.mark.parametrize("token", WEAK_TOKENS)
def test_production_with_a_guessable_admin_token_is_refused_with_advice(
    monkeypatch: pytest.MonkeyPatch, token: str
) -> None:
    monkeypatch.setenv("SCOREBOARD_ENVIRONMENT", "production")
    monkeypatch.setenv("SCOREBOARD_ADMIN_TOKEN", token)

    with pytest.raises(ValidationError) as refused:
        Settings()

    message = str(refused.value)
    assert "too easy to guess" in message
    assert f"at least {MIN_PRODUCTION_ADMIN_TOKEN_BITS}" in message
    assert "secrets.token_urlsafe(32)" in message
    assert_no_part_of(token, message)
    assert "about -" not in message  # a token worth nothing is "about 0 bits", not "-0"


@pytest.mark.parametrize(
    "token", ["a" * 32, "Zq7-Lp2x-Wv9k-Rt4m-Nb6c-Hj1s-Fy", DEVELOPMENT_ADMIN_TOKEN]
)
def test_the_refusal_never_prints_any_part_of_the_token(
    monkeypatch: pytest.MonkeyPatch, token: str
) -> None:
    # Before: pydantic's message ended with input_value={..., 'admin_token': 'aaaa...aaa'}.
    monkeypatch.setenv("SCOREBOARD_ENVIRONMENT", "production")
    monkeypatch.setenv("SCOREBOARD_ADMIN_TOKEN", token)

    with pytest.raises(ValidationError) as refused:
        Settings()

    assert "input_value" not in str(refused.value)
    if token != DEVELOPMENT_ADMIN_TOKEN:  # the known default may be named, it is no secret
        assert_no_part_of(token, str(refused.value))


@pytest.mark.parametrize("make", [secrets.token_urlsafe, secrets.token_hex])
def test_tokens_made_as_the_advice_says_pass(
    monkeypatch: pytest.MonkeyPatch, make: Callable[[int], str]
) -> None:
    monkeypatch.setenv("SCOREBOARD_ENVIRONMENT", "production")
    for _ in range(200):
        token = make(32)
        assert estimated_entropy_bits(token) >= MIN_PRODUCTION_ADMIN_TOKEN_BITS, token
        monkeypatch.setenv("SCOREBOARD_ADMIN_TOKEN", token)
        assert Settings().admin_token.get_secret_value() == token


@pytest.mark.parametrize(
    ("token", "most"),
    [("", 0), ("a" * 64, 5), ("ab" * 32, 10), ("abcdefgh" * 8, 40), ("12345678" * 8, 20)],
)
def test_repeats_runs_and_repeated_pieces_count_for_nothing(token: str, most: float) -> None:
    assert estimated_entropy_bits(token) <= most


def assert_no_part_of(token: str, message: str) -> None:
    """No 6 characters of the token in a row appear in the message."""
    for start in range(max(1, len(token) - 5)):
        piece = token[start : start + 6]
        assert piece not in message, f"{piece!r} of the token is in the message"


@pytest.mark.parametrize(
    ("variable", "value", "accepted"),
    [
        ("SCOREBOARD_WS_SEND_TIMEOUT", "4", True),
        ("SCOREBOARD_WS_SEND_TIMEOUT", "0", False),  # every client would be dropped at once
        ("SCOREBOARD_WS_SEND_TIMEOUT", "301", False),  # a stalled client held 5 minutes
        ("SCOREBOARD_WS_CLOSE_GRACE", "2", True),
        ("SCOREBOARD_WS_CLOSE_GRACE", "0.1", False),
        ("SCOREBOARD_WS_CLOSE_GRACE", "61", False),
        ("SCOREBOARD_CLAIM_WINDOW", "4", True),
        ("SCOREBOARD_CLAIM_WINDOW", "0.5", False),  # a slow live request would lose its claim
        ("SCOREBOARD_CLAIM_WINDOW", "1e9", False),  # a retry refused for good
    ],
)
def test_the_give_up_times_are_bounded(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, accepted: bool
) -> None:
    """Every number that comes in has a bound (issue 14), the error naming the setting."""
    monkeypatch.setenv(variable, value)
    field = variable.removeprefix("SCOREBOARD_").lower()
    if accepted:
        assert getattr(Settings(), field) == float(value)
    else:
        with pytest.raises(ValidationError, match=field):
            Settings()


def example_environment() -> dict[str, str]:
    """.env.example's assignments, as compose.yaml hands them to the scoreboard."""
    values = {}
    for line in (Path(__file__).parents[2] / ".env.example").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, value = line.partition("=")
            values[name.strip()] = value.strip()
    return values


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("SCOREBOARD_ADMIN_TOKEN", "CHANGE_ME"),
        ("SCOREBOARD_ADMIN_TOKEN", f"{STRONG_TOKEN}CHANGE_ME"),
        ("SCOREBOARD_DATABASE_URL", "postgresql://scoreboard:CHANGE_ME@postgres:5432/scoreboard"),
        ("SCOREBOARD_REDIS_URL", "redis://:CHANGE_ME@redis:6379/0"),
    ],
)
def test_production_refuses_a_placeholder_of_the_example_env_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str
) -> None:
    """issue 16: a copy of .env.example not filled in must not start; the message names the
    variable and never quotes a value."""
    monkeypatch.setenv("SCOREBOARD_ENVIRONMENT", "production")
    monkeypatch.setenv("SCOREBOARD_ADMIN_TOKEN", STRONG_TOKEN)
    monkeypatch.setenv(variable, value)

    with pytest.raises(ValidationError, match=f"{variable} still holds the CHANGE_ME") as refused:
        Settings()
    assert STRONG_TOKEN not in str(refused.value)


def test_the_example_env_as_committed_is_refused_and_filled_in_is_taken(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    example = example_environment()
    assert example["SCOREBOARD_ADMIN_TOKEN"] == "CHANGE_ME"
    assert "CHANGE_ME" in example["POSTGRES_PASSWORD"]
    scoreboard = {k: v for k, v in example.items() if k.startswith("SCOREBOARD_")}
    monkeypatch.setenv("SCOREBOARD_ENVIRONMENT", "production")
    for name, value in scoreboard.items():
        monkeypatch.setenv(name, value)
    # compose.yaml puts the database's password into the scoreboard's address
    database = f"postgresql://scoreboard:{example['POSTGRES_PASSWORD']}@postgres:5432/scoreboard"
    monkeypatch.setenv("SCOREBOARD_DATABASE_URL", database)

    with pytest.raises(ValidationError, match="SCOREBOARD_ADMIN_TOKEN, SCOREBOARD_DATABASE_URL"):
        Settings()

    monkeypatch.setenv("SCOREBOARD_ADMIN_TOKEN", secrets.token_urlsafe(32))
    monkeypatch.setenv("SCOREBOARD_DATABASE_URL", database.replace("CHANGE_ME", "s3cret-pw"))
    assert Settings().environment == "production"


# Issue 32: production took a metrics token of one character, and one equal to the admin
# token (whoever reads /metrics then held the admin token).
@pytest.mark.parametrize(
    ("token", "says"),
    [
        ("m", "at least 32 characters"),
        (STRONG_TOKEN[:-1], "at least 32 characters"),
        ("a" * 40, "as hard to guess as the admin token"),
        ("P@ssw0rd" * 8, "as hard to guess as the admin token"),
        (STRONG_TOKEN, "must not be the same as the admin token"),
    ],
)
def test_production_refuses_a_weak_metrics_token_or_the_admin_tokens_own(
    monkeypatch: pytest.MonkeyPatch, token: str, says: str
) -> None:
    monkeypatch.setenv("SCOREBOARD_ENVIRONMENT", "production")
    monkeypatch.setenv("SCOREBOARD_ADMIN_TOKEN", STRONG_TOKEN)
    monkeypatch.setenv("SCOREBOARD_METRICS_TOKEN", token)

    with pytest.raises(ValidationError, match="SCOREBOARD_METRICS_TOKEN") as refused:
        Settings()

    message = str(refused.value)
    assert says in message
    assert "secrets.token_urlsafe(32)" in message
    if len(token) >= 6:
        assert_no_part_of(token, message)
    assert "input_value" not in message


def test_production_takes_a_strong_metrics_token_and_development_any(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SCOREBOARD_METRICS_TOKEN", "m")
    assert Settings().metrics_token is not None  # development: a laptop's Prometheus

    monkeypatch.setenv("SCOREBOARD_ENVIRONMENT", "production")
    monkeypatch.setenv("SCOREBOARD_ADMIN_TOKEN", STRONG_TOKEN)
    strong = secrets.token_urlsafe(32)
    monkeypatch.setenv("SCOREBOARD_METRICS_TOKEN", strong)
    settings = Settings()
    assert settings.metrics_token is not None
    assert settings.metrics_token.get_secret_value() == strong
    monkeypatch.delenv("SCOREBOARD_METRICS_TOKEN")
    assert Settings().metrics_token is None  # unset: /metrics is off
