"""The judge's tablet as its readers in Japanese, Chinese and Korean found it (issue 17), in
real Chromium, each finding with the pseudo-locale (`en-XA`: no text outside ⟦⟧) beside it:

1. a refusal's advice comes from the server's `rule` and `field`, never from its English
   words, and names its rule once, in the page's language;
2. a player's name in their own script comes first to a reader of Japanese, Chinese or
   Korean, on the seat cards, the hands table and the review, with the other form beneath;
3. the feed's state in the dark top bar ("no network", "connecting") has WCAG AA contrast;
4. `/judge#token=...` speaks the tournament's language when the reader chose none;
5. at 200% zoom a long label wraps, never runs out of its button;
6. the review's lists use the language's punctuation, a Japanese line never breaks inside
   "2翻30符" or "第1半荘", and zh-Hant says 荒牌流局 alike in the outbox and the hands table.

Each test gets a tournament of its own on the module's server, in zh-Hant (its `language`),
its players with names in their own scripts: a WSOM round 1 of 16 players, or the Ari Ari
club of examples/ariari.jsonl.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from e2e_support import Site, empty_site, wait_for
from i18n_support import axe_violations, overflowing, small_targets, unmarked_text

from app import i18n
from app.settings import DEVELOPMENT_ADMIN_TOKEN
from bench.load import RoundOne, import_log, issue_tokens

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
CLUB = ROOT / "examples" / "ariari.jsonl"
TABLET = {"width": 1280, "height": 800}
ZOOMED = {"width": 640, "height": 400}  # 200% zoom of that tablet
ADMIN = {"Authorization": f"Bearer {DEVELOPMENT_ADMIN_TOKEN}"}
TOURNAMENT_LANGUAGE = "zh-Hant"
# Names in their owners' scripts, given to the players in turn: kana and kanji, hanzi, hangul.
LOCAL_NAMES = [
    "山田 剛",
    "李小明",
    "김민준",
    "陳家偉",
    "佐藤 花子",
    "王芳",
    "이서연",
    "張偉",
    "鈴木 一郎",
    "劉德華",
    "박지훈",
    "黃美玲",
    "高橋 健",
    "林志明",
    "최유나",
    "吳家豪",
]


@dataclass(frozen=True)
class Event:
    base_url: str
    tournament_id: int
    tokens: dict[int, str]
    seats: dict[int, list[str]]  # round 1, segment 1: east, south, west, north
    groups: dict[int, str]  # table -> its group
    names: dict[str, tuple[str, str]]  # player -> (Latin name, local name)

    def url(self, route: str) -> str:
        return f"{self.base_url}/api/tournaments/{self.tournament_id}/{route}"

    def table_of(self, group: str) -> int:
        return min(table for table, named in self.groups.items() if named == group)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    with empty_site(tmp_path_factory.mktemp("tablet-readers")) as running:
        yield running


def _event(site: Site, lines: list[dict[str, Any]]) -> Event:
    """The tournament of `lines` in zh-Hant, each player with a name in their own script."""
    names: dict[str, tuple[str, str]] = {}
    for line in lines:
        if line["type"] == "tournament":
            line["language"] = TOURNAMENT_LANGUAGE
        elif line["type"] == "player":
            line["local_name"] = LOCAL_NAMES[len(names) % len(LOCAL_NAMES)]
            names[line["id"]] = (line["name"], line["local_name"])
    groups = {line["id"]: line.get("group", "") for line in lines if line["type"] == "player"}
    seats = {
        line["table"]: line["seats"]
        for line in lines
        if line["type"] == "seating" and line["round"] == 1 and line["segment"] == 1
    }
    texts = [json.dumps(line, ensure_ascii=False) for line in lines]
    tournament_id = import_log(site.database_url, texts, site.folder)
    tokens = issue_tokens(site.database_url, tournament_id, sorted(seats))
    tables = {table: groups[players[0]] for table, players in seats.items()}
    return Event(site.base_url, tournament_id, tokens, seats, tables, names)


@pytest.fixture
def wsom(site: Site) -> Event:
    """A WSOM round 1: 16 players, two groups of two tables, no half scheduled yet."""
    round_one = RoundOne.generate(
        players=16, seed=29, format={"preset": "wsom2008", "advance": [8, 4]}
    )
    return _event(site, [json.loads(text) for text in round_one.setup_lines])


@pytest.fixture
def club(site: Site) -> Event:
    """The Ari Ari club's two tables, round 1 game 1, before any hand."""
    lines = [json.loads(text) for text in CLUB.read_text().splitlines()]
    setup = [
        line
        for line in lines
        if line["type"] in ("tournament", "player", "seating")
        and line.get("round", 1) == 1
        and line.get("segment", 1) == 1
    ]
    return _event(site, setup)


