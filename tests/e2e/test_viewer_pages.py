"""What a reviewer found on the spectators' pages, the results page and the hall in Japanese,
Chinese and Korean (issue 17), in real Chromium at phone size and at hall sizes:

- a live page drew the hands' words its catalog lacked in English ("game end: 2位");
- the results page hid a player's name in their own script, left the round's scores
  unformatted ("44600") and pushed a phone's page sideways;
- the home page said "connecting" for ever while it follows no one (it opens no feed);
- 12- and 24-hour clocks side by side ("12:57 AM", "上午01:03");
- negative figures with a hyphen ("-27,500") beside a true minus sign ("−34,500");
- the hall's distance to the cut told above from below at 0 by its colour alone.

One server holds two events: a 64-player WSOM round with table 1's first half played and
table 2's three first hands (a few players in their own script), and the Ari Ari final of
examples/ariari.jsonl being played."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from i18n_support import axe_violations, unmarked_text

from app.settings import DEVELOPMENT_ADMIN_TOKEN
from bench.load import (
    RoundOne,
    Server,
    free_port,
    hand_headers,
    hands_url,
    import_log,
    issue_tokens,
)

pytestmark = pytest.mark.slow

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "ariari.jsonl"
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
MINUS = "\u2212"
# A player of the WSOM event with a name in their own script (issue 17): `name`, `local_name`.
KIM = ("P0001", "Kim Min-jun", "김민준")
LOCAL_NAMES = {"P0001": KIM[1:], "P0002": ("Takeshi Yamada", "山田 剛")}
# A figure with a hyphen for its sign: "-27,500", "-1.00" (not "Kim Min-jun").
HYPHEN_MINUS = re.compile(r"(?<![\w-])-\d")


@dataclass(frozen=True)
class Event:
    base_url: str
    wsom: int  # round 1 of 64 players, 16 advance; table 1's first half played
    at_table_2: list[str]  # the players of table 2, three hands into its first half
    ariari: int  # the final being played: p6 at table 1, its game ended


@pytest.fixture(scope="module")
def event(browser: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Event]:
    folder = tmp_path_factory.mktemp("viewer")
    url = f"sqlite:///{folder / 'scoreboard.db'}"
    round_one = RoundOne.generate(
        players=64, seed=6, format={"preset": "wsom2008", "advance": [16, 8, 4]}
    )
    lines = []
    for text in round_one.setup_lines:
        line = json.loads(text)
        if line["type"] == "player" and line["id"] in LOCAL_NAMES:
            line["name"], line["local_name"] = LOCAL_NAMES[line["id"]]
        lines.append(json.dumps(line))
    wsom = import_log(url, lines, folder)
    tokens = issue_tokens(url, wsom, round_one.tables)
    final = EXAMPLE.read_text().splitlines()
    assert json.loads(final[-1]) == {"type": "round_end", "round": 2}
    ariari = import_log(url, final[:-1], folder)
    with Server(url, free_port(), folder / "server.log") as server:
        with httpx.Client(timeout=10) as client:
            for table, last in [(1, None), (2, 3)]:
                for hand in round_one.hands[table]:
                    if hand["segment"] == 1 and (last is None or hand["hand"] <= last):
                        answer = client.post(
                            hands_url(server.base_url, wsom),
                            json=hand,
                            headers=hand_headers(tokens[table], f"viewer-{table}-{hand['hand']}"),
                        )
                        assert answer.status_code in (200, 201), answer.text
        seated = next(
            line["seats"]
            for line in map(json.loads, round_one.setup_lines)
            if line["type"] == "seating" and line["segment"] == 1 and line["table"] == 2
        )
        yield Event(server.base_url, wsom, [str(p) for p in seated], ariari)


@pytest.fixture
def phone(browser: Any) -> Iterator[Any]:
    context = browser.new_context(**PHONE)
    yield context.new_page()
    context.close()


def standings(event: Event, tournament: int) -> list[dict[str, Any]]:
    answer = httpx.get(f"{event.base_url}/api/tournaments/{tournament}/standings", timeout=10)
    rows: list[dict[str, Any]] = answer.json()["rounds"][-1]["standings"]
    return sorted(rows, key=lambda row: row["position"])


def negative_player(event: Event) -> str:
    """A WSOM player at table 2, still playing its first half, whose total is below zero."""
    return next(
        str(row["player"])
        for row in standings(event, event.wsom)
        if row["total"].startswith("-") and str(row["player"]) in event.at_table_2
    )


# -- 1. a live page's words come from its catalog ---------------------------------------------

# The rows of the hands' tables as the server drew them, and a mark once the page's script
# has drawn them again from the live feed (it replaces a table's rows; the parser only adds).
WATCH_THE_HANDS = """
document.addEventListener("DOMContentLoaded", () => {
  const rows = () => [...document.querySelectorAll("table.hands tbody tr")].map((r) => r.innerText);
  window.served = rows();
  new MutationObserver((changes) => {
    if (changes.some((c) => c.removedNodes.length && c.target.closest?.("table.hands"))) {
      window.redrawn = rows();
    }
  }).observe(document.body, { childList: true, subtree: true });
});
"""


@pytest.mark.parametrize("language", ["ja", "zh-Hant", "ko"])
def test_a_live_page_draws_the_hands_in_its_language_as_the_server_did(
    phone: Any, event: Event, language: str
) -> None:
    """/p/p6?lang=ja said "Aiko Mori ロン 3翻30符 · game end: 2位, ウマ +5,000" once live:
    t() calls inside a template literal's ${...} (and one inside another call) were never
    extracted, so the page's catalog lacked them."""
    phone.add_init_script(WATCH_THE_HANDS)
    phone.goto(f"{event.base_url}/p/p6?t={event.ariari}&lang={language}")
    phone.wait_for_function("() => window.redrawn !== undefined", timeout=10_000)
    served, redrawn = phone.evaluate("[window.served, window.redrawn]")
    assert any("\u00b7" in row for row in served)  # the last hand: the game's end
    assert redrawn == served
    assert "game end" not in " ".join(redrawn)
    # what the page's script may yet say of a later table: in its catalog too
    catalog = json.loads(phone.text_content("#catalog") or "{}")["messages"]
    for message in ("Then:", "table {table} ({word} {segment})", "game end: {parts}", ", "):
        assert message in catalog, message


