"""What the story of the session costs the live feed (issue 18, part 2).

    python -m bench.story

Round 1 of a generated 1,000-player WSOM 2008 event, played to its last hand but not ended
(8,000 hands), then a hand more at a time: for each, the `stats` channel's state
(app/read/stats.py over app/domain/story.py: every hand of the round looked at, the round
ranked without the last hand for the cut line) and its JSON, as a flush makes them once per
update for every follower. Target: under 20 ms (median), a fifth of the 0.1 s between two
updates.
"""

from __future__ import annotations

import json
import statistics
import time

from app.domain.replay import apply_line, replay_lines
from app.read.stats import stats_state
from bench.generate import Options, generate

PLAYERS = 1000
HANDS = 40
TARGET_MS = 20.0


def main() -> None:
    lines = generate(Options(players=PLAYERS, seed=18, until_round=1, leave_open=True))
    split = len(lines) - HANDS
    tournament = replay_lines(lines[:split])
    times, sizes = [], []
    for line in lines[split:]:
        apply_line(tournament, line)
        start = time.perf_counter()
        body = json.dumps(stats_state(tournament), separators=(",", ":"))
        times.append(time.perf_counter() - start)
        sizes.append(len(body))
    median = statistics.median(times) * 1000
    verdict = "meets" if median < TARGET_MS else "MISSES"
    print(
        f"round 1 of {PLAYERS} players, {len(lines):,} lines: the stats state and its JSON "
        f"after each of the last {HANDS} lines: median {median:.1f} ms, max "
        f"{max(times) * 1000:.1f} ms (target < {TARGET_MS} ms: {verdict}); "
        f"{statistics.median(sizes) / 1000:.1f} KB"
    )


if __name__ == "__main__":
    main()
