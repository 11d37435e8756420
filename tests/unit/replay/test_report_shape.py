"""The JSON that `scoreboard replay` prints (CONTRACT.md §2), from `app.domain.replay.report`.

The log is `small_logs.FINISHED`, whose every score is worked out by hand there: exact
values are reduced fraction strings (rule SC-4), and `shown` has 2 decimals rounded
towards minus infinity (rule SC-5).
"""

from __future__ import annotations

import json
import math
import re
from fractions import Fraction
from typing import Any

import pytest
from small_logs import FINISHED, PRIZES, ROUND_TWO, texts

from app.domain.replay import replay_lines, report

ROW_KEYS = {"player", "rank", "carry_in", "play", "total", "shown", "status"}
CONTRACT_STATUSES = {"advanced", "eliminated", "playing"}
EXACT = re.compile(r"^-?\d+(/\d+)?$")
SHOWN = re.compile(r"^-?\d+\.\d\d$")

# (player, rank, carry_in, play, total, shown, status)
ROUND_ONE = [
    ("P01", 1, "0", "25", "25", "25.00", "advanced"),
    ("P05", 1, "0", "25", "25", "25.00", "advanced"),
    ("P09", 1, "0", "25", "25", "25.00", "advanced"),
    ("P13", 1, "0", "25", "25", "25.00", "advanced"),
    ("P02", 5, "0", "5", "5", "5.00", "advanced"),
    ("P06", 5, "0", "5", "5", "5.00", "advanced"),
    ("P10", 5, "0", "5", "5", "5.00", "advanced"),
    ("P14", 5, "0", "5", "5", "5.00", "advanced"),
    ("P04", 9, "0", "-15", "-15", "-15.00", "eliminated"),
    ("P07", 9, "0", "-15", "-15", "-15.00", "eliminated"),
    ("P08", 9, "0", "-15", "-15", "-15.00", "eliminated"),
    ("P11", 9, "0", "-15", "-15", "-15.00", "eliminated"),
    ("P12", 9, "0", "-15", "-15", "-15.00", "eliminated"),
    ("P15", 9, "0", "-15", "-15", "-15.00", "eliminated"),
    ("P16", 9, "0", "-15", "-15", "-15.00", "eliminated"),
    ("P03", 16, "0", "-16", "-16", "-16.00", "eliminated"),  # the penalty counts (rule SC-1)
]
ROUND_TWO_ENDED = [
    ("P02", 1, "5/4", "90", "365/4", "91.25", "advanced"),
    ("P10", 2, "5/4", "15", "65/4", "16.25", "advanced"),
    ("P09", 3, "25/4", "-5", "5/4", "1.25", "advanced"),
    ("P13", 3, "25/4", "-5", "5/4", "1.25", "advanced"),
    ("P14", 5, "5/4", "-5", "-15/4", "-3.75", "eliminated"),
    ("P05", 6, "25/4", "-25", "-75/4", "-18.75", "eliminated"),
    ("P06", 7, "5/4", "-25", "-95/4", "-23.75", "eliminated"),
    ("P01", 8, "25/4", "-40", "-135/4", "-33.75", "eliminated"),
]
# (player, rank, carry_in, play, total, shown): 17.8125 shows 17.81, -0.9375 shows -0.94
FINAL = [
    ("P02", 1, "365/16", "-5", "285/16", "17.81"),
    ("P13", 2, "5/16", "15", "245/16", "15.31"),
    ("P10", 3, "65/16", "-5", "-15/16", "-0.94"),
    ("P09", 4, "5/16", "-5", "-75/16", "-4.69"),
]
# rule PR-3: the 7 players sharing rank 9 split the money of places 9 to 15 (3 x 10)
FINAL_RANKING = [
    ("P02", 1, "1000"),
    ("P13", 2, "500"),
    ("P10", 3, "300"),
    ("P09", 4, "200"),
    ("P14", 5, "100"),
    ("P05", 6, "100"),
    ("P06", 7, "50"),
    ("P01", 8, "50"),
    *((p, 9, "30/7") for p in ("P04", "P07", "P08", "P11", "P12", "P15", "P16")),
    ("P03", 16, "0"),
]


@pytest.fixture(scope="module")
def finished() -> dict[str, Any]:
    return report(replay_lines(texts(FINISHED)))


def _rows(round_report: dict[str, Any], keys: tuple[str, ...]) -> list[tuple[Any, ...]]:
    return [tuple(row[key] for key in keys) for row in round_report["standings"]]