# -- 2, 4 and 6. the results page ----------------------------------------------------------------

# Every column head on one line (a head broken letter by letter is on several).
HEADS_ON_SEVERAL_LINES = """
() => [...document.querySelectorAll("thead th")].filter((th) => {
  const range = document.createRange();
  range.selectNodeContents(th);
  const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
  return tops.size > 1;
}).map((th) => th.textContent)
"""
# Every table in a region of its own that a keyboard can scroll, with a name.
TABLES_OUTSIDE_A_REGION = """
() => [...document.querySelectorAll("table")].filter((table) => {
  const region = table.parentElement;
  return !(region.getAttribute("role") === "region" && region.tabIndex === 0
           && (region.getAttribute("aria-label") || "").trim());
}).length
"""


@pytest.mark.parametrize("language", ["ko", "en-XA"])
@pytest.mark.parametrize("which", ["wsom", "ariari"])
def test_the_results_page_fits_a_phone(phone: Any, event: Event, language: str, which: str):
    """At 390 px the page scrolled sideways (436 px in ko, 651 px in en-XA) and the heads
    broke a character a line ("국가/지역", "대국중")."""
    tournament = event.wsom if which == "wsom" else event.ariari
    phone.goto(f"{event.base_url}/admin/{tournament}/results?lang={language}")
    phone.wait_for_load_state("load")
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page is {width} px wide"
    assert phone.evaluate(TABLES_OUTSIDE_A_REGION) == 0
    assert phone.evaluate(HEADS_ON_SEVERAL_LINES) == []
    if language == "en-XA":
        assert unmarked_text(phone) == []
    assert axe_violations(phone) == [], f"results of {which} in {language}"


def column(page: Any, heading: int) -> list[str]:
    """The standings' cells of a column, by its place (1 is the rank)."""
    cells = page.locator(f"#standings tbody tr:not(.cut-line) > :nth-child({heading})")
    return [text.strip() for text in cells.all_inner_texts()]


