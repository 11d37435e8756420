"""TV overlay pages (issue 6): transparent 1920x1080 pages for a vision mixer's browser source.

- `/overlay/{tid}/top?n=8`: the leaders (n from 1 to 16).
- `/overlay/{tid}/cut`: the players around the cut line, with the line (rule ST-3).
- `/overlay/{tid}/player/{player_id}`: a player card: rank, total, distance to the cut, where
  they sit now.
- `/overlay/{tid}/table/{n}`: a table's four players by seat, their totals, this segment's
  hand by hand points, who deals next, and the table's clock.
- `/overlay/{tid}/clock`: the session clock (`?table=N`: one table's, `?group=A`: one group's
  in round 1), counted down in the page from the deadline and the server's time (rule CL-6).
- `/overlay/{tid}/bubble?n=3`: the players either side of the cut line (n a side, 1 to 4: the
  `needs` channel's band) and what each needs from the next hand (issue 18, rule ST-3), the
  line between them saying how many advance.

Every page is drawn in full by the server from the current state, so a mixer that grabs the
first frame shows content; then `overlay.js` follows the live feed and redraws from the same
channel states, with the same rules (kept side by side with the functions here). Content
stays inside the title-safe area (90%: 96 px and 54 px margins); the page itself is
transparent, or chroma green (#00b140) with `?bg=green`.

Languages (issue 17): an overlay speaks `?lang=` (no switch on air) or the tournament's default.
A name comes in its owner's script first when the overlay speaks Japanese, Chinese or Korean;
`?names=both` adds its other form beneath.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from fractions import Fraction
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse

from app import i18n
from app.domain.ariari import points_shown
from app.domain.errors import say
from app.domain.log import format_time
from app.domain.numbers import shown
from app.domain.replay import StandingRowData
from app.domain.tournament import SEAT_NAMES, Tournament
from app.read.needs import NeedsView
from app.read.views import (
    NEEDS_BAND,
    ClockRow,
    NeedsState,
    PlayerState,
    StandingsState,
    States,
    TableState,
    UnregisteredPlayer,
    UnseatedTable,
    current_seat,
)
from app.services import feeds
from app.services.errors import NotFound
from app.web import languages
from app.web.deps import MAX_NUMBER, StoreDep, TableNumber, TournamentId
from app.web.hall import name_language
from app.web.needs_words import needs_short
from app.web.pages import render

router = APIRouter(
    prefix="/overlay", include_in_schema=False, dependencies=[Depends(languages.tournament_default)]
)

Names = Mapping[str, Mapping[str, str | None]]
Rounds = Mapping[str, Mapping[str, str]]  # round number -> its name and its segment's word
Row = dict[str, Any]
Background = Annotated[str | None, Query(description="green: a chroma-key background")]
BothNames = Annotated[
    str | None, Query(description="both: a name's other form (Latin or own script) beneath")
]
MINUS = "\u2212"  # a true minus sign on screen; the feeds keep ASCII for parsers
DONE = ("finished", "finished_short")  # a table's segment is over (rule CL-3)
BUBBLE = 3  # the bubble's players on each side of the line, unless ?n= says otherwise
_ = i18n.gettext
# the seats' words (rule FM-4): 東家, 南家... as the players say them
SEAT_WORDS = {
    "east": i18n.lazy("East"),
    "south": i18n.lazy("South"),
    "west": i18n.lazy("West"),
    "north": i18n.lazy("North"),
}


def no_limit() -> str:
    """An Ari Ari session's clock: its games end by their own rules (AA-23)."""
    return _("No limit")


def seat_word(seat: str) -> str:
    return _(SEAT_WORDS[seat]) if seat in SEAT_WORDS else seat.title()


def segment_word(kind: str, number: int | str) -> str:
    """ "Half 1": a segment by its kind, in the tournament's words (ハーフ, クォーター)."""
    kind = kind.lower()
    if kind == "half":
        return _("Half {number}").format(number=number)
    if kind == "quarter":
        return _("Quarter {number}").format(number=number)
    if kind == "game":
        return _("Game {number}").format(number=number)
    if kind == "session":
        return _("Session {number}").format(number=number)
    return _("Segment {number}").format(number=number)


def round_word(number: int | str) -> str:
    return _("Round {number}").format(number=number)


