"""What the hand-submission benchmark and the crash test share: a round 1 ready for hands,
the tournament and its table tokens in a database, and the server as a real process.

    round_one = RoundOne.generate(players=1024, seed=7)   # registrations, draw, seatings
    tid = import_log(url, round_one.setup_lines, tmp_dir) # `scoreboard import`
    tokens = issue_tokens(url, tid, round_one.tables)     # what `scoreboard token` does
    with Server(url, port, log_path) as server:           # `scoreboard serve`, /api/health
        ...
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import sqlalchemy

from app.db.engine import make_engine, migrate, normalize_url
from app.services.store import TournamentStore
from bench.generate import Options, generate

ROOT = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"
# Lines a judge's tablet sends rather than the organizer's log (or that need a hand first).
TABLE_LINES = {"hand", "void", "penalty", "deal", "round_end"}

Hand = dict[str, Any]


@dataclass(frozen=True)
class RoundOne:
    """A generated round 1, split into the organizer's log and the judges' hands."""

    setup_lines: list[str]  # tournament, registrations, draw, seatings
    hands: dict[int, list[Hand]]  # table -> the `hand` fields of the log, in entry order

    @staticmethod
    def generate(players: int, seed: int, format: str | dict[str, Any] = "wsom2008") -> RoundOne:
        options = Options(players=players, seed=seed, format=format, until_round=1, leave_open=True)
        setup: list[str] = []
        first_results: dict[tuple[int, int, int], Hand] = {}
        for text in generate(options):
            line = json.loads(text)
            if line["type"] not in TABLE_LINES:
                setup.append(text)
            elif line["type"] == "hand":
                key = (line["table"], line["segment"], line["hand"])
                # The first entry of a hand: a correction or a re-entry after a void only
                # changes the result, and every generated result is valid.
                first_results.setdefault(key, line["result"])
        hands: dict[int, list[Hand]] = {}
        for (table, segment, hand), result in sorted(first_results.items()):
            hands.setdefault(table, []).append(
                {"round": 1, "segment": segment, "table": table, "hand": hand, "result": result}
            )
        return RoundOne(setup, hands)

    @property
    def tables(self) -> list[int]:
        return sorted(self.hands)


def import_log(database_url: str, lines: list[str], folder: Path) -> int:
    """What `scoreboard import LOG` does, as an organizer runs it: the new tournament's id.
    The store call the command makes, in this process: a process per import would spend
    a second or more starting up (issue 15); the command itself is tested on its own
    (tests/integration/test_tokens_cli.py, test_ariari_api.py). The log is kept in `folder`."""
    log = folder / "round-1-setup.jsonl"
    log.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    migrate(database_url)
    engine = make_engine(database_url)
    try:
        return TournamentStore(engine).import_log(lines).tournament_id
    finally:
        engine.dispose()


def issue_tokens(database_url: str, tournament_id: int, tables: list[int]) -> dict[int, str]:
    """One bearer token per table, through the store call that `scoreboard token` makes
    (one process per token would spend over a second each starting up)."""
    migrate(database_url)
    engine = make_engine(database_url)
    try:
        store = TournamentStore(engine)
        return {table: store.issue_token(tournament_id, table) for table in tables}
    finally:
        engine.dispose()


def reset_postgres(url: str) -> None:
    """An empty public schema, so what runs next starts from the migrations (the tests'
    databases, bench/outputs.py's)."""
    engine = sqlalchemy.create_engine(normalize_url(url), poolclass=sqlalchemy.NullPool)
    try:
        with engine.begin() as connection:
            connection.exec_driver_sql("DROP SCHEMA IF EXISTS public CASCADE")
            connection.exec_driver_sql("CREATE SCHEMA public")
    finally:
        engine.dispose()


def in_own_schema(url: str, schema: str) -> str:
    """A PostgreSQL URL whose tables live in `schema` (libpq `options` sets the search path),
    so that a run is not disturbed by other users of the same database resetting `public`.
    The schema is dropped and made again, empty; the server migrates it at start."""
    engine = sqlalchemy.create_engine(normalize_url(url))
    try:
        with engine.begin() as connection:
            connection.exec_driver_sql(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
            connection.exec_driver_sql(f"CREATE SCHEMA {schema}")
    finally:
        engine.dispose()
    separator = "&" if "?" in url else "?"
    return f"{url}{separator}options=-csearch_path%3D{schema}"


def stop_process(process: subprocess.Popen[bytes], grace: float = 10.0) -> None:
    """SIGTERM, and SIGKILL if it has not exited within `grace` seconds."""
    process.terminate()
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


class Server:
    """`scoreboard serve` as a real process on one database and port; its output goes to a
    file (a pipe nobody reads would fill up and stall the server)."""

    def __init__(
        self,
        database_url: str,
        port: int,
        log_path: Path,
        options: Sequence[str] = (),
        environment: Mapping[str, str] | None = None,
    ) -> None:
        self.database_url = database_url
        self.port = port
        self.log_path = log_path
        self.options = tuple(options)  # more of `scoreboard serve`'s options ("--workers", "2")
        self.environment = dict(environment or {})  # more settings (SCOREBOARD_...)
        self.base_url = f"http://{HOST}:{port}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, ready_within: float = 30.0) -> None:
        """Start the process and wait for /api/health: it migrates before it serves."""
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "app.cli",
                    "serve",
                    "--host",
                    HOST,
                    "--port",
                    str(self.port),
                    *self.options,
                ],
                cwd=ROOT,
                env={
                    **os.environ,
                    **self.environment,
                    "SCOREBOARD_DATABASE_URL": self.database_url,
                },
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + ready_within
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited with {self.process.returncode}: {self.log}")
            try:
                if httpx.get(f"{self.base_url}/api/health", timeout=1.0).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"the server did not answer /api/health in {ready_within} s: {self.log}")

    def kill(self) -> None:
        """SIGKILL: no shutdown, no cleanup, requests in flight die with it."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    def freeze(self) -> None:
        """SIGSTOP: the process stays alive with its requests half done, as in a VM pause
        or a swap storm, and answers nothing until `thaw`."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGSTOP)

    def thaw(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGCONT)

    def stop(self, grace: float = 10.0) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.thaw()  # a stopped process would not act on SIGTERM
        stop_process(self.process, grace)

    @property
    def log(self) -> str:
        text = self.log_path.read_text(encoding="utf-8", errors="replace")
        return text[-3000:]

    def __enter__(self) -> Server:
        self.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()


def hand_headers(token: str, key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}", "Idempotency-Key": key}


def hands_url(base_url: str, tournament_id: int) -> str:
    return f"{base_url}/api/tournaments/{tournament_id}/hands"
