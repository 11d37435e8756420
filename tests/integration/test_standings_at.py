"""The standings at any moment of the day (issue 18, part 2), on SQLite and PostgreSQL:
`GET /api/tournaments/{tid}/standings?at=TIME` replays the stored log up to that moment, the
same answer as `replay_lines(until=...)` of the exported log, and refuses a bad `at` with a
sentence naming the field."""

from __future__ import annotations

import json
import pickle
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from app.domain.log import format_time
from app.domain.replay import replay_lines, standings_report
from app.services import history
from app.services.store import TournamentStore
from tests.integration.judging_setup import (
    Setup,
    club_opening,
    hand,
    open_tournament,
    post,
    self_draw,
)

CLUB_LOG = Path(__file__).resolve().parents[2] / "examples" / "club.jsonl"
START = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)


def dated_club() -> list[str]:
    """examples/club.jsonl with the times a server stamps: the opening at 09:00, then each
    later line ten minutes after the one before (hands, the penalty, the round's end)."""
    lines = []
    moment = START
    for text in CLUB_LOG.read_text(encoding="utf-8").splitlines():
        line = json.loads(text)
        if line["type"] in ("hand", "penalty", "round_end", "seating") and len(lines) > 12:
            moment += timedelta(minutes=10)
        lines.append(json.dumps({**line, "at": format_time(moment)}))
    return lines


@pytest.fixture
def dated(store: TournamentStore) -> int:
    return store.import_log(dated_club()).tournament_id


def at(client: TestClient, tid: int, moment: str, query: str = "") -> Any:
    return client.get(f"/api/tournaments/{tid}/standings?at={quote(moment)}{query}")


def oracle(lines: list[str], moment: datetime, round_number: int) -> list[dict[str, Any]]:
    """The standings of the log as it stood at `moment`, replayed from its first line."""
    tournament = replay_lines(lines, until=moment)
    state = tournament.rounds[round_number]
    return standings_report(tournament.standings(round_number), state.format.advance)["standings"]


def test_every_moment_of_the_day_is_the_log_replayed_up_to_it(
    client: TestClient, store: TournamentStore, dated: int
) -> None:
    lines = store.export(dated)
    # every ten minutes of the day and the minute after each, in no order (a slider jumps)
    moments = [START + timedelta(minutes=minutes) for minutes in range(0, 130, 5)]
    for moment in [*moments[::-1], *moments[::2]]:
        answer = at(client, dated, format_time(moment))
        assert answer.status_code == 200, answer.text
        body = answer.json()
        (shown,) = body["rounds"]
        expected = replay_lines(lines, until=moment).current_round.number
        assert shown["round"] == expected, moment
        assert shown["standings"] == oracle(lines, moment, expected), moment
        assert body["at"] == format_time(moment)
        assert (body["first_time"], body["last_time"]) == (
            "2026-11-29T09:00:00Z",
            "2026-11-29T11:00:00Z",
        )


def test_the_first_hand_and_not_the_second(client: TestClient, dated: int) -> None:
    # 09:10 ami's 30 on bo's discard (rule HS-2: +90, -40, -25, -25); 09:20 cleo's 8
    rows = {
        row["player"]: row["total"]
        for row in at(client, dated, "2026-11-29T09:15:00Z").json()["rounds"][0]["standings"]
    }
    assert (rows["ami"], rows["bo"], rows["cleo"], rows["eun"]) == ("90", "-40", "-25", "0")


def test_a_moment_before_the_tournament_gives_it_as_declared(
    client: TestClient, dated: int
) -> None:
    body = at(client, dated, "2026-11-29T08:59:59Z").json()
    assert body["lines"] == 1  # the tournament's own line
    assert body["rounds"] == [{**body["rounds"][0], "round": 1, "standings": []}]
    assert body["final_ranking"] == []


def test_a_future_moment_gives_now(client: TestClient, dated: int) -> None:
    now = client.get(f"/api/tournaments/{dated}/standings").json()
    later = at(client, dated, "2099-01-01T00:00:00Z").json()
    assert later["rounds"] == now["rounds"] and later["version"] == now["version"]
    assert later["final_ranking"] == now["final_ranking"]
    assert datetime.fromisoformat(later["at"]) <= datetime.now(UTC)
    # without `at`, the answer is as it always was: none of the slider's fields
    assert "at" not in now and "lines" not in now


def test_an_earlier_round_at_a_moment(client: TestClient, dated: int) -> None:
    # round 1 ended at 10:20 (the eighth timed line after the opening); at 10:35 round 2 is
    # played, and round 1's standings are its final ones
    body = at(client, dated, "2026-11-29T10:35:00Z", "&round=1").json()
    assert [r["round"] for r in body["rounds"]] == [1] and body["rounds"][0]["ended"]
    refused = at(client, dated, "2026-11-29T09:30:00Z", "&round=2")
    assert refused.status_code == 409 and refused.json()["field"] == "round"