def schedule(event: Event, group: str, start: datetime) -> None:
    answer = httpx.post(
        event.url("schedule"),
        json={"round": 1, "segment": 1, "group": group, "start": start.isoformat()},
        headers=ADMIN,
    )
    assert answer.status_code == 201, answer.text


@pytest.fixture
def device(browser: Any) -> Iterator[Any]:
    """A tablet whose browser asks for French, a language the pages do not speak."""
    context = browser.new_context(
        viewport=TABLET,
        has_touch=True,
        locale="fr-FR",
        extra_http_headers={"Accept-Language": "fr-FR,fr;q=0.9"},
    )
    yield context
    context.close()


def open_tablet(context: Any, event: Event, table: int, lang: str | None) -> Any:
    page = context.new_page()
    query = f"?lang={lang}" if lang else ""
    page.goto(f"{event.base_url}/judge{query}#token={event.tokens[table]}")
    wait_for(page, "() => window.judgeTablet && judgeTablet.who && judgeTablet.table")
    return page


# The page's own catalog: what a message says in the page's language, its values filled in.
CATALOG = """([message, values]) => {
  const messages = JSON.parse(document.getElementById("catalog").textContent).messages || {};
  const found = messages[message];
  const text = typeof found === "string" ? found : message;
  return [text.replace(/\\{([a-z_0-9]+)\\}/g, (whole, name) =>
    name in values ? String(values[name]) : whole), typeof found === "string"];
}"""


def said(page: Any, message: str, **values: Any) -> str:
    """`message` as the page's catalog says it: translated, in every language but English."""
    text, translated = page.evaluate(CATALOG, [message, values])
    assert translated, f"the page's catalog has no {message!r}"
    return str(text)


def said_pattern(page: Any, message: str, **values: Any) -> re.Pattern[str]:
    """`message` as the page says it, any value not given (a time) matching anything."""
    text = said(page, message, **values)
    parts = re.split(r"\{[a-z_0-9]+\}", text)
    return re.compile(".+?".join(re.escape(part) for part in parts), re.S)


def refusal(page: Any) -> dict[str, str]:
    page.locator("#refusal").wait_for(state="visible")
    return {
        part: page.locator(f"#refusal-{part}").inner_text()
        for part in ("title", "what", "next", "server")
    }


# -- 1. a refusal's advice, from its rule and field ---------------------------------------------


@pytest.mark.parametrize("lang", ["ja", "en-XA", "zh-Hant", "ko"])
def test_a_hand_entered_on_another_tablet_is_explained_in_the_pages_language(
    device: Any, wsom: Event, lang: str
) -> None:
    """Hand 1 goes in from another device while this tablet, offline, keeps its own hand 1:
    the server refuses it (rule CONTRACT §3, field `hand`), and the tablet says what happened
    and what to do, in its language, the rule not said twice."""
    table = wsom.table_of("A")  # no half scheduled: no deals needed (rule CL-3a)
    page = open_tablet(device, wsom, table, lang)
    device.set_offline(True)
    page.tap('#outcomes [data-kind="draw"]')
    page.tap("#entry-review")
    page.tap("#review-send")
    wait_for(page, "() => judgeTablet.entries.some(e => e.status === 'queued')")
    other = {"round": 1, "segment": 1, "table": table, "hand": 1, "result": {"kind": "draw"}}
    answer = httpx.post(
        wsom.url("hands"),
        json=other,
        headers={"Authorization": f"Bearer {wsom.tokens[table]}", "Idempotency-Key": "other"},
    )
    assert answer.status_code == 201, answer.text
    device.set_offline(False)
    page.evaluate("() => judgeTablet.flush()")
    shown = refusal(page)
    assert shown["title"] == said(page, "Hand {hand} was refused", hand=1)
    assert shown["what"] == said(
        page, "Hand {hand} is already entered at this table, from another tablet or device.", hand=1
    )
    assert shown["next"] == said(
        page,
        "Compare it with the hands on the left. Discard this one; if this tablet's result was"
        " the right one, correct the hand (Correct / void) and give the reason.",
    )
    # the server's own sentence, beneath, names its rule once
    assert page.locator("#refusal").inner_text().count("CONTRACT §3") == 1
    if lang == "en-XA":
        assert unmarked_text(page) == []


