"""The tournament store on both databases: the log is the truth, every write is one
transaction, nothing is published before it commits, and the cache is only ever what a
replay of the log gives (STYLE.md conventions 2 and 5; issue 4)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session

from app.db import queries
from app.domain.errors import IllegalMove, LogError, MalformedInput, RuleViolation
from app.domain.log import parse_event
from app.services.errors import NotFound
from app.services.store import Appended, Author, TournamentStore, token_hash
from tests.integration.judging_setup import (
    ADMIN,
    CLUB_LOG,
    START,
    SteppingClock,
    append_line,
    cached_report,
    club_opening,
    exported_report,
    generated_opening,
    generated_table_lines,
    line,
    rebuilt_report,
    second_store,
    snapshot,
)

REPO_ROOT = Path(__file__).resolve().parents[2]


def hand_event(table: int, number: int, result: dict[str, Any], key: str | None = None) -> Any:
    fields: dict[str, Any] = {
        "type": "hand",
        "round": 1,
        "segment": 1,
        "table": table,
        "hand": number,
        "result": result,
    }
    if key is not None:
        fields["id"] = key
    return parse_event(fields)


AMI_WINS = {"kind": "self_draw", "winner": "ami", "value": 10}
EUN_WINS = {"kind": "self_draw", "winner": "eun", "value": 12}
LATE_PENALTY = parse_event(
    {"type": "penalty", "round": 1, "player": "P0001", "points": -5, "reason": "late arrival"}
)


# -- import and export -------------------------------------------------------------------


def test_an_imported_log_exports_byte_for_byte(store: TournamentStore) -> None:
    lines = CLUB_LOG.read_text(encoding="utf-8").splitlines()

    appended = store.import_log(lines)

    assert store.export(appended.tournament_id) == lines
    assert appended.first_seq == 1
    assert appended.lines == tuple(lines)
    assert store.version(appended.tournament_id) == appended.version == 1


def test_a_bad_log_imports_nothing_and_names_the_line(store: TournamentStore) -> None:
    bad_hand = line(
        {
            "type": "hand",
            "round": 1,
            "segment": 1,
            "table": 1,
            "hand": 1,
            "result": {"kind": "self_draw", "winner": "eun", "value": 10},
        }
    )
    lines = [*club_opening(), bad_hand]

    with pytest.raises(LogError) as refused:
        store.import_log(lines)

    assert refused.value.line_number == len(lines)
    assert refused.value.violation.field == "result.winner"
    assert refused.value.violation.rule == "HS-1"
    with Session(store.engine) as session:
        assert list(queries.list_tournaments(session)) == []


def test_an_unknown_tournament_is_not_found(store: TournamentStore) -> None:
    with pytest.raises(NotFound):
        store.read(404, lambda tournament, version: version)
    with pytest.raises(NotFound):
        store.export(404)
    with pytest.raises(NotFound):
        store.issue_token(404, 1)
    with pytest.raises(NotFound):
        store.append(404, [hand_event(1, 1, AMI_WINS)], ADMIN)


# -- appending ---------------------------------------------------------------------------


def test_an_append_commits_its_lines_as_one_new_version(store: TournamentStore) -> None:
    store.clock = SteppingClock(START)
    tid = store.import_log(club_opening()).tournament_id
    before = store.export(tid)

    appended = store.append(
        tid, [hand_event(1, 1, AMI_WINS, "h1"), hand_event(2, 1, EUN_WINS, "h2")], ADMIN
    )

    assert appended.version == 2
    assert appended.first_seq == len(before) + 1
    with Session(store.engine) as session:
        rows = queries.lines_after(session, tid, len(before))
    assert [row.seq for row in rows] == [len(before) + 1, len(before) + 2]
    assert {row.version for row in rows} == {2}
    assert [row.table_number for row in rows] == [1, 2]
    assert [row.body for row in rows] == list(appended.lines)
    assert {queries.as_utc(row.entered_at) for row in rows} == {START}
    first = json.loads(rows[0].body)
    assert first["id"] == "h1"
    assert first["at"] == "2026-07-04T09:00:00Z"  # the injected clock dates the line
    assert first["by"] == "admin"


def test_a_token_is_stored_only_as_its_hash(store: TournamentStore) -> None:
    tid = store.import_log(club_opening()).tournament_id

    token = store.issue_token(tid, 2)

    with Session(store.engine) as session:
        row = queries.token_by_hash(session, token_hash(token))
        assert row is not None
        assert (row.tournament_id, row.table_number) == (tid, 2)
        assert token not in {saved.token_hash for saved in queries.tokens_of(session, tid)}
    assert store.issue_token(tid, 2) != token  # a new token every time


@pytest.mark.parametrize(
    ("events", "rule"),
    [
        pytest.param([hand_event(1, 2, AMI_WINS)], "CONTRACT §1", id="out-of-order"),
        pytest.param(
            [hand_event(1, 1, {"kind": "self_draw", "winner": "eun", "value": 10})],
            "HS-1",
            id="player-not-at-table",
        ),
        pytest.param(
            [hand_event(1, 1, AMI_WINS, "h1"), hand_event(1, 3, AMI_WINS, "h3")],
            "CONTRACT §1",
            id="batch-with-a-bad-second-line",
        ),
        pytest.param(
            [hand_event(1, 1, AMI_WINS, "same"), hand_event(2, 1, EUN_WINS, "same")],
            "CONTRACT §3",
            id="key-reused-for-another-hand",
        ),
    ],
)
def test_a_refused_append_changes_nothing(
    store: TournamentStore, events: list[Any], rule: str
) -> None:
    tid = store.import_log(club_opening()).tournament_id
    published: list[Appended] = []
    store.subscribers.append(published.append)
    before = snapshot(store, tid)

    with pytest.raises(RuleViolation) as refused:
        store.append(tid, events, ADMIN)

    assert refused.value.rule == rule
    assert snapshot(store, tid) == before
    assert published == []
    # The cache may have run ahead of the log inside the failed write: it must not show it.
    assert cached_report(store, tid) == rebuilt_report(store, tid) == exported_report(store, tid)
    store.append(tid, [hand_event(1, 1, AMI_WINS, "after")], ADMIN)
    assert cached_report(store, tid) == rebuilt_report(store, tid)


def test_a_failure_after_the_rules_rolls_the_whole_write_back(store: TournamentStore) -> None:
    tid = store.import_log(club_opening()).tournament_id
    published: list[Appended] = []
    store.subscribers.append(published.append)
    before = snapshot(store, tid)

    def finish(session: Session, appended: Appended, tournament: Any) -> None:
        raise RuntimeError("the disk is full")

    with pytest.raises(RuntimeError):
        store.append(tid, [hand_event(1, 1, AMI_WINS, "h1")], ADMIN, finish=finish)

    assert snapshot(store, tid) == before
    assert published == []
    assert cached_report(store, tid) == rebuilt_report(store, tid)
    with Session(store.engine) as session:
        assert queries.last_seq(session, tid) == len(before[1])


# -- publishing only what is committed ----------------------------------------------------


def test_subscribers_are_called_after_the_lines_are_visible_to_a_new_session(
    store: TournamentStore, database_url: str
) -> None:
    writer = store
    with second_store(database_url) as reader:
        seen: list[tuple[int, list[str], int]] = []

        def subscriber(appended: Appended) -> None:
            # A new session on another engine: only committed rows are visible to it.
            with Session(reader.engine) as session:
                rows = queries.lines_after(session, appended.tournament_id, 0)
                tournament = queries.get_tournament(session, appended.tournament_id)
                assert tournament is not None
                seen.append(
                    (
                        appended.first_seq,
                        [row.body for row in rows if row.seq >= appended.first_seq],
                        tournament.version,
                    )
                )

        writer.subscribers.append(subscriber)
        imported = writer.import_log(club_opening())
        tid = imported.tournament_id
        appended = writer.append(tid, [hand_event(1, 1, AMI_WINS, "h1")], ADMIN)

        assert seen == [
            (1, list(imported.lines), imported.version),
            (appended.first_seq, list(appended.lines), appended.version),
        ]


# -- the cache is derived from the log ----------------------------------------------------


def test_a_second_store_catches_up_with_what_another_wrote(
    store: TournamentStore, database_url: str
) -> None:
    tid = store.import_log(club_opening()).tournament_id
    with second_store(database_url) as other:
        assert cached_report(other, tid) == cached_report(store, tid)  # both cached now

        other.append(tid, [hand_event(1, 1, AMI_WINS, "h1")], ADMIN)
        store.append(tid, [hand_event(2, 1, EUN_WINS, "h2")], ADMIN)

        assert store.version(tid) == other.version(tid) == 3
        assert cached_report(store, tid) == cached_report(other, tid)
        assert cached_report(store, tid) == exported_report(store, tid)
        plays = {
            row["player"]: row["play"]
            for row in cached_report(other, tid)["rounds"][0]["standings"]
        }
        assert plays["ami"] == "30"
        assert plays["eun"] == "36"


def test_rebuild_gives_the_cached_result_after_hands_corrections_voids_and_penalties(
    store: TournamentStore, database_url: str
) -> None:
    """rule: a cache may exist only if a rebuild from the log gives the same result."""
    tid = store.import_log(generated_opening()).tournament_id
    played = generated_table_lines()
    types = {json.loads(text)["type"] for text in played}
    assert {"hand", "void", "penalty"} <= types  # the generator's odd fixes are in there
    corrections = [json.loads(text).get("id", "") for text in played]
    assert any(key.endswith(("c", "v")) for key in corrections)

    with second_store(database_url) as other:
        cached_report(other, tid)
        for index, text in enumerate(played):
            # Two stores write in turn, as two server processes would; each catches up.
            append_line(store if index % 2 else other, tid, text)
            if index % 40 == 0:
                # Now and then a refused batch whose first event the cache had already taken.
                with pytest.raises(IllegalMove):
                    store.append(
                        tid, [LATE_PENALTY, hand_event(1, 9, AMI_WINS | {"winner": "P0001"})], ADMIN
                    )

        expected = cached_report(store, tid)
        assert expected["rounds"][0]["standings"][0]["play"] != "0"
        assert cached_report(other, tid) == expected
        assert rebuilt_report(store, tid) == expected
        assert rebuilt_report(other, tid) == expected
        assert exported_report(store, tid) == expected
    with second_store(database_url) as fresh:
        assert cached_report(fresh, tid) == expected


def test_a_second_process_reads_the_same_result(store: TournamentStore, database_url: str) -> None:
    tid = store.import_log(generated_opening()).tournament_id
    for text in generated_table_lines()[:60]:
        append_line(store, tid, text)
    program = (
        "import json, sys\n"
        "from app.db.engine import make_engine\n"
        "from app.domain.replay import report\n"
        "from app.services.store import TournamentStore\n"
        "store = TournamentStore(make_engine(sys.argv[1]))\n"
        "print(json.dumps(store.read(int(sys.argv[2]), lambda t, _: report(t))))\n"
    )
    environment = {k: v for k, v in os.environ.items() if not k.startswith("SCOREBOARD_")}

    result = subprocess.run(
        [sys.executable, "-c", program, database_url, str(tid)],
        cwd=REPO_ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == json.loads(json.dumps(cached_report(store, tid)))


def test_two_stores_writing_at_once_lose_no_line(store: TournamentStore, database_url: str) -> None:
    tid = store.import_log(club_opening()).tournament_id
    first_seq = len(club_opening()) + 1
    errors: list[BaseException] = []

    def play(writer: TournamentStore, table: int, winner: str) -> None:
        try:
            for number in range(1, 9):
                result = {"kind": "self_draw", "winner": winner, "value": 5 + number}
                writer.append(tid, [hand_event(table, number, result, f"t{table}h{number}")], ADMIN)
        except BaseException as error:  # reported below, in the test's thread
            errors.append(error)

    with second_store(database_url) as other:
        threads = [
            threading.Thread(target=play, args=(store, 1, "ami")),
            threading.Thread(target=play, args=(other, 2, "eun")),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)

        assert errors == []
        with Session(store.engine) as session:
            rows = queries.lines_after(session, tid, first_seq - 1)
        assert [row.seq for row in rows] == list(range(first_seq, first_seq + 16))
        assert [row.version for row in rows] == list(range(2, 18))  # one version per write
        for table in (1, 2):
            numbers = [json.loads(row.body)["hand"] for row in rows if row.table_number == table]
            assert numbers == list(range(1, 9))
        assert cached_report(store, tid) == cached_report(other, tid) == rebuilt_report(store, tid)


def test_the_log_stores_what_happened_and_the_cache_follows(store: TournamentStore) -> None:
    """A correction and a void are lines of their own; the cache shows their effect."""
    tid = store.import_log(club_opening()).tournament_id
    store.append(tid, [hand_event(1, 1, AMI_WINS, "h1")], ADMIN)
    store.append(tid, [hand_event(1, 1, EUN_WINS | {"winner": "bo"}, "h1-fix")], ADMIN)
    store.append(tid, [hand_event(1, 2, AMI_WINS, "h2")], ADMIN)
    void = parse_event(
        {"type": "void", "round": 1, "segment": 1, "table": 1, "hand": 2, "reason": "wrong table"}
    )
    store.append(tid, [void], Author("judge", table=1))

    with Session(store.engine) as session:
        audit = [json.loads(row.body) for row in queries.table_lines(session, tid, 1)]
    assert [(entry["type"], entry.get("id")) for entry in audit] == [
        ("seating", None),
        ("hand", "h1"),
        ("hand", "h1-fix"),
        ("hand", "h2"),
        ("void", None),
    ]
    assert audit[-1]["reason"] == "wrong table"
    assert audit[-1]["by"] == "judge table 1"
    plays = {
        row["player"]: row["play"] for row in cached_report(store, tid)["rounds"][0]["standings"]
    }
    assert plays == {
        **dict.fromkeys(plays, "0"),
        "bo": "36",
        "ami": "-12",
        "cleo": "-12",
        "dirk": "-12",
    }
    assert cached_report(store, tid) == rebuilt_report(store, tid)


def test_a_domain_refusal_names_its_field(store: TournamentStore) -> None:
    tid = store.import_log(club_opening()).tournament_id

    with pytest.raises(MalformedInput) as refused:
        store.append(
            tid, [hand_event(1, 1, {"kind": "self_draw", "winner": "ami", "value": 4})], ADMIN
        )

    assert (refused.value.field, refused.value.rule) == ("result.value", "HS-3")
