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
from typing import Any

from app.domain.formats import PRESETS, Format, format_from_log
from app.domain.hands import PlayerId
from app.domain.log import Event, parse_event
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


class _Writer:
    """Applies each event to the tournament before writing it, so the log is valid."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.tournament: Tournament | None = None

    def emit(self, line: dict[str, Any]) -> None:
        event: Event = parse_event(line)
        if self.tournament is None:
            from app.domain.log import TournamentDeclared

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
    for number in range(1, last + 1):
        _play_round(writer, rng, number, options, end=not (options.leave_open and number == last))
    return writer.lines


def _round_players(tournament: Tournament, number: int) -> dict[str, list[PlayerId]]:
    """Who sits down in round `number`, by group (later rounds have one group)."""
    state = tournament.rounds[number]
    if number > 1:
        return {"": list(state.field)}
    by_group: dict[str, list[PlayerId]] = {}
    for player in tournament.players.values():
        by_group.setdefault(player.group, []).append(player.player)
    return by_group


def _play_round(
    writer: _Writer, rng: random.Random, number: int, options: Options, *, end: bool
) -> None:
    tournament = writer.tournament
    assert tournament is not None
    round_format = tournament.format.round(number)
    table = 1
    for players in _round_players(tournament, number).values():
        tables = len(players) // 4
        first_table = table
        table += tables
        for segment in range(1, round_format.segments + 1):
            # A fresh shuffle per segment: good enough for load and invariants; the real
            # rotation patterns (rule SE-2) are the seating issue's.
            shuffled = players[:]
            rng.shuffle(shuffled)
            for offset in range(tables):
                seats = tuple(shuffled[4 * offset : 4 * offset + 4])
                writer.emit(
                    {
                        "type": "seating",
                        "round": number,
                        "segment": segment,
                        "table": first_table + offset,
                        "seats": list(seats),
                    }
                )
            for offset in range(tables):
                seats = tuple(shuffled[4 * offset : 4 * offset + 4])
                _play_segment(writer, rng, number, segment, first_table + offset, seats, options)
    if end:
        writer.emit(
            {"type": "round_end", "round": number, "draw_seed": f"round-{number}-{options.seed}"}
        )


def _play_segment(
    writer: _Writer,
    rng: random.Random,
    number: int,
    segment: int,
    table: int,
    seats: tuple[PlayerId, ...],
    options: Options,
) -> None:
    tournament = writer.tournament
    assert tournament is not None
    fmt = tournament.format
    for hand in range(1, fmt.round(number).hands_per_segment + 1):
        where = {"round": number, "segment": segment, "table": table, "hand": hand}
        writer.emit(
            {
                "type": "hand",
                **where,
                "result": random_result(rng, seats, fmt),
                "id": f"r{number}s{segment}t{table}h{hand}",
            }
        )
        roll = rng.random()
        if roll < options.corrections:
            writer.emit(
                {
                    "type": "hand",
                    **where,
                    "result": random_result(rng, seats, fmt),
                    "id": f"r{number}s{segment}t{table}h{hand}c",
                }
            )
        elif roll < options.corrections + options.voids:
            writer.emit({"type": "void", **where})
            writer.emit(
                {
                    "type": "hand",
                    **where,
                    "result": random_result(rng, seats, fmt),
                    "id": f"r{number}s{segment}t{table}h{hand}v",
                }
            )
        elif roll < options.corrections + options.voids + options.penalties:
            writer.emit(
                {
                    "type": "penalty",
                    "round": number,
                    "player": rng.choice(seats),
                    "points": -rng.choice([5, 10, 20]),
                    "reason": "late arrival",
                }
            )


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
    args = parser.parse_args(argv)
    for line in generate(
        Options(
            players=args.players, seed=args.seed, format=args.format, until_round=args.until_round
        )
    ):
        sys.stdout.write(line + "\n")


if __name__ == "__main__":
    main()
