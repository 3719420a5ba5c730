"""When a digest is due and which period it covers: pure functions of the schedule and a time.

Nothing here reads the database or the clock. Every computation happens in the subscriber's
timezone, so "Monday 09:00" is 09:00 on the subscriber's Monday whatever UTC says (and a DST
change moves the UTC moment, not the local one).

- daily: each day at ``send_time``; covers the previous local day. Workdays only: a weekend or
  holiday has no digest, and the next workday's covers every day since the previous workday's
  (Monday's covers Friday to Sunday, the day after a holiday covers the holiday too), so no
  day goes unreported.
- weekly: on ``weekday`` at ``send_time``; covers the 7 local days before that day. Workdays
  only: a weekend or holiday postpones it to the next workday, still covering the same week.
- monthly: on ``day_of_month`` at ``send_time``; covers the previous calendar month, postponed
  like a weekly one.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import zoneinfo
from collections.abc import Collection

DAILY, WEEKLY, MONTHLY = "daily", "weekly", "monthly"
# Postponing past two weeks of holidays would mean the holiday list is wrong, not the week.
_MAX_POSTPONE_DAYS = 14
_MAX_SCAN_DAYS = 800


@dataclasses.dataclass(frozen=True)
class Schedule:
    frequency: str
    send_time: dt.time
    timezone: str
    weekday: int = 0
    day_of_month: int = 1
    workdays_only: bool = True
    holidays: Collection[dt.date] = ()


@dataclasses.dataclass(frozen=True)
class Occurrence:
    """One digest: when it is sent (UTC) and the period ``[period_start, period_end)`` it covers."""

    send_at: dt.datetime
    nominal_date: dt.date
    period_start: dt.datetime
    period_end: dt.datetime
    timezone: str

    def previous_periods(self, count: int) -> list[tuple[dt.datetime, dt.datetime]]:
        return previous_periods(self.period_start, self.period_end, self.timezone, count)


def previous_periods(
    start: dt.datetime, end: dt.datetime, tz_name: str, count: int
) -> list[tuple[dt.datetime, dt.datetime]]:
    """The ``count`` periods before ``[start, end)``, most recent first: calendar months
    before a calendar month, else periods of as many local days."""
    tz = zoneinfo.ZoneInfo(tz_name)
    out = []
    for _ in range(count):
        start, end = _period_before(start, end, tz)
        out.append((start, end))
    return out


def _period_before(
    start: dt.datetime, end: dt.datetime, tz: dt.tzinfo
) -> tuple[dt.datetime, dt.datetime]:
    local_start, local_end = start.astimezone(tz), end.astimezone(tz)
    days = (local_end.date() - local_start.date()).days
    if local_start.day == 1 and local_end.day == 1 and days >= 28:
        first = (local_start.date() - dt.timedelta(days=1)).replace(day=1)
    else:
        first = local_start.date() - dt.timedelta(days=days)
    return _midnight(first, tz), _midnight(local_start.date(), tz)


def _midnight(day: dt.date, tz: dt.tzinfo) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(), tzinfo=tz).astimezone(dt.UTC)


def is_workday(day: dt.date, holidays: Collection[dt.date]) -> bool:
    return day.weekday() < 5 and day not in holidays


def _nominal_days(schedule: Schedule, from_day: dt.date) -> dt.date:
    """The first nominal digest day on or after ``from_day`` (before any postponement)."""
    day = from_day
    for _ in range(_MAX_SCAN_DAYS):
        if schedule.frequency == DAILY:
            return day
        if schedule.frequency == WEEKLY and day.weekday() == schedule.weekday:
            return day
        if schedule.frequency == MONTHLY and day.day == schedule.day_of_month:
            return day
        day += dt.timedelta(days=1)
    raise ValueError(f"no {schedule.frequency} digest day after {from_day}")


def _occurrence_of(schedule: Schedule, nominal: dt.date) -> Occurrence | None:
    """The digest of a nominal day, postponed to a workday if need be (None: skipped)."""
    tz = zoneinfo.ZoneInfo(schedule.timezone)
    send_day = nominal
    if schedule.workdays_only:
        if schedule.frequency == DAILY and not is_workday(nominal, schedule.holidays):
            return None
        for _ in range(_MAX_POSTPONE_DAYS):
            if is_workday(send_day, schedule.holidays):
                break
            send_day += dt.timedelta(days=1)
        else:
            return None
    if schedule.frequency == DAILY:
        first = _previous_daily_send(schedule, nominal)
    elif schedule.frequency == WEEKLY:
        first = nominal - dt.timedelta(days=7)
    else:
        first = (nominal.replace(day=1) - dt.timedelta(days=1)).replace(day=1)
    last = nominal if schedule.frequency != MONTHLY else nominal.replace(day=1)
    # fold=0: a send time that a DST change skips or repeats resolves like the wall clock does.
    send_at = dt.datetime.combine(send_day, schedule.send_time, tzinfo=tz).astimezone(dt.UTC)
    return Occurrence(
        send_at=send_at,
        nominal_date=nominal,
        period_start=_midnight(first, tz),
        period_end=_midnight(last, tz),
        timezone=schedule.timezone,
    )


def _previous_daily_send(schedule: Schedule, day: dt.date) -> dt.date:
    """The day of the daily digest before ``day``'s: where ``day``'s period starts (the end of
    that digest's period). Every day's, or the previous workday's for workdays only."""
    previous = day - dt.timedelta(days=1)
    if not schedule.workdays_only:
        return previous
    for _ in range(_MAX_POSTPONE_DAYS):
        if is_workday(previous, schedule.holidays):
            return previous
        previous -= dt.timedelta(days=1)
    # Two weeks without a workday: a wrong holiday list; cover those two weeks, not more.
    return previous


def next_occurrence(schedule: Schedule, *, after: dt.datetime) -> Occurrence:
    """The first digest sent strictly after ``after``."""
    tz = zoneinfo.ZoneInfo(schedule.timezone)
    # Postponement can move a nominal day before ``after`` to a send day after it: start early.
    day = after.astimezone(tz).date() - dt.timedelta(days=_MAX_POSTPONE_DAYS)
    for _ in range(_MAX_SCAN_DAYS):
        nominal = _nominal_days(schedule, day)
        occurrence = _occurrence_of(schedule, nominal)
        if occurrence is not None and occurrence.send_at > after:
            return occurrence
        day = nominal + dt.timedelta(days=1)
    raise ValueError(f"no digest due after {after} (every day a holiday?)")


def latest_due(schedule: Schedule, *, since: dt.datetime, now: dt.datetime) -> Occurrence | None:
    """The last digest with ``since <= send_at <= now`` (None if none is due).

    After an outage of several periods only the newest is sent: a stack of stale digests
    helps nobody.
    """
    found = None
    cursor = since - dt.timedelta(microseconds=1)
    while True:
        occurrence = next_occurrence(schedule, after=cursor)
        if occurrence.send_at > now:
            return found
        found, cursor = occurrence, occurrence.send_at
