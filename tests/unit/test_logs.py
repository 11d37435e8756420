"""The server's log lines never carry a token from a query string (issue 14)."""

import logging

import pytest

from app.web.logs import (
    ACCEPTED,
    LOGGERS,
    QuietLiveFeed,
    RedactTokens,
    redact,
    redact_tokens_in_server_logs,
)


@pytest.mark.parametrize(
    ("path", "logged"),
    [
        ("/judge?token=abc-DEF_12", "/judge?token=[redacted]"),
        ("/judge?round=1&token=abc&x=y", "/judge?round=1&token=[redacted]&x=y"),
        ("/judge?access_token=a%2Fb", "/judge?access_token=[redacted]"),
        ("/judge?TOKEN=abc", "/judge?TOKEN=[redacted]"),
        ("/judge", "/judge"),
        ("/api/tournaments/1/tokens/7", "/api/tournaments/1/tokens/7"),
        ("/x?tokens=3", "/x?tokens=3"),
    ],
)
def test_a_query_token_is_redacted_and_nothing_else(path: str, logged: str) -> None:
    assert redact(path) == logged


def test_an_access_log_record_is_written_without_the_token() -> None:
    # uvicorn.access logs '%s - "%s %s HTTP/%s" %d' with the path and query as an argument.
    record = logging.LogRecord(
        "uvicorn.access",
        logging.INFO,
        __file__,
        1,
        '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5000", "GET", "/judge?token=s3cr3t-t0ken", "1.1", 200),
        None,
    )

    assert RedactTokens().filter(record) is True
    assert "s3cr3t-t0ken" not in record.getMessage()
    assert "/judge?token=[redacted]" in record.getMessage()


def test_the_filter_is_installed_once_on_uvicorns_loggers() -> None:
    redact_tokens_in_server_logs()
    redact_tokens_in_server_logs()

    for name in LOGGERS:
        filters = logging.getLogger(name).filters
        assert sum(isinstance(each, RedactTokens) for each in filters) == 1


def record(logger: str, message: str, *args: object) -> logging.LogRecord:
    return logging.LogRecord(logger, logging.INFO, __file__, 1, message, args, None)


@pytest.mark.parametrize(
    ("line", "kept"),
    [
        (record("uvicorn.error", "connection open"), False),
        (record("uvicorn.error", ACCEPTED, "10.0.0.7:5000", "/ws/tournaments/1?channels="), False),
        (record("uvicorn.error", ACCEPTED, "10.0.0.7:5000", "/ws/elsewhere"), True),
        (record("uvicorn.error", '%s - "WebSocket %s" 403', "10.0.0.7:5000", "/ws/x"), True),
        (record("uvicorn.error", "Application startup complete."), True),
    ],
)
def test_a_live_feed_connection_opening_writes_no_line_and_a_refusal_does(
    line: logging.LogRecord, kept: bool
) -> None:
    """Thousands of phones come back at once after the hall's Wi-Fi drops (issue 16)."""
    assert QuietLiveFeed().filter(line) is kept


def test_the_quiet_filter_comes_before_the_redaction() -> None:
    redact_tokens_in_server_logs()
    for name in LOGGERS:
        kinds = [type(each) for each in logging.getLogger(name).filters]
        assert kinds.count(QuietLiveFeed) == 1
        assert kinds.index(QuietLiveFeed) < kinds.index(RedactTokens)