@pytest.mark.parametrize("language", ["ko", "en"])
def test_the_results_page_formats_every_figure(phone: Any, event: Event, language: str) -> None:
    """The Ari Ari round's score column said "44600" beside "44,600"; the results said
    "-1.00" where the pages say "−34,500"."""
    phone.goto(f"{event.base_url}/admin/{event.ariari}/results?lang={language}")
    points = re.compile(rf"^{MINUS}?\d{{1,3}}(,\d{{3}})*$")
    for heading in (4, 5, 6):  # carry-in, round score, total
        shown = column(phone, heading)
        assert shown and all(points.match(text) for text in shown), shown
    assert any(text.startswith(MINUS) for text in column(phone, 6))
    assert not HYPHEN_MINUS.search(phone.inner_text("main"))

    phone.goto(f"{event.base_url}/admin/{event.wsom}/results?lang={language}")
    decimals = re.compile(rf"^{MINUS}?\d+\.\d\d$")  # rule SC-5
    for heading in (4, 5, 6):
        shown = column(phone, heading)
        assert shown and all(decimals.match(text) for text in shown), shown
    assert any(text.startswith(MINUS) for text in column(phone, 6))
    assert not HYPHEN_MINUS.search(phone.inner_text("main"))


@pytest.mark.parametrize("language", ["ko", "ja", "en"])
def test_the_results_page_names_a_player_in_both_scripts(
    phone: Any, event: Event, language: str
) -> None:
    """The Korean page listed "Kim Min-jun" with no 김민준: the name in its owner's script
    comes first to a reader of Japanese, Chinese or Korean, the other form beneath."""
    player, name, local_name = KIM
    first, other = (name, local_name) if language == "en" else (local_name, name)
    phone.goto(f"{event.base_url}/admin/{event.wsom}/results?lang={language}")
    row = phone.locator("#standings tbody tr", has_text=player)
    spans = row.locator("th.player-name span").all_inner_texts()
    assert spans[:2] == [first, other], spans
    shown, beneath = row.locator("th.player-name span").all()[:2]
    assert beneath.bounding_box()["y"] > shown.bounding_box()["y"]  # beneath it


# -- 3. the home page's status ------------------------------------------------------------------


def test_the_home_page_says_nothing_of_a_feed_it_has_not_opened(phone: Any, event: Event):
    """It said "connecting" (接続中) for ever, to screen readers too, with no one followed:
    no feed is opened then."""
    sockets: list[str] = []
    phone.on("websocket", lambda socket: sockets.append(socket.url))
    phone.goto(f"{event.base_url}/?t={event.wsom}&lang=ja")
    phone.wait_for_load_state("networkidle")
    status = phone.locator("#feed-status")
    assert sockets == []
    assert status.text_content() == ""
    assert not status.is_visible()
    # a player followed: the page opens the feed and says so
    phone.fill("#q", "Kim")
    phone.locator("#results li button.follow").first.click()
    phone.wait_for_function(
        "() => document.getElementById('feed-status').classList.contains('status-live')"
    )
    assert status.is_visible() and status.text_content() == "● ライブ"
    assert len(sockets) == 1


# -- 5. one clock ---------------------------------------------------------------------------------

TWELVE_HOURS = re.compile(r"AM|PM|上午|下午|午前|午後|오전|오후")


@pytest.mark.parametrize("language", ["en", "zh-Hant", "ko"])
def test_every_clock_reads_24_hours(phone: Any, event: Event, language: str) -> None:
    """In English the hall said "updated 01:03:20" and the day-so-far slider "12:57 AM";
    zh-Hant "上午01:03"."""
    phone.goto(f"{event.base_url}/?t={event.wsom}&lang={language}")
    phone.locator("#replay summary").click()
    phone.wait_for_function("() => !document.getElementById('moment').disabled")
    assert re.fullmatch(r"\d\d:\d\d", phone.text_content("#moment-shown") or "")
    said = phone.text_content("#replay-status") or ""
    assert re.search(r"\d\d:\d\d", said) and not TWELVE_HOURS.search(said), said
    phone.goto(f"{event.base_url}/admin/{event.wsom}/results?lang={language}")
    printed = phone.text_content("header time") or ""
    assert re.search(r"\d\d:\d\d:\d\d UTC$", printed) and not TWELVE_HOURS.search(printed)


# -- 6. one minus sign on the phones' pages -----------------------------------------------------


