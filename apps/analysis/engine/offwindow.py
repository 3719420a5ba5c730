"""Finding the recurring low-utilization window of a week (for day/night schedules)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from apps.core.weekruns import WEEKDAY_NAMES, WeekRun, circular_runs, runs_mask

from .profile import HOURS_PER_WEEK, HourOfWeekProfile
from .thresholds import DEFAULT_THRESHOLDS, PhaseThresholds

# One contiguous off period, e.g. Friday 19:00 to Monday 09:00 local time: the week run the
# recommendation rules share (``apps.core.weekruns``).
OffWindowRun = WeekRun


@dataclasses.dataclass(frozen=True)
class OffWindow:
    """The weekly hours in which utilization stays low, week after week, in local time."""

    tz: str
    runs: tuple[OffWindowRun, ...]
    """Contiguous off periods of at least ``off_window_min_hours``, in week order."""
    cells: tuple[tuple[int, int], ...]
    """Local (weekday, hour) cells covered, sorted; weekday 0 is Monday."""
    weekly_hours: int
    longest_run_hours: int
    supporting_weeks: int
    """Weeks in which every observed cell of the window stayed low (p95 under the threshold)."""
    observed_weeks: int
    """Weeks with enough data in the window to judge."""
    p95_max_pct: float


@dataclasses.dataclass(frozen=True)
class LowAroundTheClock:
    """Utilization stays low in every observed hour of the week: an idle instance, not a schedule.

    Distinct from :class:`OffWindow` on purpose: a window covering the whole week is not a
    day/night pattern, and the action is to stop the instance, not to schedule it.
    """

    tz: str
    observed_hours: int
    """Hour-of-week cells with enough coverage to judge (all of them low)."""
    supporting_weeks: int
    """Weeks in which every observed cell stayed low (p95 under the threshold)."""
    observed_weeks: int
    p95_max_pct: float

    text = "around the clock"
    """The plain-words form, matching :func:`window_text` of a window."""


def find_low_around_the_clock(
    profile: HourOfWeekProfile, thresholds: PhaseThresholds = DEFAULT_THRESHOLDS
) -> LowAroundTheClock | None:
    """The profile's low-around-the-clock finding, or None.

    Every cell with enough coverage (``profile_min_coverage``) has its p95 under the profile's
    ``low_util_pct``; at least ``low_around_the_clock_min_hours`` cells of the week are covered
    (an instance seen only now and then says little); and at least ``off_window_min_weeks``
    weeks support it (at least half of the covered cells observed that week, all low).
    """
    if profile.is_fleet:
        raise ValueError("takes one profile; use profile.instance(i) or pooled")
    covered = profile.coverage.reshape(-1) >= thresholds.profile_min_coverage
    if covered.sum() < thresholds.low_around_the_clock_min_hours:
        return None
    if not np.all(profile.p95_pct.reshape(-1)[covered] < profile.low_util_pct):
        return None
    supporting, observed_weeks = _supporting_weeks(profile, covered, thresholds)
    if supporting < thresholds.off_window_min_weeks:
        return None
    return LowAroundTheClock(
        tz=profile.tz,
        observed_hours=int(covered.sum()),
        supporting_weeks=supporting,
        observed_weeks=observed_weeks,
        p95_max_pct=profile.low_util_pct,
    )


def find_off_window(
    profile: HourOfWeekProfile, thresholds: PhaseThresholds = DEFAULT_THRESHOLDS
) -> OffWindow | None:
    """The recurring low window of one profile (one instance, or pooled), or None.

    A cell is low when its coverage is at least ``profile_min_coverage`` and its p95 is under the
    profile's ``low_util_pct`` (``off_window_p95_max_pct`` when it was built). The window is every
    circular run of low cells (Sunday night runs on into Monday) at least
    ``off_window_min_hours`` long. A week supports it when at least half of the window's cells
    were observed that week and every observed one stayed low. None when no such run exists
    (a 24/7 fleet), when fewer than ``off_window_min_weeks`` weeks support it, and when no
    observed hour is busy (low around the clock, see :func:`find_low_around_the_clock`: a
    window is a low period between busy hours and never spans the week).
    """
    if profile.is_fleet:
        raise ValueError("find_off_window takes one profile; use profile.instance(i) or pooled")
    covered = profile.coverage.reshape(-1) >= thresholds.profile_min_coverage
    low = covered & (profile.p95_pct.reshape(-1) < profile.low_util_pct)
    if not (covered & ~low).any():
        # No busy hour to set a window against: low around the clock (or too little seen to
        # say), never a window spanning the week between unobserved hours.
        return None
    runs = circular_runs(low, thresholds.off_window_min_hours)
    if not runs:
        return None
    window = runs_mask(runs)

    supporting, observed_weeks = _supporting_weeks(profile, window, thresholds)
    if supporting < thresholds.off_window_min_weeks:
        return None
    cells = tuple((int(c) // 24, int(c) % 24) for c in np.flatnonzero(window))
    return OffWindow(
        tz=profile.tz,
        runs=tuple(runs),
        cells=cells,
        weekly_hours=len(cells),
        longest_run_hours=max(run.hours for run in runs),
        supporting_weeks=supporting,
        observed_weeks=observed_weeks,
        p95_max_pct=profile.low_util_pct,
    )


def _supporting_weeks(
    profile: HourOfWeekProfile, window: np.ndarray, thresholds: PhaseThresholds
) -> tuple[int, int]:
    """(weeks supporting the window, weeks with enough data in the window to judge)."""
    period = profile.weekly_period_minutes.reshape(-1, HOURS_PER_WEEK)[:, window]
    observed = profile.weekly_observed_minutes.reshape(-1, HOURS_PER_WEEK)[:, window]
    high = profile.weekly_high_minutes.reshape(-1, HOURS_PER_WEEK)[:, window]
    needed = np.ceil(thresholds.profile_min_coverage * period)
    judged = (observed >= needed) & (observed > 0)
    # A cell-week is low when its nearest-rank p95 is under the threshold, i.e. when at most
    # n - ceil(0.95 n) of its n minutes are at or above it.
    allowed_high = observed - np.ceil(0.95 * observed)
    low = high <= allowed_high
    enough = judged.sum(axis=1) * 2 >= window.sum()
    supports = enough & np.all(low | ~judged, axis=1)
    return int(supports.sum()), int(enough.sum())


def describe(window: OffWindow | LowAroundTheClock) -> str:
    """Human-readable summary, e.g. for evidence text: when, hours and support."""
    if isinstance(window, LowAroundTheClock):
        return (
            f"low around the clock ({window.observed_hours} observed h/week, {window.tz}); "
            f"p95 < {_trim(window.p95_max_pct)} % in {window.supporting_weeks} of "
            f"{window.observed_weeks} weeks"
        )
    return (
        f"{window_text(window)} ({window.weekly_hours} h/week, {window.tz}); p95 < "
        f"{_trim(window.p95_max_pct)} % in {window.supporting_weeks} of "
        f"{window.observed_weeks} weeks"
    )


def window_text(window: OffWindow | LowAroundTheClock) -> str:
    """The window in plain words, local time: "weekdays 19:00–09:00 and weekends".

    Whole days off are named ("weekends", "Sat", "every day"); on the other days of a window
    the off hours are a morning until some hour and an evening from some hour, and days with
    the same hours are grouped ("weekdays 19:00–09:00" reads as "on weekdays, from 19:00 to
    09:00", i.e. outside 09:00–19:00). A window of another shape (e.g. a lunch break) falls
    back to its runs ("Mon 12:00–Mon 14:00, ...").
    """
    if isinstance(window, LowAroundTheClock):
        return window.text
    hours_by_day: list[set[int]] = [set() for _ in range(7)]
    for weekday, hour in window.cells:
        hours_by_day[weekday].add(hour)
    full_days = [day for day in range(7) if len(hours_by_day[day]) == 24]
    by_hours: dict[tuple[int, int], list[int]] = {}
    for day in range(7):
        hours = hours_by_day[day]
        if not hours or len(hours) == 24:
            continue
        morning_end = next(h for h in range(25) if h not in hours)
        evening_start = next(h for h in range(24, -1, -1) if h - 1 not in hours or h == 0)
        if len(hours) != morning_end + (24 - evening_start):
            # Off hours in the middle of the day: not a night, say the runs as they are.
            return ", ".join(_run_text(run) for run in window.runs)
        by_hours.setdefault((evening_start, morning_end), []).append(day)
    parts = [
        f"{_days_text(days)} {_clock(evening)}–{_clock(morning)}"
        if evening < 24 and morning > 0
        else f"{_days_text(days)} {_clock(evening)}–24:00"
        if evening < 24
        else f"{_days_text(days)} 00:00–{_clock(morning)}"
        for (evening, morning), days in sorted(by_hours.items(), key=lambda item: item[1][0])
    ]
    if full_days:
        parts.append(_days_text(full_days, whole=True))
    if len(parts) == 1:
        return parts[0]
    return ", ".join(parts[:-1]) + " and " + parts[-1]


_DAY_GROUPS: dict[tuple[int, ...], tuple[str, str]] = {
    # (days): (name for some hours of them, name when the whole days are off)
    (0, 1, 2, 3, 4, 5, 6): ("every day", "every day"),
    (0, 1, 2, 3, 4): ("weekdays", "weekdays"),
    (5, 6): ("weekends", "weekends"),
}


def _days_text(days: list[int], *, whole: bool = False) -> str:
    """ "weekdays", "weekends", "Mon–Thu", "Mon, Wed and Fri", "Sat"."""
    named = _DAY_GROUPS.get(tuple(days))
    if named:
        return named[1] if whole else named[0]
    if len(days) >= 3 and days == list(range(days[0], days[-1] + 1)):
        return f"{WEEKDAY_NAMES[days[0]]}–{WEEKDAY_NAMES[days[-1]]}"
    names = [WEEKDAY_NAMES[day] for day in days]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _clock(hour: int) -> str:
    return f"{hour:02d}:00"


def _run_text(run: OffWindowRun) -> str:
    return str(run).replace("-", "–")


def _trim(value: float) -> str:
    return str(int(value)) if math.isclose(value, round(value)) else f"{value:g}"
