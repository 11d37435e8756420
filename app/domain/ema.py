"""Results for the European Mahjong Association's ranking, and every hand for rating sites
(issue 18, part 6).

**The EMA's columns.** The EMA publishes each ranked tournament's results as a table on its
site (mahjong-europe.org/ranking/Tournament/TR_RCR_<n>.html for Riichi, TR_<n> for MCR),
one row a player, in this order: place, EMA number, last name, first name, country (shown
as a flag), points (table points), score (the "mahjong" points), and the MERS ranking
points the EMA computes itself from the place and the field's size. EMA_COLUMNS are those
columns but the last, in that order. Where the order comes from: the public tools that read
the EMA's results pages read these cells in this order (ldekerg/European-Mahjong,
scripts/importers/ema.py: position, EMA number, last name, first name, nationality flag,
points, mahjong, ranking; a rating portal's EMA download takes place, number, last name,
first name, country and score from the same cells). The header words are ours, in English
as the EMA writes. A player without an EMA number has "-" in that column, as on the EMA's
pages.

**Place.** The final ranking (rules PR-1, PR-3): players eliminated in round r below every
player of round r+1, equal totals sharing the place. Substitutes are never ranked (FM-9)
and are not listed. The export is of a tournament whose final has ended.

**Score.** The total each player is ranked by (rule PR-1): their carry-in plus their play
score in the round they were ranked in (SC-1, SC-2). Written exactly where a decimal can
be exact (SC-5: "Exports carry the exact value"), such as 11.25 for 45/4, else with SC-5's
2 decimals rounded down; an Ari Ari total is whole points (AA-17).

**Table points.** Our rules give no points for a place at the table, so the export uses the
placement points of the EMA's MCR results, which its format carries: at each table the
player sat at, in each segment of each round (a half, a quarter, the final's session, an
Ari Ari game), the four players are placed by their score over the segment's hands (the sum
of their point changes, SC-1; an Ari Ari game's result with its uma, AA-17) and take 4, 2, 1
and 0 points; players level at the table share the points of the places they hold evenly,
as tied players share uma (AA-16) and prize money (PR-3): two level first take 3 each.
Penalties (PN-1) count in the score, never in a table's places: they are given for the
round, not for a segment. A segment with no hand in yet places nobody.

**Names.** The player line has one `name` (CONTRACT §1), written as the player writes it in
Latin letters ("Takeshi Yamada"). `split_name` takes the last and first names from it:
a name with a comma is "last, first" ("van der Berg, Anna" keeps its particles with the
last name); a name in Chinese characters, kana or hangul is family name first ("山田 剛":
last 山田, first 剛; "山田剛" without a space is all last name: where the family name ends
the server cannot know); any other name is "first ... last": the last word is the last
name ("Takeshi Yamada": last Yamada, first Takeshi). An organizer who wants another split
registers the name with a comma.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from app.domain import seating
from app.domain.hands import PlayerId, Settlement
from app.domain.log import PlayerRegistered
from app.domain.numbers import shown
from app.domain.prizes import FinalPlace
from app.domain.round_state import SEAT_NAMES, RoundState, SeatName, TableSegment
from app.domain.rulesets import result_to_log

EMA_COLUMNS = (
    "Place",
    "EMA number",
    "Last name",
    "First name",
    "Country",
    "Points",
    "Score",
)
NO_EMA_ID = "-"  # the EMA's pages write a missing number so

# rule AA-16's shape with the MCR's placement points: first to fourth at a table
TABLE_POINTS: tuple[int, int, int, int] = (4, 2, 1, 0)

# Chinese characters, kana and hangul: a name in them is written family name first
_CJK = re.compile(
    "[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\u1100-\u11ff\uf900-\ufaff]"
)


def split_name(name: str) -> tuple[str, str]:
    """(last name, first name) of a registered name, by the rule in the module's text."""
    text = " ".join(name.split())
    if "," in text:
        last, first = text.split(",", 1)
        return last.strip(), first.strip()
    words = text.split(" ")
    if _CJK.search(text):
        return words[0], " ".join(words[1:])
    return words[-1], " ".join(words[:-1])


