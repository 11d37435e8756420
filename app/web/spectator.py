"""The spectator's phone (issue 6): find a player, follow them, and watch their table, total,
rank and distance to the cut live.

    GET /                       find players by name; the players this phone follows
    GET /search?t=&q=           the name search, as JSON (accents and typos forgiven)
    GET /p/{player}[?t=]        one player: table and seat, total, rank, the cut, hands, chart
    GET /p/{player}/chart[?t=]  the chart alone (SVG), which the page swaps in when it changes
    GET /spectator-sw.js        the service worker that keeps the pages' shell on the phone

A seating slip's QR code opens `/p/{player}` with no tournament: it is the newest tournament
that has the player. Live figures come from the feed's `player:ID` and `table:N` channels;
the page is rendered here first, so it shows the right figures before the feed connects.
"""

from __future__ import annotations

import hashlib
import math
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction
from typing import Annotated, Any
from urllib.parse import quote
from weakref import WeakKeyDictionary

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse, Response

from app import i18n
from app.domain.ariari import Chombo, ExhaustiveDraw, Game, Ron, Tsumo, Win, points_shown
from app.domain.errors import say
from app.domain.hands import PlayerId, Settlement
from app.domain.numbers import shown
from app.domain.replay import StandingRowData
from app.domain.rulesets import HandResult
from app.domain.tournament import RoundState, Tournament
from app.read.views import PlayerState, States, penalties_of, seats_in_round
from app.services import feeds
from app.services.errors import NotFound
from app.services.search import Candidate, Indexed, search
from app.services.search import index as search_index
from app.services.store import Listed, TournamentStore
from app.web import languages
from app.web.deps import MAX_NUMBER, StoreDep, TournamentsDep
from app.web.overlay import MINUS, on_screen
from app.web.pages import PACKAGE, render, templates

_ = i18n.gettext

router = APIRouter(include_in_schema=False, dependencies=[Depends(languages.tournament_default)])

TournamentParam = Annotated[int | None, Query(alias="t", ge=1, le=MAX_NUMBER)]
SEGMENT_WORDS = {
    "half": i18n.lazy("Half"),
    "quarter": i18n.lazy("Quarter"),
    "session": i18n.lazy("Session"),
    "game": i18n.lazy("Game"),
    "": i18n.lazy("Segment"),
}
# The seats, as the page names them (spectator_player.html translates the word).
SEAT_WORDS = (i18n.lazy("East"), i18n.lazy("South"), i18n.lazy("West"), i18n.lazy("North"))
# The limit hands of Ari Ari (rule AA-2) as the players at the table name them.
LIMIT_WORDS = {
    "mangan": i18n.lazy("mangan"),
    "haneman": i18n.lazy("haneman"),
    "baiman": i18n.lazy("baiman"),
    "sanbaiman": i18n.lazy("sanbaiman"),
    "yakuman": i18n.lazy("yakuman"),
}
# What the service worker keeps: if one of them changes, so does the worker's version, and
# phones fetch the new shell once.
SHELL = (
    "base.css",
    "spectator.css",
    "live.js",
    "i18n.js",
    "needs.js",
    "spectator.js",
    "manifest.webmanifest",
    "icons/icon-192.png",
)


# -- which tournament ---------------------------------------------------------------------


def _newest_first(tournaments: list[Listed]) -> list[Listed]:
    return sorted(tournaments, key=lambda t: t.id, reverse=True)


def _has_player(tournament: Tournament, player_id: str) -> bool:
    return tournament.player_named(player_id) is not None


def _tournament_of(
    store: TournamentStore, tournaments: list[Listed], player_id: str, wanted: int | None
) -> int:
    """The tournament named by `?t=`, or else the newest one that has the player (a seating
    slip's QR code names no tournament)."""
    newest = [t.id for t in _newest_first(tournaments)]
    for tournament_id in [wanted] if wanted is not None else newest:
        if store.read(tournament_id, lambda t, _: _has_player(t, player_id)):
            return tournament_id
    if wanted is not None:
        raise NotFound(
            _("player '{player}' is not registered in tournament {tournament}").format(
                player=player_id, tournament=wanted
            )
        )
    raise NotFound(
        _("player '{player}' is not registered in any tournament").format(player=player_id)
    )


