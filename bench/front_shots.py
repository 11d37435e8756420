"""Full-page screenshots of every page the front end draws, at one fixed state, to hold a change
to the JavaScript against (issue 15: the pages look exactly as before).

    python -m bench.front_shots shots/before
    python -m bench.front_shots shots/after
    python -m bench.front_shots --compare shots/before shots/after

The state: round 1 of a generated 64-player WSOM 2008 event (seed 6, the browser tests' hall),
seated, with no half open (so that no clock runs), and the first three hands of tables 1 and
2 entered. The browser's clock is held at one instant, so that no page draws the time it was
taken at; the hall's "updated" time, the server's, is masked. `--compare` decodes both sets
in Chromium and counts the pixels that differ.
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any

import httpx

from app.settings import DEVELOPMENT_ADMIN_TOKEN
from bench.load import RoundOne, Server, hand_headers, import_log, issue_tokens

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-component-update"]
FIXED_TIME = "2026-06-01T10:00:00Z"
HANDS_ENTERED = {1: 3, 2: 3}
# One port for every run: the admin console's links and QR codes carry the server's address.
PORT = 18715


def hall_with_hands(folder: Path) -> tuple[Server, int, dict[int, str]]:
    url = f"sqlite:///{folder / 'scoreboard.db'}"
    round_one = RoundOne.generate(
        players=64, seed=6, format={"preset": "wsom2008", "advance": [16, 8, 4]}
    )
    tournament_id = import_log(url, round_one.setup_lines, folder)
    tokens = issue_tokens(url, tournament_id, round_one.tables)
    server = Server(url, PORT, folder / "server.log")
    server.start(ready_within=120)  # a loaded machine starts it slowly
    for table, count in HANDS_ENTERED.items():
        for body in round_one.hands[table][:count]:
            answer = httpx.post(
                f"{server.base_url}/api/tournaments/{tournament_id}/hands",
                json=body,
                headers=hand_headers(tokens[table], f"shots-{uuid.uuid4()}"),
            )
            answer.raise_for_status()
    return server, tournament_id, tokens


def settle(page: Any, predicate: str) -> None:
    page.wait_for_function(predicate, timeout=15_000)
    page.evaluate("() => document.fonts.ready")
    page.wait_for_timeout(800)  # a last render after the feed's first messages


def shoot(browser: Any, out: Path, base: str, tid: int, tokens: dict[int, str]) -> None:
    def context(width: int, height: int, **options: Any) -> Any:
        made = browser.new_context(viewport={"width": width, "height": height}, **options)
        made.clock.install(time=FIXED_TIME)
        made.clock.pause_at(FIXED_TIME)
        return made

    def save(page: Any, name: str, mask: tuple[str, ...] = ()) -> None:
        page.screenshot(
            path=str(out / f"{name}.png"),
            full_page=True,
            animations="disabled",
            mask=[page.locator(selector) for selector in mask],
        )
        page.context.close()
        print(name)

    for name, (width, height) in {
        "judge-1280x800": (1280, 800),
        "judge-800x1280": (800, 1280),
    }.items():
        page = context(width, height, has_touch=True).new_page()
        page.goto(f"{base}/judge?token={tokens[1]}")
        settle(
            page,
            "() => window.judgeTablet && judgeTablet.who && judgeTablet.table"
            " && document.querySelectorAll('#hands tbody tr').length > 0",
        )
        save(page, name)

    page = context(1920, 1080).new_page()
    page.goto(f"{base}/hall/{tid}?page=1")
    settle(
        page,
        "() => window.hallDisplay?.feed.status === 'live'"
        " && document.querySelectorAll('#rows .hall-row').length > 0"
        " && document.querySelectorAll('#tables .table-cell').length > 0",
    )
    save(page, "hall", mask=("#updated",))  # the server's time of the last update

    page = context(1440, 900).new_page()
    page.goto(f"{base}/admin/{tid}")
    page.fill("#token-input", DEVELOPMENT_ADMIN_TOKEN)
    page.locator("#gate-form button").first.click()
    settle(page, "() => document.querySelectorAll('#links .link-card').length > 0")
    save(page, "admin")

    page = context(390, 844, is_mobile=True, has_touch=True).new_page()
    page.goto(f"{base}/p/P0045?t={tid}")
    settle(page, "() => document.readyState === 'complete'")
    save(page, "spectator-player")

    for path in ("top", "table/1"):
        page = context(1920, 1080).new_page()
        page.goto(f"{base}/overlay/{tid}/{path}")
        settle(page, "() => document.readyState === 'complete'")
        save(page, "overlay-" + path.replace("/", "-"))


def take(out: Path) -> None:
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        server, tid, tokens = hall_with_hands(Path(folder))
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                shoot(browser, out, server.base_url, tid, tokens)
                browser.close()
        finally:
            server.stop()


COUNT_DIFFERENT = """async ([a, b]) => {
  const load = async (data) => {
    const image = new Image();
    image.src = 'data:image/png;base64,' + data;
    await image.decode();
    const canvas = document.createElement('canvas');
    canvas.width = image.width;
    canvas.height = image.height;
    const context = canvas.getContext('2d');
    context.drawImage(image, 0, 0);
    return context.getImageData(0, 0, image.width, image.height);
  };
  const [x, y] = [await load(a), await load(b)];
  if (x.width !== y.width || x.height !== y.height)
    return {size: [[x.width, x.height], [y.width, y.height]]};
  let differ = 0;
  for (let i = 0; i < x.data.length; i += 4)
    if (x.data[i] !== y.data[i] || x.data[i + 1] !== y.data[i + 1]
        || x.data[i + 2] !== y.data[i + 2] || x.data[i + 3] !== y.data[i + 3]) differ += 1;
  return {differ, pixels: x.width * x.height};
}"""


def compare(before: Path, after: Path) -> int:
    from playwright.sync_api import sync_playwright

    names = sorted(p.name for p in before.glob("*.png"))
    changed = 0
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page()
        for name in names:
            pair = [
                base64.b64encode((folder / name).read_bytes()).decode()
                for folder in (before, after)
            ]
            result = page.evaluate(COUNT_DIFFERENT, pair)
            same = result.get("differ") == 0
            changed += not same
            print(f"{name}: {'same' if same else 'DIFFERENT'} {json.dumps(result)}")
        browser.close()
    return changed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--compare", action="store_true", help="compare two folders of shots")
    args = parser.parse_args()
    if args.compare:
        sys.exit(1 if compare(*args.folders) else 0)
    take(args.folders[0])


if __name__ == "__main__":
    main()