@pytest.mark.parametrize("lang", ["ja", "en-XA"])
def test_a_hand_sent_without_its_deal_offers_to_record_the_deal_now(
    device: Any, wsom: Event, lang: str
) -> None:
    """A timed half started 20 minutes ago; the hand reaches the server without its deal
    (rule CL-3, field `hand`): the tablet offers "Record the deal now", in any language."""
    table = wsom.table_of("B")
    schedule(wsom, "B", datetime.now(UTC) - timedelta(minutes=20))
    page = open_tablet(device, wsom, table, lang)
    wait_for(page, "() => judgeTablet.canDealNow(judgeTablet.segment(), 1)")
    body = {"round": 1, "segment": 1, "table": table, "hand": 1, "result": {"kind": "draw"}}
    page.evaluate("(body) => judgeTablet.queue('hands', body)", body)
    shown = refusal(page)
    wait_for(page, "() => !document.querySelector('#refusal-deal').hidden")
    half = said(page, "half")
    assert shown["what"] == said(
        page,
        "Hand {hand} reached the server without its deal, and in a timed {kind} every hand"
        " needs one (rule CL-3).",
        hand=1,
        kind=half,
    )
    assert said_pattern(
        page,
        "The time limit has not passed: “Record the deal now” records the deal at {time}, and"
        " the hand goes after it. Or call the head judge to record it at the time the tiles"
        " were dealt.",
    ).fullmatch(shown["next"])
    with i18n.speaking(lang, "judge"):  # the button is the template's, not the script's
        assert page.locator("#refusal-deal").inner_text() == i18n.gettext("Record the deal now")
    if lang == "en-XA":
        assert unmarked_text(page) == []
    page.tap("#refusal-deal")
    wait_for(page, "() => judgeTablet.entries.every(e => e.status === 'sent')", 20_000)
    assert page.locator("#refusal").is_hidden()


@pytest.mark.parametrize("lang", ["ja", "en-XA"])
def test_an_early_start_too_early_is_explained_in_the_pages_language(
    device: Any, wsom: Event, lang: str
) -> None:
    """An early start 30 minutes before the scheduled start, where 5 are allowed (rule CL-2,
    a 409 on its `time`): the tablet says so, not the server's sentence alone."""
    table = wsom.table_of("A")
    schedule(wsom, "A", datetime.now(UTC) + timedelta(minutes=30))
    page = open_tablet(device, wsom, table, lang)
    wait_for(page, "() => Boolean(judgeTablet.table.clock && judgeTablet.table.clock.starts_at)")
    body = {"round": 1, "segment": 1, "table": table}
    page.evaluate("(body) => judgeTablet.queue('early-starts', body)", body)
    shown = refusal(page)
    assert said_pattern(
        page,
        "The early start at {time} is more than {minutes} minutes before the scheduled start,"
        " {start} (rule CL-2).",
        minutes=5,
    ).fullmatch(shown["what"])
    if lang == "en-XA":
        assert unmarked_text(page) == []


@pytest.mark.parametrize("lang", ["ja", "en-XA"])
def test_any_other_refusal_names_its_rule_once_in_the_pages_language(
    device: Any, wsom: Event, lang: str
) -> None:
    """Hand 3 where the table expects hand 1 (rule CONTRACT §1): no advice of its own, so the
    server's sentence, its rule said once and its sentence ended as the language ends one."""
    table = wsom.table_of("A")
    page = open_tablet(device, wsom, table, lang)
    body = {"round": 1, "segment": 1, "table": table, "hand": 3, "result": {"kind": "draw"}}
    page.evaluate("(body) => judgeTablet.queue('hands', body)", body)
    what = refusal(page)["what"]
    assert what.count("CONTRACT §1") == 1, what
    if lang == "ja":
        assert what.endswith("。"), what
        assert not re.search(r"field|hand", what), what  # no English frame around it
    else:
        assert what.endswith("⟧"), what  # the full stop inside the language's own sentence
        assert unmarked_text(page) == []