# -- the player's hands and the chart -----------------------------------------------------


@dataclass(frozen=True)
class HandLine:
    hand: int
    result: str
    delta: int
    won: bool


@dataclass(frozen=True)
class SegmentBlock:
    """The player's table in one segment of the current round, and its hands so far."""

    segment: int
    table: int
    seat: str
    planned: int
    hands: list[HandLine]
    finished: bool


def result_text(
    settlement: Settlement, player: PlayerId, names: dict[str, str], result: HandResult
) -> str:
    """The hand as the player sees it; spectator.js says it in the same words (from the
    table channel, which has the winner, the value and the point changes, and for an Ari Ari
    table the result: a riichi bet moves points in a draw, rules AA-5, AA-9, AA-10)."""
    if isinstance(result, Ron | Tsumo):
        return _ariari_win_text(result, player, names)
    if isinstance(result, ExhaustiveDraw):
        return _("Draw")
    if isinstance(result, Chombo):
        offender = result.offender
        if offender == player:
            return _("Chombo")
        return _("{name} chombo").format(name=names.get(str(offender), str(offender)))
    if settlement.winner is None:
        return _("Draw") if all(d == 0 for _, d in settlement.deltas) else _("Ruling")
    winner = names.get(str(settlement.winner), str(settlement.winner))
    if settlement.value is None:
        return _("Won") if settlement.winner == player else _("{name} won").format(name=winner)
    if settlement.winner == player:
        return _("Won {value}").format(value=settlement.value)
    return _("{name} won {value}").format(name=winner, value=settlement.value)


def _win_words(win: Win) -> str:
    """An Ari Ari win as the players say it (rule AA-2): "3 fan 30 fu", "mangan"."""
    if win.limit:
        return i18n.gettext(LIMIT_WORDS.get(win.limit, win.limit))
    if win.fu:
        return _("{fan} fan {fu} fu").format(fan=win.fan, fu=win.fu)
    return _("{fan} fan").format(fan=win.fan)


def _ariari_win_text(result: Ron | Tsumo, player: PlayerId, names: dict[str, str]) -> str:
    """spectator.js ariAriWinText: "Won ron 3 fan 30 fu", "Ben tsumo mangan"; a double ron
    names each winner (rule AA-4)."""
    wins = result.wins if isinstance(result, Ron) else (result.win,)
    texts = []
    for win in wins:
        words = _win_words(win)
        name = names.get(str(win.winner), str(win.winner))
        if isinstance(result, Ron):
            text = (
                _("Won ron {value}").format(value=words)
                if win.winner == player
                else _("{name} ron {value}").format(name=name, value=words)
            )
        else:
            text = (
                _("Won tsumo {value}").format(value=words)
                if win.winner == player
                else _("{name} tsumo {value}").format(name=name, value=words)
            )
        texts.append(text)
    return " · ".join(texts)


def game_end_text(game: Game | None, player: PlayerId) -> str:
    """What the end of the game added to its last hand for the player (rules AA-15, AA-16,
    AA-27: the tournament counts them there): " · game end: 1st, bets +668, uma +3,334"."""
    standing = next((s for s in game.standings if s.player == player), None) if game else None
    if standing is None:
        return ""
    parts = [_ordinal(standing.place)]
    if standing.bets:
        bets = points_shown(standing.bets, minus=MINUS, signed=True)
        parts.append(_("bets {points}").format(points=bets))
    uma = points_shown(standing.uma, minus=MINUS, signed=True)
    parts.append(_("uma {points}").format(points=uma))
    return " \u00b7 " + _("game end: {parts}").format(parts=_(", ").join(parts))


def _ordinal(place: int) -> str:
    ordinals = {1: _("1st"), 2: _("2nd"), 3: _("3rd"), 4: _("4th")}
    return ordinals.get(place, str(place))


