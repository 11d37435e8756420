"""The organizer's console (issue 6): the page at /admin, and what it needs beside the admin
JSON API: the console's view of a tournament, seating slips, judges' token QR codes and the
results, as a CSV and as a printable page.

The page carries no data and needs no credential: it asks for the admin token once, keeps it
in sessionStorage and sends it as a bearer header. Every route here that shows what only the
organizer may see checks that header (AdminDep); none reads a token from the URL, where it
would stay in the browser's history, the server's access log and Referer headers. The
printable results are public, like the standings API they are made from.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from datetime import datetime
from fractions import Fraction
from typing import Annotated, Any, Literal
from urllib.parse import quote

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from app.domain.ariari import points_shown
from app.domain.errors import IllegalMove, say
from app.domain.hands import PlayerId
from app.domain.log import PlayerRegistered, format_time
from app.domain.numbers import exact, shown
from app.domain.replay import StandingRowData
from app.domain.slips import Slip, seating_slips
from app.domain.tournament import Tournament
from app.printouts.slips import qr_svg, render_slips_csv, render_slips_html
from app.read.reports import Registration
from app.services import checkin
from app.services.errors import NotFound, TokenRefused
from app.services.feeds import NAMES as FEED_NAMES
from app.services.feeds import distance_shown, is_ariari, total_shown

# The public API's registration shape, round lookup and per-version report: the console and
# the results show the same figures as /api/tournaments/{tid}/standings, ranked once.
from app.services.reports import latest_report, round_state
from app.services.store import TournamentStore
from app.web import languages
from app.web.addresses import loopback_warning, public_base, staff_base, staff_setting
from app.web.deps import (
    MAX_NUMBER,
    AdminDep,
    RoundNumber,
    RoundParam,
    SettingsDep,
    StoreDep,
    TournamentId,
)
from app.web.errors import UnfinishedTableAnswer, unfinished_answer, violation_text
from app.web.pages import render

router = APIRouter(include_in_schema=False, dependencies=[Depends(languages.tournament_default)])

PlayerRef = str | int
SegmentState = Literal["not opened", "scheduled", "running", "closed"]
# The results CSV: the final ranking so far and the current round's standings, one row per
# player and list; exact values beside the shown ones (rule SC-5).
RESULT_COLUMNS = (
    "list",
    "round",
    "rank",
    "player",
    "name",
    "country",
    "status",
    "carry_in",
    "play",
    "total",
    "total_shown",
    "cut",
    "distance",
    "distance_shown",
    "prize",
    "prize_shown",
)


# -- the page ---------------------------------------------------------------------------


@router.get("/admin", response_class=HTMLResponse)
def console(request: Request) -> HTMLResponse:
    """The console; it asks for the admin token before it shows anything."""
    return render(request, "admin.html", tournament_id=None)


class AdminSession(BaseModel):
    public_url: str = Field(description="The address QR codes open (app/web/addresses.py)")
    public_url_set: bool = Field(description="Whether SCOREBOARD_PUBLIC_URL says it")
    public_url_warning: str | None = Field(description="Set when it is this machine only")


@router.get("/admin/session", response_model=AdminSession)
def check_token(request: Request, _: AdminDep, settings: SettingsDep) -> AdminSession:
    """Whether the token the console holds is the admin token (401 if not), and the address
    the console's QR codes open."""
    url = public_base(request, settings)
    return AdminSession(
        public_url=url,
        public_url_set=settings.public_url is not None,
        public_url_warning=loopback_warning(url),
    )


@router.get("/admin/{tournament_id}", response_class=HTMLResponse)
def tournament_console(request: Request, tournament_id: TournamentId) -> HTMLResponse:
    return render(request, "admin.html", tournament_id=tournament_id)


# -- the console's view of a tournament ------------------------------------------------------


class ConsoleSegment(BaseModel):
    group: str | None = Field(description="Round 1 only (rule FM-2)")
    segment: int
    start: str | None = Field(description="The scheduled start (rule FM-8)")
    state: SegmentState
    tables: list[int]


