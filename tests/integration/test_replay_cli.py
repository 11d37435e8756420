"""`scoreboard replay LOG` as a user runs it: a real process, real files (CONTRACT.md §2)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CLUB = ROOT / "examples" / "club.jsonl"


def run_replay(log: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app.cli", "replay", str(log)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )


def test_replay_prints_the_contract_shape_with_hand_checked_scores() -> None:
    done = run_replay(CLUB)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    first, final = result["rounds"]
    # Worked by hand from examples/club.jsonl. Table 1: ami wins a 30 discard from bo
    # (rule HS-2: bo pays 3*30-50 = 40, the others 25), then cleo self-draws 8; dirk is
    # penalized 5 (rule PN-1). Table 2: eun self-draws 10, finn wins a 12 discard from gwen
    # (the correction replaces the hand first entered against hugo).
    totals = {row["player"]: row["total"] for row in first["standings"]}
    assert totals == {
        "ami": "82",
        "finn": "26",
        "eun": "18",
        "cleo": "-1",
        "gwen": "-22",
        "hugo": "-22",
        "dirk": "-38",
        "bo": "-48",
    }
    assert [row["rank"] for row in first["standings"]] == [1, 2, 3, 4, 5, 5, 7, 8]  # rule ST-2
    assert [row["status"] for row in first["standings"]].count("advanced") == 4
    # rule SC-3: a quarter of the round 1 total is carried in; the final's totals are exact
    carry = {row["player"]: row["carry_in"] for row in final["standings"]}
    assert carry == {"eun": "9/2", "finn": "13/2", "ami": "41/2", "cleo": "-1/4"}
    assert [(r["player"], r["total"], r["shown"]) for r in final["standings"]] == [
        ("eun", "153/2", "76.50"),
        ("finn", "-1/2", "-0.50"),
        ("ami", "-27/2", "-13.50"),
        ("cleo", "-125/4", "-31.25"),
    ]
    ranking = [(p["player"], p["rank"], p["prize"]) for p in result["final_ranking"]]
    # rules PR-1, PR-3: gwen and hugo share 5th, below every finalist
    assert ranking == [
        ("eun", 1, "1000"),
        ("finn", 2, "500"),
        ("ami", 3, "300"),
        ("cleo", 4, "200"),
        ("gwen", 5, "0"),
        ("hugo", 5, "0"),
        ("dirk", 7, "0"),
        ("bo", 8, "0"),
    ]


def test_a_bad_log_exits_non_zero_naming_line_field_and_rule(tmp_path: Path) -> None:
    lines = CLUB.read_text(encoding="utf-8").splitlines()
    bad_hand = {
        "type": "hand",
        "round": 1,
        "segment": 1,
        "table": 1,
        "hand": 4,
        "result": {"kind": "self_draw", "winner": "ami", "value": 400},
    }
    lines.insert(16, json.dumps(bad_hand))
    log = tmp_path / "bad.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = run_replay(log)
    assert done.returncode == 1
    assert done.stdout == ""
    assert "line 17" in done.stderr
    assert "'result.value'" in done.stderr
    assert "rule HS-3" in done.stderr


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"", "the log is empty"),
        (b"\xff\xfe not utf-8", "not UTF-8"),
        (
            b'{"type": "tournament", "name": "x", "format": "wsom2008"}\n{nope\n',
            "line 2: field 'line': is not valid JSON",
        ),
    ],
    ids=["empty", "not-utf8", "malformed-json"],
)
def test_unreadable_logs_are_refused_clearly(tmp_path: Path, content: bytes, expected: str) -> None:
    log = tmp_path / "log.jsonl"
    log.write_bytes(content)
    done = run_replay(log)
    assert done.returncode != 0
    assert expected in done.stderr


def test_a_missing_file_is_refused_with_exit_2(tmp_path: Path) -> None:
    done = run_replay(tmp_path / "missing.jsonl")
    assert done.returncode == 2
    assert "cannot read" in done.stderr
