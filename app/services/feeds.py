"""The data feeds for broadcast graphics: flat rows, encoded as JSON, CSV or XML, cached.

A vision mixer polls a feed several times a second. Each answer is one store read (one
query for lines committed since) and, while nothing changed, the cached bytes of the last
answer. The rows come from the read model's views (`app.read.views`), the live channels'
states, so a feed, an overlay page and a hall display show the same figures.

Standings rows depend on the log alone: they change with the tournament's version. The
`tables` rows change with the time too, but only at a phase boundary (a segment starts, a
deadline passes, a break ends: rules CL-1 to CL-6); a cached answer is kept until the next
such moment. The `clocks` rows also carry the seconds left at the answer's time, for a
vision mixer that shows a feed's text and cannot count down itself (issue 13): their answer
is kept until the next second a figure changes.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from weakref import WeakKeyDictionary
from xml.sax.saxutils import escape

from app.domain.ariari import points_shown
from app.domain.errors import say
from app.domain.hands import PlayerId
from app.domain.replay import ClockData, StandingRowData, clock_report
from app.domain.tournament import SEAT_NAMES, Tournament
from app.read.stats import stats_state
from app.read.views import (
    NEEDS_BAND,
    ClockRow,
    StandingsState,
    States,
    TableState,
    current_seat,
    next_tick,
)
from app.services import feed_words, needs_feed, stats_feed
from app.services.errors import NotFound
from app.services.store import TournamentStore

Value = str | int | bool | None
Row = dict[str, Value]

TOP = 8  # the `top` feed
CUT_BAND = NEEDS_BAND  # the `cut` and `needs` feeds, the `needs` channel: players each side
PLAYER_PREFIX = "player-"

# The name in the player's own script ("山田 剛" beside "Takeshi Yamada"; the log's
# `local_name`), empty when the log gives none: the last column of each feed that names a
# player, so that no column before it moved when it came (issue 33).
LOCAL_NAME = "Local name"
_STANDING = (
    "Position",
    "Rank",
    "Player",
    "Name",
    "Country",
    "Total",
    "Total exact",
    "Status",
    "Above cut",
    "To cut",
    "To cut exact",
)
STANDING_COLUMNS = (*_STANDING, LOCAL_NAME)
PLAYER_COLUMNS = (*_STANDING, "Round", "Segment", "Table", "Seat", LOCAL_NAME)
NEEDS_COLUMNS = (*_STANDING, *needs_feed.COLUMNS_AFTER_STANDING, LOCAL_NAME)
SEAT_TITLES = tuple(seat.title() for seat in SEAT_NAMES)
SEATS = tuple(zip(SEAT_NAMES, SEAT_TITLES, strict=True))  # ("east", "East"), ...
TABLE_COLUMNS = (
    "Table",
    "Round",
    "Segment",
    "Group",
    *SEAT_TITLES,
    *(f"{seat} score" for seat in SEAT_TITLES),
    "Hands",
    "Planned hands",
    "Next hand",
    "Dealer",
    "Phase",
    "Starts at",
    "Deadline",
    *(f"{seat} {LOCAL_NAME.lower()}" for seat in SEAT_TITLES),  # "East local name", ...
)
CLOCK_COLUMNS = (
    "Table",
    "Round",
    "Segment",
    "Group",
    "Phase",
    "Starts at",
    "Deadline",
    "Break ends",
    "Hands",
    "Planned hands",
    "Play all",
    # At the answer's time (rule CL-6): whole seconds to the deadline, counted down (rounded
    # up); in overtime negative, the seconds past it (rounded down). "mm:ss" beside each.
    "Seconds left",
    "Time left",
    "Break seconds left",
    "Break time left",
)
NAMES = ("standings", "top", "cut", "tables", "clocks", "needs", "stats")
# Feeds whose rows follow the clocks: their answer changes at phase boundaries too.
TIMED = {"tables", "clocks", "needs"}


# -- rows -------------------------------------------------------------------------------


def names(tournament: Tournament) -> dict[str, dict[str, str | None]]:
    """Every registered player's names (and the one in their own script) and country by
    id, substitutes included."""
    return {
        str(player): {
            "name": registered.name,
            "local_name": registered.local_name,
            "country": registered.country,
        }
        for player, registered in tournament.players.items()
    }


def to_cut(
    standing: StandingRowData, *, exact: bool = False, minus: str = "-", points: bool = False
) -> str | None:
    """rule ST-3 as one signed figure: the margin over the line (+) or the points a player
    below it needs (-); 0 when level with the line. With `points` (an Ari Ari round), whole
    points with thousands separators ("+3,000"), not the 2 decimals of SC-5."""
    distance = standing["distance"] if exact else distance_shown(standing, points=points)
    if distance is None:
        return None
    if distance.strip("0.") == "":
        return distance
    return f"+{distance}" if standing["above_cut"] else f"{minus}{distance}"


def ordered(standings: StandingsState) -> list[StandingRowData]:
    """A standings state's rows in the order of the list (after any tie-break, rule ST-4)."""
    return sorted(standings["rows"].values(), key=lambda row: row["position"])


