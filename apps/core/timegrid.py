"""The UTC time grid every app counts in: epoch minutes and epoch days.

A minute is identified by its epoch minute (unix seconds // 60), a UTC day by its epoch day
(epoch minute // 1,440). A point at 12:34:56 belongs to the minute starting at 12:34:00. Whole
fleets are handled as numpy arrays of epoch minutes; datetimes are made only at the edges.

Importable without the Django app registry (no Django import here), so pure code, benchmarks
and tests can use it before ``django.setup()``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import TypeVar

import numpy as np
import numpy.typing as npt

SECONDS_PER_MINUTE = 60
MINUTES_PER_HOUR = 60
HOURS_PER_DAY = 24
MINUTES_PER_DAY = MINUTES_PER_HOUR * HOURS_PER_DAY
SECONDS_PER_HOUR = SECONDS_PER_MINUTE * MINUTES_PER_HOUR
SECONDS_PER_DAY = SECONDS_PER_MINUTE * MINUTES_PER_DAY
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
EPOCH_DATE = EPOCH.date()
_EPOCH_ORDINAL = EPOCH_DATE.toordinal()
_HOUR_OFFSETS = MINUTES_PER_HOUR * np.arange(HOURS_PER_DAY, dtype=np.int64)

TimestampsLike = npt.ArrayLike | Sequence[dt.datetime]
# An epoch minute (or day) alone or a whole array of them: the integer arithmetic is the same.
EpochInts = TypeVar("EpochInts", int, np.ndarray)


def _require_aware(moment: dt.datetime) -> None:
    # A naive datetime is refused, not guessed: the server's local zone is nobody's business.
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"timestamp {moment!r} must be timezone-aware")


def datetime_to_epoch_seconds(moment: dt.datetime) -> int:
    """Unix seconds (floored) of an aware datetime."""
    _require_aware(moment)
    return (moment - EPOCH) // dt.timedelta(seconds=1)


def datetime_to_epoch_minute(moment: dt.datetime) -> int:
    """Epoch minute (floored) of an aware datetime."""
    _require_aware(moment)
    return (moment - EPOCH) // dt.timedelta(minutes=1)


def datetime_to_epoch_microseconds(moment: dt.datetime) -> int:
    """Microseconds since the unix epoch of an aware datetime."""
    _require_aware(moment)
    return (moment - EPOCH) // dt.timedelta(microseconds=1)


def ceil_epoch_minute(moment: dt.datetime) -> int:
    """Epoch minute rounded up: the first minute starting at or after ``moment``.

    The exclusive end, on the grid, of a span ending at ``moment`` (10:00:00 ends at the minute
    10:00, 10:00:00.5 at 10:01).
    """
    _require_aware(moment)
    return -((EPOCH - moment) // dt.timedelta(minutes=1))


def ceil_minute(moment: dt.datetime) -> dt.datetime:
    """The first minute start (UTC) at or after ``moment``."""
    return epoch_minute_to_datetime(ceil_epoch_minute(moment))


def epoch_minute_to_datetime(epoch_minute: int | np.integer) -> dt.datetime:
    """The aware UTC datetime at which an epoch minute starts."""
    return EPOCH + dt.timedelta(minutes=int(epoch_minute))


def epoch_minute_to_date(epoch_minute: int | np.integer) -> dt.date:
    """The UTC date an epoch minute falls on."""
    return dt.date.fromordinal(_EPOCH_ORDINAL + int(epoch_minute) // MINUTES_PER_DAY)


def epoch_minute_to_epoch_day(epoch_minute: EpochInts) -> EpochInts:
    """The epoch day (UTC) of an epoch minute, or of each of an array of them."""
    return epoch_minute // MINUTES_PER_DAY


def hour_of_day(epoch_minute: EpochInts) -> EpochInts:
    """The UTC hour (0-23) an epoch minute falls in, or of each of an array of them."""
    return epoch_minute % MINUTES_PER_DAY // MINUTES_PER_HOUR


def epoch_day_hour_starts(epoch_days: int | np.ndarray) -> np.ndarray:
    """Epoch minutes (int64) at which the 24 UTC hours of each epoch day start.

    Shape ``(24,)`` for one day, ``(days, 24)`` for an array of days: the layout of a day's
    per-hour rows (``PhaseDay``).
    """
    days = np.asarray(epoch_days, dtype=np.int64)
    return days[..., None] * MINUTES_PER_DAY + _HOUR_OFFSETS


def epoch_day_to_date(epoch_day: int | np.integer) -> dt.date:
    return dt.date.fromordinal(_EPOCH_ORDINAL + int(epoch_day))


def date_to_epoch_day(day: dt.date) -> int:
    return day.toordinal() - _EPOCH_ORDINAL


def floor_minute(moment: dt.datetime) -> dt.datetime:
    """The start (UTC) of the minute ``moment`` falls in."""
    return epoch_minute_to_datetime(datetime_to_epoch_minute(moment))


def floor_hour(moment: dt.datetime) -> dt.datetime:
    """The start (UTC) of the UTC hour ``moment`` falls in."""
    minute = datetime_to_epoch_minute(moment)
    return epoch_minute_to_datetime(minute - minute % MINUTES_PER_HOUR)


def floor_day(moment: dt.datetime) -> dt.datetime:
    """The UTC midnight starting the UTC day ``moment`` falls in."""
    minute = datetime_to_epoch_minute(moment)
    return epoch_minute_to_datetime(minute - minute % MINUTES_PER_DAY)


def timestamps_to_epoch_minutes(timestamps: TimestampsLike) -> np.ndarray:
    """Epoch minutes (int64) of aware datetimes, numpy datetime64 values or unix seconds."""
    array = np.asarray(timestamps)
    if array.ndim != 1:
        array = array.reshape(-1)
    kind = array.dtype.kind
    if kind == "M":
        seconds = array.astype("datetime64[s]").astype(np.int64)
    elif kind in "iu":
        seconds = array.astype(np.int64)
    elif kind == "f":
        if not np.all(np.isfinite(array)):
            raise ValueError("timestamps must be finite unix seconds")
        seconds = np.floor(array).astype(np.int64)
    elif kind == "O":
        seconds = np.fromiter(
            (datetime_to_epoch_seconds(moment) for moment in array),
            dtype=np.int64,
            count=len(array),
        )
    else:
        raise ValueError(f"timestamps must be datetimes or unix seconds, got dtype {array.dtype}")
    return seconds // SECONDS_PER_MINUTE