class ConsolePenalty(BaseModel):
    player: PlayerRef
    points: int
    reason: str


class ConsoleDraw(BaseModel):
    seed: str
    repeats: int
    superseded: list[str] = Field(description="Seeds of the draws a redraw replaced (SE-1)")


class ConsoleState(BaseModel):
    """What the console shows beside the public summary and standings."""

    tournament: int
    version: int
    public_url: str
    public_url_warning: str | None = Field(
        default=None, description="Set when QR codes would open this machine only"
    )
    prizes: list[str] = Field(description="Shown amounts by rank (rule PR-2)")
    round_one_rate: str = Field(description="Exact (rule SC-3)")
    rate_locked: bool
    language: str = Field(description="The pages' default language (issue 17)")
    round: int = Field(description="The current round")
    ariari: bool = Field(
        default=False, description="Scores are Ari Ari points, shown whole (rule AA-17)"
    )
    groups: list[str] = Field(description="The current round's groups; none if not in groups")
    registration_groups: list[str] = Field(
        description="Round 1's groups, which a registration names; none if not in groups"
    )
    draw: ConsoleDraw | None
    draw_refused: str | None = Field(
        description="Why the current round cannot be drawn (or redrawn) now, naming the rule"
    )
    unfinished: list[UnfinishedTableAnswer] = Field(
        description="The current round's tables that have not played out: ending the round "
        "needs a confirmation and a reason"
    )
    in_round: list[PlayerRef] = Field(description="Who may be penalized in the current round")
    segments: list[ConsoleSegment]
    penalties: list[ConsolePenalty]
    players: list[Registration]


@router.get("/admin/{tournament_id}/state", response_model=ConsoleState)
def console_state(
    request: Request,
    tournament_id: TournamentId,
    _: AdminDep,
    store: StoreDep,
    settings: SettingsDep,
) -> ConsoleState:
    """Registrations, the round's draw, each segment's schedule and the penalties given."""
    now = store.clock()
    public_url = public_base(request, settings)

    def view(tournament: Tournament, version: int) -> ConsoleState:
        state = tournament.current_round
        # rule FM-2: only a round played in groups names them (not an Ari Ari round 1)
        named = state.format.group_names if state.format.groups > 1 else ()
        groups = named or ("",)
        segments = []
        for group in groups:
            for segment in range(1, state.format.segments + 1):
                start = tournament.schedule.get((state.number, group, segment))
                segments.append(
                    ConsoleSegment(
                        group=group or None,
                        segment=segment,
                        start=None if start is None else format_time(start),
                        state=_segment_state(start, (group, segment) in state.closed, now),
                        tables=sorted(
                            table
                            for (seated_segment, table), seated in state.tables.items()
                            if seated_segment == segment and seated.group == group
                        ),
                    )
                )
        seated = [player for (_, player) in state.seat_of]
        refused = tournament.draw_refusal(state.number)
        first = tournament.format.round(1)
        return ConsoleState(
            tournament=tournament_id,
            version=version,
            public_url=public_url,
            public_url_warning=loopback_warning(public_url),
            prizes=[shown(amount) for amount in tournament.prizes],
            round_one_rate=exact(tournament.format.round(1).carry_over_rate),
            rate_locked=tournament.rounds[1].started,
            language=tournament.language,
            round=state.number,
            ariari=is_ariari(tournament),
            groups=list(named),
            registration_groups=list(first.group_names if first.groups > 1 else ()),
            draw=None
            if state.draw is None
            else ConsoleDraw(
                seed=state.draw.seed,
                repeats=state.draw.repeats,
                superseded=[earlier.seed for earlier in state.superseded_draws],
            ),
            draw_refused=None if refused is None else violation_text(refused),
            unfinished=unfinished_answer(tournament.unfinished_tables(state.number)),
            in_round=list(dict.fromkeys([*state.field, *seated])),
            segments=segments,
            penalties=[
                ConsolePenalty(player=p.player, points=p.points, reason=p.reason)
                for p in state.penalties
            ],
            players=[Registration.of(p) for p in tournament.players.values()],
        )

    return store.read(tournament_id, view)