def shown_names(entry: Mapping[str, str | None] | None, player: str) -> dict[str, str | None]:
    """A player's name as the overlay's language shows it first, and the other form, each
    with the language it is written in when known (the `lang` of its element)."""
    if not entry:
        return {"name": player, "name_lang": None, "other": None, "other_lang": None}
    name, local = entry.get("name") or player, entry.get("local_name")
    first, other = i18n.names_for(name, local)
    local_lang = entry.get("local_lang")
    return {
        "name": first,
        "name_lang": local_lang if local and first == local else None,
        "other": other,
        "other_lang": local_lang if local and other == local else None,
    }


# -- what the pages show: the same rules as overlay.js ----------------------------------


def on_screen(figure: str) -> str:
    """A figure as the screen shows it: with a true minus sign."""
    return MINUS + figure[1:] if figure.startswith("-") else figure


def board_rows(
    rows: Sequence[StandingRowData], advance: int | None, who: Names, points: bool = False
) -> list[Row]:
    """Standings rows as the boards show them; `last_in` marks the row above the cut line.
    `points`: an Ari Ari round, whose figures are whole points (feeds.total_shown)."""
    return [
        {
            "player": str(row["player"]),
            "rank": row["rank"],
            **shown_names(who.get(str(row["player"])), str(row["player"])),
            "country": who.get(str(row["player"]), {}).get("country") or "",
            "total": on_screen(feeds.total_shown(row, points=points)),
            "to_cut": feeds.to_cut(row, minus=MINUS, points=points) or "",
            "above": row["above_cut"],
            "last_in": advance is not None and row["position"] == advance,
        }
        for row in rows
    ]


def needs_words(view: NeedsView, points: bool = False) -> str:
    """What a player needs in the bubble's few words (web/needs_words.py needs_short, which
    the hall's cut page says too); a player whose segment is over has no hand left to play."""
    if view["needs"] == "no hand left":
        return _("no hand left")
    return needs_short(view, points)


def bubble_rows(needs: NeedsState, n: int, who: Names) -> list[Row]:
    """The bubble: the last `n` players above the cut line and the first `n` below it, by
    place (rule ST-3, a tie at the line as ST-4 and ST-5 place it), each with what they need;
    `last_in` marks the row the line is drawn under. None without a cut (the final)."""
    advance = needs["advance"]
    if advance is None:
        return []
    points = needs["ariari"]
    near = sorted(
        (row for row in needs["rows"].values() if advance - n < row["position"] <= advance + n),
        key=lambda row: row["position"],
    )
    return [
        {
            "player": str(row["player"]),
            "rank": row["rank"],
            **shown_names(who.get(str(row["player"])), str(row["player"])),
            "country": who.get(str(row["player"]), {}).get("country") or "",
            # the needs channel sends the exact total (SC-4); shown as the boards show it
            "total": on_screen(
                points_shown(row["total"]) if points else shown(Fraction(row["total"]))
            ),
            "needs": needs_words(row, points),
            "above": row["above_cut"],
            "last_in": row["position"] == advance,
        }
        for row in near
    ]


def seconds_until(moment: str, now: datetime) -> int:
    """Whole seconds to a moment, rounded up like the server's countdowns (rule CL-6)."""
    then = datetime.fromisoformat(moment.replace("Z", "+00:00"))
    return max(0, math.ceil((then - now).total_seconds()))


def format_clock(seconds: int | None) -> str:
    if seconds is None:
        return "\u2013"
    return f"{seconds // 60}:{seconds % 60:02d}"


def _round_names(rounds: Rounds, number: int) -> Mapping[str, str]:
    return rounds.get(str(number)) or {"name": round_word(number), "segment": "segment"}


def segment_title(rounds: Rounds, row: ClockRow | TableState) -> str:
    names = _round_names(rounds, row["round"])
    return f"{names['name']} \u00b7 {segment_word(names['segment'], row['segment'])}"


def session_title(rounds: Rounds, session: Sequence[ClockRow]) -> str:
    """The segment a clock times, with the group or groups of round 1 it times (rule FM-2):
    "Round 1 · Group A · Half 1", or "Groups A and B" when both play on one schedule."""
    lead = session[0]
    groups = sorted({str(row["group"]) for row in session if row["group"]})
    if not groups:
        return segment_title(rounds, lead)
    names = _round_names(rounds, lead["round"])
    if len(groups) == 1:
        who = _("Group {group}").format(group=groups[0])
    else:
        who = _("Groups {first} and {last}").format(first=", ".join(groups[:-1]), last=groups[-1])
    segment = segment_word(names["segment"], lead["segment"])
    return f"{names['name']} \u00b7 {who} \u00b7 {segment}"


