"""The hall display (issue 6) in real Chromium, against the server as a real process: paging
with the cut page, a new hand on screen within a second, a correction moving a player across
the line, the stale badge and the reconnect, the full-screen button, and the crowded screen.

The tests share one round 1 (the module's `hall`) and run in order: each enters hands at
tables the ones before left alone. With SCOREBOARD_SCREENSHOTS set, the last one writes
docs/screens/hall.png (the cut page) and docs/screens/hall-page-1.png.

Then the screens venues have (issue 13), on a server of their own: every row on the screen
with its name readable at six sizes and five numbers of rows, paging that skips no one, table
numbers readable from afar, an Ari Ari event in points. With SCOREBOARD_SCREENSHOTS set they
write docs/screens/hall-1280x720.png, hall-portrait.png (long names in many scripts) and
hall-ariari.png.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import httpx
import pytest
from e2e_support import Tablets, first_halves_open
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

from bench.load import RoundOne, Server, free_port, import_log

pytestmark = pytest.mark.slow

SCREENS = Path(__file__).resolve().parents[2] / "docs" / "screens"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PLAYERS = 64
ADVANCE = 16
HANDS_PER_HALF = 8

# Where a player's row lies against the cut band, in document order ("above" / "below"),
# or null when the row or the band is not on the page.
SIDE_OF_BAND = """(player) => {
    const row = document.querySelector(`#rows [data-player="${CSS.escape(player)}"]`);
    const band = document.querySelector('#rows .cut-band');
    if (!row || !band) return null;
    return row.compareDocumentPosition(band) & Node.DOCUMENT_POSITION_FOLLOWING ? 'above' : 'below';
}"""


@pytest.fixture(scope="module")
def judges(hall: Any) -> Iterator[Tablets]:
    with first_halves_open(hall) as tablets:
        yield tablets


def open_hall(page: Any, hall: Any, query: str) -> None:
    page.goto(f"{hall.base_url}/hall/{hall.tournament_id}?{query}")
    page.wait_for_function(
        "() => window.hallDisplay?.feed.status === 'live'"
        " && document.querySelectorAll('#rows .hall-row').length > 0"
        " && document.querySelectorAll('#tables .table-cell').length > 0",
        polling=100,
        timeout=10_000,
    )


def side_of_band(page: Any, position: int) -> str | None:
    """Which side of the band the row of the player at `position` is on."""
    player = page.get_attribute(f"#rows [data-position='{position}']", "data-player")
    return page.evaluate(SIDE_OF_BAND, player)


def wait_for_row(page: Any, player: str, total: str, side: str) -> None:
    """Until the player's row shows `total` on `side` of the cut band."""
    page.wait_for_function(
        f"""([p, total, side]) => ({SIDE_OF_BAND})(p) === side
            && document.querySelector(`#rows [data-player='${{p}}'] .col-total`)
                ?.textContent === total""",
        arg=[player, total, side],
        polling=100,
        timeout=5_000,
    )