def decimal_text(value: Fraction) -> str:
    """`value` as an exact decimal where one exists ("11.25", "-3", "0.0625"), else the
    2 decimals rounded down that rule SC-5 shows."""
    denominator = value.denominator
    twos = fives = 0
    while denominator % 2 == 0:
        denominator //= 2
        twos += 1
    while denominator % 5 == 0:
        denominator //= 5
        fives += 1
    if denominator != 1:
        return shown(value)
    places = max(twos, fives)
    if places == 0:
        return str(value.numerator)
    scaled = value * 10**places
    assert scaled.denominator == 1
    sign = "-" if scaled < 0 else ""
    digits = str(abs(scaled.numerator)).rjust(places + 1, "0")
    return f"{sign}{digits[:-places]}.{digits[-places:]}"


def segment_scores(table: TableSegment) -> dict[PlayerId, int]:
    """Each seated player's score over a table's segment: the sum of their point changes
    in its live hands (rule SC-1; an Ari Ari game's last hand carries its uma, AA-17)."""
    scores: dict[PlayerId, int] = dict.fromkeys(table.seats, 0)
    for number in table.hands:
        settlement = table.settlements.get(number)
        if settlement is None:
            continue
        for player, delta in settlement.deltas:
            scores[player] = scores.get(player, 0) + delta
    return scores


def table_points(scores: Mapping[PlayerId, int]) -> dict[PlayerId, Fraction]:
    """The placement points of one table's segment: 4, 2, 1, 0 by score, highest first;
    players level share the points of the places they hold evenly (as AA-16 shares uma)."""
    ordered = sorted(scores, key=lambda player: -scores[player])
    points: dict[PlayerId, Fraction] = {}
    place = 0
    while place < len(ordered):
        level = [p for p in ordered[place:] if scores[p] == scores[ordered[place]]]
        held = TABLE_POINTS[place : place + len(level)]
        share = Fraction(sum(held), len(level))
        for player in level:
            points[player] = share
        place += len(level)
    return points


def tournament_table_points(rounds: Mapping[int, RoundState]) -> dict[PlayerId, Fraction]:
    """Each player's table points over every segment of every round they sat in."""
    totals: dict[PlayerId, Fraction] = {}
    for state in rounds.values():
        for table in state.tables.values():
            if not any(number in table.settlements for number in table.hands):
                continue  # no hand in yet: nobody is placed
            for player, points in table_points(segment_scores(table)).items():
                totals[player] = totals.get(player, Fraction(0)) + points
    return totals


@dataclass(frozen=True)
class EmaRow:
    """One player's line of the EMA's results (EMA_COLUMNS)."""

    place: int
    player: PlayerId
    ema_id: str | None
    last_name: str
    first_name: str
    country: str
    table_points: Fraction
    score: Fraction

    def cells(self) -> tuple[str, ...]:
        """The row as text in EMA_COLUMNS' order (an Ari Ari total is whole, AA-17, and
        written so)."""
        return (
            str(self.place),
            self.ema_id or NO_EMA_ID,
            self.last_name,
            self.first_name,
            self.country,
            decimal_text(self.table_points),
            decimal_text(self.score),
        )


def ema_rows(
    places: Sequence[FinalPlace],
    players: Mapping[PlayerId, PlayerRegistered],
    rounds: Mapping[int, RoundState],
) -> list[EmaRow]:
    """The EMA's results: every ranked player in final-ranking order (rule PR-1)."""
    points = tournament_table_points(rounds)
    rows = []
    for place in places:
        registered = players[place.player]
        last, first = split_name(registered.name)
        rows.append(
            EmaRow(
                place=place.rank,  # rule PR-3: equal totals share the place
                player=place.player,
                ema_id=registered.ema_id,
                last_name=last,
                first_name=first,
                country=registered.country or "",
                table_points=points.get(place.player, Fraction(0)),
                score=place.total,  # rule PR-1
            )
        )
    return rows


