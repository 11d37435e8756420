"""Properties of Ari Ari games (rules AA-1 to AA-17), checked with Hypothesis over random
games that a judge could have entered: every result is valid for the game's state when it
is played (living hands win, two yaku, riichi only with 1,000 points)."""

from __future__ import annotations

import contextlib
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from app.domain.ariari import AriAriRules, Game, parse_result, play_game, rules_to_log
from app.domain.errors import RuleViolation
from app.domain.log import parse_event
from app.domain.replay import replay_lines, report

SEATS = ("a", "b", "c", "d")
LIMIT_NAMES = ["mangan", "haneman", "baiman", "sanbaiman", "yakuman"]

rules = st.builds(
    AriAriRules,
    length=st.sampled_from(["east_south", "east_only"]),
    start_points=st.sampled_from([20_000, 25_000, 30_000]),
    tenpai_payment=st.sampled_from([0, 3_000]),
)


@st.composite
def a_win(draw: st.DrawFn, winner: str) -> dict[str, Any]:
    out: dict[str, Any] = {"winner": winner, "yaku": draw(st.integers(2, 5))}
    if draw(st.booleans()):
        out["limit"] = draw(st.sampled_from(LIMIT_NAMES))
    else:
        out["fan"] = draw(st.integers(1, 14))
        out["fu"] = draw(st.sampled_from([20, 25, 30, 40, 50, 60, 70, 80, 90, 100, 110]))
    return out


@st.composite
def a_hand(draw: st.DrawFn, points: dict[str, int]) -> dict[str, Any]:
    """One valid result for a game whose players hold `points` now."""
    dead = draw(st.lists(st.sampled_from(SEATS), unique=True, max_size=1))
    alive = [p for p in SEATS if p not in dead]
    rich = [p for p in SEATS if points[p] >= 1_000]  # rule AA-18
    riichi = draw(st.lists(st.sampled_from(rich), unique=True, max_size=2)) if rich else []
    kind = draw(st.sampled_from(["ron", "ron", "tsumo", "exhaustive_draw", "chombo"]))
    raw: dict[str, Any]
    if kind == "ron":
        discarder = draw(st.sampled_from(SEATS))
        candidates = [p for p in alive if p != discarder]
        winners = draw(st.lists(st.sampled_from(candidates), unique=True, min_size=1, max_size=3))
        raw = {"kind": "ron", "discarder": discarder, "wins": [draw(a_win(w)) for w in winners]}
    elif kind == "tsumo":
        raw = {"kind": "tsumo", **draw(a_win(draw(st.sampled_from(alive))))}
    elif kind == "exhaustive_draw":
        raw = {"kind": kind, "tenpai": draw(st.lists(st.sampled_from(alive), unique=True))}
    else:
        raw = {"kind": kind, "offender": draw(st.sampled_from(SEATS))}
    return {**raw, "riichi": riichi, "dead": dead}


@st.composite
def games(draw: st.DrawFn) -> tuple[AriAriRules, list[dict[str, Any]], Game]:
    """A game of up to 30 hands, played until it ends or the hands run out."""
    game_rules = draw(rules)
    hands: list[dict[str, Any]] = []
    game = play_game(SEATS, [], game_rules)
    for _ in range(draw(st.integers(1, 30))):
        if game.ended is not None:
            break
        hands.append(draw(a_hand(dict(game.points))))
        game = play(hands, game_rules)
    return game_rules, hands, game


def play(hands: list[dict[str, Any]], game_rules: AriAriRules) -> Game:
    return play_game(
        SEATS, [(n, parse_result(h)) for n, h in enumerate(hands, start=1)], game_rules
    )


@settings(max_examples=150, deadline=None)
@given(games())
def test_every_hand_is_zero_sum_counting_the_bets(game: tuple[Any, Any, Game]) -> None:
    """rules AA-3 to AA-10: what players gain, others or the table lose."""
    for hand in game[2].hands:
        assert sum(d for _, d in hand.deltas) + hand.bets_after - hand.bets_before == 0