def test_pages_the_standings_and_centres_a_page_on_the_cut(page: Any, hall: Any, judges: Tablets):
    rows = 20
    open_hall(page, hall, f"rows={rows}&interval=600")
    assert page.text_content("#pager") == f"page 1/{math.ceil(PLAYERS / rows)}"
    shown = page.eval_on_selector_all(
        "#rows .hall-row",
        "rows => rows.map(r => { const b = r.getBoundingClientRect();"
        " return {top: b.top, bottom: b.bottom, height: b.height,"
        " font: parseFloat(getComputedStyle(r).fontSize)}; })",
    )
    assert len(shown) == rows
    assert all(row["height"] >= 40 for row in shown), shown  # readable from 10 m
    assert all(row["font"] >= 24 for row in shown), shown
    assert shown[-1]["bottom"] <= 1080  # the whole page is on the screen
    # Page 1 ends on position 20, past the line at 16: the band sits after the 16th row.
    assert side_of_band(page, position=ADVANCE) == "above"
    assert side_of_band(page, position=ADVANCE + 1) == "below"

    # The session clock counts down the half's 70 minutes from the server's time (rule CL-6).
    assert page.text_content("#session-label") == "Time left"
    minutes, seconds = page.text_content("#session-time").split(":")
    assert 68 <= int(minutes) <= 70 and len(seconds) == 2
    assert page.locator("#tables .table-cell").count() == len(hall.round_one.tables)
    assert page.text_content("#table-counts") == f"{len(hall.round_one.tables)} playing"
    assert page.locator("#badge").is_hidden()
    assert page.text_content("#updated").startswith("updated ")

    # The full-screen button uses the Fullscreen API.
    button = page.locator("#fullscreen")
    assert button.is_visible()
    button.click()
    page.wait_for_function("() => document.fullscreenElement !== null", timeout=5_000)
    page.keyboard.press("f")
    page.wait_for_function("() => document.fullscreenElement === null", timeout=5_000)

    # The cut page: the band in the middle of the screen, labelled from the cut's advance count.
    open_hall(page, hall, f"rows={rows}&page=cut")
    band = page.locator("#rows .cut-band")
    assert band.count() == 1
    assert band.locator(".cut-label").text_content() == f"Top {ADVANCE} advance"
    positions = page.eval_on_selector_all(
        "#rows .hall-row", "rs => rs.map(r => +r.dataset.position)"
    )
    assert positions == list(range(ADVANCE - rows // 2 + 1, ADVANCE + rows // 2 + 1))
    # Before any hand, all 64 are level at the line: the tie-break state says so (rule ST-7).
    tie = band.locator(".cut-tie").text_content()
    assert f"{PLAYERS} level for {ADVANCE} places" in tie and "draw pending" in tie, tie


def test_the_rotation_comes_back_to_the_cut_and_a_pinned_page_stays(
    page: Any, hall: Any, judges: Tablets
):
    # Playwright's clock runs the page's timers: no real waiting for the interval.
    page.clock.install()
    open_hall(page, hall, "rows=20&interval=5")
    seen = [page.text_content("#pager")]
    for _ in range(5):
        page.clock.run_for(5_000)
        seen.append(page.text_content("#pager"))
    assert seen == [
        "page 1/4",
        "page 2/4",
        "page 3/4",
        "page 4/4",
        "cut line · 4 pages",
        "page 1/4",
    ]

    open_hall(page, hall, "rows=20&interval=5&page=cut")
    page.clock.run_for(12_000)
    assert page.text_content("#pager") == "cut line · 4 pages"
    assert page.locator("#rows .cut-band").count() == 1


def test_a_new_hand_is_on_the_screen_within_a_second(page: Any, hall: Any, judges: Tablets):
    open_hall(page, hall, "rows=16&page=1")
    winner = judges.seats[1][0]
    judges.deal(1)
    started = time.perf_counter()
    judges.enter(1, {"kind": "self_draw", "winner": winner, "value": 8})
    # The winner is alone on top now: the first row of page 1, with 3 x 8 collected.
    page.wait_for_function(
        "(p) => document.querySelector(`#rows [data-player='${p}'] .col-total`)"
        "?.textContent === '24.00'",
        arg=winner,
        polling="raf",
        timeout=5_000,
    )
    elapsed = time.perf_counter() - started
    assert elapsed < 1.0, f"the hand took {elapsed:.3f} s to reach the hall display"
    assert page.get_attribute("#rows .hall-row", "data-player") == winner


def test_a_correction_moves_the_player_across_the_cut_line(page: Any, hall: Any, judges: Tablets):
    # Every row on one page, so the row stays on the screen wherever it moves.
    open_hall(page, hall, f"rows={PLAYERS}&interval=600")
    east, low, west, north = judges.seats[2]
    # A low player: they dealt into a 10-point hand (everyone but the winner pays 10).
    judges.enter(2, {"kind": "discard", "winner": east, "discarder": low, "value": 10})
    wait_for_row(page, low, "\u221210.00", "below")  # a true minus sign

    # A big self-draw lifts them over the line...
    big = judges.enter(2, {"kind": "self_draw", "winner": low, "value": 100})
    wait_for_row(page, low, "290.00", "above")
    arrow = page.locator(f"#rows [data-player='{low}'] .arrow")
    assert arrow.text_content() == "▲"

    # ...and the judge corrects it to a draw: back under the band, with the rank falling.
    judges.correct(2, big, {"kind": "draw"}, reason="entered on the wrong table's tablet")
    wait_for_row(page, low, "\u221210.00", "below")  # a true minus sign
    assert arrow.text_content() == "▼"
    row = page.locator(f"#rows [data-player='{low}']")
    assert row.get_attribute("class") is not None and "below" in row.get_attribute("class")


def test_the_stale_badge_shows_when_the_feed_stops_and_goes_when_it_resumes(
    page: Any, hall: Any, judges: Tablets
):
    # The page's clock is Playwright's: 13 s pass at once with no message from the server
    # (heartbeats come every 5 s; more than 12 s of silence is stale).
    page.clock.install()
    open_hall(page, hall, "rows=16")
    badge = page.locator("#badge")
    assert badge.is_hidden()
    # What the badge showed, kept as it is shown: the heartbeat that ends the silence can come
    # before a poll would look, and hides it again (seen on a loaded machine).
    page.evaluate(
        """() => {
            const badge = document.getElementById('badge');
            window.badgeShown = [];
            new MutationObserver(() => {
                if (!badge.hidden) window.badgeShown.push(badge.textContent);
            }).observe(badge, { attributes: true, childList: true, characterData: true });
        }"""
    )
    page.clock.run_for(13_000)
    page.wait_for_function("() => window.badgeShown.length > 0", polling=100)
    assert page.evaluate("() => window.badgeShown[0]") == "stale"
    # The next heartbeat brings it back: the badge goes by itself.
    page.wait_for_function(
        "() => document.getElementById('badge').hidden", polling=100, timeout=8_000
    )

    # A dropped connection shows "offline", and the feed reconnects and resumes by itself.
    page.evaluate("() => window.hallDisplay.feed.socket.close()")
    page.wait_for_function(
        "() => document.getElementById('badge').textContent === 'offline'", polling=20
    )
    page.wait_for_function(
        "() => window.hallDisplay.feed.status === 'live'"
        " && document.getElementById('badge').hidden",
        polling=100,
        timeout=8_000,
    )


def test_the_crowded_screen(page: Any, hall: Any, judges: Tablets) -> None:
    open_hall(page, hall, "rows=20&page=cut")
    # Most tables finish the half; the last four are still playing.
    for table in hall.round_one.tables:
        last = HANDS_PER_HALF if table <= 12 else 5
        while judges.next_hand[table] <= last:
            judges.enter(table)
    six_hands = (
        "() => [...document.querySelectorAll('#tables .t-hands')]"
        ".filter(h => h.textContent === '6/8').length === 3"
    )

    # Hours unattended: updates replace the rows and cells, they never add to them, so the
    # document keeps the size of one screen (20 rows, one band, 16 tables, the tie's list).
    size = """() => ({
        elements: document.getElementsByTagName('*').length,
        rows: document.querySelectorAll('#rows .hall-row').length,
        bands: document.querySelectorAll('.cut-band').length,
        tables: document.querySelectorAll('#tables > *').length,
    })"""
    before = page.evaluate(size)
    for table in (13, 14, 15):
        judges.enter(table)
    page.wait_for_function(six_hands, polling=100, timeout=5_000)
    after = page.evaluate(size)
    for shown in (before, after):
        assert (shown["rows"], shown["bands"], shown["tables"]) == (20, 1, 16), shown
        assert shown["elements"] < 400, shown

    # A tie at the line, decided by the tie-break on hands (rules ST-4, ST-7).
    tied = tie_the_line(judges)
    page.wait_for_function(
        "(tied) => tied.every(p => document.querySelector(`#rows [data-player='${p}'] .tie-tag`))",
        arg=tied,
        polling=100,
        timeout=5_000,
    )
    tie = page.text_content("#rows .cut-band .cut-tie")
    assert tie.startswith("Tie at ") and f"{len(tied)} level for " in tie, tie
    assert page.text_content("#table-counts") == "4 playing · 12 done"
    # Group B's tables still play: their half's deadline is the session clock.
    assert page.text_content("#session-label") == "Time left"

    if os.environ.get("SCOREBOARD_SCREENSHOTS"):
        SCREENS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENS / "hall.png"))
        open_hall(page, hall, "rows=20&page=1")
        page.screenshot(path=str(SCREENS / "hall-page-1.png"))


