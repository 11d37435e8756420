"""Results for sanctioning bodies (issue 18, part 6): the EMA number's form, the `ema_id`
line, the name split, the table points and the EMA's rows, and every hand's rows."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.domain.ema import (
    EMA_COLUMNS,
    decimal_text,
    ema_rows,
    hand_rows,
    missing_ema_ids,
    split_name,
    table_points,
)
from app.domain.ema_ids import check_ema_id
from app.domain.errors import IllegalMove, LogError, MalformedInput
from app.domain.log import EmaIdSet, event_to_log, parse_line
from app.domain.replay import replay_lines
from app.domain.tournament import Tournament

Replay = Callable[[Sequence[dict[str, Any]]], Tournament]
CLUB = Path(__file__).parents[3] / "examples" / "club.jsonl"
TOURNAMENT = {"type": "tournament", "name": "Open", "format": "wsom2008"}


def _player(player_id: str, **fields: Any) -> dict[str, Any]:
    return {"type": "player", "id": player_id, "name": f"Player {player_id}", "group": "A"} | fields


# -- the number's form (CONTRACT §1, docs/log-format.md) ------------------------------------


@pytest.mark.parametrize("good", ["04160092", "14990053", "01000001", "99999999"])
def test_an_ema_number_is_eight_digits_led_by_an_association_code(good: str) -> None:
    assert check_ema_id(good) == good


@pytest.mark.parametrize(
    ("bad", "says"),
    [
        ("4160092", "8 digits"),  # its leading zero lost
        ("041600921", "8 digits"),
        ("0416009A", "8 digits"),
        ("04 160092", "8 digits"),
        ("０４１６００９２", "8 digits"),  # full-width digits are not the EMA's
        ("", "8 digits"),
        ("00123456", "starts with 00"),  # no association has code 00
        (4160092, "written as a string"),  # a JSON number drops the zero
        (True, "8 digits"),
        (None, "8 digits"),
        (["04160092"], "8 digits"),
    ],
)
def test_a_number_not_of_the_emas_form_is_refused_naming_the_field_and_rule(
    bad: object, says: str
) -> None:
    with pytest.raises(MalformedInput) as refused:
        check_ema_id(bad)
    assert refused.value.field == "ema_id"
    assert refused.value.rule == "CONTRACT §1"
    assert says in refused.value.message


def test_the_player_line_keeps_its_ema_number_and_an_old_line_without_one_stays_valid() -> None:
    line = _player("P1", ema_id="04160092", country="FR")
    event = parse_line(json.dumps(line))
    assert event_to_log(event) == line  # the export writes it back as it came
    old = _player("P2")
    assert event_to_log(parse_line(json.dumps(old))) == old


def test_a_player_line_with_a_bad_ema_number_is_refused() -> None:
    with pytest.raises(MalformedInput) as refused:
        parse_line(json.dumps(_player("P1", ema_id="4160092")))
    assert (refused.value.field, refused.value.rule) == ("ema_id", "CONTRACT §1")


def test_the_ema_id_line_round_trips_and_needs_both_fields() -> None:
    line = {"type": "ema_id", "player": "P1", "ema_id": "04160092"}
    event = parse_line(json.dumps(line))
    assert event == EmaIdSet("P1", "04160092")
    assert event_to_log(event) == line
    with pytest.raises(MalformedInput) as refused:
        parse_line(json.dumps({"type": "ema_id", "player": "P1"}))
    assert refused.value.field == "ema_id"


def test_the_ema_id_line_sets_and_corrects_a_registered_players_number(replay: Replay) -> None:
    tournament = replay(
        [
            TOURNAMENT,
            _player("P1", ema_id="04160092"),
            _player("P2"),
            {"type": "ema_id", "player": "P2", "ema_id": "14990053"},
            {"type": "ema_id", "player": "P1", "ema_id": "04160093"},  # a correction
        ]
    )
    assert tournament.players["P1"].ema_id == "04160093"
    assert tournament.players["P2"].ema_id == "14990053"
    assert tournament.players["P2"].name == "Player P2"  # nothing else of it changes


@pytest.mark.parametrize(
    ("lines", "field", "says"),
    [
        # one number, one player: the EMA would get one player's result twice
        (
            [_player("P1", ema_id="04160092"), _player("P2", ema_id="04160092")],
            "ema_id",
            "already player 'P1'",
        ),
        (
            [
                _player("P1", ema_id="04160092"),
                _player("P2"),
                {"type": "ema_id", "player": "P2", "ema_id": "04160092"},
            ],
            "ema_id",
            "already player 'P1'",
        ),
        (
            [_player("P1"), {"type": "ema_id", "player": "P9", "ema_id": "04160092"}],
            "player",
            "not registered",
        ),
    ],
)
def test_an_ema_number_of_another_player_or_of_nobody_is_refused(
    lines: list[dict[str, Any]], field: str, says: str
) -> None:
    with pytest.raises(LogError) as refused:
        replay_lines(json.dumps(line) for line in [TOURNAMENT, *lines])
    violation = refused.value.violation
    assert isinstance(violation, IllegalMove)
    assert violation.field == field and says in violation.message


def test_the_missing_list_names_every_ranked_registration_without_a_number(
    replay: Replay,
) -> None:
    tournament = replay(
        [
            TOURNAMENT,
            _player("P1", ema_id="04160092"),
            _player("P2"),
            _player("P3", substitute=True),  # rule FM-9: never ranked, never exported
            _player("P4"),
        ]
    )
    assert [p.player for p in missing_ema_ids(tournament.players)] == ["P2", "P4"]


# -- names (app/domain/ema.py: "Names") -------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "last", "first"),
    [
        ("Takeshi Yamada", "Yamada", "Takeshi"),
        ("Eun-ji Park", "Park", "Eun-ji"),
        ("Anna Maria  Rossi", "Rossi", "Anna Maria"),
        ("van der Berg, Anna", "van der Berg", "Anna"),  # a comma says where
        ("Madonna", "Madonna", ""),
        ("山田 剛", "山田", "剛"),  # family name first
        ("王 小明", "王", "小明"),
        ("김 민준", "김", "민준"),
        ("山田剛", "山田剛", ""),  # where the family name ends, the server cannot know
    ],
)
def test_last_and_first_names_come_from_the_registered_name(
    name: str, last: str, first: str
) -> None:
    assert split_name(name) == (last, first)


# -- table points and figures ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("scores", "points"),
    [
        ({"a": 30, "b": 10, "c": -10, "d": -30}, {"a": 4, "b": 2, "c": 1, "d": 0}),
        # level players share the points of the places they hold (as AA-16 shares uma)
        ({"a": 20, "b": 20, "c": -10, "d": -30}, {"a": 3, "b": 3, "c": 1, "d": 0}),
        ({"a": 30, "b": -10, "c": -10, "d": -10}, {"a": 4, "b": 1, "c": 1, "d": 1}),
        ({"a": 0, "b": 0, "c": 0, "d": 0}, {p: Fraction(7, 4) for p in "abcd"}),
        (
            {"a": 9, "b": 9, "c": 9, "d": -27},
            {"a": Fraction(7, 3), "b": Fraction(7, 3), "c": Fraction(7, 3), "d": 0},
        ),
    ],
)
def test_table_points_place_the_four_by_their_segment_score(
    scores: dict[str, int], points: dict[str, Fraction]
) -> None:
    given = table_points(scores)
    assert given == points
    assert sum(given.values()) == 7  # 4 + 2 + 1 + 0 at every table


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (Fraction(45, 4), "11.25"),  # rule SC-5: exports carry the exact value
        (Fraction(-3), "-3"),
        (Fraction(1, 16), "0.0625"),
        (Fraction(-1, 8), "-0.125"),
        (Fraction(7, 3), "2.33"),  # no exact decimal: SC-5's 2 decimals, rounded down
        (Fraction(-7, 3), "-2.34"),
    ],
)
def test_figures_are_exact_decimals_where_one_exists(value: Fraction, text: str) -> None:
    assert decimal_text(value) == text


# -- the EMA's rows of a whole tournament ------------------------------------------------------


def _club(*more: str) -> Tournament:
    lines = CLUB.read_text(encoding="utf-8").splitlines()
    players = [n for n, line in enumerate(lines) if '"type": "player"' in line]
    return replay_lines([*lines[: players[-1] + 1], *more, *lines[players[-1] + 1 :]])


def test_the_ema_rows_follow_the_final_ranking_with_places_shared() -> None:
    tournament = _club('{"type": "ema_id", "player": "eun", "ema_id": "23000001"}')
    rows = ema_rows(tournament.final_ranking(), tournament.players, tournament.rounds)
    assert EMA_COLUMNS == (
        "Place", "EMA number", "Last name", "First name", "Country", "Points", "Score",
    )  # fmt: skip
    assert [row.cells() for row in rows] == [
        # rule PR-1: the finalists by their final total, then round 1's eliminated
        ("1", "23000001", "Park", "Eun-ji", "KR", "6", "76.5"),
        ("2", "-", "Larsen", "Finn", "DK", "6", "-0.5"),
        ("3", "-", "Sato", "Ami", "JP", "4", "-13.5"),
        ("4", "-", "Martin", "Cléo", "FR", "3", "-31.25"),  # carry-in 1/4 of -1 (SC-3, SC-4)
        # rule PR-3: equal totals share the place; level at their table, they share 1 + 0
        ("5", "-", "Ho", "Gwen", "HK", "0.5", "-22"),
        ("5", "-", "Silva", "Hugo", "PT", "0.5", "-22"),
        ("7", "-", "Jansen", "Dirk", "NL", "1", "-38"),  # PN-1's -5 in the score, not places
        ("8", "-", "Chen", "Bo", "CN", "0", "-48"),
    ]


def test_every_hand_has_a_row_per_player_with_running_totals() -> None:
    tournament = _club()
    rows = hand_rows(tournament.rounds, tournament.players)
    live_hands = {(r.round, r.segment, r.table, r.hand) for r in rows}
    assert len(rows) == 4 * len(live_hands) == 28  # the corrected hand counts once
    for key in live_hands:
        # rule HS-2: every hand is zero-sum
        assert sum(r.delta for r in rows if (r.round, r.segment, r.table, r.hand) == key) == 0
    # the running total is the round's play score without its penalties (rule SC-1, PN-1)
    for round_number, state in tournament.rounds.items():
        penalties = {p.player: p.points for p in state.penalties}
        for player, play in state.play.items():
            last = [r for r in rows if r.round == round_number and r.player == player][-1]
            assert last.running_total == play - penalties.get(player, 0)
    first = rows[0]
    assert (first.seat, first.player, first.result, first.role, first.value, first.delta) == (
        "east", "ami", "discard", "winner", 30, 90,
    )  # fmt: skip  # rule HS-2: the winner collects 3v
    corrected = [r for r in rows if (r.round, r.table, r.hand) == (1, 2, 2)]
    assert {r.player: r.role for r in corrected if r.role} == {
        "finn": "winner",
        "gwen": "discarder",
    }


ARIARI = Path(__file__).parents[3] / "examples" / "ariari.jsonl"


def test_an_ari_ari_tournament_gives_whole_points_and_zero_sum_games() -> None:
    tournament = replay_lines(ARIARI.read_text(encoding="utf-8").splitlines())
    rows = ema_rows(tournament.final_ranking(), tournament.players, tournament.rounds)
    assert rows[0].cells() == ("1", "-", "Stone", "Ben", "GB", "10", "29275")
    hands = hand_rows(tournament.rounds, tournament.players, ariari=True)
    games = {(r.round, r.segment, r.table) for r in hands}
    for game in games:
        # rule AA-5: a riichi bet leaves its owner's points for the table, so a hand need not
        # be zero-sum; the bets go to a winner or, at the end, to the first (AA-15): the game is
        assert sum(r.delta for r in hands if (r.round, r.segment, r.table) == game) == 0
    for round_number, state in tournament.rounds.items():
        penalties: dict[object, int] = {}
        for penalty in state.penalties:
            penalties[penalty.player] = penalties.get(penalty.player, 0) + penalty.points
        for player, play in state.play.items():
            mine = [r for r in hands if r.round == round_number and r.player == player]
            assert mine[-1].running_total == play - penalties.get(player, 0)


@given(st.lists(st.integers(-200, 200), min_size=4, max_size=4))
def test_table_points_always_share_seven_and_follow_the_scores(scores: list[int]) -> None:
    seated = dict(zip("abcd", scores, strict=True))
    points = table_points(seated)
    assert sum(points.values()) == 7  # 4 + 2 + 1 + 0, however the four are level
    for a in seated:
        for b in seated:
            if seated[a] > seated[b]:
                assert points[a] > points[b]  # a better score never takes fewer points
            if seated[a] == seated[b]:
                assert points[a] == points[b]  # level players share evenly
