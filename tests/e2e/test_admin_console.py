"""The organizer's console (issue 6) in real Chromium, against the server as a real process:
a small day run from the console alone. A tournament from a custom format (16 players, 8
advance, then 4, then the final), players pasted as CSV, round 1 drawn with a seed and its
slips printed, judges' tokens as QR codes, a segment opened and closed, an extension and a
penalty; judges enter hands with the tokens the console showed (their tablet is another
page), and the round end shows the cut and the draw that decided the tie at it. The log and
the results are exported. The admin token never appears in a URL.

With SCOREBOARD_SCREENSHOTS set, it writes docs/screens/admin*.png.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from playwright.sync_api import expect

from app.settings import DEVELOPMENT_ADMIN_TOKEN
from bench.load import RoundOne, Server, free_port, import_log, issue_tokens

pytestmark = pytest.mark.slow

SCREENS = Path(__file__).resolve().parents[2] / "docs" / "screens"
# A name that would run script if any page put it in as HTML.
TRAP = 'Zoë <img src=x onerror="window.pwned=1">'
# Player 5 has a name in their own script too (issue 17); player 4's is the trap again
LOCAL_NAMES = {4: TRAP, 5: "山田 剛"}
PLAYERS_CSV = "id,name,group,country,substitute,local_name\n" + "".join(
    f"{n},{TRAP if n == 3 else f'Player {n}'},{'A' if n <= 8 else 'B'},{'JP' if n % 2 else 'NL'},"
    f",{LOCAL_NAMES.get(n, '')}\n"
    for n in range(1, 17)
)


@pytest.fixture(scope="module")
def server(browser: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server of its own on an empty database: the console creates everything."""
    folder = tmp_path_factory.mktemp("admin-console")
    with Server(f"sqlite:///{folder / 'scoreboard.db'}", free_port(), folder / "server.log") as up:
        yield up


def judge(server: Server, tournament_id: int, token: str, path: str, body: dict[str, Any]) -> None:
    """What a judge's tablet sends (POST /api/tournaments/{tid}/...)."""
    response = httpx.post(
        f"{server.base_url}/api/tournaments/{tournament_id}/{path}",
        json=body,
        headers={"Authorization": f"Bearer {token}", "Idempotency-Key": str(uuid.uuid4())},
    )
    assert response.status_code == 201, response.text


def name_of(player: int) -> str:
    return TRAP if player == 3 else f"Player {player}"


def submit(page: Any, form: str, button: str = "button") -> None:
    page.locator(f"{form} {button}").first.click()


