"""The figures a technician watches on the day (issue 16), as Prometheus metrics.

Each server process counts its own: Prometheus scrapes every process (`GET /metrics`, with
SCOREBOARD_METRICS_TOKEN), and the dashboard (docs/grafana-dashboard.json) sums them. The
counters and histograms here are the process's; what a scrape reads off the live feed (its
clients by channel, each tournament's version lag) is collected from the hub at that moment
(app/realtime/hub.py, `HubCollector`), so no client's join or leave pays for a metric.

Labels are bounded: a route is its template (`/api/tournaments/{tournament_id}/hands`), a
channel its kind (`standings`, `clocks`, `table`, `player`), a rule its number in RULES.md.
Nothing a client makes up becomes a label.
"""

from __future__ import annotations

from prometheus_client import Counter, Histogram, disable_created_metrics

# Seconds: a request, a database statement or a Redis command. From a quick read (under a
# millisecond) to the timeouts that end a stuck one (seconds).
LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)
BYTES_BUCKETS = (256, 1024, 4096, 16_384, 65_536, 262_144, 1_048_576, 4_194_304)

HANDS = Counter(
    "scoreboard_hands",
    "Hand entries (hands, corrections, voids) by outcome: accepted, replayed (a retry's first "
    "answer again) or refused, and the rule a refusal names",
    ["outcome", "rule"],
)
REQUEST_SECONDS = Histogram(
    "scoreboard_request_seconds",
    "HTTP requests, from the first byte of the request to the last of the answer",
    ["method", "route", "status"],
    buckets=LATENCY_BUCKETS,
)
COMMITS = Counter("scoreboard_commits", "Changes this process committed to a tournament's log")
FLUSH_SECONDS = Histogram(
    "scoreboard_feed_flush_seconds",
    "A live feed's update: its channels' states computed and every change offered to clients",
    buckets=LATENCY_BUCKETS,
)
FLUSH_BYTES = Histogram(
    "scoreboard_feed_flush_bytes",
    "The changes one update encoded (each once, for all the clients of its channel)",
    buckets=BYTES_BUCKETS,
)
OVERFLOWS = Counter(
    "scoreboard_feed_overflows",
    "A client's queue full: what it held was dropped, fresh snapshots follow once it reads",
)
CLOSES = Counter(
    "scoreboard_feed_closes",
    "Live feed connections the server closed, by close code (4008: too slow to keep up)",
    ["code"],
)
CUTS = Counter(
    "scoreboard_feed_cuts",
    "Live feed connections cut without a goodbye: closed as too slow, their close went unread",
)
DATABASE_SECONDS = Histogram(
    "scoreboard_database_seconds",
    "Database statements, from sending to the result",
    buckets=LATENCY_BUCKETS,
)
REDIS_SECONDS = Histogram(
    "scoreboard_redis_seconds",
    "Redis commands: each announcement of a change (publish) and each readiness ping",
    ["command"],
    buckets=LATENCY_BUCKETS,
)

# Each counter's creation time as a series of its own is noise on a dashboard and in a scrape.
disable_created_metrics()  # type: ignore[no-untyped-call]  # untyped in prometheus-client
