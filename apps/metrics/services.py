"""Writes of metric data: merging points into raw days, rollup rebuilds and raw retention.

Every write goes through ``metrics_write_bulk`` (``metrics_write`` is its one-series form): the
cloud sync, the generator and the benchmark all use the same merge, so what the benchmark
measures is what production runs.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import itertools
import logging
from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from apps.cloud.models import Instance
from apps.core.timegrid import TimestampsLike, date_to_epoch_day, timestamps_to_epoch_minutes
from apps.metrics.constants import (
    DEFAULT_RAW_RETENTION_DAYS,
    HOURS_PER_DAY,
    MINUTES_PER_DAY,
    MINUTES_PER_HOUR,
    Metric,
)
from apps.metrics.rollups import InstanceInfo, TouchedDays, rollups_refresh
from apps.metrics.storage import raw
from apps.metrics.storage.points import to_values

logger = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class MetricSeries:
    """Points of one metric of one instance; timestamps are aware datetimes or unix seconds."""

    instance_id: int
    metric: Metric | str
    timestamps: TimestampsLike
    values: npt.ArrayLike


@dataclasses.dataclass(frozen=True)
class MetricWriteResult:
    points_received: int
    points_changed: int  # minutes whose stored value is new or different
    days_created: int
    days_updated: int
    hours_recomputed: int


def metrics_write(
    *,
    instance_id: int,
    metric: Metric | str,
    timestamps: TimestampsLike,
    values: npt.ArrayLike,
    update_rollups: bool = True,
) -> MetricWriteResult:
    """Merge one instance's points of one metric into its raw days (see ``metrics_write_bulk``)."""
    return metrics_write_bulk(
        series=[MetricSeries(instance_id, metric, timestamps, values)],
        update_rollups=update_rollups,
    )


# A raw day takes at most this many recent points before the writer folds them into the day
# row itself: the recent row stays a small inline row (6 bytes a point, well under
# PostgreSQL's 2 KB TOAST threshold) and readers never apply more than a few hours of points.
# ``metrics_recent_compact`` normally folds them long before.
RECENT_MAX_POINTS = 240
_METRICS: tuple[str, ...] = tuple(Metric.values)
# Composite key of a raw day: instance id (31 bits), metric index (3), epoch day + 2**23 (24).
_DAY_BIAS = 1 << 23


@transaction.atomic
def metrics_write_bulk(
    *, series: Iterable[MetricSeries], update_rollups: bool = True
) -> MetricWriteResult:
    """Merge the points of many (instance, metric) series into their raw days, atomically.

    A point sets its minute (timestamps are floored to the UTC minute); a NaN value is no point
    and never erases a stored one; a later point for the same minute replaces the stored value.
    So writing the same points again changes nothing (no row is rewritten, no rollup is
    recomputed) and late points fill gaps. Within one call, the last point given for a minute
    wins. The rollups of every hour whose minutes changed are recomputed in the same
    transaction unless ``update_rollups`` is False (then run ``metrics_rollups_rebuild``).

    New days are written whole; points merged into an existing day are kept as its recent
    points (a small row) until ``metrics_recent_compact`` folds them into the day array, so an
    increment costs what it adds, not the size of the days it touches.

    Raises ValueError, before anything is written, for an unknown metric or instance, naive
    datetimes, infinite values or mismatched lengths.
    """
    received, key_codes, staged = _stage(series)
    if key_codes.size == 0:
        return MetricWriteResult(received, 0, 0, 0, 0)
    instance_ids = key_codes >> 27
    metric_names = [_METRICS[c] for c in ((key_codes >> 24) & 7).tolist()]
    days = (key_codes & 0xFFFFFF) - _DAY_BIAS
    instances = _instance_infos(set(instance_ids.tolist()))

    raw.lock_instances(instances)
    state = raw.fetch_state(instance_ids, metric_names, days)
    now = timezone.now()
    given = ~np.isnan(staged)
    # A given point changes its minute when it differs from the stored value; "!=" is also
    # True where nothing was stored (NaN), and a NaN is never given.
    changed = given & (staged != state.days)
    touched = np.flatnonzero(changed.any(axis=1))
    if touched.size == 0:
        return MetricWriteResult(received, 0, 0, 0, 0)
    merged = np.where(given[touched], staged[touched], state.days[touched])
    changed = changed[touched]
    observed = np.count_nonzero(~np.isnan(merged), axis=1)
    exists = state.row_ids[touched] != 0

    new = np.flatnonzero(~exists)
    keys = touched[new]
    raw.insert_days(
        instance_ids[keys], _pick(metric_names, keys), days[keys], merged[new], observed[new], now
    )
    # Recent points without a day row only exist if pruning raced a late write; the new day
    # row holds them now.
    orphans = np.intersect1d(keys, state.recent_keys)
    raw.delete_recent(instance_ids[orphans], _pick(metric_names, orphans), days[orphans])
    # Existing days: their recent points become the old ones plus the changed ones.
    old = np.flatnonzero(exists)
    pending = changed[old]
    position = np.full(len(metric_names), -1, dtype=np.int64)
    position[touched[old]] = np.arange(old.size)
    inside = position[state.recent_keys] >= 0
    pending[position[state.recent_keys[inside]], state.recent_slots[inside]] = True
    fold = pending.sum(axis=1) > RECENT_MAX_POINTS
    kept, folded = old[~fold], old[fold]
    _keep_recent(instance_ids, metric_names, days, touched[kept], merged[kept], pending[~fold], now)
    raw.update_days(state.row_ids[touched[kept]], None, observed[kept], now)
    raw.update_days(state.row_ids[touched[folded]], merged[folded], observed[folded], now)
    keys = touched[folded]
    raw.delete_recent(instance_ids[keys], _pick(metric_names, keys), days[keys])

    hours_recomputed = 0
    if update_rollups:
        hours = changed.reshape(-1, HOURS_PER_DAY, MINUTES_PER_HOUR).any(axis=2)
        codes = (key_codes[touched] >> 24) & 7
        parts = []
        for code in np.unique(codes).tolist():
            rows = np.flatnonzero(codes == code)
            keys = touched[rows]
            parts.append(
                TouchedDays(
                    _METRICS[code], instance_ids[keys], days[keys], merged[rows], hours[rows]
                )
            )
        hours_recomputed = rollups_refresh(parts, instances, now)
    return MetricWriteResult(
        received, int(np.count_nonzero(changed)), int(new.size), int(old.size), hours_recomputed
    )