def tie_the_line(judges: Tablets) -> list[str]:
    """A penalty brings the 16th player level with the 17th: a tie at the line (rule ST-4).
    Returns the players level at the line."""
    hall = judges.hall
    answer = judges.client.get(f"/api/tournaments/{hall.tournament_id}/standings")
    rows = sorted(answer.json()["rounds"][0]["standings"], key=lambda row: row["position"])
    line, first_out = rows[ADVANCE - 1], rows[ADVANCE]
    gap = int(line["total"]) - int(first_out["total"])  # whole points in round 1
    if gap:
        given = judges.client.post(
            f"/api/tournaments/{hall.tournament_id}/penalties",
            json={"round": 1, "player": line["player"], "points": -gap, "reason": "stalling"},
            headers={"Authorization": f"Bearer {hall.admin_token}"},
        )
        assert given.status_code == 201, given.text
    answer = judges.client.get(f"/api/tournaments/{hall.tournament_id}/standings")
    tie = answer.json()["rounds"][0]["cut"]["tie"]
    assert tie is not None
    return [str(player) for player in tie["players"]]


# -- the screens venues have (issue 13) ---------------------------------------------------------

# Landscape screens from a small projector to 4K, and a screen turned on its side.
SCREEN_SIZES = [(1280, 720), (1366, 768), (1920, 1080), (2560, 1440), (3840, 2160), (1080, 1920)]
ROTATION_MS = 2_000  # the shortest interval the page takes
SCREENSHOT_SIZES = {(1280, 720): "hall-1280x720.png", (1080, 1920): "hall-portrait.png"}

