"""A generator of complete, valid WSOM tournament logs (CONTRACT.md §1).

Shared by the benchmarks and the tests: it drives the real domain (`Tournament.apply`),
so every line it writes has been accepted by the rules, and it picks who plays the next
round from the real standings. Everything random comes from one seed.

    python -m bench.generate --players 520 --seed 7 > wsom2008.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from app.domain.clocks import mid_break_after_hand, time_limit
from app.domain.draw import draw_round
from app.domain.formats import PRESETS, Format, RoundFormat, format_from_log
from app.domain.hands import PlayerId
from app.domain.log import (
    Event,
    SeatingRecorded,
    TournamentDeclared,
    event_to_log,
    format_time,
    parse_event,
)
from app.domain.tournament import Tournament

FIRST_NAMES = [
    "Aiko",
    "Bao",
    "Chen",
    "Dana",
    "Émile",
    "Fumiko",
    "Grace",
    "Hiro",
    "Ines",
    "Jun",
    "Kai",
    "Lena",
    "Ming",
    "Noor",
    "Oskar",
    "Pia",
    "Qing",
    "René",
    "Sora",
    "Tomás",
]
LAST_NAMES = [
    "Ahn",
    "Becker",
    "Chow",
    "Dubois",
    "Endō",
    "Fischer",
    "García",
    "Hayashi",
    "Ito",
    "Jansen",
    "Kwan",
    "Lau",
    "Müller",
    "Nakamura",
    "Okafor",
    "Petrov",
    "Quinn",
    "Sato",
]
COUNTRIES = ["JP", "CN", "HK", "MO", "FR", "DE", "NL", "US", "DK", "AU"]


@dataclass(frozen=True)
class Options:
    players: int = 520
    seed: int = 2008
    format: str | dict[str, Any] = "wsom2008"
    substitutes: bool = True  # fill each group to a multiple of 4 (rule FM-9)
    until_round: int | None = None  # stop after ending this round (None: the whole event)
    leave_open: bool = False  # with until_round: play that round but do not end it
    corrections: float = 0.01  # share of hands followed by a correction
    voids: float = 0.002  # share of hands voided and entered again
    penalties: float = 0.002  # share of hands followed by a penalty
    # ISO time of round 1's first segment: schedules, deals and entry times are written too,
    # as judges' tablets would (rules CL-1 to CL-3); None plays without clocks (rule CL-3a).
    schedule_start: str | None = None


class _Writer:
    """Applies each event to the tournament before writing it, so the log is valid."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.tournament: Tournament | None = None

    def emit(self, line: dict[str, Any]) -> None:
        event: Event = parse_event(line)
        if self.tournament is None:
            assert isinstance(event, TournamentDeclared)
            self.tournament = Tournament(event)
        else:
            self.tournament.apply(event)
        self.lines.append(json.dumps(line, ensure_ascii=False, separators=(",", ":")))


