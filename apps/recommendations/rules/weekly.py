"""Hour-of-week windows: circular runs of cells (``apps.core.weekruns``, shared with the
analysis engine), as the recommendations show them, and cron specifications."""

from __future__ import annotations

import numpy as np

from apps.core.weekruns import HOURS_PER_WEEK, WeekRun, circular_runs, runs_mask

from .types import Profile, Text, day_of_week

__all__ = [
    "HOURS_PER_WEEK",
    "circular_runs",
    "cron_lines",
    "profile_chart",
    "run_json",
    "run_mask",
    "run_text",
    "window_cron",
]


def run_text(run: WeekRun) -> Text:
    """The run in words ("Mon 19:00-Tue 09:00"), its weekdays named in the reader's language."""
    return Text(
        "week.run",
        {
            "start_day": day_of_week(run.start_weekday),
            "start_hour": f"{run.start_hour:02d}:00",
            "end_day": day_of_week(run.end_weekday),
            "end_hour": f"{run.end_hour:02d}:00",
        },
    )


def run_json(run: WeekRun) -> dict[str, object]:
    """The run as the recommendation's evidence and action show it."""
    return {
        "start_weekday": run.start_weekday,
        "start_hour": run.start_hour,
        "end_weekday": run.end_weekday,
        "end_hour": run.end_hour,
        "hours": run.hours,
        "label": str(run),
    }


def profile_chart(profile: Profile) -> dict[str, object]:
    """The evidence's chart: the hour-of-week profile, over the weeks it was computed from."""
    return {
        "chart": "profile",
        "chart_range": {"start": profile.start_at.isoformat(), "end": profile.end_at.isoformat()},
    }


def run_mask(runs: list[WeekRun]) -> np.ndarray:
    """(7, 24) bool mask of the cells the runs cover."""
    return runs_mask(runs).reshape(7, 24)


def cron_lines(moments: list[tuple[int, int]], command: str) -> list[str]:
    """Cron lines running ``command`` at each (weekday, hour), one line per hour of the day."""
    by_hour: dict[int, set[int]] = {}
    for weekday, hour in moments:
        by_hour.setdefault(hour, set()).add(weekday)
    return [f"0 {hour} * * {_cron_days(days)} {command}" for hour, days in sorted(by_hour.items())]


def window_cron(tz: str, runs: list[WeekRun], *, at_start: str, at_end: str) -> list[str]:
    """The crontab of a recurring window: ``at_start`` as each run begins, ``at_end`` as it
    ends, in the organization's timezone."""
    return [
        f"CRON_TZ={tz}",
        *cron_lines([(r.start_weekday, r.start_hour) for r in runs], at_start),
        *cron_lines([(r.end_weekday, r.end_hour) for r in runs], at_end),
    ]


def _cron_days(weekdays: set[int]) -> str:
    # Cron counts Sunday as 0 and Monday as 1; a range only where three or more days follow on.
    days = sorted((weekday + 1) % 7 for weekday in weekdays)
    if len(days) == 7:
        return "*"
    groups: list[list[int]] = []
    for day in days:
        if groups and day == groups[-1][-1] + 1:
            groups[-1].append(day)
        else:
            groups.append([day])
    parts = []
    for group in groups:
        if len(group) >= 3:
            parts.append(f"{group[0]}-{group[-1]}")
        else:
            parts.extend(str(day) for day in group)
    return ",".join(parts)