def _segment_state(start: datetime | None, closed: bool, now: datetime) -> SegmentState:
    if closed:
        return "closed"
    if start is None:
        return "not opened"
    return "running" if start <= now else "scheduled"


# -- seating slips (rule SE-4) ------------------------------------------------------------


def _slips(store: TournamentStore, tournament_id: int, round_number: int) -> tuple[str, list[Slip]]:
    """The tournament's name and the slips of a round: its recorded seatings, or its draw
    where no seating is recorded (a log imported with the `draw` line alone)."""

    def view(tournament: Tournament, _: int) -> tuple[str, list[Slip]]:
        state = round_state(tournament, round_number)
        seat_of = state.seat_of or (state.draw.table_of() if state.draw else {})
        if not seat_of:
            raise IllegalMove(
                "SE-1", "round", say("round {round} has not been drawn yet", round=round_number)
            )
        return tournament.name, list(seating_slips(state.format, tournament.players, seat_of))

    return store.read(tournament_id, view)


@router.get("/admin/{tournament_id}/slips/{round_number}.csv")
def slips_csv(
    tournament_id: TournamentId, round_number: RoundNumber, _: AdminDep, store: StoreDep
) -> Response:
    """One row per player: their table in each segment of the round."""
    slips = _slips(store, tournament_id, round_number)[1]
    return _download(
        render_slips_csv(slips), "text/csv", f"slips-{tournament_id}-round-{round_number}.csv"
    )


@router.get("/admin/{tournament_id}/slips/{round_number}", response_class=HTMLResponse)
def slips_html(
    request: Request,
    tournament_id: TournamentId,
    round_number: RoundNumber,
    _: AdminDep,
    store: StoreDep,
    settings: SettingsDep,
) -> HTMLResponse:
    """The printable A4 slips; the console fetches them with its header and opens the
    answer as a blob, so no token ever sits in a URL."""
    name, slips = _slips(store, tournament_id, round_number)
    base_url = public_base(request, settings)
    # issue 18, part 4: each player's check-in code for the round (rule CI-1)
    codes = {
        str(slip.player): checkin.code_of(
            tournament_id, round_number, slip.player, settings.check_in_key
        )
        for slip in slips
    }
    return HTMLResponse(
        render_slips_html(
            slips,
            tournament=name,
            base_url=base_url,
            warning=loopback_warning(base_url),
            codes=codes,
        )
    )


# -- judges' tokens as QR codes -------------------------------------------------------------


class JudgeCardBody(BaseModel):
    """The token travels in the body: a query string would leave it in the access log."""

    model_config = ConfigDict(extra="forbid")

    token: str = Field(min_length=1, max_length=200)


class JudgeCard(BaseModel):
    tournament: int
    table: int
    token_id: int = Field(description="What the console revokes the token by")
    expires_at: datetime = Field(description="When the token stops opening the table")
    url: str = Field(description="The judge's page with the token, which the QR code opens")
    svg: str = Field(description="The QR code as inline SVG")
    warning: str | None = Field(
        default=None, description="Set when the code opens this machine only (a loopback address)"
    )
    head_judge: bool = Field(
        default=False, description="The head judge's token: the code opens /head-judge/{tid}"
    )


def judge_url(base_url: str, token: str) -> str:
    """The judge's tablet page, signed in by the token (the page asks the server which
    table it opens, and takes the token out of its address). The token rides in the
    fragment, which a browser never sends: no server or proxy access log can see it."""
    return f"{base_url.rstrip('/')}/judge#token={quote(token, safe='')}"