def test_a_small_day_runs_from_the_console_alone(page: Any, server: Server) -> None:
    urls: list[str] = []
    page.on("request", lambda request: urls.append(request.url))
    base = server.base_url

    # The token is asked for once; a wrong one is refused and not kept.
    page.goto(f"{base}/admin")
    expect(page.locator("#gate")).to_be_visible()
    page.fill("#token-input", "not-the-token")
    submit(page, "#gate-form")
    expect(page.locator("#gate output")).to_contain_text("not the admin token")
    assert page.evaluate("sessionStorage.length") == 0
    page.fill("#token-input", DEVELOPMENT_ADMIN_TOKEN)
    submit(page, "#gate-form")
    expect(page.locator("#steps")).to_be_visible()
    assert page.evaluate("Object.values(sessionStorage)") == [DEVELOPMENT_ADMIN_TOKEN]
    assert page.evaluate("localStorage.length") == 0
    page.goto(f"{base}/admin/999")  # the token is still held by this tab
    expect(page.locator("#pick-form output")).to_have_text("tournament 999 does not exist")
    expect(page.locator("#tournament-steps")).to_be_hidden()

    # 1. A tournament from a custom format.
    page.click("#create summary")
    page.fill("#create-form [name=name]", "Console Cup <b>2026</b>")
    page.select_option("#format-kind", "custom")
    page.fill("#create-form [name=advance]", "8, 4")
    submit(page, "#create-form")
    expect(page.locator("#tournament-steps")).to_be_visible()
    tournament_id = int(page.url.rsplit("/", 1)[1])
    expect(page.locator("#tournament-title")).to_have_text("Console Cup <b>2026</b>")
    expect(page.locator("#rounds tbody tr")).to_have_count(3)  # round 1, round 2, the final
    expect(page.locator("#facts")).to_contain_text("custom")

    # 4. Nobody is registered: the draw is not offered, and says why (rule FM-9).
    expect(page.locator("#draw-button")).to_be_disabled()
    expect(page.locator("#draw-refused")).to_contain_text("0 registered player(s)")
    expect(page.locator("#draw-refused")).to_contain_text("FM-9")

    # 2. Players: an uploaded file with a bad row is refused, naming it; then a pasted CSV.
    page.set_input_files(
        "#players-file",
        files=[{"name": "bad.csv", "mimeType": "text/csv", "buffer": b"id,name,group\n1,Ann,C\n"}],
    )
    expect(page.locator("#players-text")).to_have_value("id,name,group\n1,Ann,C\n")
    submit(page, "#players-form")
    expect(page.locator("#players-form output")).to_contain_text("line 2")
    expect(page.locator("#players-form output")).to_contain_text("FM-2")
    expect(page.locator("#players-count")).to_have_text("Nobody is registered yet.")
    page.fill("#players-text", PLAYERS_CSV)
    submit(page, "#players-form")
    expect(page.locator("#players-count")).to_contain_text("16 registered: group A 8, group B 8")
    expect(page.locator("#players tbody")).to_contain_text(TRAP)
    fifth = page.locator("#players tbody tr", has_text="Player 5")
    expect(fifth.locator("td").nth(2)).to_have_text("山田 剛")
    fourth = page.locator("#players tbody tr", has_text="Player 4")
    expect(fourth.locator("td").nth(2)).to_have_text(TRAP)  # shown as text, never run

    # 3. Prizes; 4. the draw with a seed, and the slips as a blob in a new tab.
    page.fill("#prizes-form [name=amounts]", "1000, 500, 300, 200")
    submit(page, "#prizes-form")
    expect(page.locator("#prizes-now")).to_contain_text("1. 1000.00 · 2. 500.00")
    expect(page.locator("#draw-button")).to_be_enabled()
    page.fill("#draw-form [name=seed]", "first-try")
    submit(page, "#draw-form")
    expect(page.locator("#draw-now")).to_contain_text("seed first-try")
    # Until the first deal or hand the round can be drawn again; the log keeps the first.
    expect(page.locator("#draw-button")).to_have_text("Redraw round 1")
    page.fill("#draw-form [name=seed]", "console-e2e")
    submit(page, "#draw-form")
    expect(page.locator("#draw-form output")).to_contain_text("tick “replace the draw”")
    page.check("#redraw")
    submit(page, "#draw-form")
    expect(page.locator("#draw-now")).to_contain_text("seed console-e2e")
    expect(page.locator("#draw-now")).to_contain_text("replaced the draw with seed first-try")
    expect(page.locator("#activity")).to_contain_text("Round 1 redrawn with seed console-e2e")
    with page.expect_popup() as opened:
        page.click("#slips-form button[value=html]")
    slips = opened.value
    slips.wait_for_url(lambda url: url.startswith("blob:"))  # no token in its address
    expect(slips.locator(".slip")).to_have_count(16)
    expect(slips.locator(".slip svg")).to_have_count(16)
    expect(slips.locator(".slip .name", has_text="Zoë")).to_have_text(TRAP)
    assert slips.locator("img").count() == 0
    if os.environ.get("SCOREBOARD_SCREENSHOTS"):
        SCREENS.mkdir(parents=True, exist_ok=True)
        slips.screenshot(path=str(SCREENS / "admin-slips.png"))
    slips.close()

    # 7. A token for every table, each shown as a QR code of the judge's page.
    tables = httpx.get(f"{base}/api/tournaments/{tournament_id}/tables?round=1").json()["tables"]
    first = {(row["group"], row["table"]): row["seats"] for row in tables if row["segment"] == 1}
    assert len(first) == 4
    submit(page, "#tokens-form", "button[value=all]")
    expect(page.locator("#token-cards .token-card svg")).to_have_count(4)
    tokens = {}
    for card in page.locator("#token-cards .token-card").all():
        url = card.locator(".url").inner_text()
        # The address the console was opened at (issue 13), flagged: it is loopback.
        assert url.startswith(f"{base}/judge#token=")
        expect(card.locator(".address-warning")).to_contain_text("cannot open it")
        tokens[int(card.get_attribute("data-table"))] = parse_qs(urlsplit(url).fragment)["token"][0]
    assert sorted(tokens) == sorted(table for _, table in first)

    # 5. Segment 1 of group A opens: its clocks run, so its judges record each deal.
    (a_table, a_other), (b_table, _) = (
        sorted(t for g, t in first if g == "A"),
        sorted(t for g, t in first if g == "B"),
    )
    row = page.locator("#segments tbody tr").first
    expect(row).to_contain_text("not opened")
    row.locator("button[data-act=open]").click()
    expect(row).to_contain_text("running")
    expect(page.locator(f"#clocks .clock.running[data-table='{a_table}']")).to_contain_text("69:")

    # 6. An extension for the TV table and a penalty chosen by name.
    page.fill("#extension-form [name=table]", str(a_table))
    page.fill("#extension-form [name=minutes]", "10")
    submit(page, "#extension-form")
    expect(page.locator("#activity")).to_contain_text("10 more minutes")
    penalized = first[("A", a_other)][0]
    page.select_option("#penalty-player", str(penalized))
    page.fill("#penalty-form [name=points]", "-5")
    page.fill("#penalty-form [name=reason]", "late arrival")
    submit(page, "#penalty-form")
    expect(page.locator("#penalties")).to_contain_text(f"-5 · {name_of(penalized)}")
    expect(page.locator("#penalties")).to_contain_text("late arrival")

    # Judges enter a hand at a table of each group with the tokens from the QR codes: two
    # winners (+30), six payers (-10), the penalized player (-5) and seven on 0 for the six
    # places left above the cut of 8, none with a winning hand: only a draw decides.
    east = first[("A", a_table)][0]
    where = {"round": 1, "segment": 1, "table": a_table}
    judge(server, tournament_id, tokens[a_table], "deals", where | {"hand": 1})
    judge(
        server,
        tournament_id,
        tokens[a_table],
        "hands",
        where | {"hand": 1, "result": {"kind": "self_draw", "winner": east, "value": 10}},
    )
    winner, discarder = first[("B", b_table)][:2]
    result = {"kind": "discard", "winner": winner, "discarder": discarder, "value": 10}
    judge(
        server,
        tournament_id,
        tokens[b_table],
        "hands",
        {"round": 1, "segment": 1, "table": b_table, "hand": 1, "result": result},
    )
    # The live standings show the tie at the line before the round ends (rule ST-7).
    expect(page.locator("#tie")).to_contain_text("Level at 0 across the cut")
    expect(page.locator("#tie")).to_contain_text("for 6 place(s) decides at the round end")
    expect(page.locator("#standings tr.cut-line")).to_contain_text("cut: 8 advance")
    expect(page.locator(f"#clocks [data-table='{a_table}']")).to_contain_text("1/8")
    # Play has begun: the draw stands (rule SE-1), and the button says why it is off.
    expect(page.locator("#draw-button")).to_be_disabled()
    expect(page.locator("#draw-refused")).to_contain_text(f"at table {a_table}, segment 1")
    expect(page.locator("#draw-refused")).to_contain_text("rule SE-1")
    if os.environ.get("SCOREBOARD_SCREENSHOTS"):
        page.screenshot(path=str(SCREENS / "admin-console.png"), full_page=True)

    # The segment closes for group A, once the organizer confirms: it is never reopened.
    page.once("dialog", lambda dialog: dialog.accept())
    row.locator("button[data-act=close]").click()
    expect(row).to_contain_text("closed")

    # 9. The round ends with a seed the server draws; the answer shows the cut and the draw.
    # Every table of the four halves has not played out: each is listed, and the round
    # ends only with the box ticked and a reason, which goes into the log.
    page.click("#end-arm")
    expect(page.locator("#end-confirm")).to_contain_text("cannot be undone")
    expect(page.locator("#end-warning")).to_contain_text(
        "16 table halves (at 4 tables) have not played out"
    )
    # half 1's four tables one by one; each half nobody has played, in one line
    expect(page.locator("#end-tables li")).to_have_count(4 + 6)
    expect(page.locator("#end-tables")).to_contain_text(
        "Half 3 of group B: not played at any of its 2 tables"
    )
    expect(page.locator("#end-tables")).to_contain_text(
        f"Table {a_table}, half 1 of group A: 1 of 8 hands"
    )
    expect(page.locator("#end-tables")).to_contain_text(
        f"Table {a_other}, half 1 of group A: 0 of 8 hands (not played)"
    )
    page.click("#end-button")
    expect(page.locator("#end-form output")).to_contain_text("tick the box")
    page.check("#end-anyway")
    page.click("#end-button")
    expect(page.locator("#end-form output")).to_contain_text("give the reason")
    page.fill("#end-reason", "a short day: one hand a table")
    page.click("#end-button")
    panel = page.locator("#round-end")
    expect(panel).to_contain_text("Round 1 ended")
    ended = httpx.get(f"{base}/api/tournaments/{tournament_id}/standings?round=1").json()
    tie = ended["rounds"][0]["cut"]["tie"]
    assert len(tie["draw_among"]) == 7 and len(tie["draw_winners"]) == 6
    expect(panel.locator("#end-seed")).to_have_text(tie["draw_seed"])
    expect(panel).to_contain_text("drawn by the server")
    expect(panel).to_contain_text("8 advance")
    loser = next(p for p in tie["draw_among"] if p not in tie["draw_winners"])
    expect(panel.locator(".draw")).to_contain_text(f"for 6 place(s): seed {tie['draw_seed']}")
    drawn_in = panel.locator(".draw").inner_text().split("→")[1]
    assert f"({loser})" not in drawn_in
    assert all(f"({p})" in drawn_in for p in tie["draw_winners"])
    # Section 8 stays on the round that ended, with the line between 8 and 9.
    expect(page.locator("#standings-round")).to_have_value("1")
    cut = page.locator("#standings tbody tr.cut-line")
    expect(cut).to_have_count(1)
    # A retrying look: the feed may render the table again between finding the row and
    # reading its neighbour, and a row taken out by that render has none (seen under load).
    expect(cut.locator("xpath=preceding-sibling::tr[1]/td[1]")).to_have_text("8")
    expect(page.locator("#draw-button")).to_have_text("Draw round 2")
    if os.environ.get("SCOREBOARD_SCREENSHOTS"):
        page.screenshot(path=str(SCREENS / "admin-round-end.png"), full_page=True)

    # 10. The log and the results, downloaded with the header; the printable page is public.
    with page.expect_download() as log_download:
        submit(page, "#exports-form", "button[value=log]")
    lines = [json.loads(line) for line in Path(log_download.value.path()).read_text().splitlines()]
    assert lines[0]["type"] == "tournament" and lines[-1]["type"] == "round_end"
    assert lines[-1]["draw_seed"] == tie["draw_seed"]
    assert lines[-1]["reason"] == "a short day: one hand a table"
    assert [line["seed"] for line in lines if line["type"] == "draw"] == [
        "first-try",
        "console-e2e",
    ]
    assert {"penalty", "extension", "segment_end", "draw"} <= {line["type"] for line in lines}
    with page.expect_download() as results_download:
        submit(page, "#exports-form", "button[value=results]")
    assert results_download.value.suggested_filename == f"results-{tournament_id}.csv"
    rows = list(csv.DictReader(io.StringIO(Path(results_download.value.path()).read_text())))
    assert [r["list"] for r in rows].count("final_ranking") == 8  # eliminated in round 1
    assert [r["list"] for r in rows].count("standings") == 8  # round 2, carried in
    with page.expect_popup() as printable:
        page.click("#results-page")
    results = printable.value
    expect(results.locator("h1")).to_have_text("Console Cup <b>2026</b>")
    expect(results.locator("#final-ranking tbody tr")).to_have_count(8)
    # Round 2 has no hand yet: the sheet shows who went through round 1, and links round 2.
    expect(results.locator("#standings")).to_contain_text("Standings, round 1")
    expect(results.locator("#standings tbody")).to_contain_text("advanced")
    results.click("text=Round 2 (now)")
    expect(results.locator("#standings")).to_contain_text("Standings, round 2")
    if os.environ.get("SCOREBOARD_SCREENSHOTS"):
        results.screenshot(path=str(SCREENS / "admin-results.png"), full_page=True)
    results.close()

    # Names went in as text everywhere; the admin token never went into a URL.
    assert page.evaluate("window.pwned") is None
    assert page.locator("img").count() == 0
    assert not [url for url in urls if DEVELOPMENT_ADMIN_TOKEN in url]


