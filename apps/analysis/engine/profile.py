"""Hour-of-week utilization profiles in the organization's timezone.

Each minute is bucketed by its *local* weekday and hour (zoneinfo), so a DST change moves the
buckets in UTC exactly as it moves people's working hours: the hour that does not exist on the
spring-forward day simply has fewer minutes that week, the repeated autumn hour has more.

Quantiles come from per-cell histograms of whole percentage points (one ``bincount`` pass), not
from sorting: a percentile is reported as the lower edge of its 1-point bin, which is exact for
the integer percentages Cloud Monitor reports and at most 1 point low otherwise.
"""

from __future__ import annotations

import dataclasses
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import numpy as np
import numpy.typing as npt

from .features import as_fleet
from .thresholds import DEFAULT_THRESHOLDS, PhaseThresholds

HOURS_PER_WEEK = 7 * 24
_BINS = 102  # 0..100 % in whole points, plus one bin for "missing"
_MISSING_BIN = 101
_MONDAY = datetime(2001, 1, 1)  # a Monday: local minute-of-week counts from such a midnight
_CHUNK_INSTANCES = 32


@dataclasses.dataclass(frozen=True)
class HourOfWeekProfile:
    """Utilization by local (weekday, hour); weekday 0 is Monday.

    Arrays are (7, 24) for one instance or pooled data, (instances, 7, 24) per instance; the
    weekly arrays insert a week axis before (7, 24). Weeks are local Monday-to-Sunday weeks,
    ``week_starts`` gives their Mondays.
    """

    tz: str
    start_utc: datetime
    low_util_pct: float
    """Threshold that ``weekly_high_minutes`` counts against (minutes at or above it)."""
    median_pct: np.ndarray
    p95_pct: np.ndarray
    """NaN where the cell has no observed minute."""
    coverage: np.ndarray
    """Observed minutes / minutes of the period falling in the cell (0 if none fall in it)."""
    observed_minutes: np.ndarray
    week_starts: tuple[date, ...]
    weekly_period_minutes: np.ndarray
    """(weeks, 7, 24): minutes of the period in each local week and cell (same for every row)."""
    weekly_observed_minutes: np.ndarray
    weekly_high_minutes: np.ndarray

    @property
    def is_fleet(self) -> bool:
        """True when the arrays have a leading instance axis."""
        return self.median_pct.ndim == 3

    def instance(self, index: int) -> HourOfWeekProfile:
        """The profile of one row of a per-instance profile."""
        if not self.is_fleet:
            raise ValueError("this profile has no instance axis")
        return dataclasses.replace(
            self,
            median_pct=self.median_pct[index],
            p95_pct=self.p95_pct[index],
            coverage=self.coverage[index],
            observed_minutes=self.observed_minutes[index],
            weekly_observed_minutes=self.weekly_observed_minutes[index],
            weekly_high_minutes=self.weekly_high_minutes[index],
        )


