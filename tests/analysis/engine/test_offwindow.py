"""Off windows in plain words, and an instance low around the clock (never a week-long window)."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np

from apps.analysis.engine import (
    LowAroundTheClock,
    OffWindow,
    OffWindowRun,
    describe,
    find_low_around_the_clock,
    find_off_window,
    hour_of_week_profile,
    window_text,
)
from apps.analysis.engine.profile import HourOfWeekProfile
from tests.fleet_generator import always_busy_util, office_hours_util

START = datetime(2026, 5, 3, 16, 0, tzinfo=UTC)  # Monday 00:00 in Asia/Shanghai
TZ = "Asia/Shanghai"


def idle_profile(days: int = 14, missing_fraction: float = 0.0) -> HourOfWeekProfile:
    rng = np.random.default_rng(3)
    util = rng.uniform(0.0, 3.0, (1, days * 1440)).astype(np.float32)
    util[rng.random(util.shape) < missing_fraction] = np.nan
    return hour_of_week_profile(util, START, TZ).instance(0)


def window_of(cells: set[tuple[int, int]]) -> OffWindow:
    """An OffWindow with just the cells set (window_text reads the cells)."""
    return OffWindow(
        tz=TZ,
        runs=(OffWindowRun(0, 12, 2),),
        cells=tuple(sorted(cells)),
        weekly_hours=len(cells),
        longest_run_hours=0,
        supporting_weeks=2,
        observed_weeks=2,
        p95_max_pct=15.0,
    )


def test_it_reports_an_idle_instance_as_low_around_the_clock_and_not_as_a_window() -> None:
    profile = idle_profile()

    low = find_low_around_the_clock(profile)

    assert find_off_window(profile) is None
    assert isinstance(low, LowAroundTheClock)
    assert low.observed_hours == 168
    assert low.supporting_weeks == 2
    assert window_text(low) == "around the clock"
    assert describe(low).startswith("low around the clock (168 observed h/week")


def test_it_calls_an_idle_instance_with_unobserved_hours_low_around_the_clock() -> None:
    """A few hours without data used to split the week into a 167-hour "window"."""
    rng = np.random.default_rng(4)
    util = rng.uniform(0.0, 3.0, (1, 14 * 1440)).astype(np.float32)
    util[0, 600:780] = np.nan  # three hours of the first Monday, and the same hours a week on
    util[0, 7 * 1440 + 600 : 7 * 1440 + 780] = np.nan
    profile = hour_of_week_profile(util, START, TZ).instance(0)

    assert find_off_window(profile) is None
    low = find_low_around_the_clock(profile)
    assert low is not None
    assert low.observed_hours == 165


def test_it_does_not_call_a_day_only_instance_low_around_the_clock() -> None:
    util = office_hours_util(np.random.default_rng(1), instances=1, start_utc=START, days=14, tz=TZ)
    profile = hour_of_week_profile(util, START, TZ).instance(0)

    assert find_low_around_the_clock(profile) is None
    window = find_off_window(profile)
    assert window is not None
    assert window_text(window) == "weekdays 19:00–09:00 and weekends"


def test_it_does_not_call_a_busy_instance_low_around_the_clock() -> None:
    util = always_busy_util(np.random.default_rng(2), instances=1, days=14)
    profile = hour_of_week_profile(util, START, TZ).instance(0)

    assert find_low_around_the_clock(profile) is None
    assert find_off_window(profile) is None


def test_it_needs_half_the_week_observed_to_call_an_instance_low_around_the_clock() -> None:
    rng = np.random.default_rng(5)
    util = rng.uniform(0.0, 3.0, (1, 14 * 1440)).astype(np.float32)
    # Observed only 00:00-08:00 local: 56 hours of the week.
    local_hour = ((np.arange(util.shape[1]) + 8 * 60) // 60) % 24
    util[0, local_hour >= 8] = np.nan
    profile = hour_of_week_profile(util, START, TZ).instance(0)

    assert find_low_around_the_clock(profile) is None
    # Nor is it a nightly window: there is no busy hour to set one against.
    assert find_off_window(profile) is None


def test_it_needs_two_supporting_weeks_to_call_an_instance_low_around_the_clock() -> None:
    assert find_low_around_the_clock(idle_profile(days=7)) is None


def test_it_says_every_night_in_plain_words() -> None:
    util = office_hours_util(
        np.random.default_rng(6),
        instances=1,
        start_utc=START,
        days=14,
        tz=TZ,
        busy_hours=(8, 20),
        weekdays_only=False,
    )
    window = find_off_window(hour_of_week_profile(util, START, TZ).instance(0))

    assert window is not None
    assert window_text(window) == "every day 20:00–08:00"
    assert describe(window).startswith("every day 20:00–08:00 (84 h/week, Asia/Shanghai)")


def test_it_says_whole_days_and_evenings_in_plain_words() -> None:
    saturday = {(5, hour) for hour in range(24)}
    weekday_evenings = {(day, hour) for day in range(4) for hour in range(22, 24)}

    assert window_text(window_of(saturday)) == "Sat"
    assert window_text(window_of(saturday | weekday_evenings)) == "Mon–Thu 22:00–24:00 and Sat"
    mornings = {(day, hour) for day in (0, 2, 4) for hour in range(6)}
    assert window_text(window_of(mornings)) == "Mon, Wed and Fri 00:00–06:00"


def test_it_falls_back_to_the_runs_for_a_window_in_the_middle_of_the_day() -> None:
    lunch = {(0, 12), (0, 13)}

    assert window_text(window_of(lunch)) == "Mon 12:00–Mon 14:00"