def test_the_console_links_every_page_with_its_qr_code(page: Any, server: Server) -> None:
    # Issue 13, section 3: the hall PCs and the TV desk open the tournament's pages from the
    # console, by link or by QR code.
    base = server.base_url
    admin = {"Authorization": f"Bearer {DEVELOPMENT_ADMIN_TOKEN}"}
    made = httpx.post(
        f"{base}/api/tournaments", json={"name": "Links Open", "format": "wsom2008"}, headers=admin
    )
    tid = made.json()["id"]
    players = [{"id": n, "name": f"Player {n}", "group": "A" if n <= 8 else "B"} for n in (1, 9)]
    registered = httpx.post(f"{base}/api/tournaments/{tid}/players", json=players, headers=admin)
    assert registered.status_code == 201, registered.text

    page.goto(f"{base}/admin/{tid}")
    page.fill("#token-input", DEVELOPMENT_ADMIN_TOKEN)
    submit(page, "#gate-form")
    links = page.locator("#links .link-card")
    expect(links.first).to_be_visible()
    shown = [card.get_attribute("data-url") for card in links.all()]
    for path in (f"/hall/{tid}", f"/hall/{tid}?page=cut", f"/?t={tid}", f"/overlay/{tid}/clock"):
        assert f"{base}{path}" in shown, path
    assert f"{base}/feeds/{tid}/standings.csv" in shown
    assert f"{base}/overlay/{tid}/player/1" in shown
    assert links.locator("svg").count() == len(shown)
    expect(page.locator("#links-base")).to_have_text(base)
    # The server listens on 127.0.0.1: a tablet could open none of these codes.
    expect(page.locator("#links-warning")).to_be_visible()
    expect(page.locator("#links-warning")).to_contain_text("SCOREBOARD_PUBLIC_URL")

    page.select_option("#links-player", "9")
    page.fill("#links-table", "3")
    submit(page, "#links-form")
    expect(
        page.locator(f"#links .link-card[data-url='{base}/overlay/{tid}/table/3']")
    ).to_be_visible()
    expect(
        page.locator(f"#links .link-card[data-url='{base}/overlay/{tid}/player/9']")
    ).to_be_visible()

    with page.expect_popup() as opened:
        page.locator(f"#links .link-card[data-url='{base}/hall/{tid}'] a").click()
    expect(opened.value.locator("body")).to_be_visible()
    assert opened.value.url == f"{base}/hall/{tid}"