def hour_of_week_profile(
    util: npt.ArrayLike,
    start_utc: datetime,
    tz: str,
    *,
    thresholds: PhaseThresholds = DEFAULT_THRESHOLDS,
    pooled: bool = False,
) -> HourOfWeekProfile:
    """Median, p95 and coverage of per-minute GPU utilization by local weekday and hour.

    ``util`` is (minutes,) or (instances, minutes) with NaN for missing minutes; minute 0 is
    ``start_utc`` (timezone-aware, on a whole minute). With ``pooled`` a 2-D input is treated as
    one population (a fleet or project profile); otherwise each row gets its own profile.
    """
    rows = as_fleet("util", util)
    if start_utc.tzinfo is None or start_utc.utcoffset() is None:
        raise ValueError("start_utc: must be timezone-aware")
    if start_utc.second or start_utc.microsecond:
        raise ValueError("start_utc: must be on a whole minute")
    zone = ZoneInfo(tz)
    instances, minutes = rows.shape
    cell, week, week_starts = _local_cells(start_utc.astimezone(UTC), minutes, zone)
    weeks = len(week_starts)
    week_cell = week * HOURS_PER_WEEK + cell
    period = np.bincount(week_cell, minlength=weeks * HOURS_PER_WEEK)

    high_bin = int(np.ceil(thresholds.off_window_p95_max_pct))
    cell_offsets = cell.astype(np.int64) * _BINS
    # Local hours are contiguous runs of minutes; their starts let the weekly counts be
    # summed per run instead of per minute.
    run_starts = np.flatnonzero(np.diff(week_cell, prepend=-1))
    pieces = _pieces(run_starts, minutes)
    piece_week_cell = week_cell[pieces.starts]
    # Reshaped (and maybe pooled) below: typed as any shape.
    histogram: np.ndarray = np.zeros((instances, HOURS_PER_WEEK * _BINS), dtype=np.int64)
    weekly_observed = np.zeros((instances, weeks * HOURS_PER_WEEK), dtype=np.int64)
    weekly_high = np.zeros_like(weekly_observed)
    for first in range(0, instances, _CHUNK_INSTANCES):
        chunk = slice(first, min(first + _CHUNK_INSTANCES, instances))
        bins = _percent_bins(rows[chunk])
        count = bins.shape[0]
        index = cell_offsets + bins
        index += (np.arange(count, dtype=np.int64) * (HOURS_PER_WEEK * _BINS))[:, np.newaxis]
        histogram[chunk] = np.bincount(
            index.reshape(-1), minlength=count * HOURS_PER_WEEK * _BINS
        ).reshape(count, -1)
        observed = bins != _MISSING_BIN
        high = (bins >= high_bin) & observed
        for target, flags in ((weekly_observed, observed), (weekly_high, high)):
            per_piece = _count_per_piece(flags, pieces)
            # The repeated autumn DST hour is two runs in one (week, cell): add, not assign.
            np.add.at(target[chunk].T, piece_week_cell, per_piece.T)

    histogram = histogram.reshape(instances, HOURS_PER_WEEK, _BINS)
    if pooled:
        histogram = histogram.sum(axis=0, keepdims=True)
        weekly_observed = weekly_observed.sum(axis=0, keepdims=True)
        weekly_high = weekly_high.sum(axis=0, keepdims=True)
    # One running count over the whole flat histogram (cells one after the other) is sorted, so
    # every cell's quantile is one binary search in it.
    cumulative = np.cumsum(histogram.reshape(-1))
    cell_base = np.empty(cumulative.size // _BINS, dtype=np.int64)
    cell_base[0] = 0
    cell_base[1:] = cumulative[_BINS - 1 : -1 : _BINS]
    observed_minutes = (cumulative[_MISSING_BIN - 1 :: _BINS] - cell_base).reshape(
        histogram.shape[:-1]
    )
    median = _quantile(cumulative, cell_base, observed_minutes, 0.50)
    p95 = _quantile(cumulative, cell_base, observed_minutes, 0.95)
    in_period = period.reshape(weeks, HOURS_PER_WEEK).sum(axis=0)
    if pooled:
        in_period = in_period * instances
    with np.errstate(invalid="ignore", divide="ignore"):
        coverage = np.where(in_period > 0, observed_minutes / np.maximum(in_period, 1), 0.0)

    squeeze = pooled or np.ndim(util) == 1
    week_shape = (weeks, 7, 24)

    def shaped(array: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
        out = array.reshape((-1, *shape))
        return out[0] if squeeze else out

    return HourOfWeekProfile(
        tz=tz,
        start_utc=start_utc,
        low_util_pct=thresholds.off_window_p95_max_pct,
        median_pct=shaped(median, (7, 24)),
        p95_pct=shaped(p95, (7, 24)),
        coverage=shaped(coverage, (7, 24)),
        observed_minutes=shaped(observed_minutes, (7, 24)),
        week_starts=week_starts,
        weekly_period_minutes=period.reshape(week_shape) * (instances if pooled else 1),
        weekly_observed_minutes=shaped(weekly_observed, week_shape),
        weekly_high_minutes=shaped(weekly_high, week_shape),
    )


@dataclasses.dataclass(frozen=True)
class _Pieces:
    """Minute ranges that each lie in one local hour: an optional head, whole hours, a tail.

    When every local hour starts at the same minute of the UTC hour (zones whose offsets are
    whole hours apart, i.e. nearly all of them, across DST too), the whole hours are one
    (hours, 60) reshape and are counted without a per-run loop; otherwise ``hourly`` is None and
    every run is its own piece.
    """

    starts: np.ndarray
    """First minute of every piece, in order: head (if any), whole hours, tail (if any)."""
    ends: np.ndarray
    hourly: slice | None
    """Minutes covered by whole hours, and ``hourly_pieces`` their index range in ``starts``."""
    hourly_pieces: slice


def _pieces(run_starts: np.ndarray, minutes: int) -> _Pieces:
    run_ends = np.append(run_starts[1:], minutes)
    if run_starts.size > 1:
        first = int(run_starts[1])
        whole = (minutes - first) // 60
        if whole and not ((run_starts[1:] - first) % 60).any():
            hour_starts = first + 60 * np.arange(whole, dtype=np.int64)
            head = [0] if first else []
            last = first + 60 * whole
            tail = [last] if last < minutes else []
            starts = np.concatenate(
                [np.array(head, dtype=np.int64), hour_starts, np.array(tail, dtype=np.int64)]
            )
            ends = np.append(starts[1:], minutes)
            return _Pieces(starts, ends, slice(first, last), slice(len(head), len(head) + whole))
    return _Pieces(run_starts, run_ends, None, slice(0, 0))


def _count_per_piece(flags: np.ndarray, pieces: _Pieces) -> np.ndarray:
    """(rows, pieces) counts of True per piece of minutes."""
    out = np.empty((flags.shape[0], pieces.starts.size), dtype=np.int64)
    if pieces.hourly is not None:
        hours = flags[:, pieces.hourly].reshape(flags.shape[0], -1, 60)
        out[:, pieces.hourly_pieces] = np.count_nonzero(hours, axis=2)
        other = np.ones(pieces.starts.size, dtype=bool)
        other[pieces.hourly_pieces] = False
        for index in np.flatnonzero(other):
            out[:, index] = np.count_nonzero(
                flags[:, pieces.starts[index] : pieces.ends[index]], axis=1
            )
        return out
    # General case: differences of a running count at the pieces' last minutes.
    running = np.cumsum(flags, axis=1, dtype=np.int64)
    out[...] = np.diff(running[:, pieces.ends - 1], axis=1, prepend=0)
    return out


def _percent_bins(util: np.ndarray) -> np.ndarray:
    """Whole-percent bin per minute as int64: 0-100, and 101 for a missing minute.

    ``fmin`` ignores NaN, so NaN (and anything at or above 101 %) lands in the missing bin;
    ``fmax`` then clamps negatives to 0. The float-to-int cast truncates, i.e. rounds down.
    """
    clipped = np.fmin(util, np.float32(_MISSING_BIN))
    np.fmax(clipped, np.float32(0.0), out=clipped)
    return clipped.astype(np.int64)


def _quantile(
    cumulative: np.ndarray, cell_base: np.ndarray, totals: np.ndarray, q: float
) -> np.ndarray:
    """Nearest-rank quantile (the ceil(q n)-th smallest value) of every cell's histogram.

    ``cumulative`` is the running count over all cells' bins in a row, ``cell_base`` its value
    just before each cell. The quantile's bin is the first bin of the cell whose running count
    reaches the rank; a cell without observed minutes is NaN.
    """
    rank = np.ceil(q * totals).astype(np.int64).reshape(-1)
    target = cell_base + np.maximum(rank, 1)
    found = np.searchsorted(cumulative, target, side="left")
    value = (found - np.arange(cell_base.size, dtype=np.int64) * _BINS).astype(np.float32)
    value = value.reshape(totals.shape)
    value[totals == 0] = np.nan
    return value


def _local_cells(
    start_utc: datetime, minutes: int, zone: ZoneInfo
) -> tuple[np.ndarray, np.ndarray, tuple[date, ...]]:
    """Local hour-of-week cell and local week index of every minute, and the weeks' Mondays."""
    offsets = _utc_offset_minutes(start_utc, minutes, zone)
    start_naive = start_utc.replace(tzinfo=None)
    base = (start_naive - _MONDAY) // timedelta(minutes=1)
    local_minute = base + np.arange(minutes, dtype=np.int64) + offsets
    cell = (local_minute // 60) % HOURS_PER_WEEK
    absolute_week = local_minute // (7 * 24 * 60)
    first_week = int(absolute_week[0]) if minutes else 0
    weeks = int(absolute_week[-1]) - first_week + 1 if minutes else 0
    week_starts = tuple((_MONDAY + timedelta(weeks=first_week + w)).date() for w in range(weeks))
    return cell.astype(np.int64), (absolute_week - first_week).astype(np.int64), week_starts


def _utc_offset_minutes(start_utc: datetime, minutes: int, zone: ZoneInfo) -> np.ndarray:
    """UTC offset in minutes at every minute of the period.

    Sampled every 15 minutes (every zone in use changes offset on a quarter-hour); an interval
    whose two ends disagree is resolved minute by minute, so the result is exact either way.
    """
    step = 15
    samples = np.array(
        [_offset(start_utc + timedelta(minutes=m), zone) for m in range(0, minutes + step, step)],
        dtype=np.int64,
    )
    offsets = np.repeat(samples[:-1], step)[:minutes]
    for interval in np.flatnonzero(samples[1:] != samples[:-1]):
        first = int(interval) * step
        for m in range(first, min(first + step, minutes)):
            offsets[m] = _offset(start_utc + timedelta(minutes=m), zone)
    return offsets


def _offset(moment: datetime, zone: ZoneInfo) -> int:
    offset = moment.astimezone(zone).utcoffset()
    assert offset is not None  # a ZoneInfo always has an offset for an aware moment
    return offset // timedelta(minutes=1)
