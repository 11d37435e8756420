"""Replay figures for the tournament engine (issue: engine and `scoreboard replay`).

    python -m bench.replay

Prints, on this machine:
- the time to replay the complete generated 520-player WSOM 2008 log (every round to the
  final), with and without building the JSON report of `scoreboard replay`;
- the time to update the standings after one more hand in a 1,000-player round: apply
  the hand to the tournament and recompute the whole ranking with its cut line.
Targets from the issue: full replay under 0.5 s; one-hand update under 2 ms (median).
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable

from app.domain.log import HandRecorded, parse_line
from app.domain.replay import replay_lines, report
from bench.generate import Options, generate

REPLAY_TARGET_S = 0.5
UPDATE_TARGET_MS = 2.0


def _timed(action: Callable[[], object], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return times


def _figure(label: str, seconds: list[float], unit: str, scale: float, target: float) -> None:
    median = statistics.median(seconds) * scale
    verdict = "meets" if median < target else "MISSES"
    print(
        f"{label:<58} median {median:8.3f} {unit}  min {min(seconds) * scale:8.3f}  "
        f"max {max(seconds) * scale:8.3f}  (target < {target} {unit}: {verdict})"
    )


def bench_full_replay(runs: int = 7) -> None:
    lines = generate(Options(players=520, seed=2008))
    print(f"complete WSOM 2008 log: 520 players, {len(lines)} lines, every round to the final")
    _figure(
        "full replay (parse + rules + standings of every round)",
        _timed(lambda: replay_lines(lines), runs),
        "s",
        1.0,
        REPLAY_TARGET_S,
    )
    _figure(
        "full replay + JSON report of `scoreboard replay`",
        _timed(lambda: json.dumps(report(replay_lines(lines))), runs),
        "s",
        1.0,
        REPLAY_TARGET_S,
    )


def bench_one_hand_update() -> None:
    # Round 1 of a 1,000-player event, played up to its last half; the hands of that
    # last half are then applied one at a time, each followed by the full standings.
    lines = generate(Options(players=1000, seed=1000, until_round=1, leave_open=True))
    hand_lines = [i for i, line in enumerate(lines) if '"type":"hand"' in line]
    split = hand_lines[-1000]
    tournament = replay_lines(lines[:split])
    pending = [parse_line(line) for line in lines[split:]]
    hands = [event for event in pending if isinstance(event, HandRecorded)]
    field = len(tournament.rounds[1].field)
    times = []
    for event in pending:
        start = time.perf_counter()
        tournament.apply(event)
        standings = tournament.standings(1)
        if isinstance(event, HandRecorded):
            times.append(time.perf_counter() - start)
    assert standings.cut is not None and len(standings.rows) == field
    print(
        f"\nround 1 of a {field}-player event, {len(hands)} more hands, "
        "each followed by the full standings"
    )
    _figure(
        "one-hand update (apply the hand + rank all + cut line)",
        times,
        "ms",
        1000.0,
        UPDATE_TARGET_MS,
    )
    times_rank = _timed(lambda: tournament.standings(1), 200)
    _figure("standings alone (rank all + cut line)", times_rank, "ms", 1000.0, UPDATE_TARGET_MS)


def main() -> None:
    bench_full_replay()
    bench_one_hand_update()


if __name__ == "__main__":
    main()
