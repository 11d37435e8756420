"""The spectator's pages and the results page in every language (issue 17), in real
Chromium at phone size: each page in ja, zh-Hant, zh-Hans, ko, English and the pseudo-locale
(where no visible text may have missed the catalogs), and axe-core's WCAG 2.2 AA check with
zero violations on every one of them."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from i18n_support import axe_violations, platform_fonts, unmarked_text

from bench.load import hand_headers, hands_url

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
LANGUAGES = ("en", "ja", "zh-Hant", "zh-Hans", "ko", "en-XA")
# A heading each language must show in its own words (the catalogs' translations).
FOLLOWING = {
    "en": "Following",
    "ja": "フォロー中",
    "zh-Hant": "關注中",
    "zh-Hans": "关注中",
    "ko": "팔로우 중",
}


@pytest.fixture(scope="module")
def played(hall: Any) -> Any:
    """Table 1's first half: the player pages have hands, the results a cut line."""
    with httpx.Client(timeout=10) as client:
        for hand in hall.round_one.hands[1]:
            if hand["segment"] == 1:
                response = client.post(
                    hands_url(hall.base_url, hall.tournament_id),
                    json=hand,
                    headers=hand_headers(
                        hall.tokens[1], f"languages-{hand['segment']}-{hand['hand']}"
                    ),
                )
                assert response.status_code in (200, 201), response.text
    return hall


@pytest.fixture
def phone(browser: Any) -> Iterator[Any]:
    context = browser.new_context(**PHONE)
    yield context.new_page()
    context.close()


def _pages(hall: Any) -> dict[str, str]:
    tid = hall.tournament_id
    first = hall.round_one.hands[1][0]
    winner = first["result"].get("winner", "P0001")
    return {
        "home": f"/?t={tid}&q=a",
        "player": f"/p/{winner}?t={tid}",
        "missing": "/p/nobody",
        "results": f"/admin/{tid}/results",
        "error": "/hall/99",  # the page any address that is not there answers with
    }


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_spectator_page_speaks_the_language_and_passes_axe(
    phone: Any, played: Any, language: str
) -> None:
    for name, path in _pages(played).items():
        separator = "&" if "?" in path else "?"
        phone.goto(f"{played.base_url}{path}{separator}lang={language}")
        phone.wait_for_load_state("load")
        if name == "home":
            # a followed player, so that the list and its figures are on the page too
            phone.locator("#results li").first.wait_for()
            phone.locator("#results li button.follow").first.click()
            phone.locator("#followed li .total").first.wait_for()
        assert phone.evaluate("document.documentElement.lang") == language, name
        if language == "en-XA":
            assert unmarked_text(phone) == [], f"{name}: text that no catalog translated"
        elif name == "home":
            assert phone.locator("#followed-title").text_content() == FOLLOWING[language]
        assert axe_violations(phone) == [], f"{name} in {language}"


def test_the_switch_keeps_the_choice_on_the_device(phone: Any, played: Any) -> None:
    phone.goto(f"{played.base_url}/?t={played.tournament_id}")
    assert phone.locator("#followed-title").text_content() == "Following"
    phone.get_by_role("link", name="繁體中文").click()
    phone.wait_for_url(f"{played.base_url}/?t={played.tournament_id}")
    assert phone.evaluate("document.documentElement.lang") == "zh-Hant"
    # another page, no parameter: the kept choice outranks the browser's English
    phone.goto(f"{played.base_url}/admin/{played.tournament_id}/results")
    assert phone.evaluate("document.documentElement.lang") == "zh-Hant"
    assert phone.get_by_role("heading", level=2).first.text_content().startswith("第1輪排名")
    # an explicit ?lang= still wins, without changing the kept choice
    phone.goto(f"{played.base_url}/?lang=ko")
    assert phone.locator("#followed-title").text_content() == FOLLOWING["ko"]
    phone.goto(f"{played.base_url}/")
    assert phone.locator("#followed-title").text_content() == FOLLOWING["zh-Hant"]