# Long names in the scripts a WSOM field writes them in: every page shows several of them.
LONG_NAMES = [
    "Maximilian Alexander Featherstonehaugh-Worthington",
    "長谷川 麻衣子 (はせがわ まいこ) 東京都麻雀連盟",
    "欧阳慕容 诸葛司马 上官建国 澳门麻将协会",
    "남궁민수 황보서연 선우지훈 대한마작협회",
    "Zoë Ångström-Łukasiewicz Ñúñez d'Été Øvergård",
    "Nguyễn Thị Phương Thảo Hoàng Trần Lê",
    "Αλέξανδρος Παπαδόπουλος-Κωνσταντινίδης",
    "Wu",
]

# Everything the geometric test asks of the page on the screen now: for every row of the
# standings, the row on the screen, its name visible and no two cells overlapping. The text
# of a cell is measured as drawn (a Range), so a figure wider than its column is caught; the
# name is measured as its cell clips it.
SCREEN_FAULTS = """() => {
    const slack = 0.5;
    const onScreen = (b) => b.top >= -slack && b.left >= -slack
        && b.bottom <= innerHeight + slack && b.right <= innerWidth + slack;
    const overlap = (a, b) => a.left < b.right - slack && b.left < a.right - slack
        && a.top < b.bottom - slack && b.top < a.bottom - slack;
    const drawn = (cell) => {
        if (cell.classList.contains('col-name')) return cell.getBoundingClientRect();
        if (!cell.textContent) return null;
        const range = document.createRange();
        range.selectNodeContents(cell);
        return range.getBoundingClientRect();
    };
    const faults = [];
    const players = [];  // those whose row shows: on the screen and not clipped by the page
    const clip = document.getElementById('rows').getBoundingClientRect();
    const inside = (b) => b.top >= clip.top - slack && b.bottom <= clip.bottom + slack;
    const band = document.querySelector('#rows .cut-band');
    if (band && !onScreen(band.getBoundingClientRect()))
        faults.push('the cut band is off the screen');
    for (const row of document.querySelectorAll('#rows .hall-row')) {
        const who = `position ${row.dataset.position}`;
        const box = row.getBoundingClientRect();
        if (onScreen(box) && inside(box)) players.push(row.dataset.player);
        else faults.push(`${who}: the row (${box.top}..${box.bottom}) is off the screen`);
        const name = row.querySelector('.name-text');
        const em = parseFloat(getComputedStyle(name).fontSize);
        const visible = Math.min(name.getBoundingClientRect().right,
                                 row.querySelector('.col-name').getBoundingClientRect().right)
            - name.getBoundingClientRect().left;
        // At least five characters of the name, or all of it when it is shorter.
        if (visible < Math.min(name.scrollWidth, 5 * em) - 1)
            faults.push(`${who}: ${visible.toFixed(1)} px of the name "${name.textContent}" show`);
        const cells = [...row.children].map((cell) => [cell.className, drawn(cell)])
            .filter(([, b]) => b !== null && b.width > 0);
        for (const [what, b] of cells) {
            if (b.left < box.left - slack || b.right > box.right + slack)
                faults.push(`${who}: ${what} sticks out of the row`);
        }
        for (let i = 0; i < cells.length; i += 1) {
            for (let j = i + 1; j < cells.length; j += 1) {
                if (overlap(cells[i][1], cells[j][1]))
                    faults.push(`${who}: ${cells[i][0]} overlaps ${cells[j][0]}`);
            }
        }
    }
    const pager = document.getElementById('pager');
    return {faults, players, page: pager.dataset.page, pages: Number(pager.dataset.pages)};
}"""