def around_cut(standings: StandingsState, band: int = CUT_BAND) -> list[StandingRowData]:
    """The players nearest the cut line: `band` above it and `band` below (rule ST-3)."""
    advance = standings["advance"]
    if advance is None:
        return []
    return [row for row in ordered(standings) if advance - band < row["position"] <= advance + band]


def total_shown(standing: StandingRowData, *, points: bool = False) -> str:
    """A standing's total as titles show it: the 2 decimals of SC-5, or for an Ari Ari
    round (`points`) whole points with thousands separators ("13,200", AA-17)."""
    return points_shown(standing["total"]) if points else str(standing["shown"])


def distance_shown(standing: StandingRowData, *, points: bool = False) -> str | None:
    """A standing's distance to the cut (rule ST-3), unsigned, as titles show it: the 2
    decimals of SC-5, or Ari Ari points (`points`); None without a cut."""
    distance = standing["distance"]
    if distance is None:
        return None
    return points_shown(distance) if points else str(standing["distance_shown"])


def is_ariari(tournament: Tournament) -> bool:
    """Whether the tournament's scores are Ari Ari points (shown whole, AA-17)."""
    return tournament.format.ruleset == "ariari"


def standing_row(
    standing: StandingRowData, who: Mapping[str, str | None], points: bool = False
) -> Row:
    return {
        "Position": standing["position"],
        "Rank": standing["rank"],
        "Player": str(standing["player"]),
        "Name": who.get("name"),
        "Country": who.get("country"),
        "Total": total_shown(standing, points=points),
        "Total exact": standing["total"],
        "Status": standing["status"],
        "Above cut": standing["above_cut"],
        "To cut": to_cut(standing, points=points),
        "To cut exact": to_cut(standing, exact=True),
        LOCAL_NAME: who.get("local_name"),
    }


def segment_scores(table: TableState) -> dict[str, int]:
    """Each seated player's points in the table's segment so far (sum of hand deltas)."""
    scores: dict[PlayerId, int] = dict.fromkeys(table["seats"].values(), 0)
    for hand in table["hands"]:
        for player, delta in hand["deltas"].items():
            scores[player] = scores.get(player, 0) + delta
    return {str(player): points for player, points in scores.items()}


@dataclass(frozen=True)
class Feed:
    columns: tuple[str, ...]
    rows: list[Row]


def build(tournament: Tournament, now: datetime, name: str, states: States | None = None) -> Feed:
    """One feed's rows at this state of the log and this server time (`states`: the views
    at `now`, when the caller has them already). A JSON row's keys come in its columns'
    order, as the CSV's and the XML's do."""
    feed = _build(tournament, now, name, states)
    return Feed(feed.columns, [{c: row[c] for c in feed.columns} for row in feed.rows])


def _build(tournament: Tournament, now: datetime, name: str, states: States | None) -> Feed:
    if states is None:
        states = States(tournament, now)
    who = names(tournament)
    ariari = is_ariari(tournament)
    if name in ("standings", "top", "cut"):
        standings = states.standings()
        rows = ordered(standings)
        if name == "top":
            rows = [row for row in rows if row["position"] <= TOP]
        elif name == "cut":
            rows = around_cut(standings)
        return Feed(
            STANDING_COLUMNS,
            [standing_row(row, who.get(str(row["player"]), {}), ariari) for row in rows],
        )
    if name == "needs":
        # the players either side of the cut, and what the next hand would have to be: the
        # `needs` channel's rows (the same players as the cut feed's)
        standings = states.standings()
        needs = states.needs_state()["rows"]
        return Feed(
            NEEDS_COLUMNS,
            [
                {
                    **standing_row(row, who.get(str(row["player"]), {}), ariari),
                    **needs_feed.needs_columns(needs.get(str(row["player"]))),
                }
                for row in around_cut(standings)
            ],
        )
    if name == "stats":
        # the story of the session (issue 18): the `stats` channel's state, as rows
        return Feed(stats_feed.COLUMNS, stats_feed.rows(stats_state(tournament), points=ariari))
    if name == "tables":
        return Feed(TABLE_COLUMNS, _table_rows(states, who, ariari))
    if name == "clocks":
        # The clock reports with their seconds (the channel's rows leave them to displays).
        reports = [clock_report(table_clock) for table_clock in states.table_clocks()]
        return Feed(CLOCK_COLUMNS, [_clock_row(report, ariari) for report in reports])
    if name.startswith(PLAYER_PREFIX):
        return Feed(PLAYER_COLUMNS, [_player_row(states, name.removeprefix(PLAYER_PREFIX), ariari)])
    raise NotFound(
        say(
            "there is no feed {name}: the feeds are {names} and player-ID",
            name=repr(name),
            names=", ".join(NAMES),
        )
    )


