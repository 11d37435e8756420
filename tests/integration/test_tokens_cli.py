"""`scoreboard token` issues, lists, reissues and revokes judges' table tokens (issue 14,
CONTRACT.md section 2 extended), and `scoreboard serve` refuses a guessable production admin
token without printing it: real processes, as an organizer runs them."""

from __future__ import annotations

import os
import re
import secrets
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cli_runner import scoreboard, scoreboard_process
from in_process import IN_PROCESS_TIMEOUTS
from judging_setup import club_opening

from app.db.engine import make_engine
from app.services.store import TournamentStore
from app.settings import DEVELOPMENT_ADMIN_TOKEN


@pytest.fixture
def env(database_url: str) -> dict[str, str]:
    return {**os.environ, "SCOREBOARD_DATABASE_URL": database_url}


@pytest.fixture
def tid(env: dict[str, str], tmp_path: Path) -> int:
    log = tmp_path / "club.jsonl"
    log.write_text("".join(line + "\n" for line in club_opening()), encoding="utf-8")
    imported = scoreboard("import", log, env=env)
    assert imported.returncode == 0, imported.stderr
    return int(imported.stdout)


def live(database_url: str, tid: int) -> list[tuple[int, int]]:
    engine = make_engine(database_url, IN_PROCESS_TIMEOUTS)
    try:
        return [(t.id, t.table) for t in TournamentStore(engine).live_tokens(tid)]
    finally:
        engine.dispose()


def test_token_prints_the_token_alone_and_says_when_it_expires(
    env: dict[str, str], tid: int, database_url: str
) -> None:
    issued = scoreboard("token", str(tid), "--table", "2", env=env)

    assert issued.returncode == 0, issued.stderr
    token = issued.stdout.strip()
    assert len(issued.stdout.splitlines()) == 1 and len(token) >= 32
    assert re.search(r"table 2, expires \d{4}-\d\d-\d\d \d\d:\d\d UTC", issued.stderr)
    assert token not in issued.stderr
    assert [table for _, table in live(database_url, tid)] == [2]


def test_token_takes_an_expiry_and_a_replace(
    env: dict[str, str], tid: int, database_url: str
) -> None:
    first = scoreboard("token", str(tid), "--table", "1", env=env)
    until = (datetime.now(UTC) + timedelta(hours=5)).strftime("%Y-%m-%dT%H:%MZ")

    second = scoreboard("token", str(tid), "--table", "1", "--expires", until, "--replace", env=env)

    assert first.returncode == second.returncode == 0, second.stderr
    assert f"expires {until[:10]} {until[11:16]} UTC" in second.stderr
    assert "revoked token" in second.stderr
    assert len(live(database_url, tid)) == 1
    listed = scoreboard("token", str(tid), "--list", env=env)
    assert listed.stdout.count("table 1") == 1 and "live" in listed.stdout


def test_token_revoke_by_table_or_by_id(env: dict[str, str], tid: int, database_url: str) -> None:
    for table in (1, 1, 2):
        assert scoreboard("token", str(tid), "--table", str(table), env=env).returncode == 0
    table_2_id = next(i for i, table in live(database_url, tid) if table == 2)

    by_table = scoreboard("token", str(tid), "--revoke", "--table", "1", env=env)
    assert by_table.returncode == 0, by_table.stderr
    assert by_table.stdout.count("revoked token") == 2
    assert [table for _, table in live(database_url, tid)] == [2]

    by_id = scoreboard("token", str(tid), "--revoke", "--id", str(table_2_id), env=env)
    assert by_id.returncode == 0, by_id.stderr
    assert live(database_url, tid) == []
    unknown = scoreboard("token", str(tid), "--revoke", "--id", "9999", env=env)
    assert unknown.returncode == 1 and "no table token with id 9999" in unknown.stderr
    neither = scoreboard("token", str(tid), "--revoke", env=env)
    assert neither.returncode == 2 and "--table N" in neither.stderr


def test_token_refuses_an_expiry_in_the_past_naming_the_rule(env: dict[str, str], tid: int) -> None:
    refused = scoreboard(
        "token", str(tid), "--table", "1", "--expires", "2020-01-01T00:00Z", env=env
    )

    assert refused.returncode == 2
    assert "expires_at" in refused.stderr and "later than now" in refused.stderr
    assert "TK-1" in refused.stderr


@pytest.mark.parametrize("token", ["a" * 32, "password1234" * 3, DEVELOPMENT_ADMIN_TOKEN])
def test_serve_refuses_a_guessable_production_admin_token_without_printing_it(
    token: str,
) -> None:
    # A real process: a server that wrongly started would not return.
    refused = scoreboard_process(
        "serve",
        env={
            **os.environ,
            "SCOREBOARD_ENVIRONMENT": "production",
            "SCOREBOARD_ADMIN_TOKEN": token,
        },
    )

    output = refused.stdout + refused.stderr
    assert refused.returncode != 0
    assert "SCOREBOARD_ADMIN_TOKEN" in output
    assert "secrets.token_urlsafe(32)" in output
    assert "input_value" not in output
    if token != DEVELOPMENT_ADMIN_TOKEN:  # the known default may be named: no secret
        assert token[:6] not in output and token[-6:] not in output


def test_serve_starts_with_a_token_made_as_the_advice_says(tmp_path: Path) -> None:
    # migrate reads the settings as serve does, and stops without serving.
    made = secrets.token_urlsafe(32)
    started = scoreboard(
        "migrate",
        env={
            **os.environ,
            "SCOREBOARD_ENVIRONMENT": "production",
            "SCOREBOARD_ADMIN_TOKEN": made,
            "SCOREBOARD_DATABASE_URL": f"sqlite:///{tmp_path / 'scoreboard.db'}",
        },
    )

    assert started.returncode == 0, started.stderr
    assert made not in started.stdout + started.stderr
