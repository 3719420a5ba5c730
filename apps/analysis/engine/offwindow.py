"""Finding the recurring low-utilization window of a week (for day/night schedules)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from .profile import HOURS_PER_WEEK, HourOfWeekProfile
from .thresholds import DEFAULT_THRESHOLDS, PhaseThresholds

WEEKDAY_NAMES = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


@dataclasses.dataclass(frozen=True)
class OffWindowRun:
    """One contiguous off period, e.g. Friday 19:00 to Monday 09:00 local time."""

    start_weekday: int
    start_hour: int
    hours: int

    @property
    def end_weekday(self) -> int:
        """Local weekday of the first hour after the run (0 = Monday)."""
        return ((self.start_weekday * 24 + self.start_hour + self.hours) // 24) % 7

    @property
    def end_hour(self) -> int:
        """Local hour at which the run ends (exclusive)."""
        return (self.start_hour + self.hours) % 24

    def __str__(self) -> str:
        return (
            f"{WEEKDAY_NAMES[self.start_weekday]} {self.start_hour:02d}:00-"
            f"{WEEKDAY_NAMES[self.end_weekday]} {self.end_hour:02d}:00"
        )


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


def find_off_window(
    profile: HourOfWeekProfile, thresholds: PhaseThresholds = DEFAULT_THRESHOLDS
) -> OffWindow | None:
    """The recurring low window of one profile (one instance, or pooled), or None.

    A cell is low when its coverage is at least ``profile_min_coverage`` and its p95 is under the
    profile's ``low_util_pct`` (``off_window_p95_max_pct`` when it was built). The window is every
    circular run of low cells (Sunday night runs on into Monday) at least
    ``off_window_min_hours`` long. A week supports it when at least half of the window's cells
    were observed that week and every observed one stayed low. None when no such run exists
    (a 24/7 fleet) or fewer than ``off_window_min_weeks`` weeks support it.
    """
    if profile.is_fleet:
        raise ValueError("find_off_window takes one profile; use profile.instance(i) or pooled")
    low = (profile.coverage.reshape(-1) >= thresholds.profile_min_coverage) & (
        profile.p95_pct.reshape(-1) < profile.low_util_pct
    )
    runs = _circular_runs(low, thresholds.off_window_min_hours)
    if not runs:
        return None
    window = np.zeros(HOURS_PER_WEEK, dtype=bool)
    for start, hours in runs:
        window[(start + np.arange(hours)) % HOURS_PER_WEEK] = True

    supporting, observed_weeks = _supporting_weeks(profile, window, thresholds)
    if supporting < thresholds.off_window_min_weeks:
        return None
    cells = tuple((int(c) // 24, int(c) % 24) for c in np.flatnonzero(window))
    return OffWindow(
        tz=profile.tz,
        runs=tuple(OffWindowRun(start // 24, start % 24, hours) for start, hours in runs),
        cells=cells,
        weekly_hours=len(cells),
        longest_run_hours=max(hours for _, hours in runs),
        supporting_weeks=supporting,
        observed_weeks=observed_weeks,
        p95_max_pct=profile.low_util_pct,
    )


def _circular_runs(low: np.ndarray, min_hours: int) -> list[tuple[int, int]]:
    """(start cell, length) of each circular run of True at least ``min_hours`` long."""
    if low.all():
        return [(0, HOURS_PER_WEEK)]
    # Rotate so the week starts just after a high cell; then no run wraps around the end.
    shift = int(np.flatnonzero(~low)[-1]) + 1
    rotated = np.roll(low, -shift)
    edges = np.diff(np.concatenate(([0], rotated.astype(np.int8), [0])))
    starts = np.flatnonzero(edges == 1)
    ends = np.flatnonzero(edges == -1)
    runs = [
        ((int(s) + shift) % HOURS_PER_WEEK, int(e - s))
        for s, e in zip(starts, ends, strict=True)
        if e - s >= min_hours
    ]
    return sorted(runs)


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


def describe(window: OffWindow) -> str:
    """Human-readable summary, e.g. for evidence text: runs, hours and support."""
    runs = ", ".join(str(run) for run in window.runs)
    return (
        f"{runs} ({window.weekly_hours} h/week, {window.tz}); p95 < "
        f"{_trim(window.p95_max_pct)} % in {window.supporting_weeks} of "
        f"{window.observed_weeks} weeks"
    )


def _trim(value: float) -> str:
    return str(int(value)) if math.isclose(value, round(value)) else f"{value:g}"
