"""Seating slips as a printable A4 page and a CSV (rule SE-4)."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Mapping, Sequence
from urllib.parse import quote

import segno
from jinja2 import Environment, PackageLoader, select_autoescape

from app import i18n
from app.domain.slips import Slip

# The CSV's column names, read by programs: English whatever the language.
SEGMENT_TITLES = {"half": "Half", "quarter": "Quarter", "session": "Session", "game": "Game"}

# A slip's column heads and foot, by the round's kind of segment (rule FM-1), in the
# organizer's words: the messages the console's script uses too.
SEGMENT_HEADS = {
    "half": i18n.lazy("Half {segment}"),
    "quarter": i18n.lazy("Quarter {segment}"),
    "session": i18n.lazy("Session {segment}"),
    "game": i18n.lazy("Game {segment}"),
}
TABLES_BY = {
    "half": i18n.lazy("{tournament} · round {round} · tables by half"),
    "quarter": i18n.lazy("{tournament} · round {round} · tables by quarter"),
    "session": i18n.lazy("{tournament} · round {round} · tables by session"),
    "game": i18n.lazy("{tournament} · round {round} · tables by game"),
}


def _environment() -> Environment:
    environment = Environment(
        loader=PackageLoader("app", "templates"),
        autoescape=select_autoescape(["html"]),
        keep_trailing_newline=True,
    )
    i18n.speak_in_templates(environment)
    return environment


def player_url(base_url: str, player: object) -> str:
    """The spectator page of a player, which the slip's QR code opens."""
    return f"{base_url.rstrip('/')}/p/{quote(str(player), safe='')}"


def qr_svg(url: str) -> str:
    """An inline SVG QR code; error correction M survives a crumpled slip. Its viewBox lets
    a page size it with CSS (a token card prints it 45 mm wide): without one a CSS width
    grows the box only, and the code stays at its drawn size in a corner of it."""
    svg = segno.make(url, error="m").svg_inline(scale=3, border=2)
    size = re.match(r'<svg width="(\d+)" height="(\d+)"', svg)
    if size is None:  # segno drew it another way: leave it at its own size
        return svg
    width, height = size.groups()
    return svg.replace(size.group(0), f'{size.group(0)} viewBox="0 0 {width} {height}"', 1)


def render_slips_html(
    slips: Sequence[Slip],
    *,
    tournament: str,
    base_url: str,
    warning: str | None = None,
    language: str | None = None,
    codes: Mapping[str, str] | None = None,
) -> str:
    """The printable slips; `warning` says why their QR codes would not open on a phone
    (a loopback address), printed at the top and under every code. They speak `language`,
    or the request's (outside a request, the command line's: English unless it says). No
    language switch: the console fetches them with its token, in its own language, and
    shows them as a document of their own, which a switch's link could not fetch again.
    `codes` are the players' check-in codes by player id (issue 18, part 4; rule CI-1),
    printed under the QR code that opens the page where they are typed."""
    if language is not None:
        with i18n.speaking(language):
            return render_slips_html(
                slips, tournament=tournament, base_url=base_url, warning=warning, codes=codes
            )
    # The organizer's words, whichever address asked for them.
    i18n.set_domain("admin")
    rows = [
        {
            "slip": slip,
            "url": player_url(base_url, slip.player),
            "qr": qr_svg(player_url(base_url, slip.player)),
            "code": (codes or {}).get(str(slip.player)),
        }
        for slip in slips
    ]
    kind = slips[0].segment_kind if slips else "half"
    round_number = slips[0].round if slips else None
    head = i18n.gettext(SEGMENT_HEADS.get(kind, i18n.lazy("Segment {segment}")))
    foot = i18n.gettext(TABLES_BY.get(kind, i18n.lazy("{tournament} · round {round}")))
    segments = max((len(slip.tables) for slip in slips), default=0)
    return (
        _environment()
        .get_template("slips.html")
        .render(
            lang=i18n.current(),
            tournament=tournament,
            rows=rows,
            heads=[head.format(segment=n) for n in range(1, segments + 1)],
            foot=foot.format(tournament=tournament, round=round_number),
            round_number=round_number,
            warning=warning,
        )
    )


def render_slips_csv(slips: Sequence[Slip]) -> str:
    """One row per player: who they are and their table in each segment."""
    segments = max((len(s.tables) for s in slips), default=0)
    kind = SEGMENT_TITLES.get(slips[0].segment_kind, "Segment") if slips else "Half"
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        ["player", "name", "country", "group", "substitute", "round"]
        + [f"{kind} {n} table" for n in range(1, segments + 1)]
    )
    for slip in slips:
        writer.writerow(
            [
                slip.player,
                slip.name,
                slip.country or "",
                slip.group or "",
                "yes" if slip.substitute else "",
                slip.round,
            ]
            + ["" if table is None else table for table in slip.tables]
        )
    return out.getvalue()
