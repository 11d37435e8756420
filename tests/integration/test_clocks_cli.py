"""`scoreboard clocks LOG --at TIME` as a hall organizer runs it: a real process on a
generated timed log (rules CL-1 to CL-3, CL-6; CONTRACT.md §2).

The log is round 1 of 64 players (16 tables) from the generator, left open: both groups'
first half is scheduled at 09:00Z, so every deadline is 10:10Z (rule CL-1: 70 minutes).
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from cli_runner import scoreboard

from bench.generate import Options, generate

ROOT = Path(__file__).resolve().parents[2]
OPTIONS = Options(
    players=64,
    format={"preset": "wsom2008", "advance": [16, 8, 4]},
    schedule_start="2026-11-29T09:00:00Z",
    until_round=1,
    leave_open=True,
)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def lines() -> list[str]:
    return generate(OPTIONS)


@pytest.fixture
def log(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "round-1.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def raw_lines(lines: list[str], kind: str) -> list[dict[str, Any]]:
    return [raw for raw in map(json.loads, lines) if raw["type"] == kind]


def clocks_at(log: Path, at: str) -> dict[str, Any]:
    done = scoreboard("clocks", log, "--at", at)
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_clocks_at_0930_show_every_table_running_with_40_minutes_left(
    log: Path, lines: list[str]
) -> None:
    result = clocks_at(log, "2026-11-29T09:30:00Z")

    assert result["server_time"] == "2026-11-29T09:30:00Z"  # rule CL-6
    tables = result["tables"]
    assert [t["table"] for t in tables] == list(range(1, 17))
    early = {
        raw["table"]: raw["time"] for raw in raw_lines(lines, "early_start") if raw["segment"] == 1
    }
    now = datetime.fromisoformat("2026-11-29T09:30:00Z")
    for table in tables:
        assert (table["round"], table["segment"], table["phase"]) == (1, 1, "running")
        assert table["server_time"] == "2026-11-29T09:30:00Z"
        # rule CL-2: an early start does not move the deadline
        assert table["deadline"] == "2026-11-29T10:10:00Z"
        assert table["seconds_left"] == 2400
        assert table["starts_at"] == early.get(table["table"], "2026-11-29T09:00:00Z")
        entered = {
            raw["hand"]
            for raw in raw_lines(lines, "hand")
            if (raw["segment"], raw["table"]) == (1, table["table"])
            and datetime.fromisoformat(raw["at"]) <= now
        }
        assert table["hands_completed"] == len(entered)
        assert table["group"] in ("A", "B")
    assert any(t["starts_at"] != "2026-11-29T09:00:00Z" for t in tables)  # an early start


def test_before_the_start_only_the_early_starters_run(log: Path, lines: list[str]) -> None:
    result = clocks_at(log, "2026-11-29T08:59:00Z")

    early = {raw["table"] for raw in raw_lines(lines, "early_start") if raw["segment"] == 1}
    assert early  # the generated log has early starts in the first half
    running = {t["table"] for t in result["tables"] if t["phase"] == "running"}
    assert running == early
    for table in result["tables"]:
        if table["phase"] == "running":
            assert table["seconds_left"] == 71 * 60  # to 10:10Z
        else:
            assert (table["phase"], table["seconds_left"]) == ("not_started", None)


def test_a_time_in_another_offset_is_the_same_moment(log: Path) -> None:
    utc = clocks_at(log, "2026-11-29T09:30:00Z")
    paris = clocks_at(log, "2026-11-29T10:30:00+01:00")

    assert paris == utc


def test_after_the_second_half_starts_its_clocks_are_shown(log: Path) -> None:
    result = clocks_at(log, "2026-11-29T10:30:00Z")

    assert {(t["segment"], t["phase"]) for t in result["tables"]} == {(2, "running")}
    assert {t["deadline"] for t in result["tables"]} == {"2026-11-29T11:30:00Z"}
    assert {t["seconds_left"] for t in result["tables"]} == {3600}


def test_a_time_without_utc_offset_is_refused_with_a_message(log: Path) -> None:
    done = scoreboard("clocks", log, "--at", "2026-11-29T09:30:00")

    assert done.returncode != 0
    assert done.stdout == ""
    assert "--at" in done.stderr
    assert "offset" in done.stderr
    # a message the organizer can act on, not a Python traceback
    assert "Traceback" not in done.stderr, done.stderr[:2000]


def test_a_bad_log_exits_1_naming_the_line_field_and_rule(tmp_path: Path, lines: list[str]) -> None:
    bad = list(lines)
    number = next(
        i
        for i, text in enumerate(bad, start=1)
        if json.loads(text)["type"] == "hand" and json.loads(text)["result"]["kind"] == "self_draw"
    )
    hand = json.loads(bad[number - 1])
    assert hand["at"] < "2026-11-29T09:30:00Z"  # the line existed at --at
    bad[number - 1] = json.dumps({**hand, "result": {**hand["result"], "value": 400}})
    log = tmp_path / "bad.jsonl"
    log.write_text("\n".join(bad) + "\n", encoding="utf-8")

    done = scoreboard("clocks", log, "--at", "2026-11-29T09:30:00Z")

    assert done.returncode == 1
    assert done.stdout == ""
    assert f"line {number}:" in done.stderr
    assert "'result.value'" in done.stderr
    assert "rule HS-3" in done.stderr  # the maximum value is 320


def test_a_bad_line_after_the_moment_is_not_read(tmp_path: Path, lines: list[str]) -> None:
    """The log as it stood at --at: a later line, even a bad one, did not exist yet."""
    late = json.dumps(
        {
            "type": "deal",
            "round": 1,
            "segment": 1,
            "table": 1,
            "hand": 1,
            "time": "2026-11-29T23:00:00Z",
        }
    )
    log = tmp_path / "later.jsonl"
    log.write_text("\n".join([*lines, late]) + "\n", encoding="utf-8")

    assert scoreboard("clocks", log, "--at", "2026-11-29T09:30:00Z").returncode == 0
    done = scoreboard("clocks", log, "--at", "2026-11-30T00:00:00Z")
    assert done.returncode == 1
    assert f"line {len(lines) + 1}:" in done.stderr


def test_a_missing_log_exits_2(tmp_path: Path) -> None:
    done = scoreboard("clocks", tmp_path / "missing.jsonl", "--at", "2026-11-29T09:30:00Z")

    assert done.returncode == 2
    assert "cannot read" in done.stderr
