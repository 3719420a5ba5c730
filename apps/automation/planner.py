"""When automation acts: the stops and starts of a plan, as aware UTC moments. Pure: no Django,
no database, no clock (``now`` is an argument).

A schedule's window is the recommendation's ``action["window"]``: runs of local hours of the
week in the organization's timezone (``{"start_weekday", "start_hour", "hours", ...}``,
weekday 0 = Monday). Each run gives one *stop* at its local start and one *start* at its local
end, both as wall-clock times in that timezone, so a run that starts at 19:00 stops the
instance at 19:00 local on either side of a daylight-saving change (``zoneinfo``):

- a local time that does not exist (the hour skipped when clocks go forward) is read with the
  offset before the change (``fold=0``), i.e. it lands one hour later on the clock, inside
  the first hour that exists;
- a local time that happens twice (clocks go back) is its first occurrence (``fold=0``).

Skip dates (holidays, in the organization's timezone): **a skip date skips the stop of every
run that begins on that local date, and the start that ends that same run** (the instance
stays up through it, as on a working day). A run that began the day before and ends on the
skip date is not touched: it was already stopped, so it is started as planned.

A paused (or ended) plan has no actions. Stop idle has one stop: ``told_at + grace``.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Collection, Iterable, Mapping
from typing import Any
from zoneinfo import ZoneInfo

STOP = "stop"
START = "start"
HOURS_PER_WEEK = 168


@dataclasses.dataclass(frozen=True)
class Run:
    """``hours`` local hours from (``start_weekday``, ``start_hour``); weekday 0 is Monday."""

    start_weekday: int
    start_hour: int
    hours: int

    def __post_init__(self) -> None:
        if not 0 <= self.start_weekday <= 6 or not 0 <= self.start_hour <= 23:
            raise ValueError(f"not a weekday and hour: {self.start_weekday}, {self.start_hour}")
        if not 1 <= self.hours < HOURS_PER_WEEK:
            raise ValueError(f"a run lasts 1 to {HOURS_PER_WEEK - 1} hours, not {self.hours}")


@dataclasses.dataclass(frozen=True)
class PlannedAction:
    at: dt.datetime
    """Aware, in UTC."""
    kind: str
    """``stop`` or ``start``."""
    run_date: dt.date
    """The local date the run (the night) begins on."""


def runs_from_window(window: Mapping[str, Any]) -> list[Run]:
    """The runs of a recommendation's ``action["window"]``."""
    runs = []
    for item in window.get("runs") or []:
        hours = item.get("hours")
        if hours is None:
            # Older windows name the end instead of the length.
            start = item["start_weekday"] * 24 + item["start_hour"]
            end = item["end_weekday"] * 24 + item["end_hour"]
            hours = (end - start) % HOURS_PER_WEEK
        runs.append(Run(int(item["start_weekday"]), int(item["start_hour"]), int(hours)))
    return runs


def _local(day: dt.date, hour: int, zone: ZoneInfo) -> dt.datetime:
    # Wall-clock time in the zone, then UTC: fold=0 for the missing and the doubled hours.
    return dt.datetime.combine(day, dt.time(hour), tzinfo=zone).astimezone(dt.UTC)


def window_actions(
    runs: Iterable[Run],
    tz: str,
    *,
    after: dt.datetime,
    until: dt.datetime,
    skip_dates: Collection[dt.date] = (),
) -> list[PlannedAction]:
    """Every stop and start with ``after < at <= until``, in time order (a start before a stop
    at the same moment)."""
    if after.tzinfo is None or until.tzinfo is None:
        raise ValueError("after and until must be timezone-aware")
    zone = ZoneInfo(tz)
    runs = list(runs)
    skipped = set(skip_dates)
    # A run can last almost a week: begin a week early so its end is found.
    first = after.astimezone(zone).date() - dt.timedelta(days=8)
    last = until.astimezone(zone).date() + dt.timedelta(days=1)
    out: list[PlannedAction] = []
    day = first
    while day <= last:
        if day not in skipped:
            for run in runs:
                if run.start_weekday != day.weekday():
                    continue
                cells = run.start_hour + run.hours
                stop_at = _local(day, run.start_hour, zone)
                start_at = _local(day + dt.timedelta(days=cells // 24), cells % 24, zone)
                for at, kind in ((stop_at, STOP), (start_at, START)):
                    if after < at <= until:
                        out.append(PlannedAction(at=at, kind=kind, run_date=day))
        day += dt.timedelta(days=1)
    out.sort(key=lambda action: (action.at, action.kind != START))
    return out


def next_actions(
    runs: Iterable[Run],
    tz: str,
    *,
    now: dt.datetime,
    count: int,
    skip_dates: Collection[dt.date] = (),
    paused: bool = False,
    horizon_days: int = 62,
) -> list[PlannedAction]:
    """The next ``count`` actions after ``now`` (none when paused), looking at most
    ``horizon_days`` ahead (skip dates could otherwise hide every run)."""
    if paused or count <= 0:
        return []
    runs = list(runs)
    if not runs:
        return []
    found: list[PlannedAction] = []
    start = now
    while len(found) < count and start < now + dt.timedelta(days=horizon_days):
        stop = start + dt.timedelta(days=7)
        found += window_actions(runs, tz, after=start, until=stop, skip_dates=skip_dates)
        start = stop
    return found[:count]


def idle_stop_at(told_at: dt.datetime, grace_hours: float) -> dt.datetime:
    """Stop idle acts once: ``grace_hours`` after the owners were told."""
    if told_at.tzinfo is None:
        raise ValueError("told_at must be timezone-aware")
    return (told_at + dt.timedelta(hours=grace_hours)).astimezone(dt.UTC)


def week_start(moment: dt.datetime, tz: str) -> dt.date:
    """The local Monday of the week ``moment`` falls in."""
    local = moment.astimezone(ZoneInfo(tz)).date()
    return local - dt.timedelta(days=local.weekday())


def week_bounds(monday: dt.date, tz: str) -> tuple[dt.datetime, dt.datetime]:
    """[start, end) in UTC of the local week beginning on ``monday`` (midnight to midnight:
    167 or 169 hours across a daylight-saving change)."""
    zone = ZoneInfo(tz)
    return _local(monday, 0, zone), _local(monday + dt.timedelta(days=7), 0, zone)