@dataclass(frozen=True)
class Screens:
    """A server with three tournaments: round 1 of a 64-player event whose players have long
    names in many scripts, its first two halves played (ranks and totals of every width),
    round 1 of a 256-player event (64 tables), and the Ari Ari example with game 2 of round 1
    under way."""

    base_url: str
    long_names: int  # tournament ids
    many_tables: int
    ariari: int
    tables: dict[str, list[int]]  # the tables of round 1, by the field's name for the event


@pytest.fixture(scope="module")
def screens(browser: object, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Screens]:
    folder = tmp_path_factory.mktemp("screens")
    url = f"sqlite:///{folder / 'scoreboard.db'}"
    round_one = RoundOne.generate(
        players=PLAYERS, seed=13, format={"preset": "wsom2008", "advance": [ADVANCE, 8, 4]}
    )
    renamed = []
    for number, text in enumerate(round_one.setup_lines):
        line = json.loads(text)
        if line["type"] == "player":
            line["name"] = f"{LONG_NAMES[number % len(LONG_NAMES)]} {number}"
        renamed.append(json.dumps(line, ensure_ascii=False))
    for hands in round_one.hands.values():  # no schedule: no clock, no deals (rule CL-3a)
        played = [{"type": "hand", **hand} for hand in hands if hand["segment"] <= 2]
        renamed += [json.dumps(hand) for hand in played]
    (folder / "long").mkdir()
    long_names = import_log(url, renamed, folder / "long")
    example = (EXAMPLES / "ariari.jsonl").read_text(encoding="utf-8").splitlines()
    round_one_open = example[: next(i for i, t in enumerate(example) if '"round_end"' in t)]
    (folder / "ariari").mkdir()
    ariari = import_log(url, round_one_open, folder / "ariari")
    big = RoundOne.generate(players=256, seed=13, format={"preset": "wsom2008"})
    (folder / "big").mkdir()
    many_tables = import_log(url, big.setup_lines, folder / "big")
    with Server(url, free_port(), folder / "server.log") as server:
        tables = {"long_names": round_one.tables, "many_tables": big.tables}
        yield Screens(server.base_url, long_names, many_tables, ariari, tables)


def standings_of(base_url: str, tournament_id: int) -> list[dict[str, Any]]:
    answer = httpx.get(f"{base_url}/api/tournaments/{tournament_id}/standings", timeout=10.0)
    rows = answer.json()["rounds"][-1]["standings"]
    return sorted(rows, key=lambda row: row["position"])


