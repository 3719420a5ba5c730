"""When digests are due and which period they cover, in the subscriber's timezone."""

from __future__ import annotations

import datetime as dt
import zoneinfo

from apps.digests.schedule import Schedule, latest_due, next_occurrence

SHANGHAI = zoneinfo.ZoneInfo("Asia/Shanghai")
NEW_YORK = zoneinfo.ZoneInfo("America/New_York")
NINE = dt.time(9, 0)


def local(tz: zoneinfo.ZoneInfo, *args: int) -> dt.datetime:
    return dt.datetime(*args, tzinfo=tz).astimezone(dt.UTC)  # type: ignore[misc,arg-type]


def test_it_sends_a_weekly_digest_on_monday_at_nine_local_covering_the_week_before() -> None:
    plan = Schedule(frequency="weekly", send_time=NINE, timezone="Asia/Shanghai")
    # Wednesday 2026-11-25: the next Monday is 30 November, 09:00 Shanghai = 01:00 UTC.
    occurrence = next_occurrence(plan, after=local(SHANGHAI, 2026, 11, 25, 12))
    assert occurrence.send_at == dt.datetime(2026, 11, 30, 1, tzinfo=dt.UTC)
    assert occurrence.period_start == local(SHANGHAI, 2026, 11, 23)
    assert occurrence.period_end == local(SHANGHAI, 2026, 11, 30)
    assert occurrence.previous_periods(2) == [
        (local(SHANGHAI, 2026, 11, 16), local(SHANGHAI, 2026, 11, 23)),
        (local(SHANGHAI, 2026, 11, 9), local(SHANGHAI, 2026, 11, 16)),
    ]


def test_it_follows_the_subscribers_timezone_not_utc() -> None:
    plan = Schedule(frequency="weekly", send_time=NINE, timezone="America/New_York")
    occurrence = next_occurrence(plan, after=dt.datetime(2026, 11, 29, 12, tzinfo=dt.UTC))
    # 09:00 EST (UTC-5) on Monday 30 November.
    assert occurrence.send_at == dt.datetime(2026, 11, 30, 14, tzinfo=dt.UTC)


def test_it_postpones_a_weekly_digest_from_a_holiday_to_the_next_workday() -> None:
    plan = Schedule(
        frequency="weekly",
        send_time=NINE,
        timezone="Asia/Shanghai",
        holidays={dt.date(2026, 11, 30)},
    )
    occurrence = next_occurrence(plan, after=local(SHANGHAI, 2026, 11, 25))
    assert occurrence.send_at == local(SHANGHAI, 2026, 12, 1, 9)
    # Still the week before the Monday it was due on.
    assert occurrence.period_end == local(SHANGHAI, 2026, 11, 30)


def test_it_skips_weekends_and_holidays_for_a_daily_digest_only_if_asked() -> None:
    holidays = {dt.date(2026, 12, 2)}
    plan = Schedule(frequency="daily", send_time=NINE, timezone="UTC", holidays=holidays)
    sends, cursor = [], dt.datetime(2026, 11, 27, 10, tzinfo=dt.UTC)  # Friday after 09:00
    for _ in range(4):
        occurrence = next_occurrence(plan, after=cursor)
        sends.append(occurrence.send_at.date())
        cursor = occurrence.send_at
    assert sends == [
        dt.date(2026, 11, 30),
        dt.date(2026, 12, 1),
        dt.date(2026, 12, 3),
        dt.date(2026, 12, 4),
    ]
    every_day = Schedule(
        frequency="daily", send_time=NINE, timezone="UTC", holidays=holidays, workdays_only=False
    )
    friday_evening = dt.datetime(2026, 11, 27, 10, tzinfo=dt.UTC)
    assert next_occurrence(every_day, after=friday_evening).send_at.date() == dt.date(2026, 11, 28)


def test_it_covers_the_previous_calendar_month_in_a_monthly_digest() -> None:
    plan = Schedule(frequency="monthly", send_time=NINE, timezone="Asia/Shanghai")
    occurrence = next_occurrence(plan, after=local(SHANGHAI, 2026, 11, 15))
    # 1 December 2026 is a Tuesday: a workday.
    assert occurrence.send_at == local(SHANGHAI, 2026, 12, 1, 9)
    assert (occurrence.period_start, occurrence.period_end) == (
        local(SHANGHAI, 2026, 11, 1),
        local(SHANGHAI, 2026, 12, 1),
    )
    assert occurrence.previous_periods(2) == [
        (local(SHANGHAI, 2026, 10, 1), local(SHANGHAI, 2026, 11, 1)),
        (local(SHANGHAI, 2026, 9, 1), local(SHANGHAI, 2026, 10, 1)),
    ]


def test_it_sends_only_the_newest_missed_digest_after_an_outage() -> None:
    plan = Schedule(frequency="daily", send_time=NINE, timezone="UTC", workdays_only=False)
    since = dt.datetime(2026, 11, 20, 9, tzinfo=dt.UTC)
    due = latest_due(plan, since=since, now=dt.datetime(2026, 11, 23, 10, tzinfo=dt.UTC))
    assert due is not None
    assert due.send_at == dt.datetime(2026, 11, 23, 9, tzinfo=dt.UTC)
    assert latest_due(plan, since=since, now=since - dt.timedelta(seconds=1)) is None


def test_it_reports_every_day_in_a_workdays_only_daily_digest_weekends_and_holidays_too() -> None:
    holidays = {dt.date(2026, 12, 2)}  # a Wednesday
    plan = Schedule(frequency="daily", send_time=NINE, timezone="Asia/Shanghai", holidays=holidays)
    cursor = local(SHANGHAI, 2026, 11, 26, 10)  # Thursday, after 09:00
    periods = {}
    for _ in range(6):
        occurrence = next_occurrence(plan, after=cursor)
        periods[occurrence.send_at.astimezone(SHANGHAI).date()] = (
            occurrence.period_start,
            occurrence.period_end,
        )
        cursor = occurrence.send_at
    assert periods == {
        dt.date(2026, 11, 27): (local(SHANGHAI, 2026, 11, 26), local(SHANGHAI, 2026, 11, 27)),
        # Monday: Friday, Saturday and Sunday.
        dt.date(2026, 11, 30): (local(SHANGHAI, 2026, 11, 27), local(SHANGHAI, 2026, 11, 30)),
        dt.date(2026, 12, 1): (local(SHANGHAI, 2026, 11, 30), local(SHANGHAI, 2026, 12, 1)),
        # Thursday after the Wednesday holiday: Tuesday and the holiday.
        dt.date(2026, 12, 3): (local(SHANGHAI, 2026, 12, 1), local(SHANGHAI, 2026, 12, 3)),
        dt.date(2026, 12, 4): (local(SHANGHAI, 2026, 12, 3), local(SHANGHAI, 2026, 12, 4)),
        dt.date(2026, 12, 7): (local(SHANGHAI, 2026, 12, 4), local(SHANGHAI, 2026, 12, 7)),
    }
    # Compared with as many days before it: Monday's three days with Tuesday to Thursday.
    monday = next_occurrence(plan, after=local(SHANGHAI, 2026, 11, 28))
    assert monday.previous_periods(1) == [
        (local(SHANGHAI, 2026, 11, 24), local(SHANGHAI, 2026, 11, 27))
    ]
