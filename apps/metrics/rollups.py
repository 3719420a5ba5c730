"""Incremental hourly/daily rollups of raw metric days, and the project days built on them.

The writer hands over the merged day arrays it already holds in memory together with the hours
whose minutes changed, so an increment recomputes exactly the touched hours (and the touched
days' daily figures) without reading raw data again. Rows are upserted column-wise per metric:
a write of one metric never resets another metric's columns.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections import defaultdict
from collections.abc import Iterable, Sequence

import numpy as np
from django.db import connection

from apps.core.timegrid import datetime_to_epoch_microseconds, epoch_day_to_date
from apps.metrics.constants import (
    HOURS_PER_DAY,
    MINUTES_PER_HOUR,
    Metric,
    stat_column,
)
from apps.metrics.models import InstanceDayRollup, InstanceHourRollup, ProjectDayRollup
from apps.metrics.stats import block_stats
from apps.metrics.storage.upsert import upsert

METRICS: tuple[str, ...] = tuple(Metric.values)
# Metric columns of a new rollup row that no write has filled yet.
_EMPTY = {"avg": "NULL", "p95": "NULL", "max": "NULL", "minutes": "0"}


@dataclasses.dataclass(frozen=True)
class InstanceInfo:
    organization_id: int
    project_id: int | None
    gpu_count: float


@dataclasses.dataclass
class TouchedDays:
    """Merged days of one metric and, per day, the hours (0-23) whose minutes changed."""

    metric: str
    instance_ids: np.ndarray  # (days,) int64
    days: np.ndarray  # (days,) int64 epoch days
    arrays: np.ndarray  # (days, 1,440) float32
    hours: np.ndarray  # (days, 24) bool


@dataclasses.dataclass
class _Rows:
    """Rollup rows being assembled: one per (instance, period), columns as numpy arrays."""

    instance_ids: np.ndarray
    periods: np.ndarray
    columns: dict[str, np.ndarray]
    present: np.ndarray  # (rows, metrics) bool: the metric's columns were computed


def rollups_refresh(
    touched: Sequence[TouchedDays], instances: dict[int, InstanceInfo], now: dt.datetime
) -> int:
    """Recompute the touched instance-hours, instance-days and project-days; hours recomputed.

    Statistics are computed for all touched blocks of a metric at once (numpy), and each rollup
    table is written with one COPY + INSERT ... ON CONFLICT per set of metrics present.
    """
    touched = [t for t in touched if len(t.days)]
    if not touched:
        return 0
    info = _InstanceTable(instances)
    hour_parts, day_parts = [], []
    for item in touched:
        rows, hours = np.nonzero(item.hours)
        blocks = item.arrays.reshape(-1, HOURS_PER_DAY, MINUTES_PER_HOUR)[rows, hours]
        epoch_hours = item.days[rows] * HOURS_PER_DAY + hours
        hour_parts.append((item.metric, item.instance_ids[rows], epoch_hours, block_stats(blocks)))
        day_parts.append((item.metric, item.instance_ids, item.days, block_stats(item.arrays)))
    hour_rows = _assemble(hour_parts, info)
    day_rows = _assemble(day_parts, info)
    stamp = datetime_to_epoch_microseconds(now)
    _write(InstanceHourRollup, "hour_start", hour_rows, info, stamp)
    _write(InstanceDayRollup, "day", day_rows, info, stamp)
    organizations = info.organization_ids(day_rows.instance_ids)
    pairs = np.unique(np.stack([organizations, day_rows.periods]), axis=1)
    project_days_refresh(zip(pairs[0].tolist(), pairs[1].tolist(), strict=True), now)
    return len(hour_rows.instance_ids)


class _InstanceTable:
    def __init__(self, instances: dict[int, InstanceInfo]) -> None:
        self.ids = np.array(sorted(instances), dtype=np.int64)
        ordered = [instances[i] for i in self.ids.tolist()]
        self.organization = np.array([i.organization_id for i in ordered], dtype=np.int64)
        self.project = np.array([i.project_id or 0 for i in ordered], dtype=np.int64)
        self.gpu_count = np.array([i.gpu_count for i in ordered], dtype=np.float64)

    def index(self, instance_ids: np.ndarray) -> np.ndarray:
        return np.searchsorted(self.ids, instance_ids)

    def organization_ids(self, instance_ids: np.ndarray) -> np.ndarray:
        return self.organization[self.index(instance_ids)]


def _assemble(parts: list, info: _InstanceTable) -> _Rows:
    """Union the (instance, period) keys of every metric and place each metric's statistics."""
    composite = [(ids << 32) | periods for _m, ids, periods, _s in parts]
    keys = np.unique(np.concatenate(composite))
    count = keys.size
    rows = _Rows(keys >> 32, keys & 0xFFFFFFFF, {}, np.zeros((count, len(METRICS)), dtype=bool))
    for (metric, _ids, _periods, stats), part_keys in zip(parts, composite, strict=True):
        at = np.searchsorted(keys, part_keys)
        rows.present[at, METRICS.index(metric)] = True
        figures = {"avg": stats.avg, "p95": stats.p95, "max": stats.max, "minutes": stats.minutes}
        for stat, values in figures.items():
            column = rows.columns.setdefault(
                stat_column(metric, stat),
                np.zeros(count, dtype=np.int64) if stat == "minutes" else _nan(count),
            )
            column[at] = values
        if metric == Metric.GPU_UTIL_PCT:
            # GPU-hours count the minutes the instance reported a GPU utilization, i.e. it ran.
            gpu_count = info.gpu_count[info.index(rows.instance_ids[at])]
            rows.columns["gpu_hours"] = _nan(count)
            rows.columns["gpu_hours"][at] = gpu_count * stats.minutes / MINUTES_PER_HOUR
            rows.columns["gpu_busy_hours"] = _nan(count)
            rows.columns["gpu_busy_hours"][at] = gpu_count * stats.total / 100.0 / MINUTES_PER_HOUR
    return rows