def open_screen(page: Any, url: str) -> None:
    page.goto(url)
    page.wait_for_function(
        "() => window.hallDisplay?.feed.status === 'live'"
        " && document.querySelectorAll('#rows .hall-row .name-text').length > 0"
        " && !/^\\d+$/.test(document.querySelector('#rows .name-text').textContent)",
        polling=100,
        timeout=10_000,
    )


def resize(page: Any, width: int, height: int) -> None:
    """The screen the page is on is now width x height: until the page has laid itself out."""
    page.set_viewport_size({"width": width, "height": height})
    page.wait_for_function(
        "([w, h]) => window.hallDisplay.laidOut?.width === w"
        " && window.hallDisplay.laidOut?.height === h",
        arg=[width, height],
        polling=50,
    )


@pytest.mark.parametrize("rows", [None, 8, 16, 24, 30], ids=lambda r: f"rows={r or 'default'}")
def test_every_row_is_on_every_screen_and_paging_shows_every_player_once(
    page: Any, screens: Screens, rows: int | None
) -> None:
    order = [row["player"] for row in standings_of(screens.base_url, screens.long_names)]
    page.clock.install()  # the rotation turns when the test says
    query = f"interval={ROTATION_MS // 1000}" + (f"&rows={rows}" if rows else "")
    open_screen(page, f"{screens.base_url}/hall/{screens.long_names}?{query}")
    faults: list[str] = []
    for width, height in SCREEN_SIZES:
        resize(page, width, height)
        shown: dict[str, list[str]] = {}
        seen = page.evaluate(SCREEN_FAULTS)
        for _ in range(seen["pages"] + 1):  # every numbered page and the cut page
            faults += [f"{width}x{height}, page {seen['page']}: {f}" for f in seen["faults"]]
            shown[seen["page"]] = seen["players"]
            page.clock.run_for(ROTATION_MS)
            seen = page.evaluate(SCREEN_FAULTS)
        if rows:
            assert len(shown["1"]) == min(rows, PLAYERS), (width, height)
        numbered = [shown.get(str(number), []) for number in range(1, seen["pages"] + 1)]
        paged = [player for players in numbered for player in players]
        if paged != order:
            missing = sorted(set(order) - set(paged), key=order.index)
            faults.append(f"{width}x{height}: paging shows {len(paged)} rows, misses {missing}")
    assert not faults, "\n".join(faults[:40])


def ariari_points(exact: str) -> str:
    """Whole points, rounded down as rule SC-5 rounds, with thousands separators."""
    return f"{math.floor(Fraction(exact)):,}"


def test_an_ariari_event_shows_points_and_no_groups_or_planned_hands(
    page: Any, screens: Screens
) -> None:
    standings = standings_of(screens.base_url, screens.ariari)
    open_screen(page, f"{screens.base_url}/hall/{screens.ariari}?page=1")
    page.wait_for_function(
        "() => document.querySelectorAll('#tables .table-cell').length === 2", polling=100
    )
    shown = page.eval_on_selector_all(
        "#rows .hall-row",
        "rows => rows.map(r => [r.dataset.player, r.querySelector('.col-total').textContent,"
        " r.querySelector('.col-distance').textContent])",
    )
    expected = [
        [
            row["player"],
            ariari_points(row["total"]).replace("-", "\u2212"),  # a true minus sign
            # the side of the line in a shape as well as a colour
            ("\u25b2\u202f+" if row["above_cut"] else "\u25bc\u202f\u2212")
            + ariari_points(row["distance"]),
        ]
        for row in standings
    ]
    assert shown == expected
    assert any("," in total for _, total, _ in shown)  # the example's totals are thousands
    line, after = standings[3], standings[4]  # 4 advance
    assert page.text_content("#cut-info .cut-line") == (
        f"line {ariari_points(line['total'])} · next {ariari_points(after['total'])}"
    )
    # An Ari Ari game has no planned number of hands (rules AA-12 to AA-14), and its format
    # plays round 1 in one group: the clock names the game alone.
    assert page.text_content("#session-note") == "Game 2"
    hands = page.eval_on_selector_all("#tables .t-hands", "hs => hs.map(h => h.textContent)")
    assert hands == ["3 hands", "5 hands"]
    assert ".00" not in page.text_content("#hall")
    if os.environ.get("SCOREBOARD_SCREENSHOTS"):
        page.screenshot(path=str(SCREENS / "hall-ariari.png"))
    # Eight players fit one page: the cut page says "1 page", not "1 pages".
    open_screen(page, f"{screens.base_url}/hall/{screens.ariari}?page=cut")
    page.wait_for_function("() => document.querySelector('#pager').dataset.page === 'cut'")
    assert page.text_content("#pager") == "cut line · 1 page"


