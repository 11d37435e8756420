"""The standings at any moment (issue 18, part 2): `GET /standings?at=TIME` for a time slider.

    python -m bench.standings_at

A generated complete WSOM 2008 event of 1,000 players with clocks (deals and entry times on
every line, as tablets write them), imported into a fresh SQLite database. Prints, on this
machine, the time of app/services/history.standings_at (the lines read from the database,
the replay, the report of the round):
- the first answer, at the end of the day: every line read and replayed once, with a pickled
  copy every CHECKPOINT lines;
- a slider dragged forward across the day, 200 steps;
- a slider jumping to 200 random moments, back and forth;
- a moment asked again (the answer kept);
against the same moments by replaying the log from its first line each time.
Target: a jump under 0.25 s (median), a drag step under 0.05 s: a slider that follows the
hand without a visible wait.
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

from app.db.engine import make_engine, migrate
from app.domain.log import decode_line, line_time
from app.domain.replay import replay_lines
from app.services import history
from app.services.store import TournamentStore
from bench.generate import Options, generate

PLAYERS = 1000
JUMP_TARGET_S = 0.25
DRAG_TARGET_S = 0.05


def _figure(label: str, seconds: list[float], target: float | None = None) -> None:
    median = statistics.median(seconds)
    verdict = ""
    if target is not None:
        verdict = f"  (target < {target} s: {'meets' if median < target else 'MISSES'})"
    print(
        f"{label:<52} median {median:7.4f} s  min {min(seconds):7.4f}  "
        f"max {max(seconds):7.4f}  n={len(seconds)}{verdict}"
    )


def _timed(moments: list[datetime], ask: Callable[[datetime], object]) -> list[float]:
    times = []
    for moment in moments:
        start = time.perf_counter()
        ask(moment)
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    lines = generate(Options(players=PLAYERS, seed=18, schedule_start="2026-11-29T09:00:00Z"))
    moments = [line_time(decode_line(line)) for line in lines]
    known = [m for m in moments if m is not None]
    first, last = min(known), max(known)
    print(
        f"complete WSOM 2008 event: {PLAYERS} players, {len(lines):,} lines, "
        f"{len(known):,} with a time, {first:%H:%M} to {last:%H:%M} ({last - first})"
    )
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'bench.db'}"
        migrate(url)
        engine = make_engine(url)
        # the clock of the day's end: no moment is later than now
        store = TournamentStore(engine, clock=lambda: last + timedelta(hours=1))
        tid = store.import_log(lines).tournament_id

        def ask(moment: datetime) -> object:
            return history.standings_at(store, tid, moment, None)

        _figure("first answer (every line read and replayed)", _timed([last], ask))
        span = (last - first).total_seconds()
        drag = [first + timedelta(seconds=span * step / 200) for step in range(1, 201)]
        _figure("slider dragged forward, a step", _timed(drag, ask), DRAG_TARGET_S)
        rng = random.Random(18)
        jumps = [first + timedelta(seconds=rng.uniform(0, span)) for _ in range(200)]
        _figure("slider jumping back and forth, a jump", _timed(jumps, ask), JUMP_TARGET_S)
        _figure("a moment asked again (its answer kept)", _timed(jumps[-50:], ask))
        held = history._history_of(store, tid)
        print(
            f"held: {len(held.checkpoints)} pickled copies, "
            f"{sum(map(len, held.checkpoints.values())) / 1e6:.1f} MB; "
            f"{len(held.answers)} answers"
        )
        _figure(
            "the same jumps replaying the log from its start",
            _timed(jumps[:10], lambda moment: replay_lines(lines, until=moment)),
        )
        engine.dispose()


if __name__ == "__main__":
    main()
