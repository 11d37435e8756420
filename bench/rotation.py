"""Figures for the table moves between halves (rule SE-2, app/domain/rotation.py).

    python -m bench.rotation

Prints, for 2 halves (rounds 2-6) and 4 halves (round 1), over every table count from 4 to
300: the worst repeats, the table counts where repeats cannot be avoided, and the time to
compute every pattern from a cold cache (total, and the slowest single table count). Then
the unavoidable repeats for 1 to 3 tables, and the round 7 routine's meeting counts.
Target: all of 4..300 for 2 and 4 halves in well under a few seconds.
"""

from __future__ import annotations

import time
from collections import Counter

from app.domain import rotation
from app.domain.rotation import meeting_counts, quarter_routine, rotation_for

TABLE_COUNTS = range(4, 301)
TARGET_S = 2.0


def _cold() -> None:
    rotation._rotation.cache_clear()
    rotation._translation.cache_clear()


def bench_halves(halves: int) -> float:
    _cold()
    worst_repeats = 0
    impossible: list[int] = []
    slowest = (0.0, 0)
    start = time.perf_counter()
    for tables in TABLE_COUNTS:
        began = time.perf_counter()
        repeats = rotation_for(tables, halves).repeats
        slowest = max(slowest, (time.perf_counter() - began, tables))
        worst_repeats = max(worst_repeats, repeats)
        if repeats:
            impossible.append(tables)
    total = time.perf_counter() - start
    print(
        f"{halves} halves, tables {TABLE_COUNTS.start}..{TABLE_COUNTS.stop - 1}: "
        f"max repeats {worst_repeats}; repeats unavoidable at {impossible or 'none'}; "
        f"total {total * 1000:.1f} ms, slowest T={slowest[1]} {slowest[0] * 1000:.2f} ms"
    )
    return total


def main() -> None:
    total = sum(bench_halves(halves) for halves in (2, 4))
    verdict = "meets" if total < TARGET_S else "MISSES"
    print(f"both, cold: {total * 1000:.1f} ms (target < {TARGET_S} s: {verdict})")
    for tables in (1, 2, 3):
        figures = ", ".join(
            f"{halves} halves {rotation_for(tables, halves).repeats}" for halves in (2, 3, 4)
        )
        print(f"{tables} table(s), fewest repeats: {figures}")
    routine = quarter_routine()
    spread = Counter(meeting_counts(routine).values())
    never = 28 - sum(spread.values())
    print(f"round 7 routine: pairs by meetings {dict(sorted(spread.items()))}, never meet {never}")


if __name__ == "__main__":
    main()
