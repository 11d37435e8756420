"""The paper fallback in Chromium (issue 18, part 5): the printable score sheets, one table's
segment an A4 page with its seats, dealers and QR code; and the scorer's screen, where a
sheet's hands are typed in with the keyboard alone, checked as they are typed, reviewed
(every row sums to zero) and sent once: typed again, they are "already stored".

With SCOREBOARD_SCREENSHOTS set, it writes docs/screens/score-sheet.png and scorer.png.
"""

from __future__ import annotations

import os
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.slow

SCREENS = Path(__file__).resolve().parents[2] / "docs" / "screens"
TABLE = 3


def admin(hall: Any) -> dict[str, str]:
    return {"Authorization": f"Bearer {hall.admin_token}"}


def sheet_data(hall: Any, table: int = TABLE) -> dict[str, Any]:
    answer = httpx.get(
        f"{hall.base_url}/api/tournaments/{hall.tournament_id}/sheets/1/1/{table}",
        headers=admin(hall),
    )
    assert answer.status_code == 200, answer.text
    data: dict[str, Any] = answer.json()
    return data


def type_keys(page: Any, keys: str) -> None:
    """What the scorer types: characters, and {Enter}-style keys."""
    for part in re.split(r"(\{[A-Za-z+]+\})", keys):
        if part.startswith("{"):
            page.keyboard.press(part[1:-1])
        elif part:
            page.keyboard.type(part)


def test_the_printable_sheets_are_one_a4_page_per_table(page: Any, hall: Any) -> None:
    html = httpx.get(
        f"{hall.base_url}/admin/{hall.tournament_id}/sheets/1?segment=1", headers=admin(hall)
    )
    assert html.status_code == 200, html.text
    page.goto(f"{hall.base_url}/static/base.css")  # the server's origin, for its fonts
    page.set_content(html.text)
    tables = len(hall.round_one.tables)
    sheets = page.locator("section.sheet")
    expect(sheets).to_have_count(tables)
    first = sheets.first
    data = sheet_data(hall, int(first.get_attribute("data-table")))
    for seated in data["players"]:
        expect(first.locator(".seats")).to_contain_text(seated["name"])
    # rule FM-7: hand 1 is dealt by the starting East, column 1
    expect(first.locator("tr[data-hand='1'] .dealer")).to_have_text(
        f"1 · {data['players'][0]['name']}"
    )
    expect(first.locator("tr[data-hand]")).to_have_count(8)
    expect(first.locator(".qr svg")).to_have_count(1)
    expect(first.locator(".signature")).to_have_count(6)
    if os.environ.get("SCOREBOARD_SCREENSHOTS"):
        SCREENS.mkdir(parents=True, exist_ok=True)
        page.set_viewport_size({"width": 900, "height": 1200})
        first.screenshot(path=str(SCREENS / "score-sheet.png"))
    # Printed: one sheet a page, A4.
    pdf = page.pdf(format="A4", prefer_css_page_size=True)
    assert len(re.findall(rb"/Type\s*/Page\b", pdf)) == tables


