"""Writes of metric data: merging points into raw days, rollup rebuilds and raw retention.

Every write goes through ``metrics_write_bulk`` (``metrics_write`` is its one-series form): the
cloud sync, the generator and the benchmark all use the same merge, so what the benchmark
measures is what production runs.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
from collections import defaultdict
from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from apps.cloud.models import Instance
from apps.metrics.constants import (
    DEFAULT_RAW_RETENTION_DAYS,
    MINUTES_PER_HOUR,
    Metric,
)
from apps.metrics.rollups import InstanceInfo, TouchedDay, rollups_refresh
from apps.metrics.storage import raw
from apps.metrics.storage.grid import (
    TimestampsLike,
    date_to_day,
    empty_day,
    encode_day,
    split_by_day,
    to_epoch_minutes,
    to_values,
)

logger = logging.getLogger(__name__)

DayKey = raw.DayKey


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

    Raises ValueError, before anything is written, for an unknown metric or instance, naive
    datetimes, infinite values or mismatched lengths.
    """
    patches: dict[DayKey, list[tuple[np.ndarray, np.ndarray]]] = defaultdict(list)
    received = 0
    for item in series:
        metric = _metric(item.metric)
        minutes = to_epoch_minutes(item.timestamps)
        values = to_values(item.values, minutes.shape[0])
        received += minutes.shape[0]
        for day, slots, day_values in split_by_day(minutes, values):
            patches[(int(item.instance_id), metric, day)].append((slots, day_values))
    if not patches:
        return MetricWriteResult(received, 0, 0, 0, 0)
    instances = _instance_infos({key[0] for key in patches})

    raw.lock_instances(instances)
    keys = list(patches)
    stored = raw.fetch_days(keys)
    now = timezone.now()
    inserts: list[tuple[DayKey, bytes, int]] = []
    updates: list[tuple[int, bytes, int]] = []
    touched: dict[tuple[int, int], TouchedDay] = {}
    changed_points = 0
    for key in keys:
        row_id, before = stored.get(key, (None, None))
        merged = empty_day() if before is None else before.copy()
        for slots, day_values in patches[key]:
            merged[slots] = day_values
        parts = patches[key]
        # Slots are unique within a patch (split_by_day), so only several patches can repeat.
        all_slots = (
            parts[0][0] if len(parts) == 1 else np.unique(np.concatenate([p[0] for p in parts]))
        )
        # Patched slots hold a number now, so "!=" is also True where the old value was NaN.
        changed = all_slots if before is None else all_slots[merged[all_slots] != before[all_slots]]
        if changed.size == 0:
            continue
        changed_points += changed.size
        observed = int(np.count_nonzero(~np.isnan(merged)))
        if row_id is None:
            inserts.append((key, encode_day(merged), observed))
        else:
            updates.append((row_id, encode_day(merged), observed))
        instance_id, metric, day = key
        day_item = touched.setdefault((instance_id, day), TouchedDay(instance_id, day))
        day_item.arrays[metric] = merged
        hours = np.zeros(24, dtype=bool)
        hours[changed // MINUTES_PER_HOUR] = True
        day_item.hours[metric] = np.flatnonzero(hours)
    raw.insert_days(inserts, now)
    raw.update_days(updates, now)
    hours = rollups_refresh(list(touched.values()), instances, now) if update_rollups else 0
    return MetricWriteResult(received, changed_points, len(inserts), len(updates), hours)


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
    all_hours = np.arange(24)
    for offset in range(0, len(all_ids), chunk_instances):
        chunk = all_ids[offset : offset + chunk_instances]
        with transaction.atomic():
            instances = _instance_infos(set(chunk))
            raw.lock_instances(chunk)
            touched: dict[tuple[int, int], TouchedDay] = {}
            for instance_id, metric, day, blob in rows.filter(instance_id__in=chunk).values_list(
                "instance_id", "metric", "day", "values"
            ):
                merged = np.frombuffer(bytes(blob), dtype="<f4").astype(np.float32)
                epoch_day = date_to_day(day)
                item = touched.setdefault(
                    (instance_id, epoch_day), TouchedDay(instance_id, epoch_day)
                )
                item.arrays[metric] = merged
                present = ~np.isnan(merged.reshape(24, MINUTES_PER_HOUR)).all(axis=1)
                item.hours[metric] = all_hours[present]
            total += rollups_refresh(list(touched.values()), instances, timezone.now())
    return total


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
    "metrics_rollups_rebuild",
    "metrics_write",
    "metrics_write_bulk",
]