def sign_in(page: Any, base: str, tournament_id: int) -> None:
    page.goto(f"{base}/admin/{tournament_id}")
    page.fill("#token-input", DEVELOPMENT_ADMIN_TOKEN)
    submit(page, "#gate-form")
    expect(page.locator("#tournament-steps")).to_be_visible()


def test_an_ari_ari_day_runs_from_the_console_without_groups(page: Any, server: Server) -> None:
    base = server.base_url
    page.goto(f"{base}/admin")
    page.fill("#token-input", DEVELOPMENT_ADMIN_TOKEN)
    submit(page, "#gate-form")
    page.click("#create summary")
    page.fill("#create-form [name=name]", "Ari Ari Open")
    page.select_option("#format-kind", "ariari")
    submit(page, "#create-form")
    expect(page.locator("#tournament-steps")).to_be_visible()
    tournament_id = int(page.url.rsplit("/", 1)[1])
    # an Ari Ari game ends by its rules, not after a number of hands (rule AA-12)
    expect(page.locator("#rounds tbody tr").first).not_to_contain_text("hands")
    expect(page.locator("#players-no-group")).to_be_visible()

    # rule FM-2: a format without groups takes its players without a group column
    players = "id,name,country\n" + "".join(f"p{n},Player {n},JP\n" for n in range(1, 9))
    page.fill("#players-text", players)
    submit(page, "#players-form")
    expect(page.locator("#players-count")).to_have_text("8 registered")
    submit(page, "#draw-form")
    expect(page.locator("#draw-now")).to_contain_text("Round 1 is drawn")

    rows = page.locator("#segments tbody tr")
    expect(rows).to_have_count(2)  # two games, no group
    expect(rows.first.locator("td").first).to_have_text("–")
    expect(page.locator("#schedule-form [data-groups]")).to_be_hidden()
    rows.first.locator("button[data-act=open]").click()
    expect(rows.first).to_contain_text("running")
    expect(page.locator("#segments-problem")).to_be_empty()
    expect(page.locator("#clocks .clock.running")).to_have_count(2)
    expect(page.locator("#clocks .clock").first).to_contain_text("0 hands")

    # Everyone is on 0 before the first hand: the tie box says so in one line.
    expect(page.locator("#tie")).to_contain_text("No score yet: all 8 players are level at 0")
    expect(page.locator("#tie")).not_to_contain_text("Player 1")

    # Scheduling the second game names no group either.
    page.fill("#schedule-form [name=segment]", "2")
    page.fill("#schedule-form [name=start]", "2030-01-01T09:00")
    submit(page, "#schedule-form")
    expect(page.locator("#schedule-form output")).to_be_empty()
    expect(rows.nth(1)).to_contain_text("scheduled")

    # Ending the round lists both games: neither has begun at either table.
    page.click("#end-arm")
    expect(page.locator("#end-tables li")).to_have_count(2)
    expect(page.locator("#end-tables")).to_contain_text("Game 1: not played at any of its 2 tables")
    expect(page.locator("#players tbody")).to_contain_text("–")
    assert tournament_id > 0