# Every table cell of the grid on the screen now: on the screen, its number drawn inside it
# and the number's font as big as the README says (readable from 10 m).
TABLE_FAULTS = """() => {
    const slack = 0.5;
    const faults = [];
    const short = Math.min(innerWidth, innerHeight);
    const tables = [];
    for (const cell of document.querySelectorAll('#tables .table-cell')) {
        tables.push(Number(cell.dataset.table));
        const box = cell.getBoundingClientRect();
        const number = cell.querySelector('.t-num');
        // across: the digits as drawn; down: the line they sit on (digits have no descent)
        const range = document.createRange();
        range.selectNodeContents(number);
        const across = range.getBoundingClientRect();
        const down = number.getBoundingClientRect();
        const drawn = {left: across.left, right: across.right, top: down.top, bottom: down.bottom};
        const font = parseFloat(getComputedStyle(number).fontSize);
        const what = `table ${cell.dataset.table}`;
        if (box.top < -slack || box.left < -slack || box.bottom > innerHeight + slack
            || box.right > innerWidth + slack) faults.push(`${what} is off the screen`);
        if (drawn.left < box.left - slack || drawn.right > box.right + slack
            || drawn.top < box.top - slack || drawn.bottom > box.bottom + slack)
            faults.push(`${what}: its number is cut by the cell`);
        if (font < 0.058 * short)
            faults.push(`${what}: its number is ${font.toFixed(1)} px, under 5.8% of ${short}`);
    }
    const grid = document.getElementById('tables');
    return {faults, tables, page: grid.dataset.page, pages: Number(grid.dataset.pages)};
}"""


@pytest.mark.parametrize("event", ["long_names", "many_tables"])
def test_table_numbers_are_readable_from_afar_and_every_table_is_shown(
    page: Any, screens: Screens, event: str
) -> None:
    tournament_id = getattr(screens, event)
    expected = screens.tables[event]
    page.clock.install()
    open_screen(page, f"{screens.base_url}/hall/{tournament_id}?interval={ROTATION_MS // 1000}")
    page.wait_for_function(
        "() => document.querySelectorAll('#tables .table-cell').length > 0", polling=50
    )
    faults: list[str] = []
    for width, height in SCREEN_SIZES:
        resize(page, width, height)
        seen = page.evaluate(TABLE_FAULTS)
        grids: dict[str, list[int]] = {}
        for _ in range(seen["pages"]):
            faults += [f"{width}x{height}, grid {seen['page']}: {f}" for f in seen["faults"]]
            grids[seen["page"]] = seen["tables"]
            page.clock.run_for(ROTATION_MS)
            seen = page.evaluate(TABLE_FAULTS)
        shown = [t for number in range(1, seen["pages"] + 1) for t in grids.get(str(number), [])]
        if shown != expected:
            faults.append(f"{width}x{height}: the grids show tables {shown}")
    assert not faults, "\n".join(faults[:40])


def test_screenshots_of_the_screens_venues_have(page: Any, screens: Screens) -> None:
    if not os.environ.get("SCOREBOARD_SCREENSHOTS"):
        pytest.skip("writes docs/screens only with SCOREBOARD_SCREENSHOTS set")
    for (width, height), name in SCREENSHOT_SIZES.items():
        page.set_viewport_size({"width": width, "height": height})
        open_screen(page, f"{screens.base_url}/hall/{screens.long_names}?page=cut")
        page.screenshot(path=str(SCREENS / name))


