"""The `stats` feed (issue 18, part 2) for the vision mixer: the story of the session as flat
rows, the same figures as the `stats` channel (app/read/stats.py), at most 5 rows a list.

Each row says what it is in `Kind` and, where it matters, `Scope` (`round` or `segment`):
- `hand`: one of the biggest winning hands (rule HS-4; AA-22 in an Ari Ari round): Rank
  (1 the biggest), Player, Name, Country (the winner), Round, Segment, Table, Hand, Value,
  Win (`self_draw`, `discard` or `points`, a ruling of HS-7), Discarder and Discarder name;
- `climber`, `faller` (Scope `segment`): a player the segment's hands moved in rank (rule
  ST-2): Rank before, Rank now, Total, Total exact, Change (the points of those hands), Table;
- `crossed up`, `crossed down`: a player the last hand put on the other side of the cut line
  (rule ST-3): Position before, Position now, Total, Total exact;
- `leader` (Scope `segment`): a table's leader in the segment: Table, Change (their points
  at the table in the segment), Count (the table's hands), Shared (level with another);
- `count`: how many hands of the round or of the segment ended how: Win is `hands` (all of
  them), `self_draw`, `discard`, `draw` or `other` (a ruling, HS-7; a chombo, AA-10); Count.
Columns a row's kind does not use are null.
"""

from __future__ import annotations

from fractions import Fraction

from app.domain.ariari import points_shown
from app.domain.hands import PlayerId
from app.domain.numbers import shown
from app.read.stats import CountsData, MoverData, StatsState

COLUMNS = (
    "Kind",
    "Scope",
    "Rank",
    "Player",
    "Name",
    "Country",
    "Round",
    "Segment",
    "Table",
    "Hand",
    "Value",
    "Win",
    "Discarder",
    "Discarder name",
    "Rank before",
    "Rank now",
    "Position before",
    "Position now",
    "Total",
    "Total exact",
    "Change",
    "Count",
    "Shared",
)
Value = str | int | bool | None
Row = dict[str, Value]


def rows(state: StatsState, *, points: bool = False) -> list[Row]:
    """The feed's rows from the channel's state; with `points` (an Ari Ari round), totals
    in whole points with thousands separators (AA-31), else the 2 decimals of SC-5."""
    players = state["players"]

    def who(player: PlayerId | None) -> tuple[str | None, str | None]:
        known = players.get(str(player)) if player is not None else None
        return (None, None) if known is None else (known["name"], known["country"])

    def row(kind: str, scope: str | None, rank: int | None, player: PlayerId | None) -> Row:
        name, country = who(player)
        blank: Row = dict.fromkeys(COLUMNS)
        return {
            **blank,
            "Kind": kind,
            "Scope": scope,
            "Rank": rank,
            "Player": None if player is None else str(player),
            "Name": name,
            "Country": country,
            "Round": state["round"],
            "Segment": state["segment"] if scope == "segment" else None,
        }

    def total(exact: str) -> str:
        return points_shown(exact) if points else shown_exact(exact)

    out: list[Row] = []
    for scope in ("round", "segment"):
        for rank, big in enumerate(state["hands"][scope], start=1):
            out.append(
                {
                    **row("hand", scope, rank, big["player"]),
                    "Segment": big["segment"],
                    "Table": big["table"],
                    "Hand": big["hand"],
                    "Value": big["value"],
                    "Win": big["kind"],
                    "Discarder": None if big["discarder"] is None else str(big["discarder"]),
                    "Discarder name": who(big["discarder"])[0],
                }
            )
    movers: tuple[tuple[str, list[MoverData]], ...] = (
        ("climber", state["climbers"]),
        ("faller", state["fallers"]),
    )
    for kind, listed in movers:
        for rank, mover in enumerate(listed, start=1):
            out.append(
                {
                    **row(kind, "segment", rank, mover["player"]),
                    "Table": mover["table"],
                    "Rank before": mover["rank_before"],
                    "Rank now": mover["rank"],
                    "Total": total(mover["total"]),
                    "Total exact": mover["total"],
                    "Change": mover["change"],
                }
            )
    for direction in (True, False):
        crossed = [c for c in state["crossed"] if c["up"] is direction]
        for rank, crossing in enumerate(crossed, start=1):
            out.append(
                {
                    **row(
                        "crossed up" if direction else "crossed down",
                        None,
                        rank,
                        crossing["player"],
                    ),
                    "Position before": crossing["position_before"],
                    "Position now": crossing["position"],
                    "Total": total(crossing["total"]),
                    "Total exact": crossing["total"],
                }
            )
    for rank, leader in enumerate(state["leaders"], start=1):
        out.append(
            {
                **row("leader", "segment", rank, leader["player"]),
                "Segment": leader["segment"],
                "Table": leader["table"],
                "Change": leader["points"],
                "Count": leader["hands"],
                "Shared": leader["shared"],
            }
        )
    scoped = (("round", state["counts"]["round"]), ("segment", state["counts"]["segment"]))
    for scope, counts in scoped:
        for win, count in counted(counts):
            out.append({**row("count", scope, None, None), "Win": win, "Count": count})
    return out


def counted(counts: CountsData) -> tuple[tuple[str, int], ...]:
    """The `count` rows' Win and Count, in this order."""
    return (
        ("hands", counts["hands"]),
        ("self_draw", counts["self_draws"]),
        ("discard", counts["discards"]),
        ("draw", counts["draws"]),
        ("other", counts["others"]),
    )


def shown_exact(exact: str) -> str:
    """An exact total ("45/4") in the 2 decimals of SC-5 ("11.25")."""
    return shown(Fraction(exact))
