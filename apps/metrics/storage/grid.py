"""The UTC minute grid: turning timestamps into (day, minute-of-day) slots, and values.

A minute is identified by its epoch minute (unix seconds // 60); a day by its epoch day
(epoch minute // 1,440). A point at 12:34:56 belongs to the minute starting at 12:34:00.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from apps.metrics.constants import SECONDS_PER_MINUTE

EPOCH_DAY = dt.date(1970, 1, 1)
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
# Raw days are stored little-endian whatever the host, so a dump reads the same everywhere.
STORED_DTYPE = np.dtype("<f4")

TimestampsLike = npt.ArrayLike | Sequence[dt.datetime]


def day_to_date(epoch_day: int) -> dt.date:
    return EPOCH_DAY + dt.timedelta(days=int(epoch_day))


def date_to_day(day: dt.date) -> int:
    return (day - EPOCH_DAY).days


def datetime_to_seconds(moment: dt.datetime) -> int:
    """Unix seconds (floored) of an aware datetime; naive datetimes are refused, not guessed."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"timestamp {moment!r} must be timezone-aware")
    return (moment - EPOCH) // dt.timedelta(seconds=1)


def minute_to_datetime(epoch_minute: int) -> dt.datetime:
    return EPOCH + dt.timedelta(minutes=int(epoch_minute))


def to_epoch_minutes(timestamps: TimestampsLike) -> np.ndarray:
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
            (datetime_to_seconds(moment) for moment in array), dtype=np.int64, count=len(array)
        )
    else:
        raise ValueError(f"timestamps must be datetimes or unix seconds, got dtype {array.dtype}")
    return seconds // SECONDS_PER_MINUTE


def to_values(values: npt.ArrayLike, count: int) -> np.ndarray:
    """Values as float32; NaN means "no point" and infinities are refused."""
    array = np.asarray(values)
    if array.dtype != np.float32:
        array = array.astype(np.float64).astype(np.float32)
    array = array.reshape(-1)
    if array.shape[0] != count:
        raise ValueError(f"got {count} timestamps but {array.shape[0]} values")
    if np.isinf(array).any():
        raise ValueError("values must be finite numbers or NaN (missing)")
    return array