def test_a_sheet_is_typed_in_with_the_keyboard_alone_and_stored_once(page: Any, hall: Any) -> None:
    data = sheet_data(hall)
    players = [seated["player"] for seated in data["players"]]
    page.goto(f"{hall.base_url}/scorer/{hall.tournament_id}?sheet=1-1-{TABLE}")

    # The admin token, typed; then the sheet its address names opens on row 1's winner.
    expect(page.locator("#token-input")).to_be_focused()
    type_keys(page, f"{hall.admin_token}{{Enter}}")
    expect(page.locator("#sheet-title")).to_contain_text(f"(1-1-{TABLE})")
    expect(page.locator("#rows tbody tr")).to_have_count(8)
    winner_1 = page.locator("#rows tbody tr:nth-child(1) input[name=winner]")
    expect(winner_1).to_be_focused()

    # Validated as typed: a column that does not exist is marked at once, with the rule.
    type_keys(page, "7")
    expect(winner_1).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#rows tbody tr:nth-child(1) td.check")).to_contain_text("rule HS-1")
    type_keys(page, "{Backspace}")
    # Hand 1: column 1 wins on column 2's discard, 30; a field moves on when complete.
    type_keys(page, "1230{Enter}")
    row_1 = page.locator("#rows tbody tr:nth-child(1)")
    expect(row_1.locator("td[data-delta='1']")).to_have_text("+90")
    expect(row_1.locator("td[data-delta='2']")).to_have_text("−40")
    # Hand 2: column 3 self-draws 8. Hand 3: a draw. Hand 4: a value out of bounds...
    type_keys(page, "3s8{Enter}d2s400")
    value_4 = page.locator("#rows tbody tr:nth-child(4) input[name=value]")
    expect(value_4).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#rows tbody tr:nth-child(4) td.check")).to_contain_text("rule HS-3")
    # ...fixed.
    type_keys(page, "{Backspace}{Backspace}{Backspace}40{Enter}")
    expect(value_4).to_have_attribute("aria-invalid", "false")

    # The review: every row sums to zero, and the totals do.
    type_keys(page, "{Control+Enter}")
    expect(page.locator("#review")).to_be_visible()
    expect(page.locator("#review-rows tbody tr")).to_have_count(4)
    for cell in page.locator("#review-rows tbody td[data-sum]").all():
        expect(cell).to_have_text("0")
    expect(page.locator("#review-sum")).to_contain_text("every row sums to zero")
    expect(page.locator("#send-button")).to_be_focused()
    if os.environ.get("SCOREBOARD_SCREENSHOTS"):
        SCREENS.mkdir(parents=True, exist_ok=True)
        page.set_viewport_size({"width": 1280, "height": 1100})
        page.screenshot(path=str(SCREENS / "scorer.png"), full_page=True)
    type_keys(page, "{Enter}")
    expect(page.locator("#send-problem")).to_contain_text("4 stored, 0 already stored")

    stored = sheet_data(hall)["hands"]
    assert stored[0]["stored"] == {
        "kind": "discard",
        "winner": players[0],
        "discarder": players[1],
        "value": 30,
    }
    assert stored[2]["stored"] == {"kind": "draw"}
    assert stored[4]["stored"] is None

    # The same sheet typed again, in a new screen: each row is "already stored", none twice.
    page.reload()
    expect(page.locator("#rows tbody tr:nth-child(1) input[name=winner]")).to_be_focused()
    expect(page.locator("#rows tbody tr:nth-child(1) td.check")).to_contain_text("on the server")
    type_keys(page, "1230{Enter}3s8{Enter}d2s40{Enter}{Control+Enter}")
    expect(page.locator("#review-rows tbody")).to_contain_text("already stored: the same")
    type_keys(page, "{Enter}")
    expect(page.locator("#send-problem")).to_contain_text("0 stored, 4 already stored")
    audit = httpx.get(
        f"{hall.base_url}/api/tournaments/{hall.tournament_id}/tables/{TABLE}/audit?round=1"
    )
    hands = [entry["line"] for entry in audit.json()["lines"] if entry["line"]["type"] == "hand"]
    assert [line["hand"] for line in hands] == [1, 2, 3, 4]  # each once
    assert {entry["entered_by"] for entry in audit.json()["lines"][-4:]} == {"admin"}


def test_a_sheet_code_or_its_qr_address_opens_the_sheet(page: Any, hall: Any) -> None:
    page.goto(f"{hall.base_url}/scorer/{hall.tournament_id}")
    type_keys(page, f"{hall.admin_token}{{Enter}}")
    expect(page.locator("#sheet-input")).to_be_focused()
    type_keys(page, "1-1{Enter}")
    expect(page.locator("#pick output")).to_contain_text("round-segment-table")
    # A QR reader types the sheet's address, as a keyboard does.
    address = f"{hall.base_url}/scorer/{hall.tournament_id}?sheet=1-1-1"
    page.fill("#sheet-input", "")
    type_keys(page, f"{address}{{Enter}}")
    expect(page.locator("#sheet-title")).to_contain_text("(1-1-1)")


def test_the_console_prints_a_rounds_score_sheets(page: Any, hall: Any) -> None:
    page.goto(f"{hall.base_url}/admin/{hall.tournament_id}")
    page.fill("#token-input", hall.admin_token)
    page.press("#token-input", "Enter")
    expect(page.locator("#slips-form button[value=sheets]")).to_be_visible()
    with page.expect_popup() as opened:
        page.click("#slips-form button[value=sheets]")
    sheets = opened.value
    sheets.wait_for_url(lambda url: url.startswith("blob:"))  # no token in its address
    # every table of every seated half of round 1
    expect(sheets.locator("section.sheet")).to_have_count(len(sheet_rows(hall)))
    expect(page.locator("#slips-link")).to_contain_text("Score sheets of round 1")


def sheet_rows(hall: Any) -> list[dict[str, Any]]:
    tables = httpx.get(f"{hall.base_url}/api/tournaments/{hall.tournament_id}/tables?round=1")
    rows: list[dict[str, Any]] = tables.json()["tables"]
    return rows


