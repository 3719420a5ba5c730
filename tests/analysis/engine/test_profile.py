"""Hour-of-week profiles and off windows, in the organization's timezone."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from apps.analysis.engine import find_off_window, hour_of_week_profile
from tests.fleet_generator import always_busy_util, office_hours_util

WEEKNIGHTS_AND_WEEKENDS = {
    (weekday, hour)
    for weekday in range(7)
    for hour in range(24)
    if weekday >= 5 or not 9 <= hour < 19
}


def test_it_finds_weeknights_and_weekends_for_a_day_only_fleet_in_shanghai() -> None:
    start = datetime(2026, 5, 3, 16, 0, tzinfo=UTC)  # Monday 00:00 in Asia/Shanghai
    util = office_hours_util(
        np.random.default_rng(1), instances=5, start_utc=start, days=21, tz="Asia/Shanghai"
    )
    profile = hour_of_week_profile(util, start, "Asia/Shanghai", pooled=True)
    window = find_off_window(profile)

    assert window is not None
    assert set(window.cells) == WEEKNIGHTS_AND_WEEKENDS
    assert window.weekly_hours == 118
    assert window.longest_run_hours == 62  # Friday 19:00 to Monday 09:00
    assert [str(run) for run in window.runs][-1] == "Fri 19:00-Mon 09:00"
    assert window.supporting_weeks == 3
    # Busy hours show up in the profile at local 09:00-19:00, not at UTC hours.
    assert profile.p95_pct[0, 9] >= 40
    assert profile.p95_pct[0, 8] < 15
    assert profile.coverage[2, 12] == pytest.approx(0.95, abs=0.02)


def test_it_finds_no_off_window_for_a_fleet_busy_around_the_clock() -> None:
    start = datetime(2026, 5, 4, 0, 0, tzinfo=UTC)
    util = always_busy_util(np.random.default_rng(2), instances=3, days=21)
    profile = hour_of_week_profile(util, start, "Asia/Shanghai")
    assert all(find_off_window(profile.instance(i)) is None for i in range(3))


@pytest.mark.parametrize(
    ("tz", "start"),
    [
        # America/New_York springs forward on 2026-03-08, Europe/Berlin on 2026-03-29 and
        # falls back on 2026-10-25: each period spans one change.
        ("America/New_York", datetime(2026, 2, 23, 5, 0, tzinfo=UTC)),
        ("Europe/Berlin", datetime(2026, 3, 15, 23, 0, tzinfo=UTC)),
        ("Europe/Berlin", datetime(2026, 10, 11, 22, 0, tzinfo=UTC)),
    ],
)
def test_it_keeps_office_hours_in_local_time_across_a_dst_change(tz: str, start: datetime) -> None:
    util = office_hours_util(
        np.random.default_rng(3),
        instances=2,
        start_utc=start,
        days=28,
        tz=tz,
        missing_fraction=0.0,
    )
    profile = hour_of_week_profile(util, start, tz)
    window = find_off_window(profile.instance(0))

    assert window is not None
    assert set(window.cells) == WEEKNIGHTS_AND_WEEKENDS
    assert window.supporting_weeks == 4
    # Had the buckets drifted by the DST hour, 08:00 or 19:00 would be busy in some week.
    assert (profile.weekly_high_minutes[0][:, :5, 8] == 0).all()
    assert (profile.weekly_high_minutes[0][:, :5, 19] == 0).all()
    assert profile.coverage[0].min() > 0.99


def test_it_counts_the_missing_and_the_repeated_dst_hour() -> None:
    """Berlin falls back on Sunday 2026-10-25: local 02:00-03:00 happens twice."""
    start = datetime(2026, 10, 18, 22, 0, tzinfo=UTC)  # Monday 2026-10-19 00:00 CEST
    util = np.full((1, 14 * 1440), 10.0, dtype=np.float32)
    profile = hour_of_week_profile(util, start, "Europe/Berlin")
    sunday_2am = profile.weekly_period_minutes[:, 6, 2]
    assert sunday_2am.tolist() == [120, 60]
    assert profile.coverage[0, 6, 2] == 1.0


def test_it_needs_two_supporting_weeks_for_an_off_window() -> None:
    start = datetime(2026, 5, 3, 16, 0, tzinfo=UTC)
    util = office_hours_util(
        np.random.default_rng(4), instances=1, start_utc=start, days=7, tz="Asia/Shanghai"
    )
    profile = hour_of_week_profile(util[0], start, "Asia/Shanghai")
    assert find_off_window(profile) is None


def test_it_reports_median_and_p95_per_cell() -> None:
    start = datetime(2026, 5, 4, 0, 0, tzinfo=UTC)  # Monday 00:00 UTC
    util = np.tile(np.arange(60, dtype=np.float32), 7 * 24)  # every hour: 0, 1, ..., 59 %
    util[:30] = np.nan
    profile = hour_of_week_profile(util, start, "UTC")
    assert profile.median_pct[0, 1] == 29
    assert profile.p95_pct[0, 1] == 56
    assert profile.median_pct[0, 0] == 44
    assert profile.coverage[0, 0] == 0.5


def test_it_rejects_a_naive_start() -> None:
    with pytest.raises(ValueError, match="start_utc"):
        hour_of_week_profile(np.zeros(60), datetime(2026, 5, 4), "UTC")


def test_it_gives_identical_profiles_when_run_again() -> None:
    start = datetime(2026, 5, 3, 16, 0, tzinfo=UTC)
    util = office_hours_util(
        np.random.default_rng(5), instances=3, start_utc=start, days=14, tz="Asia/Shanghai"
    )
    first = hour_of_week_profile(util, start, "Asia/Shanghai")
    second = hour_of_week_profile(util.copy(), start, "Asia/Shanghai")
    for name in ("median_pct", "p95_pct", "coverage", "weekly_high_minutes"):
        np.testing.assert_array_equal(getattr(first, name), getattr(second, name))
    assert find_off_window(first.instance(1)) == find_off_window(second.instance(1))
