"""Every page, feed, endpoint and live-channel snapshot of a generated tournament, to files.

A refactor that must not change what anyone sees runs this before and after, and compares:

    python -m bench.outputs /tmp/before
    python -m bench.outputs /tmp/after
    diff -r /tmp/before /tmp/after

It generates a 520-player WSOM 2008 log (bench/generate.py) with a schedule, cuts it at a
moment in round 2's second half (so that clocks run, tables play and some have finished),
imports it with the small examples (Ari Ari and the club event) into a fresh database, and
fetches everything a client can GET with the server's clock frozen at that moment (rule
CL-6: the server is the only clock). With `--postgres URL` the database is that PostgreSQL
database, whose public schema is dropped first: give it one of your own.
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from app.services.store import TournamentStore
from app.settings import Settings
from app.web import create_app
from bench.generate import Options, generate
from bench.load import reset_postgres

ADMIN_TOKEN = "outputs-admin-token-0123456789abcdef0123"
NOW = datetime(2026, 7, 1, 17, 0, 0, tzinfo=UTC)
SCHEDULE_START = "2026-07-01T09:00:00+00:00"
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
FEEDS = ("standings", "top", "cut", "tables", "clocks")
FORMATS = ("json", "csv", "xml")
PLAYER_STEP = 13  # every 13th registered player, and every substitute, gets its own pages


def log_at(lines: list[str], now: datetime) -> list[str]:
    """The log as it stood at `now`: every line up to the first one entered after it."""
    kept = []
    for line in lines:
        at = json.loads(line).get("at")
        if at is not None and datetime.fromisoformat(at.replace("Z", "+00:00")) > now:
            break
        kept.append(line)
    return kept


def file_name(path: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.=-]+", "_", path.strip("/")) or "index"


class Fetcher:
    def __init__(self, client: TestClient, out: Path) -> None:
        self.client = client
        self.out = out
        self.headers = {"Authorization": f"Bearer {ADMIN_TOKEN}"}

    def get(self, path: str, *, admin: bool = False) -> Any:
        answer = self.client.get(path, headers=self.headers if admin else None)
        body = f"{answer.status_code} {answer.headers.get('content-type')}\n".encode()
        (self.out / file_name(path)).write_bytes(body + answer.content)
        return answer

    def live(self, tournament_id: int, channels: list[str]) -> None:
        """Each channel's snapshot as the live feed sends it on connect (CONTRACT §3)."""
        for start in range(0, len(channels), 60):
            chunk = channels[start : start + 60]
            path = f"/ws/tournaments/{tournament_id}?channels={','.join(chunk)}&format=text"
            with self.client.websocket_connect(path) as socket:
                waiting = set(chunk)
                while waiting:
                    message = json.loads(socket.receive_text())
                    if message["type"] == "hello":
                        (self.out / file_name(f"ws/{tournament_id}/hello-{start}")).write_text(
                            json.dumps(message, ensure_ascii=False)
                        )
                    if message["type"] == "error":  # channels the tournament does not have
                        waiting.difference_update(message.get("refused", ()))
                        name = file_name(f"ws/{tournament_id}/error-{start}")
                        (self.out / name).write_text(json.dumps(message, ensure_ascii=False))
                    if message["type"] != "snapshot":
                        continue
                    waiting.discard(message["channel"])
                    name = file_name(f"ws/{tournament_id}/{message['channel']}")
                    (self.out / name).write_text(json.dumps(message, ensure_ascii=False))


def players_of(lines: list[str]) -> list[str]:
    players = [json.loads(line) for line in lines if '"type":"player"' in line]
    return [
        p["id"]
        for index, p in enumerate(players)
        if p.get("substitute") or index % PLAYER_STEP == 0
    ]


def tables_of(lines: list[str]) -> list[int]:
    return sorted({json.loads(line)["table"] for line in lines if '"type":"seating"' in line})