def _name(index: int, number: int) -> str:
    first = FIRST_NAMES[index % len(FIRST_NAMES)]
    last = LAST_NAMES[(index // len(FIRST_NAMES)) % len(LAST_NAMES)]
    return f"{first} {last} {number}"


def random_result(rng: random.Random, seats: tuple[PlayerId, ...], fmt: Format) -> dict[str, Any]:
    """A plausible WSOM hand: about 1 in 6 drawn, the rest won; values skewed low as in play."""
    roll = rng.random()
    if roll < 0.16:
        return {"kind": "draw"}
    winner = rng.choice(seats)
    value = min(
        fmt.max_value, max(fmt.min_value, int(rng.paretovariate(1.6) * fmt.min_value * 1.4))
    )
    if roll < 0.45:
        return {"kind": "self_draw", "winner": winner, "value": value}
    if roll < 0.98:
        discarder = rng.choice([p for p in seats if p != winner])
        return {"kind": "discard", "winner": winner, "discarder": discarder, "value": value}
    deltas = {p: 0 for p in seats}
    payer = rng.choice([p for p in seats if p != winner])
    deltas[winner], deltas[payer] = 3 * value, -3 * value
    return {"kind": "points", "deltas": deltas, "winner": winner, "value": value}


def generate(options: Options = Options()) -> list[str]:
    """The lines of a whole generated tournament log."""
    rng = random.Random(options.seed)
    writer = _Writer()
    fmt = format_from_log(options.format)
    writer.emit(
        {
            "type": "tournament",
            "name": f"Generated {fmt.name} ({options.players} players)",
            "format": options.format,
        }
    )
    writer.emit({"type": "prizes", "amounts": [20000, 10000, 5000, 3000] + [1000] * 4 + [500] * 24})
    groups = fmt.round(1).group_names
    next_id = 1
    for index in range(options.players):
        group = groups[index % len(groups)]
        writer.emit(
            {
                "type": "player",
                "id": f"P{next_id:04d}",
                "group": group,
                "name": _name(index, next_id),
                "country": COUNTRIES[index % len(COUNTRIES)],
            }
        )
        next_id += 1
    if options.substitutes:
        for group in groups:
            in_group = (options.players + len(groups) - 1 - groups.index(group)) // len(groups)
            for _ in range(-in_group % 4):
                writer.emit(
                    {
                        "type": "player",
                        "id": f"S{next_id:04d}",
                        "group": group,
                        "name": f"Substitute {next_id}",
                        "substitute": True,
                    }
                )
                next_id += 1
    writer.emit({"type": "carry_over_rate", "round": 1, "rate": "1/4"})
    last = options.until_round or fmt.final_round
    cursor = datetime.fromisoformat(options.schedule_start) if options.schedule_start else None
    for number in range(1, last + 1):
        finished = _play_round(
            writer,
            rng,
            number,
            options,
            end=not (options.leave_open and number == last),
            starts_at=cursor,
        )
        # The next round starts half an hour after the last line: the cut and the new draw.
        cursor = None if finished is None else finished + timedelta(minutes=30)
    return writer.lines


def _play_round(
    writer: _Writer,
    rng: random.Random,
    number: int,
    options: Options,
    *,
    end: bool,
    starts_at: datetime | None,
) -> datetime | None:
    """Draw the round with the real draw (rules SE-1 to SE-3), then play every segment.
    With a start time, the round is timed; returns when its last line happened."""
    tournament = writer.tournament
    assert tournament is not None
    state = tournament.rounds[number]
    seed = f"draw-{number}-{options.seed}"
    writer.emit({"type": "draw", "round": number, "seed": seed})
    drawn = draw_round(state.format, tournament.round_groups(state), seed)
    clock = _RoundClock.for_round(starts_at, state.format) if starts_at is not None else None
    if clock is not None:
        for group in state.format.group_names if number == 1 else [None]:
            for segment in range(1, state.format.segments + 1):
                line = {
                    "type": "schedule",
                    "round": number,
                    "segment": segment,
                    "start": format_time(clock.start(segment)),
                }
                writer.emit(line if group is None else {**line, "group": group})
        for seating in drawn.seatings:
            writer.emit(event_to_log(seating))
    timed: list[tuple[datetime, tuple[int, int, int], dict[str, Any]]] = []
    if clock is None:
        for segment in range(1, state.format.segments + 1):
            seatings = [s for s in drawn.seatings if s.segment == segment]
            for seating in seatings:
                writer.emit(event_to_log(seating))
            for seating in seatings:
                for line in _segment_lines(rng, tournament.format, seating, options):
                    writer.emit(line)
    else:
        for seating in drawn.seatings:
            timed += clock.stamp(
                rng, seating, _segment_lines(rng, tournament.format, seating, options)
            )
    # A log is in the order things happened (CONTRACT §1): interleave tables and segments.
    for _, _, line in sorted(timed, key=lambda item: (item[0], item[1])):
        writer.emit(line)
    finished = max((item[0] for item in timed), default=starts_at)
    if end:
        line = {"type": "round_end", "round": number, "draw_seed": f"round-{number}-{options.seed}"}
        if finished is not None:
            finished += timedelta(minutes=5)
            line["at"] = format_time(finished)
        writer.emit(line)
    return finished


def _segment_lines(
    rng: random.Random, fmt: Format, seating: SeatingRecorded, options: Options
) -> list[dict[str, Any]]:
    """One table's hands in a segment, with the odd correction, void and penalty."""
    number, segment, table, seats = seating.round, seating.segment, seating.table, seating.seats
    lines: list[dict[str, Any]] = []
    for hand in range(1, fmt.round(number).hands_per_segment + 1):
        where = {"round": number, "segment": segment, "table": table, "hand": hand}
        key = f"r{number}s{segment}t{table}h{hand}"
        lines.append({"type": "hand", **where, "result": random_result(rng, seats, fmt), "id": key})
        roll = rng.random()
        if roll < options.corrections:
            result = random_result(rng, seats, fmt)
            lines.append({"type": "hand", **where, "result": result, "id": f"{key}c"})
        elif roll < options.corrections + options.voids:
            lines.append({"type": "void", **where})
            result = random_result(rng, seats, fmt)
            lines.append({"type": "hand", **where, "result": result, "id": f"{key}v"})
        elif roll < options.corrections + options.voids + options.penalties:
            points = -rng.choice([5, 10, 20])
            lines.append(
                {
                    "type": "penalty",
                    "round": number,
                    "player": rng.choice(seats),
                    "points": points,
                    "reason": "late arrival",
                }
            )
    return lines


@dataclass(frozen=True)
class _RoundClock:
    """A simulated timetable: segments back to back with their breaks (rule CL-1), hands
    of 5 to 10 minutes, so some tables finish and some end short (rule CL-3)."""

    first_start: datetime
    limit: timedelta | None
    gap: timedelta
    mid_break_after: int | None  # rule CL-1: the final's break after 2 cycles
    break_length: timedelta

    @staticmethod
    def for_round(starts_at: datetime, round_format: RoundFormat) -> _RoundClock:
        limit = time_limit(round_format)
        gap = (limit or timedelta(minutes=120)) + timedelta(minutes=round_format.break_minutes)
        return _RoundClock(
            starts_at,
            limit,
            gap,
            mid_break_after_hand(round_format),
            timedelta(minutes=round_format.break_minutes),
        )

    def start(self, segment: int) -> datetime:
        return self.first_start + self.gap * (segment - 1)

    def stamp(
        self, rng: random.Random, seating: SeatingRecorded, lines: list[dict[str, Any]]
    ) -> list[tuple[datetime, tuple[int, int, int], dict[str, Any]]]:
        """Give the table's lines times: a deal before each new hand; stop dealing when the
        deadline has passed, so the segment ends short (rule CL-3)."""
        start = self.start(seating.segment)
        deadline = start + self.limit if self.limit is not None else None
        where = {"round": seating.round, "segment": seating.segment, "table": seating.table}
        out: list[tuple[datetime, tuple[int, int, int], dict[str, Any]]] = []
        now = start
        if deadline is not None and rng.random() < 0.1:
            now = start - timedelta(minutes=rng.randint(1, 5))  # rule CL-2: all four agree
            out.append(
                (
                    now,
                    (seating.segment, seating.table, len(out)),
                    {"type": "early_start", **where, "time": format_time(now), "agreed": True},
                )
            )
        dealt: set[int] = set()
        for line in lines:
            hand = line.get("hand")
            if line["type"] == "hand" and isinstance(hand, int) and hand not in dealt:
                if self.mid_break_after is not None and hand == self.mid_break_after + 1:
                    now += self.break_length
                now += timedelta(seconds=rng.randint(40, 100))
                if deadline is not None and now > deadline:
                    break  # no new hand may start after the deadline: the segment ends short
                dealt.add(hand)
                out.append(
                    (
                        now,
                        (seating.segment, seating.table, len(out)),
                        {"type": "deal", **where, "hand": hand, "time": format_time(now)},
                    )
                )
                now += timedelta(seconds=rng.randint(300, 600))
            else:
                now += timedelta(seconds=20)
            out.append(
                (now, (seating.segment, seating.table, len(out)), {**line, "at": format_time(now)})
            )
        return out


def iter_generated(options: Options) -> Iterator[str]:
    yield from generate(options)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--players", type=int, default=520)
    parser.add_argument("--seed", type=int, default=2008)
    parser.add_argument("--format", default="wsom2008", choices=sorted(PRESETS))
    parser.add_argument("--until-round", type=int, default=None)
    parser.add_argument(
        "--advance",
        default=None,
        help="a custom format from the preset with these advance counts, e.g. 16,8,4",
    )
    parser.add_argument(
        "--schedule-start",
        default=None,
        help='write schedules, deals and entry times from this ISO time ("2026-11-29T09:00:00Z")',
    )
    args = parser.parse_args(argv)
    fmt: str | dict[str, Any] = args.format
    if args.advance:
        advance = [int(count) for count in args.advance.split(",")]
        fmt = {
            "name": f"{args.format} with {args.advance}",
            "preset": args.format,
            "advance": advance,
        }
    options = Options(
        players=args.players,
        seed=args.seed,
        format=fmt,
        until_round=args.until_round,
        schedule_start=args.schedule_start,
    )
    for line in generate(options):
        sys.stdout.write(line + "\n")


if __name__ == "__main__":
    main()