def planned_hands(clock: ClockRow | ClockData | None, ariari: bool) -> int | None:
    """The hands a segment plans (None without a clock). An Ari Ari game plans none (AA-23:
    it ends by its own rules; the 100 its clock carries is the cap on a game, not a plan):
    null while it is played, and the hands it had once it has ended."""
    if clock is None or (ariari and clock["phase"] not in ("finished", "finished_short")):
        return None
    return clock["planned_hands"]


def _clock_row(row: ClockData, ariari: bool = False) -> Row:
    seconds_over = row["seconds_over"]
    left = row["seconds_left"] if seconds_over is None else -seconds_over
    return {
        "Table": row["table"],
        "Round": row["round"],
        "Segment": row["segment"],
        "Group": row["group"],
        "Phase": row["phase"],
        "Starts at": row["starts_at"],
        "Deadline": row["deadline"],
        "Break ends": row["break_ends"],
        "Hands": row["hands_completed"],
        "Planned hands": planned_hands(row, ariari),
        "Play all": row["play_all"],
        "Seconds left": left,
        "Time left": minutes_seconds(left),
        "Break seconds left": row["break_seconds_left"],
        "Break time left": minutes_seconds(row["break_seconds_left"]),
    }


def minutes_seconds(seconds: int | None) -> str | None:
    """Whole seconds as "mm:ss" ("69:05", "04:30"); negative in overtime ("-00:12")."""
    if seconds is None:
        return None
    sign = "-" if seconds < 0 else ""
    minutes, rest = divmod(abs(seconds), 60)
    return f"{sign}{minutes:02d}:{rest:02d}"


def _table_rows(
    states: States, who: Mapping[str, Mapping[str, str | None]], ariari: bool = False
) -> list[Row]:
    def name_of(player: PlayerId | None, name: str = "name") -> str | None:
        return None if player is None else who.get(str(player), {}).get(name)

    rows: list[Row] = []
    for number in states.clock_rows():
        table = states.table(int(number))
        if table["segment"] is None:  # every table with a clock is seated
            continue
        clock = table["clock"]
        seats = table["seats_now"]  # where they sit now, under the dealer's wind (rule SE-10)
        scores = segment_scores(table)
        rows.append(
            {
                "Table": table["table"],
                "Round": table["round"],
                "Segment": table["segment"],
                "Group": table["group"],
                **{title: name_of(seats[seat]) for seat, title in SEATS},
                **{f"{title} score": scores[str(seats[seat])] for seat, title in SEATS},
                "Hands": len(table["hands"]),
                "Planned hands": planned_hands(clock, ariari),
                "Next hand": table["next_hand"],
                "Dealer": name_of(table["next_dealer"]),
                "Phase": None if clock is None else clock["phase"],
                "Starts at": None if clock is None else clock["starts_at"],
                "Deadline": None if clock is None else clock["deadline"],
                **{
                    f"{title} {LOCAL_NAME.lower()}": name_of(seats[seat], "local_name")
                    for seat, title in SEATS
                },
            }
        )
    return rows


def _player_row(states: States, player_id: str, ariari: bool = False) -> Row:
    player = states.player(player_id)
    if not player["registered"]:
        raise NotFound(
            say(
                "player {player_id} is not registered in this tournament", player_id=repr(player_id)
            )
        )
    standing = player["standing"]
    registered = states.tournament.players[player["player"]]
    who = {
        "name": player["name"],
        "country": player["country"],
        "local_name": registered.local_name,
    }
    if standing is None:  # a substitute is not ranked (rule FM-9)
        row: Row = dict.fromkeys(STANDING_COLUMNS)
        row.update(Player=str(player["player"]), Name=who["name"], Country=who["country"])
        row[LOCAL_NAME] = who["local_name"]
    else:
        row = standing_row(standing, who, ariari)
    seat = current_seat(player["seats"], states.clock_rows())
    return {
        **row,
        "Round": player["round"],
        "Segment": None if seat is None else seat["segment"],
        "Table": None if seat is None else seat["table"],
        "Seat": None if seat is None else seat["seat_now"],  # rule SE-10
    }


# -- encodings --------------------------------------------------------------------------