def missing_ema_ids(players: Mapping[PlayerId, PlayerRegistered]) -> list[PlayerRegistered]:
    """The players the EMA's results would list without a number: every registration
    but substitutes (rule FM-9: never ranked), in registration order."""
    return [p for p in players.values() if p.ema_id is None and not p.substitute]


# -- every hand, for rating sites ------------------------------------------------------------

HAND_COLUMNS = (
    "round",
    "segment",
    "table",
    "hand",
    "seat",
    "player",
    "name",
    "result",
    "role",
    "value",
    "delta",
    "running_total",
)


@dataclass(frozen=True)
class HandRow:
    """One player's part in one hand: what the rating sites' imports take."""

    round: int
    segment: int
    table: int
    hand: int
    seat: SeatName  # in the hand's cycle (SE-6 to SE-9); in an Ari Ari game, at its start
    player: PlayerId
    name: str
    result: str  # the hand's kind as the log writes it: self_draw, discard, draw, ron...
    role: str  # winner, discarder (or the chombo's offender), or empty
    value: int | None  # the winner's hand value (HS-4; AA fan and fu as counted, AA-22)
    # the player's point change in the hand (HS-2, AA-3; SC-1): a riichi bet leaves it (AA-5),
    # and an Ari Ari game's last hand carries the leftover bets and the uma (AA-15, AA-16)
    delta: int
    running_total: int  # the sum of their changes in the round through this hand

    def cells(self) -> tuple[str | int, ...]:
        return (
            self.round,
            self.segment,
            self.table,
            self.hand,
            self.seat,
            str(self.player),
            self.name,
            self.result,
            self.role,
            "" if self.value is None else self.value,
            self.delta,
            self.running_total,
        )


def _hand_seats(
    state: RoundState, segment: int, table_number: int, ariari: bool
) -> tuple[tuple[PlayerId, ...] | None, ...]:
    """The seats of each cycle of a table's segment; an Ari Ari game keeps its seats."""
    table = state.tables[(segment, table_number)]
    if ariari:
        return (table.seats,)
    return seating.cycles(state, segment, table_number)


def _role(player: PlayerId, settlement: Settlement, result: Mapping[str, object]) -> str:
    if any(winner == player for winner, _ in settlement.wins):
        return "winner"
    if result.get("discarder") == player:
        return "discarder"
    if result.get("offender") == player:
        return "offender"
    return ""


def hand_rows(
    rounds: Mapping[int, RoundState],
    players: Mapping[PlayerId, PlayerRegistered],
    *,
    ariari: bool = False,
) -> list[HandRow]:
    """A row per seated player per live hand, by round, segment, table and hand (a void
    hand is gone; a corrected one counts as corrected). Substitutes are listed: their hands
    moved points at their tables (rule FM-9). Penalties are not hands (PN-1)."""
    rows: list[HandRow] = []
    for round_number in sorted(rounds):
        state = rounds[round_number]
        running: dict[PlayerId, int] = {}
        for segment, table_number in sorted(state.tables):
            table = state.tables[(segment, table_number)]
            cycles = _hand_seats(state, segment, table_number, ariari)
            for number in sorted(table.hands):
                settlement = table.settlements.get(number)
                if settlement is None:
                    continue
                result = result_to_log(table.hands[number].result)
                deltas = dict(settlement.deltas)
                index = min((number - 1) // 4, len(cycles) - 1)  # rule FM-7: 4 hands a cycle
                seats = cycles[index] if not ariari else cycles[0]
                order = seats if seats is not None else table.seats
                values = dict(settlement.wins)
                for seat_index, player in enumerate(order):
                    delta = deltas.get(player, 0)
                    running[player] = running.get(player, 0) + delta
                    registered = players.get(player)
                    rows.append(
                        HandRow(
                            round=round_number,
                            segment=segment,
                            table=table_number,
                            hand=number,
                            seat=SEAT_NAMES[seat_index],
                            player=player,
                            name=registered.name if registered else str(player),
                            result=str(result["kind"]),
                            role=_role(player, settlement, result),
                            value=values.get(player),
                            delta=delta,
                            running_total=running[player],
                        )
                    )
    return rows
