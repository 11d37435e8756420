"""An address guessing tokens does not write the server's log full (issue 14): once it is
over its failed sign-ins, its guesses are answered 429 before the app, without an
access-log line each, on a connection the server keeps; the log says once that it is
refused. `scoreboard serve` as a real process, its access log on."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from judging_setup import club_opening, hand, self_draw

from bench.load import Server, free_port, import_log, issue_tokens

FAILURES = 5
GUESSES = 40


def test_a_guessing_address_gets_one_warning_not_a_line_for_each_guess(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SCOREBOARD_AUTH_FAILURES_PER_ADDRESS", f"{FAILURES}/minute")
    tid = import_log(database_url, club_opening(), tmp_path)
    token = issue_tokens(database_url, tid, [1])[1]
    with Server(database_url, free_port(), tmp_path / "server.log") as server:
        url = f"{server.base_url}/api/tournaments/{tid}/hands"
        with httpx.Client() as client:
            answers = [
                client.post(
                    url,
                    json=hand(1, 1, self_draw("ami", 10)),
                    headers={"Authorization": f"Bearer guess-{n}", "Idempotency-Key": f"g{n}"},
                )
                for n in range(FAILURES + GUESSES)
            ]
            # The judge at the same address (a hall behind NAT) goes on.
            entered = client.post(
                url,
                json=hand(1, 1, self_draw("ami", 10)),
                headers={"Authorization": f"Bearer {token}", "Idempotency-Key": "judge"},
            )
        log = server.log
    statuses = [answer.status_code for answer in answers]
    assert statuses == [401] * FAILURES + [429] * GUESSES
    assert entered.status_code == 201, entered.text
    last = answers[-1]
    assert 1 <= int(last.headers["Retry-After"]) <= 60
    assert "SCOREBOARD_AUTH_FAILURES_PER_ADDRESS" in last.json()["detail"]
    assert last.headers.get("connection") != "close"  # no new connection for each guess

    access = [line for line in log.splitlines() if f"/api/tournaments/{tid}/hands" in line]
    # The failures, the app's first 429 (the one that blocks the address), and the judge's
    # hand: never the guesses refused after it.
    assert sum(" 401" in line for line in access) == FAILURES
    assert sum(" 429" in line for line in access) == 1
    assert sum(" 201" in line for line in access) == 1
    warnings = [line for line in log.splitlines() if "is over its failed sign-ins" in line]
    assert len(warnings) == 1, warnings
    assert "SCOREBOARD_AUTH_FAILURES_PER_ADDRESS" in warnings[0]