def _blocks(state: RoundState, player: PlayerId, names: dict[str, str]) -> list[SegmentBlock]:
    blocks = []
    planned = state.format.hands_per_segment
    for seat in seats_in_round(state, player):
        segment, table_number = seat["segment"], seat["table"]
        table = state.tables[(segment, table_number)]
        # the hand that ended an Ari Ari game (it carries the leftover bets and uma, AA-27)
        last = table.game.hands[-1].number if table.game and table.game.ended else None
        hands = [
            HandLine(
                hand=number,
                result=result_text(settlement, player, names, table.hands[number].result)
                + (game_end_text(table.game, player) if number == last else ""),
                delta=dict(settlement.deltas).get(player, 0),
                won=settlement.winner == player,
            )
            for number, settlement in sorted(table.settlements.items())
        ]
        finished = table.next_hand(planned) is None or (
            (table.group if state.number == 1 else "", segment) in state.closed
        )
        blocks.append(
            SegmentBlock(
                segment=segment,
                table=table_number,
                seat=seat["seat_now"],  # where they sit now, not as drawn (rule SE-10)
                planned=planned,
                hands=hands,
                finished=finished,
            )
        )
    return blocks


@dataclass(frozen=True)
class RoundTrace:
    """The player's total through one round: the carry-in, then after each hand (and the
    round's penalties last, as they have no place among the hands)."""

    round: int
    label: str
    running: list[Fraction]
    slots: int  # hands the round has room for on the chart
    ended: bool

    @property
    def total(self) -> Fraction:
        return self.running[-1]


def _round_label(tournament: Tournament, number: int) -> str:
    if tournament.format.round(number).is_final:
        return _("Final")
    # translators: a round on the chart's axis, short: "R3"
    return _("R{round}").format(round=number)


def _traces(tournament: Tournament, player: PlayerId) -> list[RoundTrace]:
    traces = []
    for number, state in sorted(tournament.rounds.items()):
        segments = state.seats_of(player)
        if player not in state.field and not segments:
            continue  # not in this round
        running = [Fraction(state.carry_in.get(player, 0))]
        for segment, table_number, _ in segments:
            for _, settlement in sorted(state.tables[(segment, table_number)].settlements.items()):
                running.append(running[-1] + dict(settlement.deltas).get(player, 0))
        penalties = sum(p.points for p in penalties_of(state, player))
        if penalties:
            running.append(running[-1] + penalties)
        seated = len(segments) or state.format.segments
        game = tournament.format.game
        if game is not None:
            # rule AA-23: a game plans no number of hands (hands_per_segment is the cap of
            # 100). Room for what each game had, and while it is played for at least the
            # hands a game without a bankruptcy needs (AA-12: the deal passes that often).
            played = [
                len(state.tables[(segment, table_number)].settlements)
                for segment, table_number, _ in segments
            ]
            room = sum(max(hands, game.rotations) for hands in played)
            room += (state.format.segments - len(segments)) * game.rotations
        else:
            room = seated * state.format.hands_per_segment
        traces.append(
            RoundTrace(
                round=number,
                label=_round_label(tournament, number),
                running=running,
                slots=max(room, len(running) - 1, 1),
                ended=state.ended is not None,
            )
        )
    return traces


def _nice_step(span: float, ticks: int = 4) -> int:
    """A step of 1, 2 or 5 times a power of ten that cuts `span` into about `ticks` parts."""
    raw = max(span / ticks, 1.0)
    power = 10 ** math.floor(math.log10(raw))
    return int(next(m * power for m in (1, 2, 5, 10) if m * power >= raw))


@dataclass
class Chart:
    """The chart's geometry, in the SVG's own units; the template only draws it."""

    width: int = 360
    height: int = 210
    left: int = 46
    right: int = 10
    top: int = 12
    bottom: int = 42
    y_ticks: list[tuple[float, str]] = field(default_factory=list)
    zero: float | None = None
    bands: list[dict[str, Any]] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    links: list[tuple[float, float, float, float]] = field(default_factory=list)
    points: list[dict[str, Any]] = field(default_factory=list)
    cut: dict[str, Any] | None = None

    @property
    def plot_bottom(self) -> int:
        return self.height - self.bottom

    @property
    def plot_right(self) -> int:
        return self.width - self.right


