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
- `/overlay/{tid}/story?seconds=8&only=hands,movers`: a lower third that tells the story of the
  session (the `stats` channel, app/domain/story.py) one card at a time, `seconds` a card
  (3 to 60): the biggest hands of the round and of the segment, the climbers and fallers, who
  crossed the cut line with the last hand, each table's leader, how the hands ended (`only`:
  some of hands, movers, crossed, leaders, counts).

Every page is drawn in full by the server from the current state, so a mixer that grabs the
first frame shows content; then `overlay.js` follows the live feed and redraws from the same
channel states, with the same rules (kept side by side with the functions here). Content
stays inside the title-safe area (90%: 96 px and 54 px margins); the page itself is
transparent, or chroma green (#00b140) with `?bg=green`.

Languages (issue 17): an overlay speaks `?lang=` (no switch on air) or the tournament's default.
A name comes in its owner's script first when the overlay speaks Japanese, Chinese or Korean;
`?names=both` adds its other form beneath.

CasparCG (issue 18, docs/casparcg.md): every overlay answers the HTML producer's `play()`,
`stop()`, `next()` and `update(data)` (overlay.js); with `?caspar=1`, or inside CasparCG, it
starts off air until `play()`.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from fractions import Fraction
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse

from app import i18n
from app.domain.ariari import points_shown
from app.domain.errors import MalformedInput, say
from app.domain.log import format_time
from app.domain.numbers import shown
from app.domain.replay import StandingRowData
from app.domain.tournament import SEAT_NAMES, Tournament
from app.read.needs import NeedsView
from app.read.stats import (
    BigHandData,
    CountsData,
    CrossingData,
    LeaderData,
    MoverData,
    StatsState,
)
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


def caspar_flag(
    caspar: Annotated[
        Literal["0", "1"] | None,
        Query(description="1: off air until CasparCG calls play() (docs/casparcg.md)"),
    ] = None,
) -> None:
    """`?caspar=1` is the page's to read (overlay.js); the server only bounds it."""


router = APIRouter(
    prefix="/overlay",
    include_in_schema=False,
    dependencies=[Depends(languages.tournament_default), Depends(caspar_flag)],
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
# the story (issue 18): its parts in order (?only=), a card's rows, and its seconds on air
STORY_PARTS = ("hands", "movers", "crossed", "leaders", "counts")
STORY_ROWS = 3
STORY_SECONDS, STORY_FASTEST, STORY_SLOWEST = 8, 3, 60
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


# -- the story of the session (issue 18): cards of the `stats` channel, one at a time ----------


def story_parts(only: str | None) -> tuple[str, ...]:
    """`?only=` as the story's parts, in the story's own order (all of them without it)."""
    if only is None:
        return STORY_PARTS
    asked = {part.strip() for part in only.split(",")}
    if not asked <= set(STORY_PARTS):
        raise MalformedInput(
            "issue 18",
            "only",
            say(
                "must be some of {parts}, separated by commas",
                parts=", ".join(STORY_PARTS),
            ),
        )
    return tuple(part for part in STORY_PARTS if part in asked)


def _scope(stats: StatsState, rounds: Rounds) -> str:
    """The segment the story's segment lists are of: "Half 1", "Group A · Half 1" (FM-2)."""
    kind = _round_names(rounds, stats["round"])["segment"]
    segment = segment_word(kind, stats["segment"] or 0)
    if stats["group"]:
        return f"{_('Group {group}').format(group=stats['group'])} \u00b7 {segment}"
    return segment


def _total(total: str, shown_total: str, points: bool) -> str:
    return on_screen(points_shown(total) if points else shown_total)


def _hand_rows(
    hands: Sequence[BigHandData], who: Names, segment_kind: str | None, points: bool
) -> list[Row]:
    """The biggest hands: winner, value (HS-4; AA-22 in points), how they won, where; with
    the hand's segment ("Half 1", its `segment_kind`) when the list spans the round (a table's
    number is the round's own, rule FM-2's groups apart)."""
    rows = []
    for big in hands[:STORY_ROWS]:
        player = str(big["player"])
        discarder = big["discarder"]
        at = _("Table {table} \u00b7 Hand {hand}").format(table=big["table"], hand=big["hand"])
        rows.append(
            {
                "player": player,
                **shown_names(who.get(player), player),
                "country": who.get(player, {}).get("country") or "",
                "label": "",
                "figure": points_shown(big["value"]) if points else str(big["value"]),
                "sign": "",
                "note": win_word(big["kind"], points),
                "dealt_in": None
                if discarder is None
                else shown_names(who.get(str(discarder)), str(discarder)),
                "aside": at
                if segment_kind is None
                else f"{segment_word(segment_kind, big['segment'])} \u00b7 {at}",
            }
        )
    return rows


def win_word(kind: str, points: bool) -> str:
    """How a hand was won: a self-draw or a discard win (tsumo, ron: AA-3), or a ruling of
    points (HS-7)."""
    if kind == "self_draw":
        return _("Tsumo") if points else _("Self-draw")
    if kind == "discard":
        return _("Ron") if points else _("Discard win")
    return _("Ruling")


def _mover_rows(movers: Sequence[MoverData], who: Names, points: bool) -> list[Row]:
    return [
        {
            "player": str(mover["player"]),
            **shown_names(who.get(str(mover["player"])), str(mover["player"])),
            "country": who.get(str(mover["player"]), {}).get("country") or "",
            "label": "",
            "figure": _signed(mover["change"], points),
            "sign": _sign(_signed(mover["change"], points)),
            # rule ST-2: the rank before the segment's hands and now
            "note": _("Rank {before} \u2192 {now}").format(
                before=mover["rank_before"], now=mover["rank"]
            ),
            "dealt_in": None,
            "aside": _total(mover["total"], mover["shown"], points),
        }
        for mover in movers[:STORY_ROWS]
    ]


def _sign(text: str) -> str:
    """The class of a signed figure (overlay_macros.html sign)."""
    return "plus" if text.startswith("+") else "zero" if text == "0" else "minus"


def _crossed_rows(crossed: Sequence[CrossingData], who: Names, points: bool) -> list[Row]:
    return [
        {
            "player": str(row["player"]),
            **shown_names(who.get(str(row["player"])), str(row["player"])),
            "country": who.get(str(row["player"]), {}).get("country") or "",
            "label": "\u25b2" if row["up"] else "\u25bc",
            "figure": _total(row["total"], row["shown"], points),
            "sign": "plus" if row["up"] else "minus",
            # rule ST-3: the side of the line, and the place before the last hand and now
            "note": _("Over the line") if row["up"] else _("Under the line"),
            "dealt_in": None,
            "aside": _("Place {before} \u2192 {now}").format(
                before=row["position_before"], now=row["position"]
            ),
        }
        for row in crossed[:STORY_ROWS]
    ]


def _leader_rows(leaders: Sequence[LeaderData], who: Names, points: bool) -> list[Row]:
    return [
        {
            "player": str(leader["player"]),
            **shown_names(who.get(str(leader["player"])), str(leader["player"])),
            "country": who.get(str(leader["player"]), {}).get("country") or "",
            "label": _("Table {table}").format(table=leader["table"]),
            "figure": _signed(leader["points"], points),
            "sign": _sign(_signed(leader["points"], points)),
            "note": hands_played(leader["hands"]),
            "dealt_in": None,
            "aside": _("level at the top") if leader["shared"] else "",
        }
        for leader in leaders[:STORY_ROWS]
    ]


def _count_row(label: str, counts: CountsData, points: bool) -> Row:
    """How a round's or a segment's hands ended (rule HS-1; AA-3, AA-9, AA-10); counts with
    thousands separators, as overlay.js's tn() says them in every language we speak."""
    n = i18n.ngettext
    wins, discards, draws = counts["self_draws"], counts["discards"], counts["draws"]
    endings = [
        n("{count} tsumo", "{count} tsumo", wins).format(count=f"{wins:,}")
        if points
        else n("{count} self-draw", "{count} self-draws", wins).format(count=f"{wins:,}"),
        n("{count} ron", "{count} ron", discards).format(count=f"{discards:,}")
        if points
        else n("{count} discard win", "{count} discard wins", discards).format(
            count=f"{discards:,}"
        ),
        n("{count} draw", "{count} draws", draws).format(count=f"{draws:,}"),
    ]
    if counts["others"]:
        others = counts["others"]
        endings.append(n("{count} other", "{count} others", others).format(count=f"{others:,}"))
    hands = counts["hands"]
    return {
        "player": None,
        "label": label,
        "figure": n("{count} hand", "{count} hands", hands).format(count=f"{hands:,}"),
        "sign": "",
        "note": " \u00b7 ".join(endings),
        "dealt_in": None,
        "aside": "",
    }


def story_cards(
    stats: StatsState, parts: Sequence[str], who: Names, rounds: Rounds, points: bool = False
) -> list[Row]:
    """The story's cards in their order, each `key`, `what` (its heading) and `rows`: the
    parts asked for that have something to tell (a card the round's list repeats is left
    out). `points`: an Ari Ari round (AA-17, AA-22)."""
    round_name = _round_names(rounds, stats["round"])["name"]
    scope = _scope(stats, rounds) if stats["segment"] is not None else ""
    cards: list[Row] = []

    def card(key: str, title: str, rows: list[Row], segment: bool = False) -> None:
        if rows:
            what = " \u00b7 ".join([round_name, *([scope] if segment else []), title])
            cards.append({"key": key, "what": what, "rows": rows})

    for part in parts:
        if part == "hands":
            biggest = _("Biggest hands")
            kind = _round_names(rounds, stats["round"])["segment"]
            card("hands-round", biggest, _hand_rows(stats["hands"]["round"], who, kind, points))
            shown_round = stats["hands"]["round"][:STORY_ROWS]
            if stats["hands"]["segment"][:STORY_ROWS] != shown_round:
                rows = _hand_rows(stats["hands"]["segment"], who, None, points)
                card("hands-segment", biggest, rows, segment=True)
        elif part == "movers":
            climbers = _mover_rows(stats["climbers"], who, points)
            card("climbers", _("Climbers"), climbers, segment=True)
            card("fallers", _("Fallers"), _mover_rows(stats["fallers"], who, points), segment=True)
        elif part == "crossed":
            title = _("Across the cut line with the last hand")
            card("crossed", title, _crossed_rows(stats["crossed"], who, points))
        elif part == "leaders":
            leaders = _leader_rows(stats["leaders"], who, points)
            card("leaders", _("Table leaders"), leaders, segment=True)
        elif part == "counts" and stats["counts"]["round"]["hands"]:
            rows = [_count_row(round_name, stats["counts"]["round"], points)]
            segment = stats["counts"]["segment"]
            if (
                stats["segment"] is not None
                and segment["hands"] != stats["counts"]["round"]["hands"]
            ):
                rows.append(_count_row(scope, segment, points))
            card("counts", _("How the hands ended"), rows)
    return cards


def story_empty(stats: StatsState, rounds: Rounds) -> dict[str, str]:
    """What the story says with no card to show: a round with no hand yet says so."""
    round_name = _round_names(rounds, stats["round"])["name"]
    return {
        "what": f"{round_name} \u00b7 {_('The story of the session')}",
        "text": _("No hand played yet in this round")
        if not stats["counts"]["round"]["hands"]
        else _("Nothing to tell yet"),
    }


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
        player = str(table["seats_now"][seat])  # where they sit now (rule SE-10)
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
    # the seat in the cycle in play, not as drawn (rule SE-10)
    return _("Table {table} · {seat}").format(table=seat["table"], seat=seat_word(seat["seat_now"]))


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
    if kind == "story":
        stats = states["stats"]
        cards = story_cards(stats, config["only"], who, rounds, points)
        return {"card": cards[0] if cards else None, "empty": story_empty(stats, rounds)}
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


@router.get("/{tournament_id}/story", response_class=HTMLResponse)
def story(
    request: Request,
    tournament_id: TournamentId,
    store: StoreDep,
    seconds: Annotated[int, Query(ge=STORY_FASTEST, le=STORY_SLOWEST)] = STORY_SECONDS,
    only: Annotated[str | None, Query(max_length=100)] = None,
    bg: Background = None,
    names: BothNames = None,
) -> HTMLResponse:
    """The story of the session, a card every `seconds` (`only`: some of its parts)."""
    options = {"seconds": seconds, "only": list(story_parts(only))}
    return _page(request, store, tournament_id, "story", ["stats"], bg, options, names=names)


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