# -- 2. names in their owners' scripts ------------------------------------------------------------


def _names_shown(page: Any, selector: str) -> list[tuple[str, str]]:
    return [
        tuple(item.split("\n", 1))  # type: ignore[misc]
        for item in page.locator(selector).all_inner_texts()
    ]


@pytest.mark.parametrize(("lang", "local_first"), [("ja", True), ("ko", True), ("en", False)])
def test_names_in_their_owners_script_come_first_to_a_cjk_reader(
    device: Any, wsom: Event, lang: str, local_first: bool
) -> None:
    table = wsom.table_of("A")
    page = open_tablet(device, wsom, table, lang)
    expected = []
    for player in wsom.seats[table]:
        latin, local = wsom.names[player]
        expected.append((local, latin) if local_first else (latin, local))
    cards = page.locator("#seat-cards li")
    shown = [
        (card.locator(".name").inner_text(), card.locator(".other-name").inner_text())
        for card in cards.all()
    ]
    assert shown == expected
    heads = page.locator("#hands thead th[translate='no']")
    assert [
        (head.locator(".name").inner_text(), head.locator(".other-name").inner_text())
        for head in heads.all()
    ] == expected
    # the review, and the name in sentences, in the same form first
    page.tap('#outcomes [data-kind="self_draw"]')
    first = wsom.seats[table][0]
    page.tap(f'[data-role="winner"] [data-player="{first}"]')
    for digit in "10":
        page.tap(f'#keypad [data-key="{digit}"]')
    page.tap("#entry-review")
    rows = page.locator("#review-table tbody tr")
    assert [
        (
            row.locator("td.who .name").inner_text(),
            row.locator("td.who .other-name").inner_text(),
        )
        for row in rows.all()
    ] == expected
    assert expected[0][0] in page.locator("#review-summary").inner_text()
    # a name in hangul is drawn as Korean, whatever the page's language
    for card in cards.all():
        for span in card.locator(".name, .other-name").all():
            if re.search("[\uac00-\ud7a3]", span.inner_text()):
                assert span.get_attribute("lang") == "ko"


@pytest.mark.parametrize("lang", ["ja", "en-XA"])
def test_names_in_both_scripts_keep_targets_and_fit_at_200_percent_zoom(
    browser: Any, wsom: Event, lang: str
) -> None:
    context = browser.new_context(viewport=ZOOMED, device_scale_factor=2, has_touch=True)
    try:
        table = wsom.table_of("A")
        page = open_tablet(context, wsom, table, lang)
        assert page.locator("#seat-cards .other-name").count() == 4
        page.tap('#outcomes [data-kind="self_draw"]')
        page.tap(f'[data-role="winner"] [data-player="{wsom.seats[table][0]}"]')
        for digit in "10":
            page.tap(f'#keypad [data-key="{digit}"]')
        assert small_targets(page, 48) == []
        assert overflowing(page) == []
        page.tap("#entry-review")
        assert small_targets(page, 48) == []
        assert overflowing(page) == []
        if lang == "en-XA":
            assert unmarked_text(page) == []
    finally:
        context.close()


# -- 3. the feed's state on the dark bar ----------------------------------------------------------


def test_the_feed_state_on_the_bar_reads_in_every_state(browser: Any, wsom: Event) -> None:
    """ "no network" on a tablet that lost it, "connecting" before a token and on the head
    judge's sign-in: each in the bar's dark ink, at WCAG AA contrast (axe-core)."""
    context = browser.new_context(viewport=TABLET)
    try:
        page = context.new_page()
        page.goto(f"{wsom.base_url}/judge?lang=ja")
        page.locator("#no-token").wait_for(state="visible")
        assert page.locator("#feed-status").inner_text() == said(page, "connecting")
        assert axe_violations(page, ["color-contrast"]) == []
        page.goto(f"{wsom.base_url}/head-judge/{wsom.tournament_id}?lang=zh-Hant")
        page.locator("#no-token").wait_for(state="visible")
        assert axe_violations(page, ["color-contrast"]) == []
        page = open_tablet(context, wsom, wsom.table_of("A"), "ja")
        context.set_offline(True)
        wait_for(page, "() => document.querySelector('#feed-status').className.endsWith('offline')")
        assert page.locator("#feed-status").inner_text() == said(page, "no network")
        assert axe_violations(page, ["color-contrast"]) == []
    finally:
        context.close()


