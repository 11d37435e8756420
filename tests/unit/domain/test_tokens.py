"""When a judge's table token ends (rules TK-1, TK-2: docs/contract.md, issue 14)."""

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from app.domain.errors import MalformedInput
from app.domain.tokens import check_expiry, end_of_tournament_day, refusal

MACAU = ZoneInfo("Asia/Macau")  # UTC+8, no summer time
LONDON = ZoneInfo("Europe/London")


@pytest.mark.parametrize(
    ("issued", "ends"),
    [
        # issued in the morning, hall time: the day ends at 04:00 the next morning
        (datetime(2026, 12, 2, 9, 0, tzinfo=MACAU), datetime(2026, 12, 3, 4, 0, tzinfo=MACAU)),
        # in the evening session: still that day, after the session
        (datetime(2026, 12, 2, 22, 30, tzinfo=MACAU), datetime(2026, 12, 3, 4, 0, tzinfo=MACAU)),
        # at 02:00 the evening's play is still going on: it belongs to the evening's day
        (datetime(2026, 12, 3, 2, 0, tzinfo=MACAU), datetime(2026, 12, 3, 4, 0, tzinfo=MACAU)),
        # in the day's last hour, a card still lasts an hour
        (datetime(2026, 12, 3, 3, 30, tzinfo=MACAU), datetime(2026, 12, 3, 4, 30, tzinfo=MACAU)),
        # at 04:00 exactly the next day begins
        (datetime(2026, 12, 3, 4, 0, tzinfo=MACAU), datetime(2026, 12, 4, 4, 0, tzinfo=MACAU)),
    ],
)
def test_a_token_lasts_until_0400_hall_time_after_it_was_issued(
    issued: datetime, ends: datetime
) -> None:
    assert end_of_tournament_day(issued.astimezone(UTC), MACAU) == ends
    assert end_of_tournament_day(issued, MACAU).tzinfo == UTC


def test_the_day_is_the_halls_not_the_servers_utc() -> None:
    issued = datetime(2026, 12, 2, 20, 0, tzinfo=UTC)  # 04:00 the next day in Macau

    assert end_of_tournament_day(issued, UTC) == datetime(2026, 12, 3, 4, 0, tzinfo=UTC)
    assert end_of_tournament_day(issued, MACAU) == datetime(2026, 12, 3, 20, 0, tzinfo=UTC)


def test_a_summer_time_change_keeps_0400_hall_time() -> None:
    # London leaves summer time at 02:00 on 25 October 2026: the day still ends at 04:00.
    issued = datetime(2026, 10, 24, 18, 0, tzinfo=LONDON)

    assert end_of_tournament_day(issued, LONDON) == datetime(2026, 10, 25, 4, 0, tzinfo=UTC)


NOW = datetime(2026, 12, 2, 9, 0, tzinfo=UTC)


def test_an_expiry_the_organizer_sets_is_kept_in_utc() -> None:
    assert check_expiry(datetime(2026, 12, 2, 23, 0, tzinfo=MACAU), NOW) == datetime(
        2026, 12, 2, 15, 0, tzinfo=UTC
    )


@pytest.mark.parametrize(
    "expires_at",
    [NOW, NOW - timedelta(seconds=1), NOW + timedelta(days=14, seconds=1), datetime(2026, 12, 3)],
)
def test_an_expiry_now_past_too_far_or_without_offset_is_refused(expires_at: datetime) -> None:
    with pytest.raises(MalformedInput) as refused:
        check_expiry(expires_at, NOW)

    assert (refused.value.rule, refused.value.field) == ("TK-1", "expires_at")


def test_a_token_says_whether_it_was_revoked_or_expired() -> None:
    later = NOW + timedelta(hours=1)

    assert refusal(None, later, NOW) is None
    assert refusal(None, NOW, NOW) == "this table token expired at 2026-12-02 09:00 UTC"
    assert refusal(NOW, later, NOW) == "this table token was revoked at 2026-12-02 09:00 UTC"