@settings(max_examples=150, deadline=None)
@given(games())
def test_points_and_bets_on_the_table_are_the_starting_points(
    game: tuple[AriAriRules, Any, Game],
) -> None:
    """rules AA-1, AA-5: the final points plus the bets left equal 4 x the starting points."""
    game_rules, _, played = game
    for hand in played.hands:
        assert sum(p for _, p in hand.points_after) + hand.bets_after == 4 * game_rules.start_points
    assert sum(p for _, p in played.points) + played.bets == 4 * game_rules.start_points


@settings(max_examples=150, deadline=None)
@given(games())
def test_uma_and_results_sum_to_zero(game: tuple[AriAriRules, Any, Game]) -> None:
    """rules AA-15 to AA-17: uma is zero-sum, the leftover bets all go to first place, so
    the players' results sum to zero; the tournament's settlements add up to them."""
    _, _, played = game
    if played.ended is None:
        assert played.standings == ()
        return
    assert sum(s.uma for s in played.standings) == 0
    assert sum(s.bets for s in played.standings) == played.bets
    assert sum(s.result for s in played.standings) == 0
    # rule AA-15: tied first places split the bets in whole points, the whole remainder to the
    # one nearest the starting East (standings are in seat order: East first). Not one point
    # each as the uma's remainder goes (AA-21): 2,000 among three is 668, 666, 666.
    first = [s for s in played.standings if s.place == 1]
    share, left = divmod(played.bets, len(first))
    assert [s.bets for s in first] == [share + left] + [share] * (len(first) - 1)
    settlements = played.settlements().values()
    for player, result in played.results().items():
        assert sum(dict(s.deltas)[player] for s in settlements) == result


@settings(max_examples=100, deadline=None)
@given(games())
def test_playing_twice_gives_the_same_game(game: tuple[AriAriRules, Any, Game]) -> None:
    game_rules, hands, played = game
    assert play(hands, game_rules) == played


def tournament_log(game_rules: AriAriRules, hands: list[dict[str, Any]]) -> list[str]:
    """One table of round 1 of a small Ari Ari tournament, playing `hands`."""
    lines: list[dict[str, Any]] = [
        {
            "type": "tournament",
            "name": "prop",
            "format": {
                "ruleset": "ariari",
                "rounds": [{"advance": 4, "segments": 1}, {}],
                "game": rules_to_log(game_rules),
            },
        },
        *({"type": "player", "id": p, "name": p, "group": "A"} for p in "abcdefgh"),
        {"type": "seating", "round": 1, "segment": 1, "table": 1, "seats": ["a", "b", "c", "d"]},
        {"type": "seating", "round": 1, "segment": 1, "table": 2, "seats": ["e", "f", "g", "h"]},
    ]
    lines += [
        {"type": "hand", "round": 1, "segment": 1, "table": 1, "hand": n, "result": h}
        for n, h in enumerate(hands, start=1)
    ]
    return [json.dumps(line) for line in lines]


@settings(max_examples=60, deadline=None)
@given(games(), st.data())
def test_a_correction_and_its_undo_change_nothing(
    game: tuple[AriAriRules, list[dict[str, Any]], Game], data: st.DataObject
) -> None:
    """A correction of hand k, accepted or refused, followed by the original hand again,
    leaves the standings as they were (CONTRACT §1: a correction replaces the hand)."""
    game_rules, hands, played = game
    lines = tournament_log(game_rules, hands)
    before = json.dumps(report(replay_lines(lines)), sort_keys=True)
    number = data.draw(st.integers(1, len(hands)))
    tournament = replay_lines(lines)
    before_k = played.hands[number - 2].points_after if number > 1 else ()
    points = {p: game_rules.start_points for p in SEATS} | dict(before_k)
    other = data.draw(a_hand(points))
    where = {"round": 1, "segment": 1, "table": 1, "hand": number}
    with contextlib.suppress(RuleViolation):  # refused: nothing changed
        tournament.apply(parse_event({"type": "hand", **where, "result": other}))
    tournament.apply(parse_event({"type": "hand", **where, "result": hands[number - 1]}))
    assert json.dumps(report(tournament), sort_keys=True) == before
    assert json.dumps(report(replay_lines(lines)), sort_keys=True) == before