@router.post("/admin/{tournament_id}/judge-card", response_model=JudgeCard)
def judge_card(
    request: Request,
    tournament_id: TournamentId,
    body: JudgeCardBody,
    _: AdminDep,
    store: StoreDep,
    settings: SettingsDep,
) -> JudgeCard:
    """The QR code of a token just issued (POST /api/tournaments/{tid}/tokens) for the
    tablet to scan. Only tokens of this tournament that are still valid get a card."""
    try:
        issued = store.judge_token(body.token)
    except TokenRefused:
        issued = None
    if issued is None or issued.tournament_id != tournament_id:
        raise NotFound(
            say(
                "this token is not a valid table token of tournament {tournament}",
                tournament=tournament_id,
            )
        )
    url = judge_url(staff_base(request, settings), body.token)
    if issued.head_judge:  # issue 18, part 3: the head judge's page, the token after `#` too
        url = url.replace("/judge#", f"/head-judge/{tournament_id}#", 1)
    return JudgeCard(
        tournament=tournament_id,
        table=issued.table,
        token_id=issued.id,
        expires_at=issued.expires_at,
        url=url,
        svg=qr_svg(url),
        warning=loopback_warning(url, staff_setting(settings)),
        head_judge=issued.head_judge,
    )


# -- the tournament's pages and feeds, with QR codes for the hall PCs and the TV desk ----------


LinkGroup = Literal["Hall", "Spectators", "Overlays", "Feeds"]


class PageLink(BaseModel):
    group: LinkGroup
    title: str = Field(description="In English")
    message: str = Field(description='The title as a message of the catalogs ("Table {table}")')
    values: dict[str, str | int] = Field(description="The message's values")
    url: str
    svg: str = Field(description="The URL's QR code as inline SVG")


class ConsoleLinks(BaseModel):
    public_url: str = Field(description="The address the links and QR codes open")
    warning: str | None = Field(description="Set when that address is this machine only")
    player: str | None = Field(description="The player the player overlay and feed show")
    table: int = Field(description="The table the table overlay shows")
    links: list[PageLink]


# A link's title as a message and its values: the console says it in the page's language
# (its script holds the same messages, static/admin.js LINK_TITLES); a feed's title is its
# file name, said in no language.
LinkTitle = tuple[str, dict[str, str | int]]


def _title(message: str, **values: str | int) -> LinkTitle:
    return message, values


def page_links(
    base_url: str,
    tournament_id: int,
    groups: tuple[str, ...],
    player: tuple[str, str] | None,
    table: int,
) -> list[tuple[LinkGroup, LinkTitle, str]]:
    """Every page of a tournament (README, "The pages"): group, title and URL. `groups` are
    round 1's (rule FM-2), `player` the id and name of the player the player pages show."""
    tid = tournament_id
    links: list[tuple[LinkGroup, LinkTitle, str]] = [
        ("Hall", ("Hall display", {}), f"/hall/{tid}"),
        ("Hall", ("Hall display, the page with the cut", {}), f"/hall/{tid}?page=cut"),
        ("Hall", ("Printable results", {}), f"/admin/{tid}/results"),
        ("Spectators", ("Spectators' home (phones)", {}), f"/?t={tid}"),
        ("Overlays", ("Leaders", {}), f"/overlay/{tid}/top"),
        ("Overlays", ("Around the cut", {}), f"/overlay/{tid}/cut"),
        # issue 18: what the players either side of the line need; the story of the session
        ("Overlays", ("On the bubble", {}), f"/overlay/{tid}/bubble"),
        ("Overlays", ("The story of the session", {}), f"/overlay/{tid}/story"),
        ("Overlays", ("Session clock", {}), f"/overlay/{tid}/clock"),
        *(
            (
                "Overlays",
                _title("Clock of group {group} (round 1)", group=group),
                f"/overlay/{tid}/clock?group={q}",
            )
            for group, q in ((g, quote(g, safe="")) for g in (groups if len(groups) > 1 else ()))
        ),
        ("Overlays", ("Table {table}", {"table": table}), f"/overlay/{tid}/table/{table}"),
        (
            "Overlays",
            ("Table {table} clock", {"table": table}),
            f"/overlay/{tid}/clock?table={table}",
        ),
    ]
    if player is not None:
        quoted, name = quote(player[0], safe=""), player[1]
        links.append(
            ("Overlays", ("Player card: {name}", {"name": name}), f"/overlay/{tid}/player/{quoted}")
        )
        links.append(
            ("Spectators", ("Player page: {name}", {"name": name}), f"/p/{quoted}?t={tid}")
        )
    feeds = [*FEED_NAMES, *([f"player-{player[0]}"] if player is not None else [])]
    for feed in feeds:
        for extension in ("json", "csv", "xml"):
            path = f"/feeds/{tid}/{quote(feed, safe='')}.{extension}"
            links.append(("Feeds", ("{file}", {"file": f"{feed}.{extension}"}), path))
    return [(group, title, f"{base_url}{path}") for group, title, path in links]


