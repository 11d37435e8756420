"""Colour contrast on every page (issue 17: WCAG 2.2 AA, 4.5:1 for text, 3:1 for large
text), measured by axe-core in Chromium on the colours the page really draws: the hall, the
judge's tablet, the TV overlays and the admin console. (The spectators' pages and the
results page pass axe's whole WCAG 2.2 AA check: test_spectator_languages.py.)"""

from __future__ import annotations

from typing import Any

import pytest
from e2e_support import wait_for
from i18n_support import axe_violations

from app.settings import DEVELOPMENT_ADMIN_TOKEN

pytestmark = pytest.mark.slow

CONTRAST = ["color-contrast"]


def test_the_hall_display(page: Any, hall: Any) -> None:
    page.goto(f"{hall.base_url}/hall/{hall.tournament_id}")
    wait_for(
        page,
        "() => window.hallDisplay?.feed.status === 'live'"
        " && document.querySelectorAll('#rows .hall-row').length > 0",
    )
    assert axe_violations(page, CONTRAST) == []


def test_the_judges_tablet(page: Any, hall: Any) -> None:
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{hall.base_url}/judge?token={hall.tokens[1]}")
    wait_for(page, "() => window.judgeTablet && judgeTablet.who && judgeTablet.table")
    assert axe_violations(page, CONTRAST) == []


@pytest.mark.parametrize("path", ["top", "cut", "clock", "table/1", "player/P0001"])
def test_the_overlays(page: Any, hall: Any, path: str) -> None:
    page.goto(f"{hall.base_url}/overlay/{hall.tournament_id}/{path}?bg=green")
    page.wait_for_load_state("networkidle")
    assert axe_violations(page, CONTRAST) == []


def test_the_admin_console(page: Any, hall: Any) -> None:
    page.goto(f"{hall.base_url}/admin")
    assert axe_violations(page, CONTRAST) == []  # the gate
    page.fill("#token-input", DEVELOPMENT_ADMIN_TOKEN)
    page.locator("#gate-form button").first.click()
    page.locator("#steps").wait_for()
    page.goto(f"{hall.base_url}/admin/{hall.tournament_id}")
    page.locator("#tournament-steps").wait_for()
    assert axe_violations(page, CONTRAST) == []