def _nan(count: int) -> np.ndarray:
    return np.full(count, np.nan)


def _write(
    model: type[InstanceHourRollup] | type[InstanceDayRollup],
    period: str,
    rows: _Rows,
    info: _InstanceTable,
    stamp: int,
) -> None:
    # Rows are grouped by the set of metrics they carry: one statement per group, each updating
    # only its own metrics' columns on conflict.
    patterns = rows.present @ (1 << np.arange(len(METRICS)))
    for pattern in np.unique(patterns).tolist():
        selected = patterns == pattern
        metrics = [m for n, m in enumerate(METRICS) if pattern >> n & 1]
        computed = [stat_column(m, s) for m in metrics for s in _EMPTY]
        if Metric.GPU_UTIL_PCT in metrics:
            computed += ["gpu_hours", "gpu_busy_hours"]
        instance_ids = rows.instance_ids[selected]
        at = info.index(instance_ids)
        count = instance_ids.size
        periods = rows.periods[selected]
        arrays: dict[str, np.ndarray] = {
            "instance_id": instance_ids,
            period: periods * 3_600_000_000 if period == "hour_start" else periods,
            "organization_id": info.organization[at],
            "gpu_count": info.gpu_count[at],
            "created_at": np.full(count, stamp, dtype=np.int64),
            "updated_at": np.full(count, stamp, dtype=np.int64),
        }
        if model is InstanceDayRollup:
            arrays["project_id"] = info.project[at]
        for column in computed:
            arrays[column] = rows.columns[column][selected]
        constants = {
            stat_column(m, s): literal
            for m in METRICS
            if m not in metrics
            for s, literal in _EMPTY.items()
        }
        if Metric.GPU_UTIL_PCT not in metrics:
            constants.update({"gpu_hours": "0", "gpu_busy_hours": "0"})
        constants.update({"phase_minutes": "NULL", "cost": "NULL", "currency": "''"})
        update = [c for c in arrays if c not in ("instance_id", period, "created_at")]
        upsert(
            model, keys=["instance_id", period], arrays=arrays, constants=constants, update=update
        )


def project_days_refresh(organization_days: Iterable[tuple[int, int]], now: dt.datetime) -> None:
    """Rebuild the project-days of (organization, epoch day) pairs from the instance-days.

    A project-day is upserted (so figures other issues add to it survive) and a project left
    with no instance on that day loses its row.
    """
    by_organization: dict[int, set[int]] = defaultdict(set)
    for organization_id, day in organization_days:
        by_organization[organization_id].add(day)
    source = InstanceDayRollup._meta.db_table
    target = ProjectDayRollup._meta.db_table
    weighted = ", ".join(
        f"SUM({m}_avg * {m}_minutes) / NULLIF(SUM({m}_minutes), 0), MAX({m}_max), SUM({m}_minutes)"
        for m in METRICS
    )
    metric_columns = ", ".join(f"{m}_avg, {m}_max, {m}_minutes" for m in METRICS)
    updates = ", ".join(
        f"{c} = EXCLUDED.{c}"
        for c in ["instance_count", "gpu_hours", "gpu_busy_hours", "cost", "updated_at"]
        + [f"{m}_{s}" for m in METRICS for s in ("avg", "max", "minutes")]
    )
    stamp = connection.ops.adapt_datetimefield_value(now)
    with connection.cursor() as cursor:
        for organization_id, days in by_organization.items():
            dates = [epoch_day_to_date(d) for d in sorted(days)]
            marks = ", ".join(["%s"] * len(dates))
            cursor.execute(
                f"INSERT INTO {target} (organization_id, project_id, day, created_at, updated_at,"
                f" instance_count, gpu_hours, gpu_busy_hours, cost, currency, {metric_columns})"
                f" SELECT organization_id, project_id, day, %s, %s, COUNT(*),"
                f" COALESCE(SUM(gpu_hours), 0), COALESCE(SUM(gpu_busy_hours), 0), SUM(cost), '',"
                f" {weighted} FROM {source}"
                f" WHERE organization_id = %s AND day IN ({marks}) AND project_id IS NOT NULL"
                f" GROUP BY organization_id, project_id, day"
                f" ON CONFLICT (project_id, day) DO UPDATE SET {updates}",
                [stamp, stamp, organization_id, *dates],
            )
            cursor.execute(
                f"DELETE FROM {target} WHERE organization_id = %s AND day IN ({marks})"
                f" AND NOT EXISTS (SELECT 1 FROM {source} s WHERE s.project_id = {target}.project_id"
                f" AND s.day = {target}.day)",
                [organization_id, *dates],
            )
