"""The report shapes as typed models: replay's standings and final ranking (CONTRACT §2,
`app.domain.replay`), a table's clock (rule CL-6) and a registration. The public API and the
admin API answer with them; they sit in the read model so that no router takes another's."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from app.domain.log import PlayerRegistered

PlayerRef = str | int


class StandingRow(BaseModel):
    player: PlayerRef
    rank: int
    carry_in: str = Field(description="Exact, as a reduced fraction (rule SC-4)")
    play: str
    total: str
    shown: str = Field(description="2 decimals, rounded down (rule SC-5)")
    status: Literal["advanced", "eliminated", "playing", "finished"]
    position: int
    above_cut: bool | None
    distance: str | None = Field(description="To the cut line (rule ST-3)")
    distance_shown: str | None


class TieReport(BaseModel):
    """rule ST-7: a tie at the cut and how the tie-break (ST-4) and the draw (ST-5) decide it."""

    total: str
    players: list[PlayerRef]
    places: int
    hands: dict[str, list[int]]
    advance_by_hands: list[PlayerRef]
    draw_among: list[PlayerRef]
    draw_places: int
    draw_seed: str | None
    draw_winners: list[PlayerRef] | None
    draw_pending: bool


class CutReport(BaseModel):
    advance: int
    line_total: str | None
    next_total: str | None
    tie: TieReport | None


class DrawDeviation(BaseModel):
    segment: int
    player: PlayerRef
    drawn_table: int | None
    seated_table: int


class DrawReport(BaseModel):
    """rule SE-1: the round's recorded draw, and the seatings that differ from it."""

    seed: str
    repeats: int
    deviations: list[DrawDeviation]


class RoundStandings(BaseModel):
    # Fields replay adds later pass through, so the API keeps the shape of replay.
    model_config = ConfigDict(extra="allow")

    round: int
    advance: int | None
    ended: bool
    cut: CutReport | None
    standings: list[StandingRow]
    draw: DrawReport | None = Field(default=None, description="Left out before the draw")


class FinalPlaceReport(BaseModel):
    player: PlayerRef
    rank: int
    prize: str
    prize_shown: str
    round: int
    total: str


class ClockReport(BaseModel):
    """A table's clock: the server's time and the deadlines (rule CL-6)."""

    round: int
    segment: int
    table: int
    group: str | None
    phase: str
    server_time: str
    starts_at: str | None
    deadline: str | None
    seconds_left: int | None
    seconds_over: int | None
    break_ends: str | None
    break_seconds_left: int | None
    hands_completed: int
    planned_hands: int
    play_all: bool


class Registration(BaseModel):
    id: PlayerRef
    name: str
    group: str
    substitute: bool
    country: str | None
    local_name: str | None = None  # in the player's own script, if the log gives it

    @classmethod
    def of(cls, registered: PlayerRegistered) -> Registration:
        return cls(
            id=registered.player,
            name=registered.name,
            group=registered.group,
            substitute=registered.substitute,
            country=registered.country,
            local_name=registered.local_name,
        )