def test_the_scorer_and_the_sheets_have_no_untranslated_text(page: Any, hall: Any) -> None:
    # The pseudo-locale (issue 17): every string that went through a catalog reads ⟦...⟧.
    from i18n_support import unmarked_text

    page.goto(f"{hall.base_url}/scorer/{hall.tournament_id}?sheet=1-1-5&lang=en-XA")
    expect(page.locator("#token-input")).to_be_focused()
    assert unmarked_text(page) == []
    type_keys(page, f"{hall.admin_token}{{Enter}}")
    expect(page.locator("#rows tbody tr")).to_have_count(8)
    type_keys(page, "1230{Enter}3s8{Enter}d7")  # a bad winner in row 4, with its message
    winner_4 = page.locator("#rows tbody tr:nth-child(4) input[name=winner]")
    expect(winner_4).to_have_attribute("aria-invalid", "true")
    assert unmarked_text(page) == []
    type_keys(page, "{Backspace}{Control+Enter}")
    expect(page.locator("#review")).to_be_visible()
    assert unmarked_text(page) == []

    html = httpx.get(
        f"{hall.base_url}/admin/{hall.tournament_id}/sheets/1?segment=1&lang=en-XA",
        headers=admin(hall),
    )
    page.set_content(html.text)
    expect(page.locator("section.sheet").first).to_be_visible()
    assert unmarked_text(page) == []


def test_a_timed_segments_sheet_takes_each_hands_deal_time(page: Any, hall: Any) -> None:
    # Group B's first half, scheduled 10 minutes ago: its clock can end it (rule CL-3).
    start = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=10)
    scheduled = httpx.post(
        f"{hall.base_url}/api/tournaments/{hall.tournament_id}/schedule",
        json={"round": 1, "segment": 1, "group": "B", "start": start.isoformat()},
        headers=admin(hall),
    )
    assert scheduled.status_code == 201, scheduled.text
    table = next(row["table"] for row in sheet_rows(hall) if row["group"] == "B")
    page.goto(f"{hall.base_url}/scorer/{hall.tournament_id}?sheet=1-1-{table}")
    type_keys(page, f"{hall.admin_token}{{Enter}}")
    expect(page.locator("#dealt-head")).to_be_visible()
    expect(page.locator("#dealt-help")).to_contain_text("rule CL-3")
    # the sheet's Dealt column, as this machine's clock reads the hall's time
    dealt = page.evaluate(
        "(iso) => { const d = new Date(iso); d.setMinutes(d.getMinutes() + 2);"
        " return `${d.getHours()}:${String(d.getMinutes()).padStart(2, '0')}`; }",
        start.isoformat(),
    )

    # Hand 1: a value, then Enter to its deal's time; a draw moves to its deal's time too.
    type_keys(page, "1230{Enter}")
    expect(page.locator("#rows tbody tr:nth-child(1) input[name=dealt]")).to_be_focused()
    type_keys(page, f"{dealt}{{Enter}}d")
    expect(page.locator("#rows tbody tr:nth-child(2) input[name=dealt]")).to_be_focused()
    type_keys(page, "99")  # not a time of day
    expect(page.locator("#rows tbody tr:nth-child(2) input[name=dealt]")).to_have_attribute(
        "aria-invalid", "true"
    )
    type_keys(page, f"{{Backspace}}{{Backspace}}{dealt}{{Enter}}{{Control+Enter}}")
    expect(page.locator("#review-rows tbody tr")).to_have_count(2)
    type_keys(page, "{Enter}")
    expect(page.locator("#send-problem")).to_contain_text("2 stored, 0 already stored")

    audit = httpx.get(
        f"{hall.base_url}/api/tournaments/{hall.tournament_id}/tables/{table}/audit?round=1"
    )
    deals = [entry["line"] for entry in audit.json()["lines"] if entry["line"]["type"] == "deal"]
    assert [deal["hand"] for deal in deals] == [1, 2]
    assert {deal["override"] for deal in deals} == {f"score sheet 1-1-{table}"}
    typed = (start + timedelta(minutes=2)).replace(second=0)  # the sheet says minutes only
    assert deals[0]["time"] == typed.isoformat().replace("+00:00", "Z")


def test_the_scorer_passes_axes_wcag_checks(page: Any, hall: Any) -> None:
    # WCAG 2.2 AA as axe-core checks it, colour contrast included, on the gate, on rows with
    # a problem marked, and on the review.
    from i18n_support import axe_violations

    page.goto(f"{hall.base_url}/scorer/{hall.tournament_id}?sheet=1-1-7")
    assert axe_violations(page) == []
    type_keys(page, f"{hall.admin_token}{{Enter}}")
    expect(page.locator("#rows tbody tr")).to_have_count(8)
    type_keys(page, "1230{Enter}3s8{Enter}9")
    expect(page.locator("#rows tbody tr:nth-child(3) input[name=winner]")).to_have_attribute(
        "aria-invalid", "true"
    )
    assert axe_violations(page) == []
    type_keys(page, "{Backspace}{Control+Enter}")
    expect(page.locator("#review")).to_be_visible()
    assert axe_violations(page) == []