def _fonts_of_the_names(session: Any) -> dict[str, set[str]]:
    """The font families Chromium drew each CJK name in (CSS.getPlatformFontsForNode)."""
    root = session.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
    names = session.send("DOM.querySelectorAll", {"nodeId": root, "selector": "#rows .name-text"})
    drawn_in: dict[str, set[str]] = {}
    for node_id in names["nodeIds"]:
        text = session.send("DOM.getOuterHTML", {"nodeId": node_id})["outerHTML"]
        script = next((s for s in ("長谷川", "欧阳", "남궁") if s in text), None)
        if script is None:
            continue
        child = session.send("DOM.describeNode", {"nodeId": node_id, "depth": 1})
        text_node = child["node"]["children"][0]["backendNodeId"]
        pushed = session.send(
            "DOM.pushNodesByBackendIdsToFrontend", {"backendNodeIds": [text_node]}
        )
        fonts = session.send("CSS.getPlatformFontsForNode", {"nodeId": pushed["nodeIds"][0]})
        drawn_in.setdefault(script, set()).update(f["familyName"] for f in fonts["fonts"])
    return drawn_in


def test_names_in_japanese_chinese_and_korean_are_drawn_in_a_cjk_font(
    page: Any, screens: Screens
) -> None:
    # Chromium says which fonts drew a node's text (CSS.getPlatformFontsForNode): without a
    # CJK font, these names would be drawn as empty boxes in whatever font came last.
    open_screen(page, f"{screens.base_url}/hall/{screens.long_names}?rows=64")
    session = page.context.new_cdp_session(page)
    session.send("DOM.enable")
    session.send("CSS.enable")
    # The screen redraws its rows when the live feed says so: a node found before a redraw is
    # gone after it ("Could not find node with given id", seen once in a full run). The fonts
    # do not change with a redraw, so the look starts again on the new rows.
    deadline = time.monotonic() + 30
    while True:
        try:
            drawn_in = _fonts_of_the_names(session)
            break
        except PlaywrightError as gone:
            if "Could not find node" not in str(gone) or time.monotonic() > deadline:
                raise
    assert set(drawn_in) == {"長谷川", "欧阳", "남궁"}, drawn_in
    for script, families in drawn_in.items():
        assert any("CJK" in family for family in families), (script, families)


def test_a_group_yet_to_start_waits_and_the_clock_counts_the_group_it_times(
    page: Any, hall: Any
) -> None:
    # Issue 13, the day as an organizer runs it: group A plays its first half while group B
    # has no start yet (rule CL-3a: no limit). Group B's tables were shown "playing" with no
    # one at them, and the clock's "Half 1 · group A" counted group B's hands too.
    admin = {"Authorization": f"Bearer {hall.admin_token}"}
    with httpx.Client(base_url=hall.base_url, headers=admin, timeout=30) as client:
        made = client.post(
            "/api/tournaments",
            json={"name": "Group A first", "format": {"preset": "wsom2008", "advance": [8, 4]}},
        )
        tid = made.json()["id"]
        players = [
            {"id": n, "name": f"P{n}", "group": "A" if n <= 16 else "B"} for n in range(1, 33)
        ]
        assert client.post(f"/api/tournaments/{tid}/players", json=players).status_code == 201
        assert client.post(f"/api/tournaments/{tid}/rounds/1/draw", json={}).status_code == 201
        opened = client.post(
            f"/api/tournaments/{tid}/segments/open", json={"round": 1, "segment": 1, "group": "A"}
        )
        assert opened.status_code == 201, opened.text
    page.goto(f"{hall.base_url}/hall/{tid}")
    page.wait_for_function(
        "() => document.querySelectorAll('#tables .table-cell').length === 8", polling=100
    )
    expect(page.locator("#session-note")).to_have_text("Half 1 · group A · 0/32 hands")
    expect(page.locator("#table-counts")).to_have_text("4 waiting · 4 playing")
    phases = page.eval_on_selector_all(
        "#tables .table-cell", "cells => cells.map(c => c.className.split(' ')[1])"
    )
    assert phases == ["phase-running"] * 4 + ["phase-not_started"] * 4