# -- 4. the tournament's language ------------------------------------------------------------------


LOADS = "sessionStorage.setItem('loads', String(Number(sessionStorage.getItem('loads') || 0) + 1))"


def test_a_tablet_whose_reader_chose_no_language_speaks_the_tournaments(
    device: Any, wsom: Event
) -> None:
    """A French browser, no ?lang=, no kept choice: the tablet turns to the tournament's
    zh-Hant once it knows its tournament, once, and stays there."""
    device.add_init_script(LOADS)
    page = device.new_page()
    page.goto(f"{wsom.base_url}/judge#token={wsom.tokens[wsom.table_of('A')]}")
    page.wait_for_url(re.compile(f"lang={TOURNAMENT_LANGUAGE}"))
    wait_for(page, "() => window.judgeTablet && judgeTablet.who && judgeTablet.table")
    assert page.evaluate("document.documentElement.lang") == TOURNAMENT_LANGUAGE
    assert page.evaluate("new URL(location.href).searchParams.get('lang')") == TOURNAMENT_LANGUAGE
    assert page.title() == "裁判 · 世界麻將大賽計分板"
    assert page.evaluate("sessionStorage.getItem('loads')") == "2"  # one turn, no loop
    page.reload()
    wait_for(page, "() => window.judgeTablet && judgeTablet.who && judgeTablet.table")
    assert page.evaluate("document.documentElement.lang") == TOURNAMENT_LANGUAGE
    assert page.evaluate("sessionStorage.getItem('loads')") == "3"


@pytest.mark.parametrize(
    ("accept", "query", "expected"), [("ja,en;q=0.5", "", "ja"), ("fr-FR", "?lang=en", "en")]
)
def test_a_language_the_reader_chose_stays(
    browser: Any, wsom: Event, accept: str, query: str, expected: str
) -> None:
    context = browser.new_context(viewport=TABLET, extra_http_headers={"Accept-Language": accept})
    try:
        context.add_init_script(LOADS)
        page = context.new_page()
        table = wsom.table_of("A")
        page.goto(f"{wsom.base_url}/judge{query}#token={wsom.tokens[table]}")
        wait_for(page, "() => window.judgeTablet && judgeTablet.who && judgeTablet.table")
        assert page.evaluate("document.documentElement.lang") == expected
        assert page.evaluate("sessionStorage.getItem('loads')") == "1"
    finally:
        context.close()


# -- 5. long labels at 200% zoom ------------------------------------------------------------------

# Buttons whose own words run out of their box (a name is data, cut with an ellipsis on purpose).
CUT_LABELS = r"""
() => [...document.querySelectorAll("button")]
  .filter((b) => !b.closest("[hidden]") && b.getClientRects().length)
  .flatMap((button) => {
    const box = button.getBoundingClientRect();
    const walker = document.createTreeWalker(button, NodeFilter.SHOW_TEXT);
    const cut = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.parentElement.closest('[translate="no"]') || !node.textContent.trim()) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      const text = range.getBoundingClientRect();
      if (text.left < box.left - 1 || text.right > box.right + 1) {
        const sizes = `${Math.round(text.width)} px in ${Math.round(box.width)}`;
        cut.push(`${node.textContent.trim()}: ${sizes}`);
      }
    }
    return cut;
  })
"""


def test_long_labels_wrap_in_their_buttons_at_200_percent_zoom(browser: Any, club: Any) -> None:
    context = browser.new_context(viewport=ZOOMED, device_scale_factor=2, has_touch=True)
    try:
        table = 1
        page = open_tablet(context, club, table, "en-XA")
        east, south = club.seats[table][:2]
        page.tap('#aa-outcomes [data-aa-kind="ron"]')
        page.tap(f'[data-role="aa-discarder"] [data-player="{east}"]')
        page.tap(f'[data-role="aa-winners"] [data-player="{south}"]')
        page.locator('[data-field="limit"] [data-value="sanbaiman"]').wait_for()
        assert page.evaluate(CUT_LABELS) == []
        assert small_targets(page, 48) == []
        assert overflowing(page) == []
    finally:
        context.close()


