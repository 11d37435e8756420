"""The hall display in every language (issue 17), in real Chromium at 1920x1080: each of
ja, zh-Hant, zh-Hans, ko and the pseudo-locale (where no visible text may have missed the
catalogs), a hall read in two languages at once (`?second=`, beneath or page by page), and
players registered with their names in their own script (Macau's hall: Japanese, Chinese and
Korean names beside the Latin ones). With SCOREBOARD_SCREENSHOTS set, writes
docs/screens/hall-ja.png and hall-zh-Hant.png.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from i18n_support import platform_fonts, unmarked_text

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

SCREENS = Path(__file__).resolve().parents[2] / "docs" / "screens"
FULL_HD = {"viewport": {"width": 1920, "height": 1080}}
# The column head "Rank" in each language's words (the hall's catalog).
RANK = {"en": "Rank", "ja": "順位", "zh-Hant": "名次", "zh-Hans": "名次", "ko": "순위"}

# Names in the players' own scripts beside the Latin ones, by country: surnames x given names.
CULTURES = (
    (
        "JP",
        [("Yamada", "山田"), ("Sato", "佐藤"), ("Suzuki", "鈴木"), ("Takahashi", "高橋")],
        [("Takeshi", "剛"), ("Hanako", "花子"), ("Kenji", "健二"), ("Yui", "ゆい")],
        "{given} {family}",
        "{family} {given}",
    ),
    (
        "MO",
        [("Chan", "陳"), ("Wong", "黃"), ("Leung", "梁"), ("Cheung", "張")],
        [("Ka Wai", "家偉"), ("Siu Ming", "小明"), ("Wing Yan", "詠欣"), ("Chi Keung", "志強")],
        "{family} {given}",
        "{family}{given}",
    ),
    (
        "CN",
        [("Wang", "王"), ("Li", "李"), ("Zhang", "张"), ("Liu", "刘")],
        [("Xiaoming", "晓明"), ("Na", "娜"), ("Wei", "伟"), ("Yang", "洋")],
        "{family} {given}",
        "{family}{given}",
    ),
    (
        "KR",
        [("Kim", "김"), ("Lee", "이"), ("Park", "박"), ("Choi", "최")],
        [("Minjun", "민준"), ("Seoyeon", "서연"), ("Jihoon", "지훈"), ("Yuna", "유나")],
        "{family} {given}",
        "{family}{given}",
    ),
)
# Players with one name only, as most of the field outside East Asia.
LATIN_ONLY = ("Anna Müller", "Pierre Dubois", "Sofia García", "Lars Nilsson")


@dataclass(frozen=True)
class Macau:
    """A server with round 1 of a 64-player event seated, the first half
    played by every table, and most players registered with their names in their own script."""

    base_url: str
    tournament_id: int
    local_names: dict[str, tuple[str, str | None, str]]  # id -> (name, local_name, country)


def _registrations() -> list[tuple[str, str | None, str]]:
    people: list[tuple[str, str | None, str]] = []
    for given_index in range(4):
        for family_index in range(4):
            for country, families, givens, latin, local in CULTURES:
                family, given = families[family_index], givens[given_index]
                people.append(
                    (
                        latin.format(family=family[0], given=given[0]),
                        local.format(family=family[1], given=given[1]),
                        country,
                    )
                )
    # every eighth player has a Latin name only, from each culture's place in turn
    for index, name in enumerate(LATIN_ONLY * 2):
        people[index * 8 + index % 4] = (f"{name} {index + 1}", None, "EU")
    return people


def _with_local_names(lines: list[str]) -> tuple[list[str], dict[str, Any]]:
    people = iter(_registrations())
    registered: dict[str, tuple[str, str | None, str]] = {}
    out = []
    for text in lines:
        line = json.loads(text)
        if line["type"] == "tournament":
            line["name"] = "World Series of Mahjong · Macau"
            text = json.dumps(line, ensure_ascii=False)
        elif line["type"] == "player":
            name, local, country = next(people)
            line["name"] = name
            line["country"] = country
            if local:
                line["local_name"] = local
            registered[line["id"]] = (name, local, country)
            text = json.dumps(line, ensure_ascii=False)
        out.append(text)
    return out, registered


@pytest.fixture(scope="module")
def macau(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Macau]:
    if not Path("/usr/bin/chromium").exists():
        pytest.skip("Chromium is not installed")
    folder = tmp_path_factory.mktemp("macau")
    url = f"sqlite:///{folder / 'scoreboard.db'}"
    round_one = RoundOne.generate(
        players=64, seed=6, format={"preset": "wsom2008", "advance": [16, 8, 4]}
    )
    lines, registered = _with_local_names(round_one.setup_lines)
    tournament_id = import_log(url, lines, folder)
    tokens = issue_tokens(url, tournament_id, round_one.tables)
    with Server(url, free_port(), folder / "server.log") as server:
        with httpx.Client(timeout=10) as client:
            for table in round_one.tables:
                for hand in round_one.hands[table]:
                    if hand["segment"] != 1:
                        continue
                    key = f"macau-{table}-{hand['hand']}"
                    client.post(
                        hands_url(server.base_url, tournament_id),
                        json=hand,
                        headers=hand_headers(tokens[table], key),
                    ).raise_for_status()
        yield Macau(server.base_url, tournament_id, registered)


@pytest.fixture(scope="module")
def screen(browser: Any) -> Iterator[Any]:
    context = browser.new_context(**FULL_HD)
    yield context.new_page()
    context.close()


def open_hall(page: Any, macau: Macau, query: str) -> None:
    page.goto(f"{macau.base_url}/hall/{macau.tournament_id}?{query}")
    page.wait_for_function(
        "() => window.hallDisplay?.feed.status === 'live'"
        " && document.querySelectorAll('#rows .hall-row .name-text').length > 0"
        " && ![...document.querySelectorAll('#rows .hall-row')]"
        "      .some((row) => row.querySelector('.name-text').textContent === row.dataset.player)"
        " && document.querySelectorAll('#tables .table-cell').length > 0",
        polling=100,
        timeout=10_000,
    )


def _player(macau: Macau, country: str) -> tuple[str, str, str]:
    """A registered player of that country with a name in their own script: id, name, local."""
    for player, (name, local, where) in sorted(macau.local_names.items()):
        if where == country and local:
            return player, name, local
    raise AssertionError(country)


@pytest.mark.parametrize("language", ["ja", "zh-Hant", "zh-Hans", "ko", "en-XA"])
def test_the_hall_speaks_the_language(screen: Any, macau: Macau, language: str) -> None:
    for page in ("1", "cut"):
        open_hall(screen, macau, f"lang={language}&page={page}&rows=16")
        assert screen.evaluate("document.documentElement.lang") == language
        heads = screen.locator(".hall-columns .col-rank")
        if language == "en-XA":
            assert heads.text_content().startswith("⟦")
            assert unmarked_text(screen) == [], f"page {page}: text no catalog translated"
        else:
            assert heads.text_content() == RANK[language]
            assert screen.locator(".hall-languages [aria-current='true']").get_attribute(
                "lang"
            ) == (language)


def test_a_hall_read_in_two_languages_shows_both(screen: Any, macau: Macau) -> None:
    open_hall(screen, macau, "lang=en&second=zh-Hant&page=cut")
    rank = screen.locator(".hall-columns .col-rank")
    assert rank.locator(".second").text_content() == "名次"
    assert rank.locator(".second").get_attribute("lang") == "zh-Hant"
    assert rank.text_content() == "Rank名次"
    assert screen.locator("#rows .cut-label .second").text_content() == "前16名晉級"
    assert screen.locator("#session-label .second").text_content() != ""
    # the rest of the screen in the first language
    assert screen.locator("#pager").text_content() == "cut line · 4 pages"


def test_alternate_pages_turn_the_whole_screen_to_the_other_language(
    screen: Any, macau: Macau
) -> None:
    open_hall(screen, macau, "lang=en&second=ja&bilingual=alternate&interval=2&rows=16")
    heads = screen.locator(".hall-columns .col-rank")
    assert heads.text_content() == "Rank"
    assert screen.locator(".hall-columns .second").count() == 0
    screen.wait_for_function(
        "() => document.querySelector('.hall-columns .col-rank').textContent === '順位'",
        timeout=5_000,
    )
    assert screen.locator("#hall").get_attribute("lang") == "ja"
    assert screen.locator("#pager").text_content().endswith("ページ")
    screen.wait_for_function(
        "() => document.querySelector('.hall-columns .col-rank').textContent === 'Rank'",
        timeout=5_000,
    )


def test_a_name_in_its_owners_script_first_for_a_reader_of_japanese(
    screen: Any, macau: Macau
) -> None:
    player, name, local = _player(macau, "JP")
    open_hall(screen, macau, "lang=ja&rows=64")
    row = screen.locator(f"#rows .hall-row[data-player='{player}']")
    assert row.locator(".name-text").text_content() == local
    assert row.locator(".name-text").get_attribute("lang") == "ja"
    assert row.locator(".name-text").get_attribute("translate") == "no"
    assert row.locator(".other-name").text_content() == name
    assert any(
        "CJK" in font for font in platform_fonts(screen, f"[data-player='{player}'] .name-text")
    )
    # an English reader: the Latin name first, the other beside it in its language's glyphs
    open_hall(screen, macau, "lang=en&rows=64")
    assert row.locator(".name-text").text_content() == name
    assert row.locator(".other-name").text_content() == local
    chinese, _, chinese_local = _player(macau, "MO")
    beside = screen.locator(f"#rows .hall-row[data-player='{chinese}'] .other-name")
    assert beside.text_content() == chinese_local
    assert beside.get_attribute("lang") == "zh-Hant"


@pytest.mark.parametrize("language", ["ja", "zh-Hant"])
def test_screens_of_the_hall(screen: Any, macau: Macau, language: str, tmp_path: Path) -> None:
    """docs/screens/hall-ja.png and hall-zh-Hant.png (with SCOREBOARD_SCREENSHOTS set)."""
    folder = SCREENS if os.environ.get("SCOREBOARD_SCREENSHOTS") else tmp_path
    open_hall(screen, macau, f"lang={language}&page=1")
    # the page's own words and the names are drawn in a CJK font, never as boxes
    assert any("CJK" in font for font in platform_fonts(screen, ".hall-columns .col-rank"))
    assert any("CJK" in font for font in platform_fonts(screen, "#rows .hall-row .name-text"))
    # no mouse has moved: the language switch stays out of the picture
    assert screen.locator("#languages").evaluate("(e) => getComputedStyle(e).opacity") == "0"
    folder.mkdir(parents=True, exist_ok=True)
    screen.screenshot(path=str(folder / f"hall-{language}.png"))