@router.get("/admin/{tournament_id}/links", response_model=ConsoleLinks)
def console_links(
    request: Request,
    tournament_id: TournamentId,
    _: AdminDep,
    store: StoreDep,
    settings: SettingsDep,
    player: Annotated[str | None, Query(max_length=200)] = None,
    table: Annotated[int, Query(ge=1, le=MAX_NUMBER)] = 1,
) -> ConsoleLinks:
    """The hall's pages (with the cut page), every overlay, every feed and the spectators'
    home, each with its QR code. `player` chooses the player card and feed (the first
    registered player by default), `table` the table overlay."""
    base_url = public_base(request, settings)

    def view(
        tournament: Tournament, _: int
    ) -> tuple[str | None, list[tuple[LinkGroup, LinkTitle, str]]]:
        chosen = tournament.player_named(player) if player is not None else None
        if player is not None and chosen is None:
            raise NotFound(
                say(
                    "player {player} is not registered in tournament {tournament}",
                    player=repr(player),
                    tournament=tournament_id,
                )
            )
        if chosen is None:
            chosen = next(iter(tournament.players), None)
        if chosen is None:  # nobody registered yet: no player card
            return None, page_links(base_url, tournament_id, groups(tournament), None, table)
        named = (str(chosen), tournament.players[chosen].name)
        return named[0], page_links(base_url, tournament_id, groups(tournament), named, table)

    def groups(tournament: Tournament) -> tuple[str, ...]:
        return tournament.format.round(1).group_names

    chosen, links = store.read(tournament_id, view)
    return ConsoleLinks(
        public_url=base_url,
        warning=loopback_warning(base_url),
        player=chosen,
        table=table,
        links=[
            PageLink(
                group=group,
                title=message.format(**values),
                message=message,
                values=values,
                url=url,
                svg=qr_svg(url),
            )
            for group, (message, values), url in links
        ],
    )


# -- results: CSV (admin) and a printable page (public) -----------------------------------------


def _results(
    store: TournamentStore,
    tournament_id: int,
    round_number: int | None = None,
    *,
    ended_until_played: bool = False,
) -> dict[str, Any]:
    """The final ranking so far and one round's standings, with names: the standings API's
    report (rules ST-1 to ST-7, PR-1 to PR-3). The round is `round_number`, else the
    current one; with `ended_until_played`, the round that ended last while the current
    round has no hand yet (a results sheet printed just after a round end shows who went
    through, not the next round's carry-ins level at the cut)."""

    def view(tournament: Tournament, version: int) -> dict[str, Any]:
        full = latest_report(store, tournament_id, tournament, version)
        chosen = round_state(tournament, round_number)  # 422 or 409 for a round not begun
        if round_number is None and ended_until_played and not chosen.started:
            chosen = next(
                (state for state in reversed(tournament.rounds.values()) if state.ended),
                chosen,
            )
        current = next(r for r in full["rounds"] if r["round"] == chosen.number)
        later = [r["round"] for r in full["rounds"] if r["round"] > chosen.number]
        by_round = {
            (r["round"], str(row["player"])): row for r in full["rounds"] for row in r["standings"]
        }
        players = tournament.players
        points = is_ariari(tournament)
        cut = current["cut"]
        return {
            "tournament": tournament.name,
            # Ari Ari scores are points, shown whole with separators (rule AA-17)
            "line_total_shown": (
                None
                if cut is None or cut["line_total"] is None
                else points_shown(cut["line_total"])
                if points
                else cut["line_total"]
            ),
            "format": full["format"],
            "version": version,
            "complete": tournament.complete,
            "final_round": tournament.format.final_round,
            "round": current["round"],
            "current_round": tournament.current_round.number,
            "later_rounds": later,
            "advance": current["advance"],
            "ended": current["ended"],
            "cut": current["cut"],
            "standings": [
                _result_row("standings", current["round"], row, row, players, points)
                for row in current["standings"]
            ],
            "final_ranking": [
                _result_row(
                    "final_ranking",
                    place["round"],
                    by_round[(place["round"], str(place["player"]))],
                    place,
                    players,
                    points,
                )
                for place in full["final_ranking"]
            ],
        }

    return store.read(tournament_id, view)