# -- 6. lists, units and the same word ----------------------------------------------------------


# Where a unit ("2翻30符", "第1半荘") is broken across lines inside an element: each width
# from 80 to 400 px is tried, so that every place in the text comes at a line's end once.
BROKEN_UNITS = r"""
([selector, units]) => {
  const element = document.querySelector(selector);
  const broken = new Set();
  const before = element.style.width;
  for (let width = 80; width <= 400; width += 2) {
    element.style.width = `${width}px`;
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const unit of units) {
        const text = node.textContent;
        for (let at = text.indexOf(unit); at >= 0; at = text.indexOf(unit, at + 1)) {
          const range = document.createRange();
          range.setStart(node, at);
          range.setEnd(node, at + unit.length);
          const lines = [...range.getClientRects()].filter((r) => r.width > 0);
          const tops = new Set(lines.map((r) => Math.round(r.top)));
          if (tops.size > 1) broken.add(`${unit} at ${width}px`);
        }
      }
    }
  }
  element.style.width = before;
  return [...broken].slice(0, 10);
}
"""


def test_a_japanese_review_lists_and_units_read_as_japanese(device: Any, club: Any) -> None:
    """A double ロン on table 1, South and West winning on East's discard, North in riichi:
    the wins are listed with Japanese punctuation, the units stay whole on any line."""
    table = 1
    page = open_tablet(device, club, table, "ja")
    east, south, west, north = club.seats[table]
    page.tap('#aa-outcomes [data-aa-kind="ron"]')
    page.tap(f'[data-role="aa-discarder"] [data-player="{east}"]')
    for winner in (south, west):
        page.tap(f'[data-role="aa-winners"] [data-player="{winner}"]')
        card = page.locator(f'.win-card[data-winner="{winner}"]')
        card.locator('[data-field="fan"] button').last.tap()  # 2 fan
        card.locator('[data-field="fu"] [data-value="30"]').tap()
    page.tap(f'[data-role="aa-riichi"] [data-player="{north}"]')
    page.tap(f'[data-role="aa-riichi"] [data-player="{east}"]')
    page.tap("#entry-review")
    summary = page.locator("#review-summary").inner_text()
    assert "2翻30符" in summary, summary
    assert not re.search(r"[;,]", summary), summary  # no ASCII list punctuation
    local = {player: club.names[player][1] for player in club.seats[table]}
    # rule AA-4: the winners in turn after the discarder; riichi in the order they were tapped
    assert f"{local[south]} 2翻30符、1役；{local[west]} 2翻30符、1役" in summary, summary
    assert f"{local[north]}、{local[east]}" in summary, summary
    units = ["2翻30符", "1役", "第1半荘", "第1局"]
    assert page.evaluate(BROKEN_UNITS, ["#review-summary", units]) == []


@pytest.mark.parametrize("lang", ["ja", "zh-Hant"])
def test_an_exhaustive_draw_is_one_word_and_its_tenpai_a_list(
    device: Any, club: Any, lang: str
) -> None:
    """流局 with two players tenpai: the outbox and the hands table call it by one word (the
    glossary's: 荒牌流局 in Chinese), the tenpai players listed as the language lists."""
    table = 2
    page = open_tablet(device, club, table, lang)
    east, south, west, north = club.seats[table]
    page.tap('#aa-outcomes [data-aa-kind="exhaustive_draw"]')
    page.tap(f'[data-role="aa-tenpai"] [data-player="{east}"]')
    page.tap(f'[data-role="aa-tenpai"] [data-player="{west}"]')
    page.tap("#entry-review")
    summary = page.locator("#review-summary").inner_text()
    assert not re.search(r"[;,]", summary), summary
    page.tap("#review-send")
    wait_for(page, "() => judgeTablet.entries.some(e => e.status === 'sent')")
    word = said(page, "Exhaustive draw")
    assert word == {"ja": "流局", "zh-Hant": "荒牌流局"}[lang]
    value = page.locator('#hands tbody tr[data-hand="1"] .value')
    assert value.inner_text().startswith(word), value.inner_text()
    page.tap('#tabs [data-tab="outbox"]')
    assert page.locator("#outbox-list .what").first.inner_text().count(word) == 1
    assert page.evaluate(BROKEN_UNITS, ['#hands tbody tr[data-hand="1"] .value', ["2人"]]) == []