def clock_view(
    rows: Sequence[ClockRow],
    now: datetime,
    rounds: Rounds,
    points: bool = False,
) -> dict[str, str]:
    """The clock of a session (the tables that share a segment, a start and a deadline:
    most of them) or of one table, at the server time `now` (rules CL-1 to CL-6)."""
    if not rows:
        return {"title": "", "time": format_clock(None), "note": _("No clock")}
    shared = Counter(_session_key(row) for row in rows).most_common(1)[0][0]
    session = [row for row in rows if _session_key(row) == shared]
    lead = session[0]
    title = session_title(rounds, session)
    break_ends = next(
        (row["break_ends"] for row in session if row["phase"] == "break" and row["break_ends"]),
        None,
    )
    if break_ends:
        return {"title": title, "time": _left(break_ends, now), "note": _("Break")}
    if all(row["phase"] in DONE for row in session):
        return {"title": title, "time": format_clock(None), "note": _("All finished")}
    if lead["starts_at"] and seconds_until(lead["starts_at"], now) > 0:
        return {"title": title, "time": _left(lead["starts_at"], now), "note": _("Starts in")}
    if lead["deadline"] and not all(row["play_all"] for row in session):
        if seconds_until(lead["deadline"], now) > 0:
            return {"title": title, "time": _left(lead["deadline"], now), "note": _("To play")}
        playing = sum(1 for row in session if row["phase"] == "overtime")
        note = _("Time · {count} playing on").format(count=playing) if playing else _("Time")
        return {"title": title, "time": format_clock(0), "note": note}
    if points:
        # rule AA-23: an Ari Ari game has no planned number of hands (its clock's 100 is the
        # cap): the games still being played are what is left
        over = sum(1 for row in session if row["phase"] in DONE)
        note = _("{over} of {count} games over").format(over=over, count=len(session))
        return {"title": title, "time": no_limit(), "note": note}
    # rules CL-1, CL-3a, PN-2: no limit: the hands are the clock
    hands = min(row["hands_completed"] for row in session)
    return {
        "title": title,
        "time": f"{hands}/{lead['planned_hands']}",
        "note": _("Hands · no time limit"),
    }


def table_clock(
    row: ClockRow | None,
    now: datetime,
    rounds: Rounds,
    points: bool = False,
) -> str:
    """A table's clock in its header, when it runs against a time at all."""
    if not row or row["phase"] in DONE:
        return ""  # the hand count says it
    if not (row["deadline"] or row["starts_at"] or row["break_ends"]):
        return ""
    view = clock_view([row], now, rounds, points)
    # rule AA-23: an Ari Ari game without a limit has no count of hands to show either
    return "" if points and view["time"] == no_limit() else view["time"]


def _session_key(row: ClockRow) -> tuple[int, str | None, str | None]:
    # Round 1's groups share a session when they play the same half on the same schedule.
    return (row["segment"], row["starts_at"], row["deadline"])


def _left(moment: str, now: datetime) -> str:
    return format_clock(seconds_until(moment, now))


def seat_view(
    table: TableState | UnseatedTable, standings: StandingsState, who: Names, points: bool = False
) -> list[Row]:
    """A table's four players by seat: totals, this segment's points and hand deltas."""
    if table["segment"] is None:
        return []
    scores = feeds.segment_scores(table)
    seats = []
    for seat in SEAT_NAMES:
        player = str(table["seats"][seat])
        standing = standings["rows"].get(player)
        seats.append(
            {
                "seat": seat,
                "wind": seat_word(seat),
                "player": player,
                **shown_names(who.get(player), player),
                "country": who.get(player, {}).get("country") or "",
                "total": on_screen(feeds.total_shown(standing, points=points))
                if standing
                else "\u2013",
                "points": _signed(scores[player], points),
                "deltas": [
                    _signed(hand["deltas"].get(player, 0), points) for hand in table["hands"]
                ],
                "dealer": table["next_dealer"] is not None and str(table["next_dealer"]) == player,
            }
        )
    return seats