def test_the_tie_box_of_a_320_player_field_is_compact_before_the_first_hand(
    page: Any, server: Server
) -> None:
    base = server.base_url
    admin = {"Authorization": f"Bearer {DEVELOPMENT_ADMIN_TOKEN}"}
    made = httpx.post(
        f"{base}/api/tournaments", json={"name": "WSOM 320", "format": "wsom2008"}, headers=admin
    )
    assert made.status_code == 201, made.text
    tournament_id = made.json()["id"]
    players = [
        {"id": n, "name": f"Player {n}", "group": "A" if n <= 160 else "B"} for n in range(1, 321)
    ]
    registered = httpx.post(
        f"{base}/api/tournaments/{tournament_id}/players", json=players, headers=admin
    )
    assert registered.status_code == 201, registered.text
    drawn = httpx.post(
        f"{base}/api/tournaments/{tournament_id}/rounds/1/draw", json={}, headers=admin, timeout=30
    )
    assert drawn.status_code == 201, drawn.text
    sign_in(page, base, tournament_id)
    tie = page.locator("#tie")
    # the console's first read of a 320-player field: a few seconds on a machine busy with
    # the rest of the suite (it missed the 5 s default there), well under 15
    expect(tie).to_contain_text(
        "No score yet: all 320 players are level at 0; 256 of them", timeout=15_000
    )
    assert "Player" not in tie.inner_text()
    # the standings show the rows at the cut, not all 320 tied players
    expect(page.locator("#standings tr.cut-line")).to_have_count(1)
    assert page.locator("#standings tbody tr").count() < 20


