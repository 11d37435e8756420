"""The server's log lines never carry a token from a query string (issue 14)."""

import logging

import pytest

from app.web.logs import LOGGERS, RedactTokens, redact, redact_tokens_in_server_logs


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
