"""Replay of a whole generated WSOM 2008 tournament, first round to final: the invariants
of the cut, the carry-over and the final ranking, and the shape of the report."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import pytest

from app.domain.replay import replay_lines, report
from bench.generate import Options, generate

FIELDS = [520, 256, 128, 64, 32, 16, 8, 4]  # rules FM-1, FM-6
ADVANCES = [256, 128, 64, 32, 16, 8, 4, None]


@pytest.fixture(scope="module")
def lines() -> list[str]:
    return generate(Options(players=520, seed=2008))


@pytest.fixture(scope="module")
def full(lines: list[str]) -> dict[str, Any]:
    return report(replay_lines(lines))


def test_eight_rounds_with_the_wsom_2008_fields(full: dict[str, Any]) -> None:
    rounds = full["rounds"]
    assert [r["round"] for r in rounds] == list(range(1, 9))
    assert [len(r["standings"]) for r in rounds] == FIELDS
    assert [r["advance"] for r in rounds] == ADVANCES


def test_exactly_the_advance_count_goes_through(full: dict[str, Any]) -> None:
    for r in full["rounds"][:-1]:
        statuses = [row["status"] for row in r["standings"]]
        assert statuses.count("advanced") == r["advance"], r["round"]
        assert statuses.count("eliminated") == len(statuses) - r["advance"], r["round"]
        # the advanced are the top of the list (rule ST-3)
        assert statuses == sorted(statuses), r["round"]


def test_the_next_round_is_exactly_who_advanced(full: dict[str, Any]) -> None:
    rounds = full["rounds"]
    for before, after in zip(rounds, rounds[1:], strict=False):
        advanced = {row["player"] for row in before["standings"] if row["status"] == "advanced"}
        assert {row["player"] for row in after["standings"]} == advanced


def test_carry_in_is_a_quarter_of_the_previous_total(full: dict[str, Any]) -> None:
    rounds = full["rounds"]
    for row in rounds[0]["standings"]:
        assert row["carry_in"] == "0"  # rule SC-2
    for before, after in zip(rounds, rounds[1:], strict=False):
        totals = {row["player"]: Fraction(row["total"]) for row in before["standings"]}
        for row in after["standings"]:
            assert Fraction(row["carry_in"]) == totals[row["player"]] / 4, row  # rule SC-3
            # rule SC-2: total = carry-in + play, exactly (rule SC-4)
            assert Fraction(row["total"]) == Fraction(row["carry_in"]) + Fraction(row["play"])


def test_carry_ins_stay_exact_fractions_over_the_rounds(full: dict[str, Any]) -> None:
    # rule SC-4: after k carries a carry-in is a fraction over at most 4^k, never rounded
    for r in full["rounds"][1:]:
        for row in r["standings"]:
            assert (4 ** (r["round"] - 1)) % Fraction(row["carry_in"]).denominator == 0


def test_final_ranking_ranks_all_520_in_order(full: dict[str, Any]) -> None:
    ranking = full["final_ranking"]
    assert len(ranking) == 520
    assert len({p["player"] for p in ranking}) == 520
    assert ranking[0]["rank"] == 1
    for position, (previous, place) in enumerate(zip(ranking, ranking[1:], strict=False), start=2):
        if place["rank"] != position:
            # rule PR-3: a shared rank only between equal totals out in the same round
            assert place["rank"] == previous["rank"], place
            assert (place["round"], place["total"]) == (previous["round"], previous["total"])
    assert max(p["rank"] for p in ranking) <= 520


def test_final_ranking_follows_the_rounds(full: dict[str, Any]) -> None:
    """rule PR-1: finalists first by their final total, then the players out in round 7,
    in round 6, ... each among themselves by their total in the round they went out."""
    ranking = full["final_ranking"]
    rounds_out = [p["round"] for p in ranking]
    assert rounds_out == sorted(rounds_out, reverse=True)
    final = full["rounds"][-1]["standings"]
    assert [p["player"] for p in ranking[:4]] == [row["player"] for row in final]
    for r in full["rounds"][:-1]:
        out = {
            row["player"]: row["total"] for row in r["standings"] if row["status"] == "eliminated"
        }
        placed = [p for p in ranking if p["round"] == r["round"]]
        assert {p["player"]: p["total"] for p in placed} == out
        assert min(p["rank"] for p in placed) > r["advance"]


def test_prizes_add_up_to_the_prize_table(lines: list[str], full: dict[str, Any]) -> None:
    prizes = next(json.loads(line) for line in lines if json.loads(line)["type"] == "prizes")
    amounts = prizes["amounts"]
    assert len(amounts) <= len(full["final_ranking"])
    assert sum(Fraction(p["prize"]) for p in full["final_ranking"]) == sum(amounts)
    for place in full["final_ranking"]:
        if place["rank"] > len(amounts):
            assert place["prize"] == "0"


def test_replaying_the_same_log_twice_gives_identical_json(
    lines: list[str], full: dict[str, Any]
) -> None:
    again = report(replay_lines(lines))
    assert json.dumps(again, sort_keys=True) == json.dumps(full, sort_keys=True)
    assert json.dumps(again) == json.dumps(full)


def test_substitutes_play_but_are_never_ranked() -> None:
    """rule FM-9: 522 players make groups of 261, each filled with 3 substitutes."""
    lines = generate(Options(players=522, seed=7))
    entries = [json.loads(line) for line in lines]
    substitutes = {e["id"] for e in entries if e["type"] == "player" and e.get("substitute")}
    assert len(substitutes) == 6
    seated = {p for e in entries if e["type"] == "seating" for p in e["seats"]}
    assert substitutes <= seated

    tournament = replay_lines(lines)
    full = report(tournament)

    assert len(full["rounds"][0]["standings"]) == 522
    in_standings = {row["player"] for r in full["rounds"] for row in r["standings"]}
    assert not in_standings & substitutes
    ranked = {p["player"] for p in full["final_ranking"]}
    assert len(full["final_ranking"]) == 522
    assert not ranked & substitutes
    # their hands moved points all the same
    assert any(tournament.rounds[1].play.get(s, 0) != 0 for s in substitutes)