def _stage(series: Iterable[MetricSeries]) -> tuple[int, np.ndarray, np.ndarray]:
    """Validate the series and lay their points out per raw day.

    Returns the points received, the sorted composite keys of the days given points and a
    (days, 1,440) float32 array of the given points, NaN where none was given. Series are laid
    out in order, so the last point given for a minute wins.
    """
    segments: list[tuple[int, np.ndarray, np.ndarray]] = []
    received = 0
    for item in series:
        code = _METRICS.index(_metric(item.metric))
        minutes = timestamps_to_epoch_minutes(item.timestamps)
        values = to_values(item.values, minutes.shape[0])
        received += minutes.shape[0]
        instance_id = int(item.instance_id)
        if not 0 < instance_id < 1 << 31:
            raise ValueError(f"unknown instance ids: [{instance_id}]")
        present = ~np.isnan(values)
        if not present.all():
            minutes, values = minutes[present], values[present]
        if minutes.size == 0:
            continue
        if minutes.size > 1 and not bool(np.all(minutes[1:] > minutes[:-1])):
            # Out of order or repeated minutes: sort, keeping the last point of each minute.
            order = np.argsort(minutes, kind="stable")
            minutes, values = minutes[order], values[order]
            last = np.ones(minutes.size, dtype=bool)
            last[:-1] = minutes[1:] != minutes[:-1]
            minutes, values = minutes[last], values[last]
        first_day, last_day = minutes[0] // MINUTES_PER_DAY, minutes[-1] // MINUTES_PER_DAY
        if first_day < -_DAY_BIAS or last_day >= _DAY_BIAS:
            raise ValueError("timestamps must be within 20,000 years of 1970")
        prefix = (instance_id << 27) | (code << 24)
        if first_day == last_day:
            cuts = [0, minutes.size]
        else:
            day_of = minutes // MINUTES_PER_DAY
            cuts = [0, *(np.flatnonzero(day_of[1:] != day_of[:-1]) + 1).tolist(), minutes.size]
        for start, end in itertools.pairwise(cuts):
            day = int(minutes[start] // MINUTES_PER_DAY)
            slots = minutes[start:end] - day * MINUTES_PER_DAY
            segments.append((prefix | (day + _DAY_BIAS), slots, values[start:end]))
    if not segments:
        return received, np.zeros(0, dtype=np.int64), np.zeros((0, MINUTES_PER_DAY), np.float32)
    keys, rows = np.unique(np.array([s[0] for s in segments], dtype=np.int64), return_inverse=True)
    staged = np.full((keys.size, MINUTES_PER_DAY), np.nan, dtype=np.float32)
    for row, (_key, slots, values) in zip(rows.tolist(), segments, strict=True):
        staged[row, slots] = values
    return received, keys, staged


def _pick(names: list[str], indices: np.ndarray) -> list[str]:
    return [names[i] for i in indices.tolist()]


def _keep_recent(
    instance_ids: np.ndarray,
    metric_names: list[str],
    days: np.ndarray,
    keys: np.ndarray,
    merged: np.ndarray,
    pending: np.ndarray,
    now: dt.datetime,
) -> None:
    """Store the pending slots of existing days; ``merged``/``pending`` rows follow ``keys``."""
    if not keys.size:
        return
    rows, key_slots = np.nonzero(pending)
    cuts = np.flatnonzero(np.diff(rows)) + 1
    slot_lists = np.split(key_slots, cuts)
    value_lists = np.split(merged[rows, key_slots], cuts)
    raw.upsert_recent(
        instance_ids[keys], _pick(metric_names, keys), days[keys], slot_lists, value_lists, now
    )


def _metric(value: Metric | str) -> str:
    try:
        return Metric(value).value
    except ValueError:
        raise ValueError(f"unknown metric {value!r}; expected one of {Metric.values}") from None


def _instance_infos(instance_ids: set[int]) -> dict[int, InstanceInfo]:
    found = {
        row[0]: InstanceInfo(organization_id=row[1], project_id=row[2], gpu_count=row[3])
        for row in Instance.objects.filter(id__in=instance_ids).values_list(
            "id", "organization_id", "project_id", "gpu_count"
        )
    }
    missing = sorted(instance_ids - set(found))
    if missing:
        raise ValueError(f"unknown instance ids: {missing[:10]}")
    return found


def metrics_rollups_rebuild(
    *,
    instance_ids: Sequence[int] | None = None,
    start_day: dt.date | None = None,
    end_day: dt.date | None = None,
    chunk_instances: int = 100,
) -> int:
    """Recompute every rollup from the raw days still stored; the number of hours recomputed.

    Limited to ``instance_ids`` and to UTC days in [start_day, end_day] when given. Rollups of
    days whose raw data was pruned are left as they are. Each chunk of instances is its own
    transaction, so a rebuild of a large fleet never holds long locks.
    """
    from apps.metrics.models import MetricDay

    rows = MetricDay.objects.all()
    if instance_ids is not None:
        rows = rows.filter(instance_id__in=list(instance_ids))
    if start_day is not None:
        rows = rows.filter(day__gte=start_day)
    if end_day is not None:
        rows = rows.filter(day__lte=end_day)
    all_ids = sorted(set(rows.values_list("instance_id", flat=True)))
    total = 0
    for offset in range(0, len(all_ids), chunk_instances):
        chunk = all_ids[offset : offset + chunk_instances]
        with transaction.atomic():
            instances = _instance_infos(set(chunk))
            raw.lock_instances(chunk)
            keys = list(
                rows.filter(instance_id__in=chunk).values_list("instance_id", "metric", "day")
            )
            key_instance_ids = np.array([k[0] for k in keys], dtype=np.int64)
            metric_names = [k[1] for k in keys]
            days = np.array([date_to_epoch_day(k[2]) for k in keys], dtype=np.int64)
            merged = raw.fetch_state(key_instance_ids, metric_names, days).days
            hours = ~np.isnan(merged.reshape(-1, HOURS_PER_DAY, MINUTES_PER_HOUR)).all(axis=2)
            names = np.array(metric_names)
            parts = [
                TouchedDays(m, key_instance_ids[names == m], days[names == m], merged[names == m],
                            hours[names == m])
                for m in sorted(set(metric_names))
            ]  # fmt: skip
            total += rollups_refresh(parts, instances, timezone.now())
    return total


def metrics_recent_compact(*, batch_size: int = 2_000) -> int:
    """Fold the recent points of raw days into their day arrays; the days rewritten.

    Readers see the same values before and after (a day is its row with its recent points
    applied), so rollups are not touched. Each batch is its own short transaction under the
    same per-instance locks as the writer; run it periodically (the daily prune runs it too)
    so the writer rarely has to fold ``RECENT_MAX_POINTS`` itself.
    """
    folded = 0
    while True:
        with transaction.atomic():
            instance_ids, metric_names, days = raw.recent_keys(batch_size)
            if instance_ids.size:
                raw.lock_instances(set(instance_ids.tolist()))
                # Read after locking: a writer may have changed or folded the day meanwhile.
                state = raw.fetch_state(instance_ids, metric_names, days)
                exists = state.row_ids != 0
                observed = np.count_nonzero(~np.isnan(state.days[exists]), axis=1)
                raw.update_days(state.row_ids[exists], state.days[exists], observed, timezone.now())
                raw.delete_recent(instance_ids, metric_names, days)
                folded += int(exists.sum())
        if instance_ids.size < batch_size:
            return folded


def raw_retention_days() -> int:
    return int(getattr(settings, "METRICS_RAW_RETENTION_DAYS", DEFAULT_RAW_RETENTION_DAYS))


def metrics_raw_prune(
    *, as_of: dt.datetime, retention_days: int | None = None, batch_size: int = 2_000
) -> int:
    """Delete raw days that ended more than ``retention_days`` before ``as_of``; rows deleted.

    With ``as_of`` on UTC day D and retention R, days before D - R go and D - R is kept. Each
    batch is its own short transaction (no long lock on the table); rollups are never touched.
    """
    retention = raw_retention_days() if retention_days is None else retention_days
    if retention < 1:
        raise ValueError("retention_days must be at least 1")
    cutoff = as_of.astimezone(dt.UTC).date() - dt.timedelta(days=retention)
    deleted = 0
    while True:
        with transaction.atomic():
            count = raw.delete_days_before(cutoff, batch_size)
        deleted += count
        if count < batch_size:
            break
    logger.info("metrics: pruned %d raw days before %s", deleted, cutoff)
    return deleted


__all__ = [
    "MetricSeries",
    "MetricWriteResult",
    "metrics_raw_prune",
    "metrics_recent_compact",
    "metrics_rollups_rebuild",
    "metrics_write",
    "metrics_write_bulk",
]