def test_a_cantonese_reader_finds_a_player_by_the_chinese_name(phone: Any, played: Any) -> None:
    """A substitute (rule FM-9) registered with the name in Chinese characters: found by it,
    and by its pinyin without tones, and shown in it first to a reader of Chinese."""
    answer = httpx.post(
        f"{played.base_url}/api/tournaments/{played.tournament_id}/players",
        json=[
            {
                "id": "S0901",
                "name": "Chan Ka Wai",
                "local_name": "陳家偉",
                "group": "A",
                "substitute": True,
                "country": "MO",
            }
        ],
        headers={"Authorization": f"Bearer {played.admin_token}"},
    )
    assert answer.status_code == 201, answer.text
    for query in ("陳家偉", "家偉", "chen jia wei"):
        phone.goto(f"{played.base_url}/?t={played.tournament_id}&lang=zh-Hant")
        phone.fill("#q", query)
        found = phone.locator("#results li[data-player='S0901']")
        found.wait_for()
        assert found.locator(".name").text_content() == "陳家偉", query
        assert "Chan Ka Wai" in found.text_content()
    found.locator("a").click()
    phone.wait_for_url("**/p/S0901**")
    assert phone.locator("#player-name").text_content() == "陳家偉"
    assert phone.locator("#other-name").text_content() == "Chan Ka Wai"
    # an English reader sees the Latin name first, and the other form beneath
    phone.goto(f"{played.base_url}/p/S0901?t={played.tournament_id}&lang=en")
    assert phone.locator("#player-name").text_content() == "Chan Ka Wai"
    assert phone.locator("#other-name").text_content() == "陳家偉"
    # drawn in a CJK font, in a page in English too
    assert any("CJK" in font for font in platform_fonts(phone, "#other-name"))
    # Issue 33: followed, the home's "Following" list gives both forms of the name too
    phone.locator("button.follow").first.click()  # the player page's star
    phone.goto(f"{played.base_url}/?t={played.tournament_id}&lang=en")
    followed = phone.locator("#followed li", has_text="Chan Ka Wai")
    followed.wait_for()
    assert followed.locator(".other-name").text_content() == " 陳家偉"


def test_a_followed_players_changes_are_announced_politely(phone: Any, played: Any) -> None:
    phone.goto(f"{played.base_url}/?t={played.tournament_id}&lang=ja")
    region = phone.locator("#followed-news")
    assert region.get_attribute("aria-live") == "polite"
    table = played.round_one.hands[2]
    seats = {p for hand in table if hand["segment"] == 1 for p in _players(hand)}
    player = sorted(seats)[0]
    phone.evaluate(
        "([t, id]) => localStorage.setItem('wsom.followed', JSON.stringify([{t, id, name: id}]))",
        [played.tournament_id, player],
    )
    phone.reload()
    phone.locator("#followed li .total").first.wait_for()
    phone.wait_for_function(
        "() => /\\d/.test(document.querySelector('#followed .total').textContent)"
    )
    with httpx.Client(timeout=10) as client:
        for hand in table:
            if hand["segment"] == 1:
                client.post(
                    hands_url(played.base_url, played.tournament_id),
                    json=hand,
                    headers=hand_headers(played.tokens[2], f"news-{hand['hand']}"),
                ).raise_for_status()
    phone.wait_for_function(
        "() => document.getElementById('followed-news').textContent.includes('位')", timeout=15000
    )
    said = region.text_content()
    assert said.startswith(f"{player}: ") and "総得点" in said
    # one announcement, however many hands changed the figures in between
    assert said.count(f"{player}:") == 1


def _players(hand: dict[str, Any]) -> set[str]:
    result = hand["result"]
    return {str(v) for k, v in result.items() if k in ("winner", "discarder")} | {
        str(p) for p in result.get("deltas", {})
    }


@pytest.mark.parametrize("language", ["ja", "zh-Hant"])
def test_screens_of_a_player_page(phone: Any, played: Any, language: str, tmp_path: Any) -> None:
    """docs/screens/player-ja.png and player-zh-Hant.png (with SCOREBOARD_SCREENSHOTS set)."""
    folder = ROOT / "docs" / "screens" if os.environ.get("SCOREBOARD_SCREENSHOTS") else tmp_path
    phone.goto(f"{played.base_url}{_pages(played)['player']}&lang={language}")
    phone.locator("table.hands tbody tr:not(.empty)").first.wait_for()
    # the page's own words are drawn in a CJK font (Noto Sans CJK, installed by .ci/run)
    assert any("CJK" in font for font in platform_fonts(phone, "#chart-heading"))
    folder.mkdir(parents=True, exist_ok=True)
    phone.screenshot(path=str(folder / f"player-{language}.png"), full_page=True)
