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

from apps.metrics.constants import (
    HOURS_PER_DAY,
    MINUTES_PER_HOUR,
    Metric,
    stat_column,
)
from apps.metrics.models import InstanceDayRollup, InstanceHourRollup, ProjectDayRollup
from apps.metrics.stats import block_stats
from apps.metrics.storage.grid import EPOCH, day_to_date
from apps.metrics.storage.upsert import upsert

METRICS: tuple[str, ...] = tuple(Metric.values)
_HOUR = dt.timedelta(hours=1)
# Metric columns of a new rollup row that no write has filled yet.
_EMPTY = {"avg": "NULL", "p95": "NULL", "max": "NULL", "minutes": "0"}


@dataclasses.dataclass(frozen=True)
class InstanceInfo:
    organization_id: int
    project_id: int | None
    gpu_count: float


@dataclasses.dataclass
class TouchedDay:
    """The merged arrays of one instance-day and, per metric, the hours (0-23) that changed."""

    instance_id: int
    day: int  # epoch day
    arrays: dict[str, np.ndarray] = dataclasses.field(default_factory=dict)
    hours: dict[str, np.ndarray] = dataclasses.field(default_factory=dict)


def rollups_refresh(
    touched: Sequence[TouchedDay], instances: dict[int, InstanceInfo], now: dt.datetime
) -> int:
    """Recompute the touched instance-hours, instance-days and project-days; hours recomputed."""
    if not touched:
        return 0
    hour_columns: dict[tuple[int, int], dict[str, float]] = defaultdict(dict)
    day_columns: dict[tuple[int, int], dict[str, float]] = defaultdict(dict)
    for metric in METRICS:
        with_metric = [t for t in touched if metric in t.arrays]
        if not with_metric:
            continue
        hour_blocks, hour_keys = [], []
        for item in with_metric:
            hours = item.hours[metric]
            hour_blocks.append(item.arrays[metric].reshape(HOURS_PER_DAY, MINUTES_PER_HOUR)[hours])
            epoch_hours = item.day * HOURS_PER_DAY + hours
            hour_keys.extend((item.instance_id, h) for h in epoch_hours.tolist())
        _collect(metric, np.concatenate(hour_blocks), hour_keys, hour_columns, instances)
        days = np.stack([item.arrays[metric] for item in with_metric])
        day_keys = [(item.instance_id, item.day) for item in with_metric]
        _collect(metric, days, day_keys, day_columns, instances)
    _write(InstanceHourRollup, "hour_start", hour_columns, instances, now)
    _write(InstanceDayRollup, "day", day_columns, instances, now)
    organization_days = {(instances[i].organization_id, day) for i, day in day_columns}
    project_days_refresh(organization_days, now)
    return len(hour_columns)


def _collect(
    metric: str,
    blocks: np.ndarray,
    keys: list[tuple[int, int]],
    into: dict[tuple[int, int], dict[str, float]],
    instances: dict[int, InstanceInfo],
) -> None:
    stats = block_stats(blocks)
    columns = {
        stat_column(metric, "avg"): stats.avg.tolist(),
        stat_column(metric, "p95"): stats.p95.tolist(),
        stat_column(metric, "max"): stats.max.tolist(),
        stat_column(metric, "minutes"): stats.minutes.tolist(),
    }
    if metric == Metric.GPU_UTIL_PCT:
        # GPU-hours count the minutes the instance reported a GPU utilization, i.e. it ran.
        columns["gpu_hours"] = (stats.minutes / MINUTES_PER_HOUR).tolist()
        columns["gpu_busy_hours"] = (stats.total / 100.0 / MINUTES_PER_HOUR).tolist()
    for row, key in enumerate(keys):
        target = into[key]
        for column, values in columns.items():
            target[column] = values[row]
    if metric == Metric.GPU_UTIL_PCT:
        for key in keys:
            gpu_count = instances[key[0]].gpu_count
            into[key]["gpu_hours"] *= gpu_count
            into[key]["gpu_busy_hours"] *= gpu_count


def _write(
    model: type[InstanceHourRollup] | type[InstanceDayRollup],
    period: str,
    rows: dict[tuple[int, int], dict[str, float]],
    instances: dict[int, InstanceInfo],
    now: dt.datetime,
) -> None:
    # Rows are grouped by the set of metrics they carry: one statement per group, each updating
    # only its own metrics' columns on conflict.
    groups: dict[tuple[str, ...], list[tuple[int, int]]] = defaultdict(list)
    for key, columns in rows.items():
        groups[tuple(m for m in METRICS if stat_column(m, "minutes") in columns)].append(key)
    for metrics, keys in groups.items():
        computed = [c for m in metrics for c in (stat_column(m, s) for s in _EMPTY)]
        if Metric.GPU_UTIL_PCT in metrics:
            computed += ["gpu_hours", "gpu_busy_hours"]
        arrays: dict[str, list] = {
            "instance_id": [k[0] for k in keys],
            period: [_period_value(period, k[1]) for k in keys],
            "organization_id": [instances[k[0]].organization_id for k in keys],
            "gpu_count": [instances[k[0]].gpu_count for k in keys],
            "created_at": [now] * len(keys),
            "updated_at": [now] * len(keys),
        }
        if model is InstanceDayRollup:
            arrays["project_id"] = [instances[k[0]].project_id for k in keys]
        for column in computed:
            arrays[column] = [rows[k][column] for k in keys]
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


def _period_value(period: str, value: int) -> dt.date | dt.datetime:
    return EPOCH + value * _HOUR if period == "hour_start" else day_to_date(value)


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
            dates = [day_to_date(d) for d in sorted(days)]
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
