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
        timegrid.ceil_epoch_minute,
        timegrid.ceil_minute,
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


def test_it_rounds_up_to_the_next_minute_only_when_off_the_grid() -> None:
    on_grid = dt.datetime(2026, 3, 1, 10, 0, tzinfo=dt.UTC)
    minute = timegrid.datetime_to_epoch_minute(on_grid)
    assert timegrid.ceil_epoch_minute(on_grid) == minute
    assert timegrid.ceil_epoch_minute(on_grid + dt.timedelta(microseconds=1)) == minute + 1
    assert timegrid.ceil_epoch_minute(on_grid + dt.timedelta(seconds=59)) == minute + 1
    assert timegrid.ceil_minute(on_grid + dt.timedelta(seconds=1)) == on_grid + dt.timedelta(
        minutes=1
    )
    # Before the epoch too: up is towards the future, not towards zero.
    assert timegrid.ceil_epoch_minute(dt.datetime(1969, 12, 31, 23, 59, 30, tzinfo=dt.UTC)) == 0
    assert timegrid.ceil_minute(on_grid.astimezone(KOLKATA)) == on_grid


def test_it_splits_epoch_minutes_into_days_and_hours_alone_or_as_arrays() -> None:
    epoch_day = timegrid.date_to_epoch_day(dt.date(2026, 10, 26))
    start = epoch_day * timegrid.MINUTES_PER_DAY
    assert timegrid.epoch_minute_to_epoch_day(start - 1) == epoch_day - 1
    assert timegrid.epoch_minute_to_epoch_day(start) == epoch_day
    assert timegrid.hour_of_day(start + 13 * 60 + 59) == 13
    assert timegrid.hour_of_day(start - 1) == 23
    minutes = np.array([start - 1, start, start + 1439], dtype=np.int64)
    assert timegrid.epoch_minute_to_epoch_day(minutes).tolist() == [
        epoch_day - 1,
        epoch_day,
        epoch_day,
    ]
    assert timegrid.hour_of_day(minutes).tolist() == [23, 0, 23]


def test_it_lays_out_the_hour_starts_of_epoch_days() -> None:
    epoch_day = timegrid.date_to_epoch_day(dt.date(2026, 10, 26))
    one = timegrid.epoch_day_hour_starts(epoch_day)
    assert one.shape == (24,)
    assert [timegrid.epoch_minute_to_datetime(m).hour for m in one] == list(range(24))
    assert {timegrid.epoch_minute_to_date(m) for m in one} == {dt.date(2026, 10, 26)}
    many = timegrid.epoch_day_hour_starts(np.array([epoch_day, epoch_day + 1]))
    assert many.shape == (2, 24)
    assert many[1, 0] == many[0, 23] + 60
    assert (many[0] == one).all()


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