def fetch_tournament(fetch: Fetcher, tid: int, lines: list[str]) -> None:
    rounds = sorted({json.loads(line)["round"] for line in lines if '"round"' in line})
    players = players_of(lines)
    tables = tables_of(lines)
    api = f"/api/tournaments/{tid}"
    for path in (api, f"{api}/standings", f"{api}/tables", f"{api}/clocks", f"{api}/log"):
        fetch.get(path)
    for number in rounds:
        fetch.get(f"{api}/standings?round={number}")
        fetch.get(f"{api}/tables?round={number}")
    for table in tables[:: max(1, len(tables) // 12)]:
        fetch.get(f"{api}/tables/{table}/audit")
    for player in [*players, "nobody"]:
        fetch.get(f"{api}/players/{player}")
        fetch.get(f"/p/{player}?t={tid}")
        fetch.get(f"/p/{player}/chart?t={tid}")
        fetch.get(f"/overlay/{tid}/player/{player}")
        for extension in FORMATS:
            fetch.get(f"/feeds/{tid}/player-{player}.{extension}")
    for name in FEEDS:
        for extension in FORMATS:
            fetch.get(f"/feeds/{tid}/{name}.{extension}")
    for path in (
        f"/?t={tid}",
        f"/?t={tid}&q=a",
        f"/search?t={tid}&q=ch",
        f"/hall/{tid}",
        f"/hall/{tid}/players.json",
        f"/overlay/{tid}/top",
        f"/overlay/{tid}/top?n=16&bg=green",
        f"/overlay/{tid}/cut",
        f"/overlay/{tid}/clock",
        f"/overlay/{tid}/clock?table=1",
        f"/overlay/{tid}/clock?group=A",
    ):
        fetch.get(path)
    for table in tables:
        fetch.get(f"/overlay/{tid}/table/{table}")
    admin = f"/api/admin/tournaments/{tid}"
    fetch.get(f"{admin}/tokens", admin=True)
    for path in (
        f"/admin/{tid}",
        f"/admin/{tid}/state",
        f"/admin/{tid}/links",
        f"/admin/{tid}/results",
        f"/admin/{tid}/results.csv",
    ):
        fetch.get(path, admin=True)
    for number in rounds:
        fetch.get(f"/admin/{tid}/slips/{number}", admin=True)
        fetch.get(f"/admin/{tid}/slips/{number}.csv", admin=True)
    channels = ["standings", "clocks"]
    channels += [f"table:{table}" for table in tables]
    channels += [f"player:{player}" for player in [*players, "nobody"]]
    fetch.live(tid, channels)


def logs() -> Iterator[list[str]]:
    whole = generate(
        Options(players=520, seed=15, until_round=2, leave_open=True, schedule_start=SCHEDULE_START)
    )
    yield log_at(whole, NOW)
    yield (EXAMPLES / "club.jsonl").read_text().splitlines()
    yield (EXAMPLES / "ariari.jsonl").read_text().splitlines()


def run(out: Path, database_url: str) -> None:
    out.mkdir(parents=True, exist_ok=True)
    settings = Settings(
        database_url=database_url,
        admin_token=ADMIN_TOKEN,  # type: ignore[arg-type]
        hall_timezone="UTC",
        public_url="http://scoreboard.example",
        # A loaded machine stalls an import's transaction for seconds between statements
        db_idle_in_transaction_timeout=120.0,
    )
    with TestClient(create_app(settings)) as client:
        store: TournamentStore = client.app_state["store"]
        store.clock = lambda: NOW
        client.app_state["hub"].clock = lambda: NOW
        fetch = Fetcher(client, out)
        ids = []
        for lines in logs():
            ids.append(store.import_log(lines).tournament_id)
            fetch_tournament(fetch, ids[-1], lines)
        for path in ("/", "/api/tournaments", "/openapi.json", "/judge", "/judge/sw.js"):
            fetch.get(path)
        fetch.get("/spectator-sw.js")
        fetch.get("/admin", admin=True)
        fetch.get("/admin/session", admin=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("out", type=Path, help="the directory the answers go to")
    parser.add_argument("--postgres", help="a PostgreSQL URL (its public schema is dropped)")
    options = parser.parse_args(argv)
    if options.postgres:
        reset_postgres(options.postgres)
        run(options.out, options.postgres)
        return
    with tempfile.TemporaryDirectory() as folder:
        run(options.out, f"sqlite:///{Path(folder) / 'scoreboard.db'}")


if __name__ == "__main__":
    main()
