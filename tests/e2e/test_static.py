"""The pages' shared client, loaded in real Chromium from our own server (no CDN)."""

from __future__ import annotations

from typing import Any

from e2e_support import wait_for


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