def test_hands_entered_live_are_placed_at_their_time(
    client: TestClient, store: TournamentStore
) -> None:
    club: Setup = open_tournament(store, club_opening())
    before = datetime.now(UTC)
    answer = post(client, club, "hands", hand(1, 1, self_draw("ami", 10)), key="at-1")
    assert answer.status_code == 201, answer.text
    after = datetime.now(UTC) + timedelta(seconds=1)
    then = at(client, club.tid, format_time(before - timedelta(seconds=1))).json()
    now = at(client, club.tid, format_time(after)).json()
    totals = {row["player"]: row["total"] for row in now["rounds"][0]["standings"]}
    assert totals["ami"] == "30"
    # the imported opening carries no times: it is there at any moment, the hand is not yet
    assert {row["total"] for row in then["rounds"][0]["standings"]} == {"0"}


@pytest.mark.parametrize(
    ("case", "moment"),
    [
        ("not a time", "yesterday"),
        ("no offset", "2026-11-29T09:00:00"),  # a hall, a server and a reader: other zones
        ("out of the years of a tournament", "1900-01-01T00:00:00Z"),
        ("not a date", "2026-13-45T09:00:00Z"),
        ("too long", "2026-11-29T09:00:00Z" + "0" * 60),
        ("empty", ""),
    ],
)
def test_a_bad_moment_is_refused_naming_the_field(
    client: TestClient, dated: int, case: str, moment: str
) -> None:
    answer = at(client, dated, moment)
    assert answer.status_code == 422, (case, answer.text)
    problem = answer.json()
    assert problem["field"] == "at", (case, problem)
    assert problem["detail"], case


def test_an_offset_sent_unescaped_reads_as_sent(client: TestClient, dated: int) -> None:
    # "+09:00" typed into an address reaches the server as " 09:00"
    answer = client.get(f"/api/tournaments/{dated}/standings?at=2026-11-29T18:15:00+09:00")
    assert answer.status_code == 200, answer.text
    assert answer.json()["at"] == "2026-11-29T09:15:00Z"


def test_no_such_tournament(client: TestClient) -> None:
    answer = client.get("/api/tournaments/987654/standings?at=2026-11-29T09:00:00Z")
    assert answer.status_code == 404


def test_a_phone_asks_for_the_leaders_and_its_players_only(client: TestClient, dated: int) -> None:
    """The spectators' time slider (issue 18) asks for a page, not the field: `top` keeps the
    first places, `players` the followed ones, with their names; the rows as without them."""
    moment = "2026-11-29T09:15:00Z"
    full = at(client, dated, moment).json()["rounds"][0]["standings"]
    body = at(client, dated, moment, "&top=2&players=eun,cleo").json()
    kept = body["rounds"][0]["standings"]
    assert kept == [row for row in full if row["position"] <= 2 or row["player"] in ("eun", "cleo")]
    assert set(body["players"]) == {row["player"] for row in kept}
    assert body["players"]["ami"]["name"] == "Ami Sato"
    # without `at` too; and nothing is trimmed or named without either
    now = client.get(f"/api/tournaments/{dated}/standings?top=1").json()
    assert [row["position"] for row in now["rounds"][0]["standings"]] == [1]
    assert "players" not in client.get(f"/api/tournaments/{dated}/standings").json()


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("&top=0", "top"),
        ("&top=101", "top"),
        ("&players=" + ",".join(f"p{n}" for n in range(21)), "players"),
        ("&players=ami,,bo", "players"),
    ],
)
def test_a_page_out_of_bounds_is_refused_naming_the_field(
    client: TestClient, dated: int, query: str, field: str
) -> None:
    answer = at(client, dated, "2026-11-29T09:15:00Z", query)
    assert answer.status_code == 422, answer.text
    assert field in json.dumps(answer.json())


def test_the_snapshots_kept_for_moments_are_bounded_and_the_answers_stay_exact(
    client: TestClient, store: TournamentStore, dated: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 32: a reader jumping to moment after moment must not grow the server without end:
    the pickled copies of a tournament are kept within CHECKPOINT_BYTES, the least recently
    used dropped first, and a moment after a dropped one is still the log replayed up to it."""
    monkeypatch.setattr(history, "CHECKPOINT", 4)  # a copy every 4 lines of the club's log
    monkeypatch.setattr(history, "ANSWERS", 1)  # every moment replayed, none answered from memory
    lines = store.export(dated)
    largest = len(pickle.dumps(replay_lines(lines), pickle.HIGHEST_PROTOCOL))  # the last copy
    monkeypatch.setattr(history, "CHECKPOINT_BYTES", 2 * largest)
    first = at(client, dated, "2026-11-29T11:00:00Z")  # every line: a copy every 4
    assert first.status_code == 200
    kept = history._histories[client.app_state["store"]][dated]
    assert 1 <= len(kept.checkpoints) < len(lines) // 4  # the older copies were dropped
    moments = [START + timedelta(minutes=minutes) for minutes in range(0, 130, 5)]
    for moment in [*moments[::-1], *moments[::3]]:  # within SCOREBOARD_MOMENTS_PER_ADDRESS
        answer = at(client, dated, format_time(moment))
        assert answer.status_code == 200, answer.text
        (shown,) = answer.json()["rounds"]
        assert shown["standings"] == oracle(lines, moment, shown["round"]), moment
        assert kept.checkpoint_bytes == sum(map(len, kept.checkpoints.values()))
        assert kept.checkpoint_bytes <= 2 * largest