def build_chart(
    traces: list[RoundTrace],
    cut_total: Fraction | None,
    figure: Callable[[Fraction], str] = shown,
) -> Chart:
    """Each round's total hand by hand, one point at each round's end (or now), the
    carry-over between rounds dotted, and the live cut line in the round being played."""
    chart = Chart()
    values = [float(v) for trace in traces for v in trace.running] + [0.0]
    if cut_total is not None:
        values.append(float(cut_total))
    step = _nice_step(max(values) - min(values))
    low = math.floor(min(values) / step) * step
    high = math.ceil(max(values) / step) * step
    if high == low:
        high = low + step
    plot_width = chart.width - chart.left - chart.right
    plot_height = chart.plot_bottom - chart.top
    slots = sum(trace.slots for trace in traces) or 1

    def x(slot: float) -> float:
        return round(chart.left + plot_width * slot / slots, 1)

    def y(value: Fraction | float) -> float:
        return round(chart.top + plot_height * (high - float(value)) / (high - low), 1)

    chart.y_ticks = [(y(v), on_screen(f"{v:,}")) for v in range(int(low), int(high) + 1, step)]
    chart.zero = y(0) if low < 0 < high else None
    offset = 0
    previous: tuple[float, float] | None = None
    for index, trace in enumerate(traces):
        xs = [x(offset + i) for i in range(len(trace.running))]
        ys = [y(v) for v in trace.running]
        chart.bands.append(
            {
                "x": x(offset),
                "width": round(x(offset + trace.slots) - x(offset), 1),
                "middle": round((x(offset) + x(offset + trace.slots)) / 2, 1),
                "label": trace.label,
                "shaded": index % 2 == 1,
            }
        )
        if previous is not None:
            chart.links.append((*previous, xs[0], ys[0]))  # rule SC-3: the carry-over
        chart.lines.append(" ".join(f"{a},{b}" for a, b in zip(xs, ys, strict=True)))
        chart.points.append(
            {
                "x": xs[-1],
                "y": ys[-1],
                "round": trace.round,
                "title": (
                    _("{round}: {total}") if trace.ended else _("{round}: {total} so far")
                ).format(round=trace.label, total=figure(trace.total)),
                "current": not trace.ended,
            }
        )
        previous = (xs[-1], ys[-1])
        offset += trace.slots
    last = traces[-1] if traces else None
    if cut_total is not None and last is not None and not last.ended:
        band = chart.bands[-1]
        chart.cut = {
            "x1": band["x"],
            "x2": round(band["x"] + band["width"], 1),
            "y": y(cut_total),
            "title": _("The cut: {total}").format(total=figure(cut_total)),
        }
    return chart


# -- the player's page --------------------------------------------------------------------


@dataclass
class PlayerPage:
    tournament_id: int
    tournament_name: str
    player: PlayerState  # the `player:ID` channel's state: what the feed keeps up to date
    live: bool  # False once the player is out: their last round no longer changes
    country: str | None
    substitute: bool
    local_name: str | None  # the name in the player's own script (issue 17)
    round_label: str
    segment_word: str
    segments: int
    field_size: int
    advance: int | None
    blocks: list[SegmentBlock]
    current: SegmentBlock | None
    names: dict[str, str]
    chart: Chart
    penalties: list[tuple[int, str]]
    ariari: bool = False  # scores in whole points (rule AA-17), no planned hands (AA-23)

    def total_of(self, standing: StandingRowData) -> str:
        """The total as the page shows it (feeds.total_shown): 2 decimals, or Ari Ari points,
        a negative one with a true minus sign (as spectator.js draws it)."""
        return on_screen(feeds.total_shown(standing, points=self.ariari))

    def distance_of(self, standing: StandingRowData) -> str:
        return feeds.distance_shown(standing, points=self.ariari) or ""

    @property
    def names_shown(self) -> tuple[str, str | None]:
        """The player's name for the page's language, and the other form beneath it."""
        return i18n.names_for(self.player["name"], self.local_name)

    def delta_of(self, delta: int) -> str:
        if self.ariari:
            return points_shown(delta, minus=MINUS, signed=True)
        return on_screen(f"{delta:+d}") if delta else "0"

    def data(self) -> dict[str, Any]:
        """What spectator.js needs to carry on live (passed as JSON, escaped by tojson)."""
        standing = self.player["standing"]
        return {
            "tournament": self.tournament_id,
            "live": self.live,
            "player": str(self.player["player"]),
            "name": self.names_shown[0],  # as the page shows it: in its owner's script for CJK
            "other_name": self.names_shown[1],  # and its other form, for the followed list
            "round": self.player["round"],
            "total": None if standing is None else standing["total"],
            "advance": self.advance,
            "seats": self.player["seats"],
            "hands_seen": 0 if self.current is None else len(self.current.hands),
            "segment_word": self.segment_word,
            "segments": self.segments,
            "planned": self.blocks[0].planned if self.blocks else None,
            "current": None
            if self.current is None
            else {"segment": self.current.segment, "table": self.current.table},
            "names": self.names,
            "ariari": self.ariari,
        }