MEDIA_TYPES = {
    "json": "application/json",
    "csv": "text/csv; charset=utf-8",
    "xml": "application/xml; charset=utf-8",
}
# Characters XML 1.0 cannot carry at all, even escaped (control characters).
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_name(column: str) -> str:
    """A column title as an XML element name: "To cut" is <To_cut>."""
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", column)
    return name if re.match(r"[A-Za-z_]", name) else f"_{name}"


def _text(value: Value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def encode(feed: Feed, extension: str) -> bytes:
    if extension == "json":
        return json.dumps(feed.rows, ensure_ascii=False, separators=(",", ":")).encode()
    if extension == "csv":
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(feed.columns)
        writer.writerows([_text(row[column]) for column in feed.columns] for row in feed.rows)
        return out.getvalue().encode()
    tags = [xml_name(column) for column in feed.columns]
    parts = ['<?xml version="1.0" encoding="UTF-8"?>\n<rows>']
    for row in feed.rows:
        parts.append("<row>")
        for column, tag in zip(feed.columns, tags, strict=True):
            text = escape(_NOT_XML.sub("", _text(row[column])))
            parts.append(f"<{tag}>{text}</{tag}>")
        parts.append("</row>")
    parts.append("</rows>\n")
    return "".join(parts).encode()


# -- the cache --------------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    version: int
    until: datetime | None  # a timed feed's answer holds until this moment (exclusive)
    body: bytes
    etag: str

    def current(self, version: int, now: datetime) -> bool:
        return version == self.version and (self.until is None or now < self.until)


class FeedCache:
    """The encoded answer of each (tournament, feed, format), kept while it is current."""

    def __init__(self, size: int = 512) -> None:
        self.size = size
        self._answers: OrderedDict[tuple[int, str, str, str | None], Answer] = OrderedDict()
        self._guard = threading.Lock()

    def get(self, key: tuple[int, str, str, str | None]) -> Answer | None:
        with self._guard:
            answer = self._answers.get(key)
            if answer is not None:
                self._answers.move_to_end(key)
            return answer

    def put(self, key: tuple[int, str, str, str | None], answer: Answer) -> None:
        with self._guard:
            self._answers[key] = answer
            self._answers.move_to_end(key)
            while len(self._answers) > self.size:
                self._answers.popitem(last=False)


_caches: WeakKeyDictionary[TournamentStore, FeedCache] = WeakKeyDictionary()
_caches_guard = threading.Lock()


def _cache_of(store: TournamentStore) -> FeedCache:
    with _caches_guard:
        cache = _caches.get(store)
        if cache is None:
            cache = _caches[store] = FeedCache()
        return cache


def answer(
    store: TournamentStore,
    tournament_id: int,
    name: str,
    extension: str,
    language: str | None = None,
) -> Answer:
    """A feed's encoded answer: the cached one while the version (and, for a timed feed,
    the clocks' phases) are unchanged, else a fresh one. With a `language`, the text
    columns in its words (feed_words). Raises NotFound."""
    if extension not in MEDIA_TYPES:
        raise NotFound(
            say("feeds come as .json, .csv or .xml, not .{extension}", extension=extension)
        )
    cache = _cache_of(store)
    key = (tournament_id, name, extension, language)
    now = store.clock()

    def view(tournament: Tournament, version: int) -> Answer:
        held = cache.get(key)
        if held is not None and held.current(version, now):
            return held
        timed = name in TIMED or name.startswith(PLAYER_PREFIX)
        # The views hold the tables' clocks once, for the rows and the moment the answer
        # goes stale (for 256 tables they are the most of a clocks answer's cost)
        states = States(tournament, now)
        built = build(tournament, now, name, states)
        if language is not None:
            built = Feed(built.columns, feed_words.in_words(built.rows, language))
        body = encode(built, extension)
        until = states.next_boundary() if timed else None
        if timed and name == "clocks":
            moments = [m for m in (until, next_tick(states.table_clocks(), now)) if m is not None]
            until = min(moments, default=None)
        fresh = Answer(
            version=version,
            until=until,
            body=body,
            etag=etag_of(body),
        )
        cache.put(key, fresh)
        return fresh

    return store.read(tournament_id, view)


def etag_of(body: bytes) -> str:
    """A strong ETag for an answer's bytes: the feeds' and the API's (app/web, revalidated)."""
    return f'"{hashlib.blake2b(body, digest_size=12).hexdigest()}"'


def etag_matches(if_none_match: str | None, etag: str) -> bool:
    """RFC 9110 If-None-Match, by weak comparison: any listed tag, or `*`."""
    if not if_none_match:
        return False
    tags = [tag.strip() for tag in if_none_match.split(",")]
    return "*" in tags or etag in (tag.removeprefix("W/") for tag in tags)
