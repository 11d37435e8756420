"""The pages' shared client, loaded in real Chromium from our own server (no CDN)."""

from __future__ import annotations

import random
from typing import Any

from e2e_support import wait_for

from app.realtime.channels import change
from tests.live_standings import PLACED_ROWS, standings_pair


def test_the_live_client_follows_the_feed_in_the_browser(page: Any, hall: Any) -> None:
    # A blank page of our own origin, so the module and the websocket are same-origin.
    page.goto(f"{hall.base_url}/api/health")
    page.evaluate(
        """async (tid) => {
            const { LiveFeed } = await import('/static/live.js');
            window.states = {};
            window.feed = new LiveFeed(tid, ['standings', 'clocks'], {
              onState: (channel, state) => { window.states[channel] = state; },
            }).connect();
        }""",
        hall.tournament_id,
    )
    wait_for(page, "() => window.states.standings && window.feed.status === 'live'")
    rows = page.evaluate("() => Object.keys(window.states.standings.rows).length")
    assert rows == 64
    assert page.evaluate("() => window.states.standings.cut.advance") == 16


def test_the_live_client_takes_its_clock_from_fresh_messages_not_replayed_changes(
    page: Any, hall: Any
) -> None:
    """rule CL-6: a client that resumes gets the changes it missed from the feed's history,
    each with the server_time it was first sent at; taking the clock from those would put a
    hall's countdown minutes out until the next heartbeat. The hello, snapshots and
    heartbeats are made as they are sent."""
    page.goto(f"{hall.base_url}/api/health")
    offsets = page.evaluate(
        """async () => {
            const { LiveFeed } = await import('/static/live.js');
            const feed = new LiveFeed(1, ['clocks']);  // never connected: messages by hand
            const ago = (ms) => new Date(Date.now() - ms).toISOString();
            const seen = [];
            feed.receive(JSON.stringify({ type: 'hello', version: 7, server_time: ago(0) }));
            seen.push(feed.serverNow() - Date.now());
            // a change first sent 10 minutes ago, replayed from the history (on a channel
            // this client does not follow, so nothing else happens)
            feed.receive(JSON.stringify({
                type: 'change', channel: 'table:3', since: 5, version: 6,
                server_time: ago(600000), mode: 'replace', data: {},
            }));
            seen.push(feed.serverNow() - Date.now());
            feed.receive(JSON.stringify({ type: 'heartbeat', version: 7, server_time: ago(0) }));
            seen.push(feed.serverNow() - Date.now());
            feed.close();
            return seen;
        }"""
    )
    assert [abs(offset) < 2000 for offset in offsets] == [True, True, True], offsets


def test_the_live_client_applies_standings_changes_as_the_server_means_them(
    page: Any, hall: Any
) -> None:
    """live.js rebuilds the standings from a change (rows, moves, ranks by rule ST-2) exactly
    as app/realtime/channels.py's apply_change does: rank moves, shared ranks, ties at the cut,
    players leaving and joining."""
    picker = random.Random(2008)
    examples = []
    while len(examples) < 300:
        before, after = standings_pair(picker.randint, most_players=40)
        message = change("standings", before, after)
        if message is not None:
            examples.append((before, message, after))
    page.goto(f"{hall.base_url}/api/health")
    rebuilt = page.evaluate(
        """async (examples) => {
            const { applyChange } = await import('/static/live.js');
            return examples.map(([before, message]) => applyChange('standings', before, message));
        }""",
        [[before, message] for before, message, _ in examples],
    )
    wrong = [i for i, (_, _, after) in enumerate(examples) if rebuilt[i] != after]
    assert wrong == [], (examples[wrong[0]], rebuilt[wrong[0]]) if wrong else None


def test_the_live_client_works_out_each_distance_to_the_cut_exactly(page: Any, hall: Any) -> None:
    """live.js placedRow gives a row's side of the cut, its distance (rule ST-3), exact (SC-4)
    and shown rounded down (SC-5), and its status, as channels.placed_row does."""
    page.goto(f"{hall.base_url}/api/health")
    derived = page.evaluate(
        """async (cases) => {
            const { placedRow } = await import('/static/live.js');
            return cases.map(([total, position, cut, ended]) => {
              const row = placedRow({ player: 'P1', total }, position, position, cut, ended);
              return [row.above_cut, row.distance, row.distance_shown, row.status];
            });
        }""",
        [list(case[:4]) for case in PLACED_ROWS],
    )
    assert derived == [list(case[4]) for case in PLACED_ROWS]


def test_the_api_docs_work_without_the_internet(page: Any, hall: Any) -> None:
    # Issue 13: /docs was blank in a hall without internet (Swagger UI came from a CDN).
    outside: list[str] = []

    def only_our_server(route: Any) -> None:
        if route.request.url.startswith(hall.base_url):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    page.route("**/*", only_our_server)
    page.goto(f"{hall.base_url}/docs")
    page.locator(".swagger-ui .info .title").wait_for()
    assert "WSOM Scoreboard" in page.locator(".swagger-ui .info .title").inner_text()
    feeds = page.locator(".opblock-tag-section", has_text="feeds")
    assert feeds.count() == 1
    assert page.locator(".opblock").count() > 10
    assert outside == []


def test_a_page_of_a_tournament_that_is_not_there_reads_as_a_page(page: Any, hall: Any) -> None:
    # Issue 13: /hall/99 showed raw JSON in a browser.
    answer = page.goto(f"{hall.base_url}/hall/99")
    assert answer is not None and answer.status == 404
    assert page.locator("h1").inner_text() == "Not found"
    assert "Tournament 99 does not exist." in page.locator(".detail").inner_text()
    page.locator(f".elsewhere a[href='/hall/{hall.tournament_id}']").click()
    page.wait_for_url(f"{hall.base_url}/hall/{hall.tournament_id}")
