"""Results for ranking bodies (issue 18, part 6) in the organizer's console, in real
Chromium against the server as a real process: the EMA results button lists the players
with no EMA number, then downloads the EMA's results CSV; an EMA number set from the console
leaves the list; a bad one is refused with the field and rule; every hand downloads as CSV.

With SCOREBOARD_SCREENSHOTS set, it writes docs/screens/admin-ema.png.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from app.settings import DEVELOPMENT_ADMIN_TOKEN
from bench.load import Server, free_port, import_log

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
SCREENS = ROOT / "docs" / "screens"
# The club's final has ended; four of its eight players have EMA numbers
NUMBERS = {"eun": "05000017", "finn": "03000042", "cleo": "04160092", "hugo": "12000008"}


def _club_lines() -> list[str]:
    lines = []
    for line in (ROOT / "examples" / "club.jsonl").read_text(encoding="utf-8").splitlines():
        raw = json.loads(line)
        if raw["type"] == "player" and raw["id"] in NUMBERS:
            line = json.dumps({**raw, "ema_id": NUMBERS[raw["id"]]}, ensure_ascii=False)
        lines.append(line)
    return lines


@pytest.fixture(scope="module")
def server(browser: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("admin-ema")
    with Server(f"sqlite:///{folder / 'scoreboard.db'}", free_port(), folder / "server.log") as up:
        yield up


def test_the_ema_button_lists_the_missing_numbers_then_downloads_the_results(
    page: Any, server: Server, tmp_path: Path
) -> None:
    tid = import_log(server.database_url, _club_lines(), tmp_path)
    page.goto(f"{server.base_url}/admin/{tid}")
    page.fill("#token-input", DEVELOPMENT_ADMIN_TOKEN)
    page.locator("#gate-form button").first.click()
    expect(page.locator("#step-exports")).to_be_visible()
    expect(page.locator("#ema-missing")).to_be_hidden()

    with page.expect_download() as ema_download:
        page.locator("#ema-export").click()
    assert ema_download.value.suggested_filename == f"ema-{tid}.csv"
    missing = page.locator("#ema-missing li")
    expect(missing).to_have_count(4)
    expect(page.locator("#ema-missing")).to_contain_text("4 players have no EMA number")
    expect(missing.first).to_contain_text("Ami Sato")
    rows = list(csv.DictReader(io.StringIO(Path(ema_download.value.path()).read_text())))
    assert list(rows[0]) == [
        "Place", "EMA number", "Last name", "First name", "Country", "Points", "Score",
    ]  # fmt: skip
    assert [(r["Place"], r["EMA number"], r["Last name"]) for r in rows[:2]] == [
        ("1", "05000017", "Park"),
        ("2", "03000042", "Larsen"),
    ]

    # A number of the wrong form is refused with its field and rule, and nothing changes.
    page.fill("#ema-form [name=player]", "ami")
    page.fill("#ema-form [name=ema_id]", "4160093")
    page.locator("#ema-form button").click()
    expect(page.locator("#ema-form output")).to_contain_text("8 digits")
    expect(missing).to_have_count(4)

    # The organizer sets Ami's number from the console: she leaves the list.
    page.fill("#ema-form [name=ema_id]", "23000001")
    page.locator("#ema-form button").click()
    expect(missing).to_have_count(3)
    expect(page.locator("#ema-missing")).not_to_contain_text("Ami Sato")
    expect(page.locator("#activity")).to_contain_text("23000001")
    if os.environ.get("SCOREBOARD_SCREENSHOTS"):
        page.locator("#step-exports").screenshot(path=str(SCREENS / "admin-ema.png"))

    with page.expect_download() as hands_download:
        page.locator("#exports-form button[value=hands]").click()
    assert hands_download.value.suggested_filename == f"hands-{tid}.csv"
    hands = list(csv.DictReader(io.StringIO(Path(hands_download.value.path()).read_text())))
    assert len(hands) == 28 and hands[0]["player"] == "ami" and hands[0]["delta"] == "90"
