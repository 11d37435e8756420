"""Builders shared by the domain tests: a round's scores for `rank_round`, and a small log
replayed line by line. Fixtures rather than an imported helper module, so nothing here
depends on how pytest puts test folders on sys.path."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

import pytest

from app.domain.replay import replay_lines
from app.domain.standings import RoundScores
from app.domain.tournament import Tournament


def _scores(
    play: Mapping[str, int],
    advance: int | None,
    *,
    carry_in: Mapping[str, Fraction] | None = None,
    hands: Mapping[str, Sequence[int]] | None = None,
    ended: bool = False,
    draw_seed: str | None = None,
    round_number: int = 1,
) -> RoundScores:
    """The inputs of a round, with carry-ins scaled over one common denominator (rule SC-4).
    The field is the keys of `play`, in that order."""
    carry = dict(carry_in or {})
    denominator = math.lcm(1, *(c.denominator for c in carry.values()))
    return RoundScores(
        round=round_number,
        advance=advance,
        field=list(play),
        denominator=denominator,
        carry_in_scaled={p: int(c * denominator) for p, c in carry.items()},
        play=dict(play),
        winning_values=dict(hands or {}),
        ended=ended,
        draw_seed=draw_seed,
    )


@pytest.fixture
def round_scores() -> Callable[..., RoundScores]:
    return _scores


@pytest.fixture
def replay() -> Callable[[Sequence[dict[str, Any]]], Tournament]:
    """Replay log lines given as dicts, exactly as `scoreboard replay` reads a file."""

    def run(lines: Sequence[dict[str, Any]]) -> Tournament:
        return replay_lines(json.dumps(line) for line in lines)

    return run
