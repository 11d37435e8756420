"""When a judge's table token stops opening its table (issue 14), as pure functions.

A token lives for one tournament day unless the organizer says otherwise (docs/contract.md,
"Judges' table tokens", TK-1). The day is the hall's: it ends at `DAY_ENDS_AT` hall time,
after any evening session and before any morning one. The schedule alone cannot say when a
day's play ends, since the final has no time limit (rule CL-1); a fixed hour in the small
hours can.
"""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta, tzinfo

from app.domain.errors import MalformedInput, say

DAY_ENDS_AT = time(4, 0)  # hall time: a token issued at 02:00 belongs to the evening before
# The longest an organizer may make a token last: a tournament's days, not a season.
MAX_TOKEN_LIFETIME = timedelta(days=14)
# A token issued in the last hour of a day still lasts this long: a card handed out at 03:59
# must not stop working a minute later, while its table is still playing.
MIN_TOKEN_LIFETIME = timedelta(hours=1)


def end_of_tournament_day(issued_at: datetime, hall: tzinfo) -> datetime:
    """rule TK-1: the first `DAY_ENDS_AT` in the hall's time zone after `issued_at`, in UTC,
    and never less than `MIN_TOKEN_LIFETIME` after it."""
    local = issued_at.astimezone(hall)
    end = datetime.combine(local.date(), DAY_ENDS_AT, tzinfo=hall)
    if end <= local:
        end = datetime.combine(local.date() + timedelta(days=1), DAY_ENDS_AT, tzinfo=hall)
    return max(end, issued_at + MIN_TOKEN_LIFETIME).astimezone(UTC)


def check_expiry(expires_at: datetime, now: datetime) -> datetime:
    """rule TK-1: an expiry the organizer sets is a moment in the next `MAX_TOKEN_LIFETIME`."""
    if expires_at.tzinfo is None or expires_at.utcoffset() is None:
        raise MalformedInput(
            "TK-1",
            "expires_at",
            say("must be a time with its offset, such as 2026-12-02T23:00:00Z"),
        )
    if expires_at <= now:
        raise MalformedInput(
            "TK-1",
            "expires_at",
            say(
                "must be later than now ({now}); a token that has already expired would "
                "open nothing",
                now=now.astimezone(UTC).isoformat(timespec="seconds"),
            ),
        )
    if expires_at - now > MAX_TOKEN_LIFETIME:
        raise MalformedInput(
            "TK-1",
            "expires_at",
            say(
                "must be within {days} days of now; issue a new token for a later day",
                days=MAX_TOKEN_LIFETIME.days,
            ),
        )
    return expires_at.astimezone(UTC)


def refusal(revoked_at: datetime | None, expires_at: datetime, now: datetime) -> str | None:
    """rule TK-2: why a known token no longer opens its table, or None while it does."""
    if revoked_at is not None:
        return say("this table token was revoked at {moment}", moment=_moment(revoked_at))
    if expires_at <= now:
        return say("this table token expired at {moment}", moment=_moment(expires_at))
    return None


def _moment(value: datetime) -> str:
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
