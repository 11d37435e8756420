"""What one update of the live feed costs the server when a whole hall follows it (issue 5).

    python -m bench.hall

Round 1 of a generated 1,024-player WSOM 2008 log, with the first PLAYED_BEFORE hands of
every table (bench/fanout.py), and the channels a full hall follows: the standings, the
clocks, what the players at the cut line need (issue 18: the hall's cut page and the TV
bubble), every table (the judges' tablets) and 1,000 players (spectators' phones). For
hands played one at a time, it times, per hand:
- the channels' states (app/read/views.States), as a flush computes them, with the
  standings rows made for the state before reused (LiveStandings.earlier) and without;
- the changes from the states before and their encoding, once per changed channel;
- the needs channel alone, from a fresh view (what it adds to a flush: each player's needs
  are worked out once a version, and the player channels reuse them).
It also prints how many channels a hand changes and the bytes of their changes.
The event loop of `scoreboard serve` does this work once per update (at most ten a second).
"""

from __future__ import annotations

import json
import statistics
import time
from datetime import UTC, datetime

from app.domain.replay import StandingRowData, apply_line, replay_lines
from app.domain.standings import Standing
from app.read.views import LiveState, States
from app.realtime.channels import change
from app.realtime.hub import encode
from bench.fanout import PLAYED_BEFORE, PLAYERS, SEED, Poster, played_lines
from bench.load import RoundOne

HANDS = 60
PHONES = 1000


def main() -> None:
    round_one = RoundOne.generate(players=PLAYERS, seed=SEED)
    tournament = replay_lines([*round_one.setup_lines, *played_lines(round_one)])
    players = [str(player) for player in list(tournament.players)[:PHONES]]
    channels = [
        "standings",
        "clocks",
        "needs",
        *(f"table:{table}" for table in round_one.tables),
        *(f"player:{player}" for player in players),
    ]
    now = datetime.now(UTC)
    earlier: dict[Standing, StandingRowData] = {}

    def states(reuse: bool) -> dict[str, LiveState]:
        nonlocal earlier
        view = States(tournament, now, earlier if reuse else None)
        fresh = {channel: view.live(channel) for channel in channels}  # as a flush does
        if reuse:
            earlier = view.live_standings().made
        return fresh

    poster = Poster(round_one, {}, PLAYED_BEFORE)
    held = states(True)
    computed, afresh, diffed, changed, sizes, needs = [], [], [], [], [], []
    for number in range(HANDS):
        hand = poster.next_timed()
        apply_line(tournament, json.dumps({"type": "hand", **hand, "id": f"hall-{number}"}))
        started = time.perf_counter()
        States(tournament, now, None).live("needs")
        needs.append(time.perf_counter() - started)
        started = time.perf_counter()
        states(False)
        afresh.append(time.perf_counter() - started)
        started = time.perf_counter()
        fresh = states(True)
        computed.append(time.perf_counter() - started)
        started = time.perf_counter()
        frames = []
        for channel in channels:
            difference = change(channel, held[channel], fresh[channel])
            if difference is not None:
                frames.append(encode({"type": "change", "channel": channel, **difference}))
        diffed.append(time.perf_counter() - started)
        changed.append(len(frames))
        sizes.append(sum(map(len, frames)))
        held = fresh

    def ms(values: list[float]) -> str:
        ordered = sorted(values)
        return (
            f"median {statistics.median(ordered) * 1000:7.2f} ms, max {ordered[-1] * 1000:7.2f} ms"
        )

    print(
        f"{PLAYERS} players, {PLAYED_BEFORE} hands played at every table; {len(channels)} "
        f"channels followed (standings, clocks, needs, {len(round_one.tables)} tables, "
        f"{len(players)} players); {HANDS} hands, one update each"
    )
    print(f"  channel states, standings rows reused: {ms(computed)}")
    print(f"  channel states, every row made afresh: {ms(afresh)}")
    print(f"  changes and their encoding:            {ms(diffed)}")
    print(f"  the needs channel alone, a fresh view: {ms(needs)}")
    print(
        f"  channels changed by a hand: median {statistics.median(changed):.0f}, "
        f"{statistics.median(sizes) / 1000:.1f} KB of changes (each encoded once for all "
        "its clients)"
    )


if __name__ == "__main__":
    main()
