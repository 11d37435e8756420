"""No secret reaches a line `scoreboard serve` writes, however a client spells it (issue 32,
item 4): a real process with secrets of its own, in both log formats, sent the hostile
probe's requests (a judge's token under a name spelt otherwise, the admin token as `?key=`
and in the path, percent-encoded, the metrics token, a token as the request's id)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest
from judging_setup import club_opening
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from bench.load import Server, free_port, import_log

ADMIN = "Zq3-vH8pLx_T0mW7cR2bN5kY9dF4jS6gA1eU8oI3wQe"  # as settings.MAKE_A_TOKEN makes one
METRICS = "MetricsScraper-7Hq2Lp9Vx4Tz1Nb6Rd3Ws8Kf5"
CHECK_IN = "CheckInSlips-k4Q9vR2mX7pL1zT6bN3wH8dF5s"
UNKNOWN = "Qm7xKd2LpZ8rTw4NvB1cYh6JfG0sEaUi"  # token-shaped, issued to nobody
UUID = "0f8fad5b-d9cb-469f-a165-70867728950e"


def every_other_encoded(secret: str) -> str:
    return "".join(f"%{ord(char):02X}" if n % 2 else char for n, char in enumerate(secret))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("database_url", "log_format"),
    [("sqlite", "text"), ("sqlite", "json")],
    indirect=["database_url"],
)
def test_no_secret_reaches_the_servers_output_however_it_is_spelt(
    database_url: str, tmp_path: Path, log_format: str
) -> None:
    tid = import_log(database_url, club_opening(), tmp_path)
    log_path = tmp_path / "server.log"
    secrets = {
        "SCOREBOARD_ADMIN_TOKEN": ADMIN,
        "SCOREBOARD_METRICS_TOKEN": METRICS,
        "SCOREBOARD_CHECKIN_SECRET": CHECK_IN,
        "SCOREBOARD_LOG_FORMAT": log_format,
    }
    admin = {"Authorization": f"Bearer {ADMIN}"}

    with Server(database_url, free_port(), log_path, environment=secrets) as server:
        base = server.base_url
        issued = httpx.post(
            f"{base}/api/tournaments/{tid}/tokens", json={"table": 1}, headers=admin
        )
        assert issued.status_code in (200, 201), issued.text
        table = issued.json()["token"]
        probes = [
            f"/judge?%74oken={table}",
            f"/judge?tok%65n={table}",
            f"/judge?t={table}",
            f"/judge?token+={table}",
            f"/judge/{table}",
            f"/admin?key={ADMIN}",
            f"/admin/{ADMIN}",
            f"/admin/{every_other_encoded(ADMIN)}",
            f"/admin?key={quote(every_other_encoded(ADMIN), safe='')}",  # encoded twice
            f"/metrics?token={METRICS}&m={METRICS}",
            f"/p/1/check-in?c={CHECK_IN}",
            f"/judge?t={UNKNOWN}",
        ]
        for probe in probes:
            httpx.get(f"{base}{probe}")  # whatever the answer: it is the line that counts
        scraped = httpx.get(f"{base}/metrics", headers={"Authorization": f"Bearer {METRICS}"})
        assert scraped.status_code == 200
        ids = {
            sent: httpx.get(f"{base}/api/health", headers={"X-Request-Id": sent}).headers[
                "x-request-id"
            ]
            for sent in (table, ADMIN, UNKNOWN, UUID)
        }
        with pytest.raises(InvalidStatus):
            connect(f"ws://{base.removeprefix('http://')}/ws/nowhere/{table}?t={ADMIN}")

    written = log_path.read_text(encoding="utf-8", errors="replace")
    for secret in (table, ADMIN, METRICS, CHECK_IN, UNKNOWN, every_other_encoded(ADMIN)):
        assert secret not in written, f"{secret} is in the server's output:\n{written}"
    assert ids[UUID] == UUID  # a proxy's id is kept ...
    for sent in (table, ADMIN, UNKNOWN):  # ... and one that looks like a secret is not
        assert re.fullmatch("[0-9a-f]{16}", ids[sent]), ids
    if log_format == "text":
        # uvicorn's access log was on: a line for every probe, each with its mask
        assert written.count("[redacted]") >= len(probes)
        assert '"GET /admin?key=[redacted] HTTP/1.1"' in written
        assert '"GET /judge?t=[redacted] HTTP/1.1"' in written
    else:
        lines = [json.loads(line) for line in written.splitlines() if line.startswith("{")]
        requests = [line for line in lines if line.get("event") == "request"]
        assert len(requests) >= len(probes) + len(ids) + 2
        assert UUID in {line["request_id"] for line in requests}
    assert "/ws/nowhere/[redacted]?t=[redacted]" in written
