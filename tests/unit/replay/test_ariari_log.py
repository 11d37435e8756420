"""A two-round Ari Ari tournament, examples/ariari.jsonl, replayed to standings worked out
by hand (rules AA-1 to AA-17 for each game; SC-1 to SC-3 and ST-1 across games).

The format: East-only games of 20,000 points (AA-1, AA-12), uma 10,000 / 5,000 / -5,000 /
-10,000 (AA-16); round 1 is two games for each of 8 players at 2 tables, the best 4 carry a
quarter of their total into a one-game final.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.domain.replay import replay_lines, report

LOG = Path(__file__).resolve().parents[3] / "examples" / "ariari.jsonl"


@pytest.fixture(scope="module")
def replayed() -> dict[str, Any]:
    return report(replay_lines(LOG.read_text(encoding="utf-8").splitlines()))


# (segment, table, how it ended, [(player, final points, uma, result) by seat])
ROUND_ONE_GAMES = [
    # p3 riichi; p2's yakuman ron on p1's discard, 32,000 and p3's bet: p1 is at -12,000
    # (AA-14). p4 is second with 20,000 and p3 third with 19,000.
    (1, 1, "AA-14", [("p1", -12_000, -10_000, -42_000), ("p2", 53_000, 10_000, 43_000),
                     ("p3", 19_000, -5_000, -6_000), ("p4", 20_000, 5_000, 5_000)]),
    # 1 draw (p5 riichi), p6 dealer tsumo 500+100 all and the bet, draw (p8 riichi; p7
    # tenpai), draw (p7 tenpai keeps the deal), p8 ron on p7 2,000 + 4 x 300 and the bet
    # (corrected from 1 fan), draw (p8 keeps, but p6 leads), p8 dealer tsumo 600 all: p8
    # leads alone in the last hand (AA-13).
    (1, 2, "AA-13", [("p5", 17_800, -5_000, -7_200), ("p6", 22_200, 5_000, 7_200),
                     ("p7", 15_600, -10_000, -14_400), ("p8", 24_400, 10_000, 14_400)]),
    # chombo by p1 (4,000 to p5, East; 2,000 to the others), p2 haneman ron on p1: p1 at 0
    # plays on (only below zero ends it), p6 tsumo with p1 dealing: p1 pays 500 (AA-14).
    (2, 1, "AA-14", [("p5", 23_700, 5_000, 8_700), ("p1", -500, -10_000, -30_500),
                     ("p6", 23_100, -5_000, -1_900), ("p2", 33_700, 10_000, 23_700)]),
    # double ron on p8 (p3 the dealer 2,900, p7 1,000; p4's bet to p3, first after p8),
    # p4 mangan ron on p3 with a counter (8,300), then three noten draws (AA-12).
    (2, 2, "AA-12", [("p3", 15_600, -10_000, -14_400), ("p7", 21_000, 5_000, 6_000),
                     ("p4", 27_300, 10_000, 17_300), ("p8", 16_100, -5_000, -8_900)]),
]  # fmt: skip

# rule SC-1: a player's play score is the sum of their game results (AA-17)
ROUND_ONE = [
    ("p2", 1, "66700", "advanced"),  # 43,000 + 23,700
    ("p4", 2, "22300", "advanced"),  # 5,000 + 17,300
    ("p8", 3, "5500", "advanced"),  # 14,400 - 8,900
    ("p6", 4, "5300", "advanced"),  # 7,200 - 1,900
    ("p5", 5, "1500", "eliminated"),  # -7,200 + 8,700
    ("p7", 6, "-8400", "eliminated"),  # -14,400 + 6,000
    ("p3", 7, "-20400", "eliminated"),  # -6,000 - 14,400
    ("p1", 8, "-72500", "eliminated"),  # -42,000 - 30,500
]

# p2 tsumo 3 fan 30 fu after a riichi, draw (p8 tenpai keeps), p8 dealer ron on p6 2 fan 40
# fu (3,900 + 300), p4 tsumo mangan (4,200 from p8, 2,200 each), noten draw, p2 dealer ron
# on p8 (1,500 + 300; p4 leads, so no agari-yame), chombo by p6 (a re-deal: no agari-yame
# either), noten draw: the East round ends (AA-12). Hand 8 was entered, voided, entered again.
FINAL_GAME = (1, 1, "AA-12", [("p6", 3_600, -10_000, -26_400), ("p8", 19_200, -5_000, -5_800),
                              ("p4", 29_600, 10_000, 19_600),
                              ("p2", 27_600, 5_000, 12_600)])  # fmt: skip

# rule SC-3: a quarter of the round 1 total carries in
FINAL = [
    ("p2", 1, "16675", "12600", "29275"),  # 66,700 / 4
    ("p4", 2, "5575", "19600", "25175"),  # 22,300 / 4
    ("p8", 3, "1375", "-5800", "-4425"),  # 5,500 / 4
    ("p6", 4, "1325", "-26400", "-25075"),  # 5,300 / 4
]


def games(round_report: dict[str, Any]) -> list[Any]:
    return [
        (
            g["segment"],
            g["table"],
            g["end_rule"],
            [(p["player"], p["points"], p["uma"], p["result"]) for p in g["players"]],
        )
        for g in round_report["games"]
    ]


def test_round_one_games(replayed: dict[str, Any]) -> None:
    assert games(replayed["rounds"][0]) == ROUND_ONE_GAMES


def test_round_one_standings(replayed: dict[str, Any]) -> None:
    rows = replayed["rounds"][0]["standings"]
    assert [(r["player"], r["rank"], r["total"], r["status"]) for r in rows] == ROUND_ONE


def test_final_game_and_standings(replayed: dict[str, Any]) -> None:
    final = replayed["rounds"][1]
    assert games(final) == [FINAL_GAME]
    rows = final["standings"]
    assert [(r["player"], r["rank"], r["carry_in"], r["play"], r["total"]) for r in rows] == [
        (p, rank, c, play, t) for p, rank, c, play, t in FINAL
    ]


def test_final_ranking(replayed: dict[str, Any]) -> None:
    """rule PR-1: the finalists by their final total, then round 1's eliminated."""
    ranking = [(p["player"], p["rank"], p["total"]) for p in replayed["final_ranking"]]
    assert ranking == [
        ("p2", 1, "29275"),
        ("p4", 2, "25175"),
        ("p8", 3, "-4425"),
        ("p6", 4, "-25075"),
        ("p5", 5, "1500"),
        ("p7", 6, "-8400"),
        ("p3", 7, "-20400"),
        ("p1", 8, "-72500"),
    ]


def test_ended_games_report_bets_and_places(replayed: dict[str, Any]) -> None:
    game = replayed["rounds"][0]["games"][0]
    assert (game["hands"], game["ended"], game["dealer"], game["bets"]) == (1, True, None, 0)
    assert [(p["seat"], p["place"], p["bets"]) for p in game["players"]] == [
        ("east", 4, 0),
        ("south", 1, 0),
        ("west", 3, 0),
        ("north", 2, 0),
    ]


def test_replaying_twice_gives_the_same_report(replayed: dict[str, Any]) -> None:
    assert report(replay_lines(LOG.read_text(encoding="utf-8").splitlines())) == replayed
