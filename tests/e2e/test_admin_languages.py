"""The organizer's console in Japanese, Traditional and Simplified Chinese and Korean (issue
17), in real Chromium: opened with ?lang=, its headings, buttons and the sentences its script
composes are the organizer's words; in the pseudo-locale no visible text escapes the
catalogs; the tournament's default language is changed from the console."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import Hall
from tests.e2e.i18n_support import unmarked_text

pytestmark = pytest.mark.slow

# language -> (the console's title, section 2's heading, the draw button of the drawn round 1,
# the sign-out button)
WORDS = {
    "ja": ("管理コンソール", "選手", "ラウンド1を再抽選", "サインアウト"),
    "zh-Hant": ("管理控制台", "選手", "重新抽籤第1輪", "登出"),
    "zh-Hans": ("管理控制台", "选手", "重新抽签第1轮", "退出"),
    "ko": ("관리 콘솔", "선수", "1라운드 재추첨", "로그아웃"),
}


def open_console(page: Any, hall: Hall, lang: str) -> None:
    page.goto(f"{hall.base_url}/admin/{hall.tournament_id}?lang={lang}")
    if page.locator("#gate").is_visible():
        page.fill("#token-input", hall.admin_token)
        page.locator("#gate-form button").click()
    expect(page.locator("#tournament-steps")).to_be_visible()
    expect(page.locator("#standings tbody tr").first).to_be_visible()
    expect(page.locator("#links .link-card").first).to_be_visible()


@pytest.mark.parametrize("lang", sorted(WORDS))
def test_the_console_speaks_the_organizers_language(page: Any, hall: Hall, lang: str) -> None:
    title, players, redraw, sign_out = WORDS[lang]
    page.goto(f"{hall.base_url}/admin/{hall.tournament_id}?lang={lang}")
    assert page.locator("html").get_attribute("lang") == lang
    expect(page.locator("#gate-title")).not_to_have_text("Admin token")
    open_console(page, hall, lang)
    expect(page.locator("header h1")).to_have_text(title)
    expect(page.locator("#step-players h2")).to_contain_text(players)
    expect(page.locator("#draw-button")).to_have_text(redraw)
    expect(page.locator("#sign-out")).to_have_text(sign_out)
    # the language switch in the header, the current language marked
    current = page.locator("header nav.languages a[aria-current=true]")
    expect(current).to_have_attribute("hreflang", lang)


# The server's warning that QR codes open this machine only (app/web/addresses.py) is not in
# any catalog yet: it is the common domain's, outside the console's.
LOOPBACK_WARNING = "p: This QR code points at 127.0.0.1"


def console_unmarked(page: Any) -> list[str]:
    return [text for text in unmarked_text(page) if not text.startswith(LOOPBACK_WARNING)]


def test_no_visible_text_escapes_the_catalogs(page: Any, hall: Hall) -> None:
    page.goto(f"{hall.base_url}/admin/{hall.tournament_id}?lang=en-XA")
    expect(page.locator("#gate")).to_be_visible()  # the token is asked for first
    assert console_unmarked(page) == []
    open_console(page, hall, "en-XA")
    expect(page.locator("#draw-now")).to_contain_text("⟦")
    assert console_unmarked(page) == []
    # the end of round's confirmation, composed by the script
    page.locator("#end-arm").click()
    expect(page.locator("#end-confirm")).to_be_visible()
    assert console_unmarked(page) == []


def test_the_tournaments_language_is_changed_from_the_console(page: Any, hall: Hall) -> None:
    open_console(page, hall, "ko")
    page.select_option("#language-pick", "zh-Hant")
    page.locator("#language-form button").click()
    expect(page.locator("#activity li").first).to_contain_text("繁體中文")
    state = httpx.get(
        f"{hall.base_url}/admin/{hall.tournament_id}/state",
        headers={"Authorization": f"Bearer {hall.admin_token}"},
    ).json()
    assert state["language"] == "zh-Hant"
    # a reader whose browser names none of ours now gets the tournament's language
    answer = httpx.get(
        f"{hall.base_url}/hall/{hall.tournament_id}", headers={"Accept-Language": "fr"}
    )
    assert '<html lang="zh-Hant"' in answer.text


def slips_of(hall: Hall, lang: str) -> str:
    answer = httpx.get(
        f"{hall.base_url}/admin/{hall.tournament_id}/slips/1",
        params={"lang": lang},
        headers={"Authorization": f"Bearer {hall.admin_token}", "Accept-Language": "en-US"},
    )
    assert answer.status_code == 200, answer.text
    return answer.text


@pytest.mark.parametrize(
    ("lang", "head", "scores"),
    [
        ("ja", "ハーフ1", "あなたの成績"),
        ("zh-Hant", "第1半場", "您的成績"),
        ("ko", "하프 1", "내 점수"),
    ],
)
def test_the_slips_speak_the_consoles_language(
    page: Any, hall: Hall, lang: str, head: str, scores: str
) -> None:
    page.set_content(slips_of(hall, lang))
    assert page.locator("html").get_attribute("lang") == lang
    first = page.locator(".slip").first
    expect(first.locator("th").first).to_have_text(head)
    # the hall's server is on 127.0.0.1: each code says it opens this machine only
    expect(first.locator(".qr .flag")).not_to_have_text("QR: this machine only")
    assert scores not in first.inner_text()  # the flag stands where "your scores" would


def test_the_slips_have_no_text_outside_the_catalogs(page: Any, hall: Hall) -> None:
    page.set_content(slips_of(hall, "en-XA"))
    expect(page.locator(".slip").first).to_be_visible()
    assert console_unmarked(page) == []


def test_the_round_ends_report_is_in_the_catalogs_too(page: Any, hall: Hall) -> None:
    """Last in this file: it ends the hall's round 1 (nobody has played: the whole field is
    level at the cut, and a draw decides it)."""
    open_console(page, hall, "en-XA")
    page.locator("#end-arm").click()
    page.locator("#end-anyway").check()
    page.fill("#end-reason", "the test ends it")
    page.locator("#end-button").click()
    expect(page.locator("#round-end")).to_be_visible()
    expect(page.locator("#round-end .draw")).to_be_visible()
    assert console_unmarked(page) == []
    page.goto(f"{hall.base_url}/admin/{hall.tournament_id}?lang=ja")
    expect(page.locator("#draw-button")).to_have_text("ラウンド2を抽選")