def test_the_head_judge_records_a_deal_from_the_console(page: Any, server: Server) -> None:
    """Issue 13, section 2: a tablet's deal refused because its clock was off (rule CL-6),
    or one a judge forgot, is recorded by the head judge (the admin credential) at the time
    they decide, with a reason that goes into the log; a refusal says why in the form."""
    base = server.base_url
    round_one = RoundOne.generate(
        players=16, seed=13, format={"preset": "wsom2008", "advance": [8, 4]}
    )
    folder = Path(server.log_path).parent
    tid = import_log(server.database_url, round_one.setup_lines, folder)
    admin = {"Authorization": f"Bearer {DEVELOPMENT_ADMIN_TOKEN}"}
    seating = next(
        line
        for line in map(json.loads, round_one.setup_lines)
        if line["type"] == "seating" and line["table"] == 1 and line["segment"] == 1
    )
    group = next(
        line["group"]
        for line in map(json.loads, round_one.setup_lines)
        if line["type"] == "player" and line["id"] == seating["seats"][0]
    )
    start = datetime.now(UTC) - timedelta(minutes=10)
    scheduled = httpx.post(
        f"{base}/api/tournaments/{tid}/schedule",
        json={"round": 1, "segment": 1, "group": group, "start": start.isoformat()},
        headers=admin,
    )
    assert scheduled.status_code == 201, scheduled.text

    sign_in(page, base, tid)
    form = page.locator("#override-form")
    # an early start takes no hand; a deal does
    form.locator("select[name=type]").select_option("early_start")
    expect(form.locator("[data-override-hand]")).to_be_hidden()
    form.locator("select[name=type]").select_option("deal")
    expect(form.locator("[data-override-hand]")).to_be_visible()

    # A table this round does not have: the server's refusal shows in the form.
    form.locator("input[name=table]").fill("99")
    form.locator("input[name=hand]").fill("1")
    dealt_at = page.evaluate(
        """() => { const at = new Date(Date.now() - 5 * 60000);
                   const two = (n) => String(n).padStart(2, '0');
                   return `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())}` +
                     `T${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}`; }"""
    )
    form.locator("input[name=time]").fill(dealt_at)
    form.locator("input[name=reason]").fill("tablet clock 4 min slow")
    submit(page, "#override-form")
    expect(form.locator("output.problem")).not_to_be_empty()
    assert not [line for line in log_lines(base, tid) if line["type"] == "deal"]

    form.locator("input[name=table]").fill("1")
    submit(page, "#override-form")
    expect(page.locator("#activity")).to_contain_text("Head judge: table 1, segment 1")
    deals = [line for line in log_lines(base, tid) if line["type"] == "deal"]
    assert len(deals) == 1, deals
    assert deals[0]["table"] == 1 and deals[0]["hand"] == 1
    assert deals[0]["override"] == "tablet clock 4 min slow"
    assert deals[0]["by"] == "admin"
    dealt = datetime.fromisoformat(deals[0]["time"].replace("Z", "+00:00"))
    assert abs(dealt - (datetime.now(UTC) - timedelta(minutes=5))) < timedelta(minutes=1)
    # The hand after it is taken from the tablet (the deal was in time, rule CL-3).
    judge(
        server,
        tid,
        issue_tokens(server.database_url, tid, [1])[1],
        "hands",
        {"round": 1, "segment": 1, "table": 1, "hand": 1, "result": {"kind": "draw"}},
    )


