"""Data feeds for broadcast graphics (issue 6): `GET /feeds/{tid}/{name}.json|.csv|.xml`.

For vision mixers and graphics systems (vMix, CasparCG, OBS, a browser template) that poll a
URL for a table of rows. Every feed is a flat list of rows with title-friendly columns:

- `standings`: the current round, every ranked player, in the order of the list: Position,
  Rank (equal totals share it, rule ST-2), Player (id), Name, Country, Total (2 decimals,
  rule SC-5), Total exact, Status, Above cut, To cut (rule ST-3: "+12.00" is the margin over
  the line, "-30.00" the points a player below it needs), To cut exact.
- `top`: the first 8 rows of `standings`.
- `cut`: the 4 players above the cut line and the 4 below it (empty in the final).
- `tables`: each table of the current round in the segment it is playing now: Table, Round,
  Segment, Group, East, South, West, North (names), East score ... North score (this
  segment's points), Hands, Planned hands, Next hand, Dealer (who deals it), Phase, Starts at,
  Deadline.
- `clocks`: each table's clock: Table, Round, Segment, Group, Phase, Starts at, Deadline,
  Break ends, Hands, Planned hands, Play all, then the seconds at the server's time of the
  answer (its `Date` header; rule CL-6): Seconds left (to the deadline, rounded up; in
  overtime negative, the whole seconds past it; null when not running against a deadline),
  Time left (the same as "mm:ss": "69:05", "-00:12"), Break seconds left and Break time
  left (during a break). Times are UTC ISO 8601. A display that can count down itself
  should count from the deadline; the seconds are for graphics that show text as it comes.
- `player-ID`: one row, a player's standing columns plus Round, Segment, Table, Seat now.
- `needs` (issue 18): the `cut` feed's players, each with what the next hand at their table
  would have to be: Table, Hands left, Needs (`over the line`, `can reach`, `out of reach`,
  `no hand left`; null in an Ari Ari round), Needs self-draw and Needs discard (below the
  line: the smallest win that lifts them strictly over it as it stands, rules ST-3, HS-2,
  HS-3), Can lose self-draw and Can lose discard (above it: the biggest opponent's self-draw
  they can pay, and the biggest hand they can discard, and stay over it; null: safe).
- `stats` (issue 18): the story of the session, at most 5 rows a list, each row's `Kind`
  saying what it is: `hand` (the biggest winning hands of the round and of the segment, by
  `Scope`: Rank, the winner, Segment, Table, Hand, Value (rule HS-4), Win `self_draw`,
  `discard` or `points`, Discarder), `climber` and `faller` (the segment's movers in rank,
  rule ST-2: Rank before, Rank now, Total, Change), `crossed up` and `crossed down` (who
  the last hand put over or under the cut line, rule ST-3: Position before, Position now),
  `leader` (each table's leader in the segment: Change, their points; Count, the table's
  hands) and `count` (Win `hands`, `self_draw`, `discard`, `draw`, `other`, with Count, for
  the round and the segment). Columns a kind does not use are null.

Formats: `.json` is an array of flat objects (numbers, strings, booleans, null); `.csv` has a
header row (UTF-8, empty for null, booleans as true/false); `.xml` is
`<rows><row><Rank>1</Rank>...</row></rows>`, each column an element whose name is the title
with every character other than letters, digits, `_`, `.` and `-` as `_` ("To cut" is
`<To_cut>`).

Languages (issue 17): `?lang=ja` (or zh-Hant, zh-Hans, ko, en) says the text columns
Status, Phase, Seat and Needs in that language's words for a caption ("対局中", "東家"); the columns
keep their names, and without `?lang=` the values stay the codes above.

Polling: answers carry an `ETag` and `Cache-Control: no-cache`; send it back as
`If-None-Match` to get `304 Not Modified` with no body while nothing changed. An answer is
built once per change of the log (and, for `tables` and `player-ID`, per clock phase; for
`clocks`, per second while a clock runs) and served from memory in between: polling every
250 ms is fine. `HEAD` answers like `GET`, without the body. Answers allow any
origin (CORS), so a browser-based graphics template can read them.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Header, Path, Query
from fastapi.responses import Response

from app import i18n
from app.domain.errors import MalformedInput, say
from app.services import feeds
from app.web.deps import StoreDep, TournamentId
from app.web.errors import PROBLEM_RESPONSES, PUBLIC_READ_RESPONSES

router = APIRouter(tags=["feeds"])

_HEADERS: dict[str, Any] = {
    "ETag": {"description": "A hash of the body", "schema": {"type": "string"}},
    "Cache-Control": {"description": "`no-cache`: revalidate with the ETag", "schema": {}},
}
_ROW_SCHEMA = {
    "type": "array",
    "items": {
        "type": "object",
        "additionalProperties": {"type": ["string", "integer", "boolean", "null"]},
    },
}
RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "The feed's rows, in the format the extension names",
        "headers": _HEADERS,
        "content": {
            "application/json": {
                "schema": _ROW_SCHEMA,
                "example": [{"Rank": 1, "Name": "Ami Sato", "Country": "JP", "To cut": "+12.00"}],
            },
            "text/csv": {
                "schema": {"type": "string"},
                "example": "Rank,Name,Country,To cut\r\n1,Ami Sato,JP,+12.00\r\n",
            },
            "application/xml": {
                "schema": {"type": "string"},
                "example": "<rows><row><Rank>1</Rank><Name>Ami Sato</Name></row></rows>",
            },
        },
    },
    304: {"description": "Not modified: the `If-None-Match` ETag is current", "headers": _HEADERS},
    404: {
        **PROBLEM_RESPONSES[404],
        "description": "No such tournament, feed (name), player or format (extension)",
    },
    422: {**PROBLEM_RESPONSES[422], "description": "A tournament id out of range"},
    **PUBLIC_READ_RESPONSES,
}


@router.get(
    "/feeds/{tournament_id}/{name}.{extension}",
    response_class=Response,
    responses=RESPONSES,
    summary="A feed for broadcast graphics",
    description=__doc__,
)
def feed(
    tournament_id: TournamentId,
    name: Annotated[
        str,
        Path(
            description="standings, top, cut, tables, clocks, needs, stats, or player- and "
            "a player id"
        ),
    ],
    extension: Annotated[str, Path(description="json, csv or xml")],
    store: StoreDep,
    if_none_match: Annotated[
        str | None, Header(description="An ETag of an earlier answer: 304 if still current")
    ] = None,
    lang: Annotated[
        str | None,
        Query(
            max_length=35,
            description="Status, Phase and Seat in words of this language (en, ja, zh-Hant, "
            "zh-Hans, ko) for a caption; without it, the codes (`advanced`, `running`, "
            "`east`). The columns keep their names.",
        ),
    ] = None,
) -> Response:
    language = None
    if lang is not None:
        language = i18n.page_language(lang)
        if language is None:
            raise MalformedInput(
                "issue 17",
                "lang",
                say("must be one of {languages}", languages=", ".join(i18n.LANGUAGES)),
            )
    answer = feeds.answer(store, tournament_id, name, extension, language)
    headers = {
        "ETag": answer.etag,
        "Cache-Control": "no-cache",
        "Access-Control-Allow-Origin": "*",
        "Access-Control-Expose-Headers": "ETag",
    }
    if feeds.etag_matches(if_none_match, answer.etag):
        return Response(status_code=304, headers=headers)
    return Response(answer.body, media_type=feeds.MEDIA_TYPES[extension], headers=headers)