def _signed(points: int, separators: bool = False) -> str:
    if separators:  # an Ari Ari table's points: "+8,002" (AA-17)
        return points_shown(points, minus=MINUS, signed=True)
    return f"+{points}" if points > 0 else f"{MINUS}{-points}" if points < 0 else "0"


def hand_note(table: TableState | UnseatedTable, points: bool = False) -> str:
    if table["segment"] is None:
        return hands_played(0)
    # rule AA-23: an Ari Ari game plans no number of hands (its clock's 100 is the cap)
    clock = table["clock"]
    planned = None if points or clock is None else clock["planned_hands"]
    if table["next_hand"] is not None:
        if planned:
            return _("Hand {hand} of {planned}").format(hand=table["next_hand"], planned=planned)
        return _("Hand {hand}").format(hand=table["next_hand"])
    return hands_played(len(table["hands"]))


def hands_played(count: int) -> str:
    return i18n.ngettext("{count} hand played", "{count} hands played", count).format(count=count)


def player_view(
    player: PlayerState | UnregisteredPlayer,
    clock_rows: Mapping[str, ClockRow],
    points: bool = False,
) -> dict[str, str]:
    standing = player["standing"] if player["registered"] else None
    seat = current_seat(player["seats"], clock_rows) if player["registered"] else None
    to_cut = feeds.to_cut(standing, minus=MINUS, points=points) if standing else None
    return {
        "rank": str(standing["rank"]) if standing else "\u2013",
        "total": on_screen(feeds.total_shown(standing, points=points)) if standing else "\u2013",
        "to_cut": to_cut or "\u2013",
        "cut_note": _cut_note(standing),
        "seat": _seat(seat) if seat else "\u2013",
    }


def _seat(seat: Mapping[str, Any]) -> str:
    return _("Table {table} · {seat}").format(table=seat["table"], seat=seat_word(seat["seat"]))


def _cut_note(standing: StandingRowData | None) -> str:
    if not standing or standing["above_cut"] is None:
        return ""
    if standing["status"] == "advanced":
        return _("Advanced")
    if standing["status"] == "eliminated":
        return _("Eliminated")
    return _("above the cut") if standing["above_cut"] else _("to make the cut")


# -- pages ------------------------------------------------------------------------------


def _names(tournament: Tournament) -> dict[str, dict[str, str | None]]:
    """Every registered player's name, country and name in their own script by id."""
    return {
        str(player): {
            "name": registered.name,
            "country": registered.country,
            "local_name": registered.local_name,
            "local_lang": name_language(registered.local_name, registered.country),
        }
        for player, registered in tournament.players.items()
    }


def _rounds(tournament: Tournament) -> dict[str, dict[str, str]]:
    return {
        str(fmt.number): {
            "name": _("Final") if fmt.advance is None else round_word(fmt.number),
            "segment": fmt.segment_kind.title(),  # its word with the number: segment_word
        }
        for fmt in tournament.format.rounds
    }


def _page(
    request: Request,
    store: StoreDep,
    tournament_id: int,
    kind: str,
    channels: list[str],
    bg: str | None,
    options: dict[str, Any],
    check: Callable[[Tournament], None] | None = None,
    names: str | None = None,
) -> HTMLResponse:
    now = store.clock()

    def view(tournament: Tournament, version: int) -> dict[str, Any]:
        if check is not None:
            check(tournament)
        states = States(tournament, now)
        return {
            "tournament": tournament.name,
            "version": version,
            "states": {channel: states.of(channel) for channel in channels},
            "names": _names(tournament),
            "rounds": _rounds(tournament),
            "ariari": feeds.is_ariari(tournament),
        }

    data = store.read(tournament_id, view)
    config = {
        "tournament_id": tournament_id,
        "kind": kind,
        "channels": channels,
        "server_time": format_time(now),
        "both_names": names == "both",
        **options,
        **data,
    }
    return render(
        request,
        f"overlay_{kind}.html",
        config=config,
        chroma=bg == "green",
        now=now,
        **_show(kind, config, now),
    )