def log_lines(base: str, tournament_id: int) -> list[dict[str, Any]]:
    text = httpx.get(f"{base}/api/tournaments/{tournament_id}/log").text
    return [json.loads(line) for line in text.splitlines()]


def test_two_console_tabs_see_each_others_draws_and_the_clumsy_inputs_are_caught(
    browser: Any, server: Server
) -> None:
    # Two tabs on one tournament (issue 13, the organizer's clumsy moves): the second learns
    # of the first's draw from the feed's heartbeat, so it offers a redraw, not a draw, and
    # its redraw names the draw it replaces (the server refuses one that does not).
    base = server.base_url
    admin = {"Authorization": f"Bearer {DEVELOPMENT_ADMIN_TOKEN}"}
    made = httpx.post(
        f"{base}/api/tournaments",
        json={"name": "Two tabs", "format": {"preset": "wsom2008", "advance": [8, 4]}},
        headers=admin,
    )
    tid = made.json()["id"]
    players = [{"id": n, "name": f"Player {n}", "group": "AB"[n % 2]} for n in range(1, 17)]
    registered = httpx.post(f"{base}/api/tournaments/{tid}/players", json=players, headers=admin)
    assert registered.status_code == 201, registered.text
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        first, second = context.new_page(), context.new_page()
        for tab in (first, second):
            sign_in(tab, base, tid)
        expect(second.locator("#draw-button")).to_have_text("Draw round 1")
        # no clock for nobody: a segment opens once its round is drawn (rule SE-1)
        expect(first.locator("#segments button[data-act=open]").first).to_be_disabled()
        first.fill("#draw-form [name=seed]", "first tab")
        submit(first, "#draw-form")
        expect(first.locator("#draw-now")).to_contain_text("seed first tab")
        # a draw moves no standings; the second tab hears of it all the same
        expect(second.locator("#draw-button")).to_have_text("Redraw round 1", timeout=15000)
        expect(second.locator("#draw-now")).to_contain_text("seed first tab")
        second.check("#redraw")
        second.fill("#draw-form [name=seed]", "second tab")
        submit(second, "#draw-form")
        expect(second.locator("#draw-now")).to_contain_text("replaced the draw with seed first tab")
        stale = httpx.post(
            f"{base}/api/tournaments/{tid}/rounds/1/draw", json={"seed": "x"}, headers=admin
        )
        assert stale.status_code == 409 and stale.json()["field"] == "replaces", stale.text

        # A segment opened in one tab is no longer "Open now" in the other.
        row = "#segments tbody tr:first-child"
        first.locator(f"{row} button[data-act=open]").click()
        expect(first.locator(row)).to_contain_text("running")
        expect(second.locator(row)).to_contain_text("running", timeout=15000)
        # group B has no start yet: its tables have not begun, though their clock "runs"
        expect(first.locator("#clocks [data-table='3']")).to_contain_text("not started")
        expect(first.locator("#clocks [data-table='1']")).to_contain_text("running")

        # Closing a segment asks first; a half not started says its tables would never play.
        asked: list[str] = []
        second.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
        second.locator("#segments tbody tr:nth-child(2) button[data-act=close]").click()
        expect(second.locator("#segments tbody tr:nth-child(2)")).to_contain_text("not opened")
        assert "cannot be reopened" in asked[0] and "would never play it" in asked[0]

        # "1,000" is one amount or two: refused, not read as 1 and 0.
        second.fill("#prizes-form [name=amounts]", "1,000 500 300")
        submit(second, "#prizes-form")
        expect(second.locator("#prizes-form output")).to_contain_text("write 1000 for one")
        expect(second.locator("#prizes-now")).to_have_text("No prize table yet.")
        second.fill("#prizes-form [name=amounts]", "1000,500,300")
        submit(second, "#prizes-form")
        expect(second.locator("#prizes-now")).to_contain_text("1. 1000.00 · 2. 500.00 · 3. 300.00")

        # A CSV saved in Excel's Windows encoding is refused before it garbles a name.
        latin = "id,name,group\n90,José García,A\n".encode("cp1252")
        second.set_input_files(
            "#players-file", files=[{"name": "excel.csv", "mimeType": "text/csv", "buffer": latin}]
        )
        expect(second.locator("#players-form output")).to_contain_text(
            "excel.csv is not UTF-8 text"
        )
        expect(second.locator("#players-text")).to_have_value("")
        utf8 = "\ufeffid,name,group\r\n90,José García,A\r\n".encode()
        second.set_input_files(
            "#players-file", files=[{"name": "utf8.csv", "mimeType": "text/csv", "buffer": utf8}]
        )
        expect(second.locator("#players-form output")).to_be_empty()
        expect(second.locator("#players-text")).to_have_value(re.compile("90,José García,A"))

        # The QR codes of the links panel fill their cards (a figure's margins halved them),
        # and each code is drawn at the size its box is given (an SVG without a viewBox
        # kept its drawn size in a corner of the 45 mm box of a printed token card).
        code = second.locator("#links .link-card svg").first
        expect(code).to_be_visible()
        assert code.bounding_box()["width"] >= 110
        second.locator("#token-tables button[value='1']").click()
        expect(second.locator("#token-cards figure")).to_have_count(1)
        with second.expect_popup() as opened:
            second.click("#print-tokens")
        cards = opened.value
        printed = cards.locator("section svg").first
        expect(printed).to_be_visible()
        box = printed.bounding_box()
        drawn = printed.locator("path").bounding_box()
        assert box["width"] > 160 and drawn["width"] > 0.85 * box["width"], (box, drawn)
        assert drawn["height"] > 0.85 * box["height"], (box, drawn)
    finally:
        context.close()