def _current(blocks: list[SegmentBlock]) -> SegmentBlock | None:
    """The table the player is at, or goes to next: the first segment not finished."""
    return next((b for b in blocks if not b.finished), blocks[-1] if blocks else None)


def _figure(tournament: Tournament) -> Callable[[Fraction], str]:
    """How the chart names a total: 2 decimals (SC-5), or Ari Ari points (AA-17), with a
    true minus sign."""
    figure = points_shown if feeds.is_ariari(tournament) else shown
    return lambda total: on_screen(figure(total))


def _cut_total(states: States) -> Fraction | None:
    """The total of the last player above the cut (rule ST-3), while the round is played."""
    cut = states.standings()["cut"]
    line = None if cut is None else cut["line_total"]
    return None if line is None else Fraction(line)


def _plays_in(state: RoundState, player: PlayerId) -> bool:
    return player in state.field or bool(state.seats_of(player))


def _player_page(
    tournament: Tournament, tournament_id: int, player_id: str, now: datetime
) -> PlayerPage:
    player = tournament.player_named(player_id)
    assert player is not None  # the route found the player first (_has_player)
    registered = tournament.players[player]
    states = States(tournament, now)
    current = tournament.current_round
    # The round to show: the one being played, or the last one the player was in.
    played = [n for n, st in sorted(tournament.rounds.items()) if _plays_in(st, player)]
    state = tournament.rounds[played[-1]] if played else current
    live = state is current
    table_mates = {
        seated
        for segment, table, _ in state.seats_of(player)
        for seated in state.tables[(segment, table)].seats
    }
    names = {str(p): tournament.players[p].name for p in table_mates | {player}}
    blocks = _blocks(state, player, names)
    # Live: the `player:ID` channel's state, which the feed keeps up to date. Out of the
    # event: the same shape for the last round played, which no longer changes.
    player_state = states.player(player_id, None if live else state.number)
    assert player_state["registered"]  # the route found the player first
    return PlayerPage(
        tournament_id=tournament_id,
        tournament_name=tournament.name,
        player=player_state,
        live=live,
        country=registered.country,
        substitute=registered.substitute,
        local_name=registered.local_name,
        round_label=_("Final")
        if state.format.is_final
        else _("Round {round}").format(round=state.number),
        segment_word=_(SEGMENT_WORDS.get(state.format.segment_kind, "Segment")),
        segments=state.format.segments,
        field_size=len(state.field),
        advance=state.format.advance,
        blocks=blocks,
        current=_current(blocks) if live else None,
        names=names,
        chart=build_chart(_traces(tournament, player), _cut_total(states), _figure(tournament)),
        penalties=[(p.points, p.reason) for p in penalties_of(state, player)],
        ariari=feeds.is_ariari(tournament),
    )


def _missing(request: Request, message: str) -> HTMLResponse:
    response = render(request, "spectator_missing.html", message=message)
    response.status_code = 404
    return response


# -- routes -------------------------------------------------------------------------------


@router.get("/", response_class=HTMLResponse)
def home(
    request: Request,
    store: StoreDep,
    listed: TournamentsDep,
    tournament_id: TournamentParam = None,
    q: Annotated[str, Query(max_length=100)] = "",
) -> HTMLResponse:
    """Find a player; the followed players are kept on the phone and shown by spectator.js.
    With `q` the results are rendered here too, for a phone without JavaScript."""
    newest = _newest_first(listed)
    tournaments = [{"id": t.id, "name": t.name} for t in newest]
    ids = [t.id for t in newest]
    chosen = tournament_id if tournament_id in ids else (ids[0] if ids else None)
    results = _search(store, chosen, q) if chosen is not None and q.strip() else []
    return render(
        request,
        "spectator_home.html",
        tournament=next((t for t in tournaments if t["id"] == chosen), None),
        tournaments=tournaments,
        # the followed players' figures: Ari Ari points in these (spectator.js)
        ariari=[tid for tid in ids if store.read(tid, lambda t, _: feeds.is_ariari(t))],
        query=q,
        results=results,
    )


