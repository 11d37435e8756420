"""No table token reaches a log line (issue 14): `scoreboard serve` as a real process, its
access log on, its stdout and stderr read after a day's token traffic: an old card's
`/judge?token=...` page load, bearer requests, a wrong token, a revocation by another
process (`scoreboard token --revoke`) and the revoked token's next request."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import cli_runner
import httpx
import pytest
from judging_setup import club_opening, hand, self_draw
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from app.settings import DEVELOPMENT_ADMIN_TOKEN
from bench.load import Server, free_port, import_log

ADMIN = {"Authorization": f"Bearer {DEVELOPMENT_ADMIN_TOKEN}"}
WRONG_TOKEN = "Wr0ngT0ken-nobody-was-given-QZ7"


def scoreboard(database_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    return cli_runner.scoreboard(*args, env={**os.environ, "SCOREBOARD_DATABASE_URL": database_url})


# The JSON lines on SQLite alone: how a line is written does not depend on the database.
@pytest.mark.parametrize(
    ("database_url", "log_format"),
    [("sqlite", "text"), ("postgresql", "text"), ("sqlite", "json")],
    indirect=["database_url"],
)
def test_no_token_reaches_any_line_the_server_writes(
    database_url: str, tmp_path: Path, log_format: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With uvicorn's access log (text), and with the request log of JSON lines (issue 16)."""
    monkeypatch.setenv("SCOREBOARD_LOG_FORMAT", log_format)
    tid = import_log(database_url, club_opening(), tmp_path)
    issued = scoreboard(database_url, "token", str(tid), "--table", "1")
    assert issued.returncode == 0, issued.stderr
    table_1 = issued.stdout.strip()
    log_path = tmp_path / "server.log"

    with Server(database_url, free_port(), log_path) as server:
        base = server.base_url
        api = f"{base}/api/tournaments/{tid}"
        table_2 = httpx.post(f"{api}/tokens", json={"table": 2}, headers=ADMIN).json()["token"]
        judge_1 = {"Authorization": f"Bearer {table_1}"}
        # An old card: the token in the query, where the access log would keep it.
        assert httpx.get(f"{base}/judge?token={table_1}").status_code == 200
        assert httpx.get(f"{base}/judge?round=1&token={table_2}&x=y").status_code == 200
        assert httpx.get(f"{base}/judge/whoami", headers=judge_1).status_code == 200
        entered = httpx.post(
            f"{api}/hands",
            json=hand(1, 1, self_draw("ami", 10)),
            headers={**judge_1, "Idempotency-Key": "log-test-1"},
        )
        assert entered.status_code == 201, entered.text
        card = httpx.post(f"{base}/admin/{tid}/judge-card", json={"token": table_2}, headers=ADMIN)
        assert card.status_code == 200
        refused = httpx.get(
            f"{base}/judge/whoami", headers={"Authorization": f"Bearer {WRONG_TOKEN}"}
        )
        assert refused.status_code == 401
        # A token in the live feed's address too (the feed takes none, but it is logged).
        with connect(f"ws://{base.removeprefix('http://')}/ws/tournaments/{tid}?token={table_2}"):
            pass
        # A websocket to no feed is refused, and that refusal is a line (issue 16: a live feed
        # connection that opens is not, whatever its address holds).
        with pytest.raises(InvalidStatus):
            connect(f"ws://{base.removeprefix('http://')}/ws/nowhere?token={table_2}")

        # Revoked by another process: this server refuses the token on its next request.
        revoked = scoreboard(database_url, "token", str(tid), "--revoke", "--table", "1")
        assert revoked.returncode == 0, revoked.stderr
        assert "revoked token" in revoked.stdout
        after = httpx.get(f"{base}/judge/whoami", headers=judge_1)
        assert after.status_code == 401
        assert "revoked" in after.json()["detail"]
        assert table_1 not in after.text
        assert httpx.get(f"{base}/judge?token={table_1}").status_code == 200

        # The head judge's token (issue 18, part 3): issued, its card, its page, its writes.
        head = httpx.post(f"{api}/head-judge-tokens", json={}, headers=ADMIN).json()["token"]
        head_judge = {"Authorization": f"Bearer {head}"}
        assert httpx.post(
            f"{base}/admin/{tid}/judge-card", json={"token": head}, headers=ADMIN
        ).json()["head_judge"]
        assert httpx.get(f"{base}/head-judge/{tid}?token={head}").status_code == 200
        call = httpx.post(
            f"{api}/calls",
            json={"round": 1, "table": 2, "reason": "dispute"},
            headers={**head_judge, "Idempotency-Key": "log-test-call"},
        )
        assert call.status_code == 201, call.text
        assert httpx.get(f"{api}/calls", headers=head_judge).status_code == 200

    written = log_path.read_text(encoding="utf-8", errors="replace")
    if log_format == "text":
        assert '"GET /judge?token=[redacted] HTTP/1.1" 200' in written  # the access log was on
        assert "/judge?round=1&token=[redacted]&x=y" in written
        assert '"GET /judge/whoami HTTP/1.1" 401' in written
    else:
        lines = [json.loads(line) for line in written.splitlines() if line.startswith("{")]
        requests = [line for line in lines if line.get("event") == "request"]
        # one line per request: its id, route template, tournament, table, outcome and time
        (hand_line,) = [r for r in requests if r["route"].endswith("/hands")]
        assert hand_line["tournament"] == tid and hand_line["table"] == 1
        assert hand_line["status"] == 201 and hand_line["outcome"] == "ok"
        assert hand_line["ms"] > 0 and len(hand_line["request_id"]) == 16
        refusals = [r for r in requests if r["route"] == "/judge/whoami" and r["status"] == 401]
        assert len(refusals) == 2 and {r["outcome"] for r in refusals} == {"refused"}
        assert len([r for r in requests if r["route"] == "/judge"]) == 3
        assert not [line for line in written.splitlines() if line and not line.startswith("{")]
    assert "/ws/nowhere?token=[redacted]" in written
    assert f"/ws/tournaments/{tid}" not in written
    assert "connection open" not in written
    for token in (table_1, table_2, WRONG_TOKEN, head):
        assert token not in written, f"a token is in the server's output:\n{written}"
    assert table_1 not in revoked.stdout + revoked.stderr
