"""`scoreboard token TID --head-judge [--revoke]` (issue 18, part 3): the head judge's token
from the command line, as real processes; it opens every table and no admin action."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from cli_runner import scoreboard
from fastapi.testclient import TestClient
from judging_setup import club_opening, hand, self_draw


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


def test_the_head_judges_token_is_issued_used_and_revoked(
    env: dict[str, str], tid: int, client: TestClient
) -> None:
    issued = scoreboard("token", str(tid), "--head-judge", env=env)
    assert issued.returncode == 0, issued.stderr
    token = issued.stdout.strip()
    assert len(issued.stdout.splitlines()) == 1 and len(token) >= 32
    assert "head judge, expires" in issued.stderr
    assert token not in issued.stderr
    head = {"Authorization": f"Bearer {token}"}

    for table, winner in ((1, "ami"), (2, "eun")):
        answer = client.post(
            f"/api/tournaments/{tid}/hands",
            json=hand(table, 1, self_draw(winner, 10)),
            headers={**head, "Idempotency-Key": f"cli-{table}"},
        )
        assert answer.status_code == 201, answer.text
    assert client.get(f"/api/tournaments/{tid}/tokens", headers=head).status_code == 401

    listed = scoreboard("token", str(tid), "--list", env=env)
    assert "head judge" in listed.stdout
    refused = scoreboard("token", str(tid), "--head-judge", "--table", "1", env=env)
    assert refused.returncode == 2 and "every table" in refused.stderr

    revoked = scoreboard("token", str(tid), "--head-judge", "--revoke", env=env)
    assert revoked.returncode == 0, revoked.stderr
    assert "revoked token" in revoked.stdout and "head judge" in revoked.stdout
    after = client.get(f"/api/tournaments/{tid}/calls", headers=head)
    assert after.status_code == 401