ALL_KEYS = ("player", "rank", "carry_in", "play", "total", "shown", "status")


def test_the_report_has_rounds_and_a_final_ranking(finished: dict[str, Any]) -> None:
    assert {"rounds", "final_ranking"} <= set(finished)
    assert [r["round"] for r in finished["rounds"]] == [1, 2, 3]
    assert [r["advance"] for r in finished["rounds"]] == [8, 4, None]
    for round_report in finished["rounds"]:
        assert {"round", "advance", "standings"} <= set(round_report)
        for row in round_report["standings"]:
            assert set(row) >= ROW_KEYS
    for place in finished["final_ranking"]:
        assert {"player", "rank", "prize"} <= set(place)


def test_the_report_survives_a_json_round_trip(finished: dict[str, Any]) -> None:
    assert json.loads(json.dumps(finished)) == finished


def test_round_one_standings(finished: dict[str, Any]) -> None:
    assert _rows(finished["rounds"][0], ALL_KEYS) == ROUND_ONE


def test_round_two_carries_in_a_quarter_of_round_one(finished: dict[str, Any]) -> None:
    assert _rows(finished["rounds"][1], ALL_KEYS) == ROUND_TWO_ENDED


def test_the_final_carries_in_sixteenths_and_shows_them_rounded_down(
    finished: dict[str, Any],
) -> None:
    keys = ("player", "rank", "carry_in", "play", "total", "shown")
    assert _rows(finished["rounds"][2], keys) == FINAL


def test_every_status_is_one_the_contract_names(finished: dict[str, Any]) -> None:
    # CONTRACT §2: "status": "advanced" | "eliminated" | "playing", extended (README) with
    # "finished" for the final's players once the final has ended: nobody advances from it.
    *eliminations, final = finished["rounds"]
    statuses = {row["status"] for r in eliminations for row in r["standings"]}
    assert statuses <= CONTRACT_STATUSES
    assert final["ended"] is True
    assert {row["status"] for row in final["standings"]} == {"finished"}


def test_final_ranking_with_shared_prize_money(finished: dict[str, Any]) -> None:
    ranking = [(p["player"], p["rank"], p["prize"]) for p in finished["final_ranking"]]
    assert ranking == FINAL_RANKING
    assert sum(Fraction(p["prize"]) for p in finished["final_ranking"]) == sum(PRIZES)


def test_values_are_reduced_fraction_strings(finished: dict[str, Any]) -> None:
    values = [
        row[key]
        for r in finished["rounds"]
        for row in r["standings"]
        for key in ("carry_in", "play", "total")
    ] + [p["prize"] for p in finished["final_ranking"]]

    for value in values:
        assert isinstance(value, str) and EXACT.match(value), value
        assert str(Fraction(value)) == value, f"{value} is not reduced"


def test_shown_is_the_total_rounded_down_to_2_decimals(finished: dict[str, Any]) -> None:
    for r in finished["rounds"]:
        for row in r["standings"]:
            total = Fraction(row["total"])
            assert SHOWN.match(row["shown"]), row["shown"]
            assert Fraction(row["shown"]) == Fraction(math.floor(total * 100), 100), row


def test_ranks_are_in_order_and_shared_by_equal_totals(finished: dict[str, Any]) -> None:
    for r in finished["rounds"]:
        rows = r["standings"]
        for position, row in enumerate(rows, start=1):
            if position > 1 and row["total"] == rows[position - 2]["total"]:
                assert row["rank"] == rows[position - 2]["rank"]  # rule ST-2
            else:
                assert row["rank"] == position


def test_a_round_in_play_shows_playing_and_ranks_only_the_eliminated() -> None:
    in_play = report(replay_lines(texts(ROUND_TWO)))

    assert [r["round"] for r in in_play["rounds"]] == [1, 2]
    assert {row["status"] for row in in_play["rounds"][1]["standings"]} == {"playing"}
    assert [row["player"] for row in in_play["rounds"][1]["standings"]] == [
        "P02",
        "P10",
        "P09",
        "P13",
        "P14",
        "P05",
        "P06",
        "P01",
    ]
    # "final_ranking lists every player ranked so far": the 8 out after round 1
    ranking = [(p["player"], p["rank"]) for p in in_play["final_ranking"]]
    assert ranking == [(player, rank) for player, rank, _ in FINAL_RANKING[8:]]