def _show(kind: str, config: Mapping[str, Any], now: datetime) -> dict[str, Any]:
    """What the template draws first, from the same states the page then follows."""
    states, who, rounds = config["states"], config["names"], config["rounds"]
    points = config["ariari"]
    standings = states.get("standings")
    if kind == "top":
        rows = [row for row in feeds.ordered(standings) if row["position"] <= config["n"]]
        return {
            "rows": board_rows(rows, standings["advance"], who, points),
            "standings": standings,
        }
    if kind == "cut":
        rows = feeds.around_cut(standings)
        return {
            "rows": board_rows(rows, standings["advance"], who, points),
            "standings": standings,
        }
    if kind == "bubble":
        needs = states["needs"]
        return {"rows": bubble_rows(needs, config["n"], who), "needs": needs}
    if kind == "player":
        player = states[f"player:{config['player']}"]
        shown = player_view(player, states["clocks"]["tables"], points)
        named = shown_names(who.get(str(config["player"])), str(config["player"]))
        return {"player": player, "shown": shown, "named": named}
    if kind == "table":
        table = states[f"table:{config['table']}"]
        return {
            "table": table,
            "seats": seat_view(table, standings, who, points),
            "hand": hand_note(table, points),
            "title": segment_title(rounds, table) if table.get("segment") else "",
            "clock": table_clock(table.get("clock"), now, rounds, points),
        }
    clock_rows = [row for row in states["clocks"]["tables"].values() if _wanted(row, config)]
    return {"clock": clock_view(clock_rows, now, rounds, points)}


def _wanted(row: ClockRow, config: Mapping[str, Any]) -> bool:
    table, group = config.get("table"), config.get("group")
    return (table is None or row["table"] == table) and (group is None or row["group"] == group)


@router.get("/{tournament_id}/top", response_class=HTMLResponse)
def top(
    request: Request,
    tournament_id: TournamentId,
    store: StoreDep,
    n: Annotated[int, Query(ge=1, le=16)] = feeds.TOP,
    bg: Background = None,
    names: BothNames = None,
) -> HTMLResponse:
    return _page(request, store, tournament_id, "top", ["standings"], bg, {"n": n}, names=names)


@router.get("/{tournament_id}/cut", response_class=HTMLResponse)
def cut(
    request: Request,
    tournament_id: TournamentId,
    store: StoreDep,
    bg: Background = None,
    names: BothNames = None,
) -> HTMLResponse:
    return _page(request, store, tournament_id, "cut", ["standings"], bg, {}, names=names)


@router.get("/{tournament_id}/bubble", response_class=HTMLResponse)
def bubble(
    request: Request,
    tournament_id: TournamentId,
    store: StoreDep,
    n: Annotated[int, Query(ge=1, le=NEEDS_BAND)] = BUBBLE,
    bg: Background = None,
    names: BothNames = None,
) -> HTMLResponse:
    """The players either side of the line (n a side: the needs channel holds NEEDS_BAND)."""
    return _page(request, store, tournament_id, "bubble", ["needs"], bg, {"n": n}, names=names)


@router.get("/{tournament_id}/player/{player_id}", response_class=HTMLResponse)
def player(
    request: Request,
    tournament_id: TournamentId,
    player_id: str,
    store: StoreDep,
    bg: Background = None,
    names: BothNames = None,
) -> HTMLResponse:
    def registered(tournament: Tournament) -> None:
        if player_id not in feeds.names(tournament):
            raise NotFound(
                say(
                    "player {player_id} is not registered in this tournament",
                    player_id=repr(player_id),
                )
            )

    channels = [f"player:{player_id}", "clocks"]
    options = {"player": player_id}
    return _page(request, store, tournament_id, "player", channels, bg, options, registered, names)


@router.get("/{tournament_id}/table/{table}", response_class=HTMLResponse)
def table(
    request: Request,
    tournament_id: TournamentId,
    table: TableNumber,
    store: StoreDep,
    bg: Background = None,
    names: BothNames = None,
) -> HTMLResponse:
    channels = [f"table:{table}", "standings"]
    options = {"table": table}
    return _page(request, store, tournament_id, "table", channels, bg, options, names=names)


@router.get("/{tournament_id}/clock", response_class=HTMLResponse)
def clock(
    request: Request,
    tournament_id: TournamentId,
    store: StoreDep,
    table: Annotated[int | None, Query(ge=1, le=MAX_NUMBER)] = None,
    group: Annotated[str | None, Query(max_length=20)] = None,
    bg: Background = None,
) -> HTMLResponse:
    options = {"table": table, "group": group}
    return _page(request, store, tournament_id, "clock", ["clocks"], bg, options)