# Each tournament's field indexed for search once per version (issue 32: a search compares
# every name and its readings, and a reader may search as fast as the limit lets them).
_indexes: WeakKeyDictionary[TournamentStore, dict[int, tuple[int, tuple[Indexed, ...]]]] = (
    WeakKeyDictionary()
)
_indexes_guard = threading.Lock()


def _field_index(store: TournamentStore, tournament_id: int) -> tuple[Indexed, ...]:
    with _indexes_guard:
        known = _indexes.setdefault(store, {})
    held = known.get(tournament_id)
    version = store.read(tournament_id, lambda _, version: version)
    if held is not None and held[0] == version:
        return held[1]

    def view(tournament: Tournament, version: int) -> tuple[int, list[Candidate]]:
        candidates = [
            Candidate(r.player, r.name, r.country, r.local_name)
            for r in tournament.players.values()
        ]
        return version, candidates

    # Indexed outside the store's read, which holds the tournament's lock that the judges'
    # writes take: reading every name in Chinese characters takes a few milliseconds.
    version, candidates = store.read(tournament_id, view)
    made = search_index(candidates)
    known[tournament_id] = (version, made)
    return made


def _search(store: TournamentStore, tournament_id: int, query: str) -> list[dict[str, Any]]:
    return [
        {
            "id": str(m.candidate.player),
            "name": m.candidate.name,
            "country": m.candidate.country,
            "local_name": m.candidate.local_name,
            "url": f"/p/{quote(str(m.candidate.player), safe='')}?t={tournament_id}",
        }
        for m in search(_field_index(store, tournament_id), query)
    ]


@router.get("/search")
def find_players(
    store: StoreDep,
    listed: TournamentsDep,
    q: Annotated[str, Query(max_length=100)] = "",
    tournament_id: TournamentParam = None,
) -> dict[str, Any]:
    """Players whose names match `q`, best first: accents, case and typos are forgiven."""
    if tournament_id is None:
        if not listed:
            raise NotFound(say("there is no tournament yet"))
        tournament_id = _newest_first(listed)[0].id
    return {"tournament": tournament_id, "query": q, "results": _search(store, tournament_id, q)}


@router.get("/p/{player_id}", response_class=HTMLResponse)
def player_page(
    request: Request,
    player_id: str,
    store: StoreDep,
    listed: TournamentsDep,
    tournament_id: TournamentParam = None,
) -> HTMLResponse:
    try:
        tid = _tournament_of(store, listed, player_id, tournament_id)
    except NotFound as error:
        return _missing(request, str(error))
    now = store.clock()
    page = store.read(tid, lambda t, _: _player_page(t, tid, player_id, now))
    return render(request, "spectator_player.html", page=page)


@router.get("/p/{player_id}/chart")
def player_chart(
    player_id: str, store: StoreDep, listed: TournamentsDep, tournament_id: TournamentParam = None
) -> Response:
    """The chart alone, as the player page has it inline."""
    tid = _tournament_of(store, listed, player_id, tournament_id)
    now = store.clock()

    def view(tournament: Tournament, _: int) -> Chart:
        player = tournament.player_named(player_id)
        assert player is not None  # _tournament_of found the player first
        return build_chart(
            _traces(tournament, player), _cut_total(States(tournament, now)), _figure(tournament)
        )

    chart = store.read(tid, view)
    svg = templates.get_template("spectator_chart.html").render(chart=chart)
    return Response(svg, media_type="image/svg+xml", headers={"Cache-Control": "no-store"})


@router.get("/spectator-sw.js")
def service_worker() -> Response:
    """Served from the root so that it may control `/` and `/p/...`; it leaves every other
    page of the site alone (see the file)."""
    static = PACKAGE / "static"
    digest = hashlib.sha256()
    for name in SHELL:
        digest.update((static / name).read_bytes())
    source = (static / "spectator-sw.js").read_text(encoding="utf-8")
    return Response(
        source.replace("__VERSION__", digest.hexdigest()[:12]),
        media_type="text/javascript",
        headers={"Service-Worker-Allowed": "/", "Cache-Control": "no-cache"},
    )
