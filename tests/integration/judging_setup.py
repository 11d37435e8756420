"""Tournaments for the judges' API and store tests, set up through the store only.

The admin routes are being built elsewhere, so nothing here goes through them: a log is
imported with `store.import_log` and a table's token comes from `store.issue_token`.
The app under test has its own store on the same database; it catches up from the log.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from httpx import Response
from in_process import IN_PROCESS_TIMEOUTS

from app.db.engine import make_engine
from app.domain.log import parse_event
from app.domain.replay import replay_lines, report
from app.services.store import Author, TournamentStore
from bench.generate import Options, generate

CLUB_LOG = Path(__file__).resolve().parents[2] / "examples" / "club.jsonl"
# examples/club.jsonl: table 1 seats these in round 1 (group A), table 2 the others (group B)
TABLE_1 = ("ami", "bo", "cleo", "dirk")
TABLE_2 = ("eun", "finn", "gwen", "hugo")
# A small custom format: 16 players in 2 groups, 4 tables in round 1, 8 then 4 advance;
# judges fix hands more often than in life, so corrections, voids and penalties all occur.
GENERATED = Options(
    players=16,
    format={"preset": "wsom2008", "advance": [8, 4]},
    until_round=1,
    leave_open=True,
    corrections=0.08,
    voids=0.04,
    penalties=0.04,
)
TABLE_EVENTS = ("hand", "void", "penalty")
ADMIN = Author("admin")


def line(fields: dict[str, Any]) -> str:
    return json.dumps(fields, ensure_ascii=False)


def club_opening(log: Path = CLUB_LOG) -> list[str]:
    """examples/club.jsonl (or another log) up to its first hand: 8 players seated at 2
    tables, round 1 open."""
    opening = []
    for text in log.read_text(encoding="utf-8").splitlines():
        if json.loads(text)["type"] == "hand":
            break
        opening.append(text)
    return opening


@cache
def generated_log() -> tuple[str, ...]:
    """Round 1 of a generated 16-player event, played but not ended (hands included)."""
    return tuple(generate(GENERATED))


def generated_opening() -> list[str]:
    """The generated round 1 with every seating of its 4 halves, but no hand played."""
    return [text for text in generated_log() if json.loads(text)["type"] not in TABLE_EVENTS]


def generated_table_lines() -> list[str]:
    """The generated hands, corrections, voids and penalties, in the order played."""
    return [text for text in generated_log() if json.loads(text)["type"] in TABLE_EVENTS]


@dataclass(frozen=True)
class Setup:
    """One imported tournament and a judge's token for each of its tables."""

    tid: int
    tokens: dict[int, str]

    def headers(self, table: int = 1, key: str | None = None) -> dict[str, str]:
        headers = {"Authorization": f"Bearer {self.tokens[table]}"}
        if key is not None:
            headers["Idempotency-Key"] = key
        return headers

    def url(self, route: str) -> str:
        return f"/api/tournaments/{self.tid}/{route}"


def open_tournament(
    store: TournamentStore, lines: Sequence[str], tables: Sequence[int] = (1, 2)
) -> Setup:
    tid = store.import_log(lines).tournament_id
    return Setup(tid, {table: store.issue_token(tid, table) for table in tables})


def hand(
    table: int, number: int, result: dict[str, Any], *, round: int = 1, segment: int = 1
) -> dict[str, Any]:
    """The body of POST /hands: the `hand` fields of the log (CONTRACT §3)."""
    return {"round": round, "segment": segment, "table": table, "hand": number, "result": result}


def self_draw(winner: str, value: int) -> dict[str, Any]:
    return {"kind": "self_draw", "winner": winner, "value": value}


def discard(winner: str, discarder: str, value: int) -> dict[str, Any]:
    return {"kind": "discard", "winner": winner, "discarder": discarder, "value": value}


def points(**deltas: int) -> dict[str, Any]:
    return {"kind": "points", "deltas": deltas}


DRAW: dict[str, Any] = {"kind": "draw"}


def post(
    client: TestClient,
    setup: Setup,
    route: str,
    body: dict[str, Any],
    *,
    table: int = 1,
    key: str | None = None,
) -> Response:
    return client.post(setup.url(route), json=body, headers=setup.headers(table, key))


def snapshot(store: TournamentStore, tid: int) -> tuple[int, list[str]]:
    """What must not change when a request is refused: the version and the whole log."""
    return store.version(tid), store.export(tid)


def cached_report(store: TournamentStore, tid: int) -> dict[str, Any]:
    """The replay report (CONTRACT §2) of a store's cached, caught-up state."""
    return store.read(tid, lambda tournament, _: report(tournament))


def rebuilt_report(store: TournamentStore, tid: int) -> dict[str, Any]:
    return report(store.rebuild(tid))


def exported_report(store: TournamentStore, tid: int) -> dict[str, Any]:
    """The report of the exported log, replayed offline as `scoreboard replay` would."""
    return report(replay_lines(store.export(tid)))


@contextmanager
def second_store(database_url: str) -> Iterator[TournamentStore]:
    """Another store on its own engine: what a second server process sees."""
    engine = make_engine(database_url, IN_PROCESS_TIMEOUTS)
    try:
        yield TournamentStore(engine)
    finally:
        engine.dispose()


def append_line(store: TournamentStore, tid: int, text: str) -> None:
    """Append one log line's event as the organizer would (the line's own `at` dropped)."""
    store.append(tid, [parse_event(json.loads(text))], ADMIN)


class SteppingClock:
    """An injectable store clock: fixed, moved by hand (rule CL-6: the server is the clock)."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


START = datetime(2026, 7, 4, 9, 0, tzinfo=UTC)
Clock = Callable[[], datetime]