def test_the_phone_pages_write_a_negative_figure_with_a_minus_sign(phone: Any, event: Event):
    """Running totals said "-27,500" beside "−34,500"."""
    player = negative_player(event)
    given = httpx.post(  # and a penalty, in its own table on the page (rule PN-1)
        f"{event.base_url}/api/tournaments/{event.wsom}/penalties",
        json={"round": 1, "player": player, "points": -1, "reason": "late"},
        headers={"Authorization": f"Bearer {DEVELOPMENT_ADMIN_TOKEN}"},
        timeout=10,
    )
    assert given.status_code == 201, given.text
    phone.add_init_script(WATCH_THE_HANDS)
    phone.goto(f"{event.base_url}/p/{player}?t={event.wsom}")
    phone.wait_for_function("() => window.redrawn !== undefined", timeout=10_000)
    total = phone.text_content("#total") or ""
    assert total.startswith(MINUS), total
    assert not HYPHEN_MINUS.search(phone.inner_text("main"))
    assert any(MINUS in row for row in phone.evaluate("window.redrawn"))
    assert phone.text_content("table.penalties td.num") == f"{MINUS}1"
    # the home page's followed list and the day so far
    phone.evaluate(
        "([t, id]) => localStorage.setItem('wsom.followed', JSON.stringify([{t, id, name: id}]))",
        [event.wsom, player],
    )
    phone.goto(f"{event.base_url}/?t={event.wsom}")
    phone.wait_for_function(
        "() => /\\d/.test(document.querySelector('#followed .total')?.textContent ?? '')"
    )
    assert phone.text_content("#followed .total") == total
    phone.locator("#replay summary").click()
    mine = phone.locator("#moment-rows li.mine .total")
    mine.wait_for()
    assert mine.text_content() == total
    phone.goto(f"{event.base_url}/p/p6?t={event.ariari}")  # Ari Ari points, and the uma
    phone.wait_for_function("() => /live/.test(document.getElementById('feed-status').className)")
    assert (phone.text_content("#total") or "").startswith(MINUS)
    assert not HYPHEN_MINUS.search(phone.inner_text("main"))


# -- 6 and 7. the hall ---------------------------------------------------------------------------


def open_hall(page: Any, url: str) -> None:
    page.goto(url)
    page.wait_for_function(
        "() => window.hallDisplay?.feed.status === 'live'"
        " && document.querySelectorAll('#rows .hall-row .col-total').length > 0",
        polling=100,
        timeout=10_000,
    )


DISTANCES = """
() => [...document.querySelectorAll("#rows .hall-row")].map((row) => {
  const cell = row.querySelector(".col-distance");
  return {
    side: ["above", "below"].find((side) => row.classList.contains(side)) ?? "",
    text: cell.textContent,
    whole: cell.scrollWidth <= cell.clientWidth + 1,
  };
})
"""


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080), (3840, 2160), (1080, 1920)])
def test_the_hall_gives_the_side_of_the_cut_a_shape_at_0_too(
    browser: Any, event: Event, size: tuple[int, int]
) -> None:
    """Players level at the line showed a green "0.00" and a red "0.00", told apart only by
    the colour and the band: ▲ and ▼ say it as well (README, Access)."""
    width, height = size
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    try:
        open_hall(page, f"{event.base_url}/hall/{event.wsom}?page=cut")
        rows = page.evaluate(DISTANCES)
        level = [row for row in rows if re.sub(r"[^\d.]", "", row["text"]) == "0.00"]
        assert {row["side"] for row in level} == {"above", "below"}  # the tie at the line
        for row in rows:
            shape = {"above": "\u25b2", "below": "\u25bc"}[row["side"]]
            assert row["text"].startswith(shape), row
            assert row["whole"], row
        # the last page: the players below zero, with a true minus sign
        open_hall(page, f"{event.base_url}/hall/{event.wsom}?page=4")
        totals = page.locator("#rows .col-total").all_inner_texts()
        assert any(total.startswith(MINUS) for total in totals), totals
        assert not any(HYPHEN_MINUS.search(total) for total in totals), totals
    finally:
        context.close()


def test_the_ariari_hall_writes_points_below_zero_with_a_minus_sign(
    browser: Any, event: Event
) -> None:
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    page = context.new_page()
    try:
        open_hall(page, f"{event.base_url}/hall/{event.ariari}?page=1&lang=ja")
        text = page.inner_text("#hall")
        assert MINUS in text and not HYPHEN_MINUS.search(text)
    finally:
        context.close()
