"""The judge's tablet in ja, zh-Hant, zh-Hans and ko (issue 17) in real Chromium: each opens
in its language from ?lang=, the pseudo-locale finds no untranslated text on the screens of
entering a hand, a WSOM table's and an Ari Ari table's, review included; a Japanese judge
enters an Ari Ari hand by the table's own words (ロン, 立直); and at 200% zoom, in the
pseudo-locale's lengthened strings, every touch target keeps 48 px and nothing runs off the
side of the screen.

Two servers: the module's `hall` (a WSOM round 1, conftest.py) and a club of two Ari Ari
tables from examples/ariari.jsonl, as tests/e2e/test_judge_ariari.py sets it up.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import i18n_support
import pytest
from e2e_support import review_deltas, wait_for
from i18n_support import overflowing, platform_fonts, small_targets, unmarked_text

from bench.load import Server, free_port, import_log, issue_tokens

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "ariari.jsonl"
TABLET = {"width": 1280, "height": 800}
# 200% zoom of that tablet: the layout viewport half as wide and high, drawn at twice the scale
ZOOMED = {"width": 640, "height": 400}


@pytest.fixture(scope="module")
def club(browser: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    folder = tmp_path_factory.mktemp("club")
    url = f"sqlite:///{folder / 'scoreboard.db'}"
    lines = [json.loads(text) for text in EXAMPLE.read_text().splitlines()]
    setup = [
        json.dumps(line)
        for line in lines
        if line["type"] in ("tournament", "player", "seating")
        and line.get("round", 1) == 1
        and line.get("segment", 1) == 1
    ]
    seats = {
        line["table"]: line["seats"]
        for line in lines
        if line["type"] == "seating" and line["round"] == 1 and line["segment"] == 1
    }
    tournament_id = import_log(url, setup, folder)
    tokens = issue_tokens(url, tournament_id, sorted(seats))
    with Server(url, free_port(), folder / "server.log") as server:
        yield {"base_url": server.base_url, "tokens": tokens, "seats": seats}


@pytest.fixture
def tablet(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport=TABLET, has_touch=True)
    yield context
    context.close()


def open_tablet(context: Any, base_url: str, token: str, lang: str) -> Any:
    page = context.new_page()
    page.goto(f"{base_url}/judge?lang={lang}#token={token}")
    wait_for(page, "() => window.judgeTablet && judgeTablet.who && judgeTablet.table")
    return page


def tap_seat(page: Any, role: str, player: str) -> None:
    page.tap(f'[data-role="{role}"] [data-player="{player}"]')


# What each language's tablet says in its title and on its buttons, in the players' words.
WORDS = {
    "ja": ("審判員 · WSOM スコアボード", "自摸", "放銃", "クリア", "確認へ"),
    "zh-Hant": ("裁判 · 世界麻將大賽計分板", "自摸", "出銃", "清除", "核對"),
    "zh-Hans": ("裁判 · 世界麻将大赛计分板", "自摸", "点炮", "清除", "核对"),
    "ko": ("심판 · WSOM 스코어보드", "쯔모", "론", "지우기", "확인"),
}


def test_the_tablet_speaks_each_language(tablet: Any, hall: Any) -> None:
    page = tablet.new_page()
    for lang, (title, self_draw, discard, clear, review) in WORDS.items():
        page.goto(f"{hall.base_url}/judge?lang={lang}#token={hall.tokens[3]}")
        wait_for(page, "() => window.judgeTablet && judgeTablet.who && judgeTablet.table")
        assert page.evaluate("() => document.documentElement.lang") == lang
        assert page.title() == title
        outcomes = page.locator("#outcomes")
        assert outcomes.get_by_role("button", name=self_draw).is_visible()
        assert outcomes.get_by_role("button", name=discard, exact=True).is_visible()
        assert page.get_by_role("button", name=clear).is_visible()
        assert page.locator("#entry-review").inner_text() == review
        # the language switch names each language in itself
        assert page.locator('nav.languages a[aria-current="true"]').get_attribute("lang") == lang
        # the player names are data, left as they are
        assert page.locator("#seat-cards .name").first.get_attribute("translate") == "no"


def test_no_untranslated_text_while_entering_a_wsom_hand(tablet: Any, hall: Any) -> None:
    page = open_tablet(tablet, hall.base_url, hall.tokens[4], "en-XA")
    assert unmarked_text(page) == []
    seats = page.evaluate("() => judgeTablet.seatsOf(judgeTablet.segment()).map(String)")
    page.tap('#outcomes [data-kind="discard"]')
    page.tap(f'[data-role="winner"] [data-player="{seats[0]}"]')
    page.tap(f'[data-role="discarder"] [data-player="{seats[1]}"]')
    for digit in "12":
        page.tap(f'#keypad [data-key="{digit}"]')
    assert page.locator("#entry-review").is_enabled()
    assert unmarked_text(page) == []
    page.tap("#entry-review")
    assert page.locator("#review").is_visible()
    assert unmarked_text(page) == []
    page.tap("#review-send")
    wait_for(page, "() => judgeTablet.entries.some(e => e.status === 'sent')")
    for tab in ("fix", "seats", "start", "outbox"):
        page.tap(f'#tabs [data-tab="{tab}"]')
        assert unmarked_text(page) == [], tab

    # Hand 2 goes in from another device while this tablet is offline: its own hand 2 is
    # refused, and what the judge reads over the actions, the server's sentence too, is in
    # the tablet's language (the server answers in the Accept-Language the tablet sends).
    page.tap('#tabs [data-tab="hand"]')
    tablet.set_offline(True)
    page.tap('#outcomes [data-kind="draw"]')
    page.tap("#entry-review")
    page.tap("#review-send")
    wait_for(page, "() => judgeTablet.entries.filter(e => e.status === 'queued').length > 0")
    other = {"round": 1, "segment": 1, "table": 4, "hand": 2, "result": {"kind": "draw"}}
    answer = httpx.post(
        f"{hall.base_url}/api/tournaments/{hall.tournament_id}/hands",
        json=other,
        headers={"Authorization": f"Bearer {hall.tokens[4]}", "Idempotency-Key": "other-device"},
    )
    assert answer.status_code == 201, answer.text
    tablet.set_offline(False)
    page.evaluate("() => judgeTablet.flush()")
    page.locator("#refusal").wait_for(state="visible")
    # a refusal nests sentences: the tablet's around the server's around the rule's
    assert i18n_support.unmarked_text(page) == []


def test_a_japanese_judge_enters_an_ari_ari_hand_in_japanese(tablet: Any, club: Any) -> None:
    """Table 1 of the club: South declares 立直, West wins ロン 3翻30符 on East's discard
    (rule AA-3: 3,900, and South's 1,000 from the table, rule AA-5)."""
    page = open_tablet(tablet, club["base_url"], club["tokens"][1], "ja")
    east, south, west, north = club["seats"][1]
    name = {
        p: page.evaluate(f"() => judgeTablet.nameOf({json.dumps(p)})") for p in club["seats"][1]
    }
    assert page.locator("#next-title").inner_text() == "東1局 · 第1局"
    assert "0本場" in page.locator("#next-dealer").inner_text()
    outcomes = page.locator("#aa-outcomes")
    for word in ("ロン", "ツモ", "流局", "チョンボ"):
        assert outcomes.get_by_role("button", name=word, exact=True).is_visible()
    outcomes.get_by_role("button", name="ロン", exact=True).tap()
    page.get_by_role("group", name="放銃者").get_by_role("button", name=name[east]).tap()
    winners = page.get_by_role("group", name="和了者（複数可、規則 AA-4）")
    winners.get_by_role("button", name=name[west]).tap()
    card = page.locator(f'.win-card[data-winner="{west}"]')
    for _ in range(2):
        card.get_by_role("button", name="翻を増やす").tap()
    card.get_by_role("group", name="符").get_by_role("button", name="30", exact=True).tap()
    assert card.locator("h3").inner_text() == f"{name[west]} · 基本点 960"
    riichi = page.get_by_role("group", name="この局の立直（各1,000点、規則 AA-5）")
    riichi.get_by_role("button", name=name[south]).tap()
    assert page.text_content("#entry-problem") == ""
    page.get_by_role("button", name="確認へ").tap()
    assert page.locator("#review-title").inner_text() == "第1局を送信しますか？"
    summary = page.locator("#review-summary").inner_text()
    assert f"{name[east]} からロン" in summary and "3翻30符、1役" in summary and "立直" in summary
    assert review_deltas(page) == {
        east: "−3,900",
        south: "−1,000",
        west: "+4,900",
        north: "0",
        "table": "0",
    }
    assert page.locator("#review-table .table-bets td").first.inner_text() == "供託（立直棒）"
    page.get_by_role("button", name="送信", exact=True).tap()
    wait_for(page, "() => judgeTablet.entries.some(e => e.status === 'sent')")
    wait_for(page, "() => document.querySelector('#next-title').textContent === '東2局 · 第2局'")
    assert page.locator('#hands tbody tr[data-hand="1"] .value').inner_text() == "ロン 3翻30符"


def test_no_untranslated_text_while_entering_an_ari_ari_hand(tablet: Any, club: Any) -> None:
    page = open_tablet(tablet, club["base_url"], club["tokens"][2], "en-XA")
    east, south, west, north = club["seats"][2]
    assert unmarked_text(page) == []
    page.tap('#aa-outcomes [data-aa-kind="tsumo"]')
    tap_seat(page, "aa-winners", north)
    card = page.locator(f'.win-card[data-winner="{north}"]')
    card.locator('[data-field="limit"] [data-value="mangan"]').tap()
    tap_seat(page, "aa-riichi", east)
    assert unmarked_text(page) == []
    page.tap("#entry-review")
    assert unmarked_text(page) == []


@pytest.mark.parametrize("kind", ["wsom", "ariari"])
def test_at_200_percent_zoom_targets_keep_48_px_and_nothing_overflows(
    browser: Any, hall: Any, club: Any, kind: str
) -> None:
    context = browser.new_context(viewport=ZOOMED, device_scale_factor=2, has_touch=True)
    try:
        if kind == "wsom":
            page = open_tablet(context, hall.base_url, hall.tokens[5], "en-XA")
            page.tap('#outcomes [data-kind="points"]')
        else:
            page = open_tablet(context, club["base_url"], club["tokens"][2], "en-XA")
            page.tap('#aa-outcomes [data-aa-kind="ron"]')
            seats = club["seats"][2]
            tap_seat(page, "aa-discarder", seats[0])
            tap_seat(page, "aa-winners", seats[1])
        assert small_targets(page, 48) == []
        assert overflowing(page) == []
        page.tap("#entry-clear")
        for tab in ("fix", "seats", "start", "outbox"):
            page.tap(f'#tabs [data-tab="{tab}"]')
            assert small_targets(page, 48) == [], tab
            assert overflowing(page) == [], tab
    finally:
        context.close()


@pytest.mark.parametrize("lang", ["ja", "zh-Hant"])
def test_screens_of_the_tablet(tablet: Any, club: Any, lang: str, tmp_path: Path) -> None:
    """docs/screens/tablet-ja.png and tablet-zh-Hant.png (with SCOREBOARD_SCREENSHOTS set): an
    Ari Ari table's tablet in its judge's language, its names in a CJK font."""
    folder = ROOT / "docs" / "screens" if os.environ.get("SCOREBOARD_SCREENSHOTS") else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    page = open_tablet(tablet, club["base_url"], club["tokens"][1], lang)
    assert any("CJK" in font for font in platform_fonts(page, "h1, .judge-where strong"))
    page.screenshot(path=str(folder / f"tablet-{lang}.png"), full_page=True)


# Latin words a Japanese screen may show: the rules' ids, and the abbreviations Japanese
# writes in Latin letters too (QR コード, WSOM).
RULE_IDS = r"\b(?:AA|HS|CL|FM|PN|SE|SC|ST|PR|TK)-\d+\b|CONTRACT §\d|\b(?:QR|WSOM)\b"
# (A name inside a sentence, "親：Eli Ward · 0本場", is data: the caller names the players.)
LATIN_WORDS = (
    "(names) => { const found = []; const walker = document.createTreeWalker(document.body, 4);"
    " for (let n = walker.nextNode(); n; n = walker.nextNode()) {"
    '  const e = n.parentElement; if (!e || e.closest(\'[translate="no"], script, style,'
    " [hidden], .languages')) continue;"
    "  if (getComputedStyle(e).display === 'none') continue;"
    f"  let rest = n.textContent.replace(/{RULE_IDS}/g, '');"
    "  for (const name of names) rest = rest.split(name).join('');"
    "  if (/[A-Za-z]{2,}/.test(rest)) found.push(rest.trim()); }"
    " return found; }"
)


def test_a_japanese_judge_plays_an_ari_ari_game_to_its_end_in_japanese(
    tablet: Any, club: Any
) -> None:
    """Table 2, from its first hand to the end of its game, by the Japanese words alone: a
    流局 with the dealer 聴牌 (rule AA-9), then the dealer's チョンボ twice (4,000 to each,
    AA-10), which takes the dealer below zero and ends the game (AA-14). No English on the
    screen at any step but the rules' ids and the players' names."""
    page = open_tablet(tablet, club["base_url"], club["tokens"][2], "ja")
    east = club["seats"][2][0]
    names = [page.evaluate(f"() => judgeTablet.nameOf({json.dumps(p)})") for p in club["seats"][2]]
    outcomes = page.locator("#aa-outcomes")

    def send() -> None:
        sent = page.evaluate("() => judgeTablet.entries.filter(e => e.status === 'sent').length")
        page.get_by_role("button", name="確認へ").tap()
        assert page.evaluate(LATIN_WORDS, names) == []
        page.get_by_role("button", name="送信", exact=True).tap()
        wait_for(
            page,
            f"() => judgeTablet.entries.filter(e => e.status === 'sent').length > {sent}",
        )

    assert page.evaluate(LATIN_WORDS, names) == []
    outcomes.get_by_role("button", name="流局", exact=True).tap()
    tap_seat(page, "aa-tenpai", east)
    send()
    for _ in range(2):
        outcomes.get_by_role("button", name="チョンボ", exact=True).tap()
        tap_seat(page, "aa-offender", east)
        send()
    wait_for(page, "() => Boolean(judgeTablet.table.game && judgeTablet.table.game.ended)")
    wait_for(page, "() => judgeTablet.nextHand(judgeTablet.segment()) === null")
    ended = page.text_content("#next-dealer") or ""
    assert ended.startswith("第3局で終局しました：飛び（規則 AA-14）"), ended
    assert page.evaluate(LATIN_WORDS, names) == []


def test_the_sign_in_screen_has_no_untranslated_text(tablet: Any, hall: Any) -> None:
    """A tablet opened without its table's token asks for it, in the page's language too."""
    page = tablet.new_page()
    page.goto(f"{hall.base_url}/judge?lang=en-XA")
    page.wait_for_load_state("networkidle")
    assert page.evaluate("document.documentElement.lang") == "en-XA"
    assert unmarked_text(page) == []
    page.goto(f"{hall.base_url}/judge?lang=ja")
    page.wait_for_load_state("networkidle")
    assert page.evaluate(LATIN_WORDS, []) == []