def _result_row(
    kind: str,
    round_number: int,
    standing: StandingRowData,
    ranked: Mapping[str, Any],  # a standings row, or a place of the final ranking
    players: Mapping[PlayerId, PlayerRegistered],
    points: bool = False,
) -> dict[str, Any]:
    """A row of either list: `ranked` gives the rank (and the prize for the final ranking),
    `standing` the player's row in that round's standings. With `points` (Ari Ari), the
    figures are shown whole with thousands separators (rule AA-17), not with SC-5's decimals."""
    registered = players[ranked["player"]]
    above = standing["above_cut"]
    figure = points_shown if points else shown
    return {
        "list": kind,
        "round": round_number,
        "rank": ranked["rank"],
        "player": ranked["player"],
        "name": registered.name,
        "country": registered.country or "",
        "status": standing["status"],
        "carry_in": standing["carry_in"],
        "play": standing["play"],
        "total": standing["total"],
        "total_shown": total_shown(standing, points=points),
        "cut": "" if above is None else ("above" if above else "below"),
        "distance": standing["distance"] or "",
        "distance_shown": distance_shown(standing, points=points) or "",
        "prize": ranked.get("prize", ""),
        "prize_shown": ranked.get("prize_shown", ""),
        # the page's alone (results.html), not the CSV's columns: the name in its owner's
        # script, and the carry-in and play as the total is shown (SC-5, or points: AA-17)
        "local_name": registered.local_name,
        "carry_in_shown": figure(Fraction(standing["carry_in"])),
        "play_shown": figure(Fraction(standing["play"])),
    }


@router.get("/admin/{tournament_id}/results.csv")
def results_csv(
    tournament_id: TournamentId, _: AdminDep, store: StoreDep, round_number: RoundParam = None
) -> Response:
    """The final ranking so far, then the standings of `round` (default: the current
    round) (RESULT_COLUMNS)."""
    results = _results(store, tournament_id, round_number)
    out = io.StringIO()
    writer = csv.DictWriter(
        out, fieldnames=RESULT_COLUMNS, lineterminator="\n", extrasaction="ignore"
    )
    writer.writeheader()
    writer.writerows(results["final_ranking"])
    writer.writerows(results["standings"])
    return _download(out.getvalue(), "text/csv", f"results-{tournament_id}.csv")


@router.get("/admin/{tournament_id}/results", response_class=HTMLResponse)
def results_page(
    request: Request, tournament_id: TournamentId, store: StoreDep, round_number: RoundParam = None
) -> HTMLResponse:
    """The printable results. Public: every figure on it is served by the standings API
    without a credential, and it can be printed or shown from any machine in the hall.
    Without `round`: the current round once it has a hand, until then the round that ended
    last (who advanced), with a link to the next."""
    results = _results(store, tournament_id, round_number, ended_until_played=True)
    return render(
        request,
        "results.html",
        **results,
        generated_at=format_time(store.clock().replace(microsecond=0)),
        tournament_id=tournament_id,
    )


def _download(text: str, media_type: str, filename: str) -> Response:
    return Response(
        text,
        media_type=media_type,
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )
