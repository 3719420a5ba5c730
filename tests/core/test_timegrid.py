"""The project's one time grid: epoch minutes, epoch days, floors."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from apps.core import timegrid

KOLKATA = dt.timezone(dt.timedelta(hours=5, minutes=30))


def test_it_floors_to_the_utc_minute_hour_and_day_whatever_the_zone_of_the_input() -> None:
    moment = dt.datetime(
        2026, 3, 1, 2, 47, 59, 999_999, tzinfo=KOLKATA
    )  # 21:17:59 UTC the day before
    assert timegrid.floor_minute(moment) == dt.datetime(2026, 2, 28, 21, 17, tzinfo=dt.UTC)
    assert timegrid.floor_hour(moment) == dt.datetime(2026, 2, 28, 21, tzinfo=dt.UTC)
    assert timegrid.floor_day(moment) == dt.datetime(2026, 2, 28, tzinfo=dt.UTC)
    assert timegrid.floor_minute(moment).tzinfo == dt.UTC


def test_it_floors_moments_before_the_epoch_down_not_towards_zero() -> None:
    moment = dt.datetime(1969, 12, 31, 23, 59, 30, tzinfo=dt.UTC)
    assert timegrid.datetime_to_epoch_minute(moment) == -1
    assert timegrid.datetime_to_epoch_seconds(moment) == -30
    assert timegrid.epoch_minute_to_date(-1) == dt.date(1969, 12, 31)


@pytest.mark.parametrize(
    "convert",
    [
        timegrid.datetime_to_epoch_seconds,
        timegrid.datetime_to_epoch_minute,
        timegrid.datetime_to_epoch_microseconds,
        timegrid.floor_minute,
        timegrid.floor_hour,
        timegrid.floor_day,
    ],
)
def test_it_refuses_a_naive_datetime_instead_of_guessing_its_zone(convert) -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        convert(dt.datetime(2026, 3, 1, 12, 0))


def test_it_maps_epoch_minutes_days_and_dates_both_ways() -> None:
    day = dt.date(2026, 10, 26)
    epoch_day = timegrid.date_to_epoch_day(day)
    assert epoch_day == (day - dt.date(1970, 1, 1)).days
    assert timegrid.epoch_day_to_date(epoch_day) == day
    last_minute = (epoch_day + 1) * timegrid.MINUTES_PER_DAY - 1
    assert timegrid.epoch_minute_to_date(last_minute) == day
    assert timegrid.epoch_minute_to_date(last_minute + 1) == day + dt.timedelta(days=1)
    start = timegrid.epoch_minute_to_datetime(epoch_day * timegrid.MINUTES_PER_DAY)
    assert start == dt.datetime(2026, 10, 26, tzinfo=dt.UTC)
    assert timegrid.datetime_to_epoch_microseconds(start) == int(start.timestamp()) * 1_000_000


def test_it_gives_the_same_epoch_minutes_for_datetimes_datetime64_and_unix_seconds() -> None:
    moments = [
        dt.datetime(2026, 3, 1, 12, 0, 59, tzinfo=dt.UTC),
        dt.datetime(2026, 3, 1, 13, 1, 0, tzinfo=KOLKATA),
    ]
    expected = [timegrid.datetime_to_epoch_minute(m) for m in moments]
    seconds = [int(m.timestamp()) for m in moments]
    for timestamps in (
        moments,
        np.array(
            [m.astimezone(dt.UTC).replace(tzinfo=None) for m in moments], dtype="datetime64[s]"
        ),
        np.array(seconds, dtype=np.int64),
        np.array(seconds, dtype=np.float64) + 0.5,
    ):
        minutes = timegrid.timestamps_to_epoch_minutes(timestamps)
        assert minutes.dtype == np.int64
        assert minutes.tolist() == expected


def test_it_refuses_timestamps_that_are_not_times() -> None:
    with pytest.raises(ValueError, match="finite"):
        timegrid.timestamps_to_epoch_minutes(np.array([1.0, np.nan]))
    with pytest.raises(ValueError, match="unix seconds"):
        timegrid.timestamps_to_epoch_minutes(np.array(["12:00"]))
