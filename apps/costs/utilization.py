"""Reads of GPU utilization: fleet, project and instance usage, and an instance's time series.

Everything is read from the hourly and daily rollups the metrics app writes at ingest
(``InstanceHourRollup``, ``InstanceDayRollup``) and the analysis' phase minutes; raw per-minute
data is read only for an instance's time series at minute resolution, whose range is bounded.

- ``gpu_hours``: cards x hours with a GPU utilization point (the rollups' ``gpu_hours``).
- ``gpu_util_avg_pct``: card-weighted mean utilization, ``gpu_busy_hours / gpu_hours x 100``.
- ``gpu_util_p95_pct``: the 95th percentile (linear interpolation) of the hourly mean
  utilization of the scope's instance-hours. A p95 of minutes cannot be derived from hourly
  rollups; this is the p95 of what a reader of hourly charts sees.
- Phases (minutes, GPU-hours, billed money) come from ``analysis.fleet_pricing``, the numbers of
  ``/analysis/summary``; the unknown phase split by reason from ``analysis.no_data``.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
import zoneinfo
from collections import defaultdict
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

import numpy as np
from django.db import connection
from django.db.models import Count, Sum
from django.db.models.functions import Coalesce

from apps.accounts.models import Organization
from apps.analysis import fleet_pricing
from apps.analysis.engine import Phase
from apps.analysis.fleet_waste import FleetWaste
from apps.analysis.no_data import NoDataReason, no_data
from apps.analysis.pricing import InstanceWaste, PhaseFigures
from apps.analysis.selectors import gpu_instances_in_period
from apps.cloud.models import Instance
from apps.core.nojit import jit_off
from apps.core.timegrid import (
    MINUTES_PER_HOUR,
    SECONDS_PER_DAY,
    SECONDS_PER_HOUR,
    SECONDS_PER_MINUTE,
)
from apps.metrics.constants import Metric
from apps.metrics.models import InstanceDayRollup, InstanceHourRollup
from apps.metrics.selectors import metrics_read_many

SCOPES = ("fleet", "project", "instance")
MAX_POINTS = 1500
SERIES_METRICS = (
    Metric.GPU_UTIL_PCT,
    Metric.GPU_MEM_USED_PCT,
    Metric.CPU_UTIL_PCT,
    Metric.GPU_TEMP_C,
)

GroupKey = int | None
Stats = tuple[float, float, float | None]


@dataclasses.dataclass
class Usage:
    key: GroupKey
    instance_ids: list[int] = dataclasses.field(default_factory=list)
    gpu_hours: float = 0.0
    gpu_busy_hours: float = 0.0
    gpu_util_p95_pct: float | None = None
    by_phase: dict[Phase, PhaseFigures] = dataclasses.field(default_factory=dict)
    no_data: dict[NoDataReason, PhaseFigures] = dataclasses.field(default_factory=dict)
    """``by_phase[Phase.UNKNOWN]`` split by why the minutes have no phase."""
    cost: Decimal = Decimal(0)
    currency: str = ""

    @property
    def gpu_util_avg_pct(self) -> float | None:
        if not self.gpu_hours:
            return None
        return round(self.gpu_busy_hours / self.gpu_hours * 100, 2)


def _key(instance: Instance, scope: str) -> GroupKey:
    if scope == "project":
        return instance.project_id
    if scope == "instance":
        return instance.pk
    return None


def _rollup_stats(
    organization: Organization,
    instances: Sequence[Instance],
    scope: str,
    start: dt.datetime,
    end: dt.datetime,
) -> tuple[dict[GroupKey, Stats], Stats | None]:
    """Group key -> (GPU-hours, busy GPU-hours, p95 of hourly mean util) over the hours, and
    the same of the whole selection (None without hours)."""
    key_of = {instance.pk: _key(instance, scope) for instance in instances}
    if not key_of:
        return {}, None
    if connection.vendor == "postgresql":
        # One pass over the hours for the groups and the whole selection (GROUPING SETS): the
        # percentiles are computed by PostgreSQL. Querying the selection again cost a second
        # scan and sort of every hour row of the period (~0.5 s for 1,000 instances a month).
        column = {"fleet": "NULL::int", "project": "i.project_id", "instance": "r.instance_id"}[
            scope
        ]
        join = (
            f"JOIN {Instance._meta.db_table} i ON i.id = r.instance_id"
            if scope == "project"
            else ""
        )
        whole = "1" if scope == "fleet" else f"GROUPING({column})"
        groups = "" if scope == "fleet" else f"GROUP BY GROUPING SETS (({column}), ())"
        sql = f"""
            SELECT {column} AS group_key, {whole} AS whole, SUM(r.gpu_hours),
                   SUM(r.gpu_busy_hours),
                   percentile_cont(0.95) WITHIN GROUP (ORDER BY r.gpu_util_pct_avg)
            FROM {InstanceHourRollup._meta.db_table} r
            {join}
            WHERE r.organization_id = %s AND r.hour_start >= %s AND r.hour_start < %s
              AND r.instance_id = ANY(%s) AND r.gpu_util_pct_minutes > 0
            {groups}
            HAVING COUNT(*) > 0
        """
        per_group: dict[GroupKey, Stats] = {}
        overall: Stats | None = None
        with jit_off(), connection.cursor() as cursor:
            cursor.execute(sql, [organization.pk, start, end, list(key_of)])
            for key, is_whole, hours, busy, p95 in cursor.fetchall():
                stats = (float(hours or 0), float(busy or 0), None if p95 is None else float(p95))
                if is_whole or scope == "fleet":
                    overall = stats
                if not is_whole:
                    per_group[key] = stats
        return per_group, overall
    values: dict[GroupKey, list[tuple[float, float, float]]] = defaultdict(list)
    rows = InstanceHourRollup.objects.filter(
        organization=organization,
        hour_start__gte=start,
        hour_start__lt=end,
        instance_id__in=list(key_of),
        gpu_util_pct_minutes__gt=0,
    ).values_list("instance_id", "gpu_hours", "gpu_busy_hours", "gpu_util_pct_avg")
    every: list[tuple[float, float, float]] = []  # in the rows' order, as the groups' sums
    for instance_id, hours, busy, avg in rows.iterator(chunk_size=5000):
        item = (hours or 0.0, busy or 0.0, float(avg or 0.0))
        values[key_of[instance_id]].append(item)
        every.append(item)
    per_group = {key: _stats(items) for key, items in values.items()}
    return per_group, _stats(every) if every else None


def _stats(items: Sequence[tuple[float, float, float]]) -> Stats:
    return (
        sum(v[0] for v in items),
        sum(v[1] for v in items),
        float(np.percentile([v[2] for v in items], 95)),
    )


def usage(
    *,
    organization: Organization,
    scope: str,
    start: dt.datetime,
    end: dt.datetime,
    project_id: int | None = None,
) -> tuple[Usage, list[Usage]]:
    """The whole selection's usage and one row per group of ``scope`` (none for ``fleet``).

    ``project_id`` narrows the selection to one project's instances.
    """
    instances = gpu_instances_in_period(organization=organization, start=start, end=end)
    if project_id is not None:
        instances = [i for i in instances if i.project_id == project_id]
    figures = fleet_pricing.instances_waste(
        instances=instances, start=start, end=end, currency=organization.currency
    )
    reasons = no_data(
        fleet=FleetWaste.of_items(figures),
        start=start,
        end=end,
        states={instance.pk: instance.state for instance in instances},
    )
    per_group, overall = _rollup_stats(organization, instances, scope, start, end)
    total = _summed(None, instances, figures, overall, organization.currency)
    total.no_data = reasons.sums()
    if scope == "fleet":
        return total, []
    grouped: dict[GroupKey, tuple[list[Instance], list[InstanceWaste], list[int]]] = {}
    for row, (instance, item) in enumerate(zip(instances, figures, strict=True)):
        members, items, positions = grouped.setdefault(_key(instance, scope), ([], [], []))
        members.append(instance)
        items.append(item)
        positions.append(row)
    rows = []
    for key, (members, items, positions) in grouped.items():
        group = _summed(key, members, items, per_group.get(key), organization.currency)
        group.no_data = reasons.sums(positions)
        rows.append(group)
    rows.sort(key=lambda u: (-u.cost, -u.gpu_hours, u.key is None, u.key or 0))
    return total, rows


def _summed(
    key: GroupKey,
    instances: Sequence[Instance],
    figures: Sequence[InstanceWaste],
    stats: tuple[float, float, float | None] | None,
    currency: str,
) -> Usage:
    hours, busy, p95 = stats or (0.0, 0.0, None)
    by_phase = {
        phase: PhaseFigures(
            minutes=sum(f.by_phase[phase].minutes for f in figures),
            gpu_hours=sum((f.by_phase[phase].gpu_hours for f in figures), Decimal(0)),
            cost=sum((f.by_phase[phase].cost for f in figures), Decimal("0.00")),
        )
        for phase in Phase
    }
    return Usage(
        key=key,
        instance_ids=[i.pk for i in instances],
        gpu_hours=round(hours, 4),
        gpu_busy_hours=round(busy, 4),
        gpu_util_p95_pct=None if p95 is None else round(p95, 2),
        by_phase=by_phase,
        cost=sum((f.total_cost for f in figures), Decimal("0.00")),
        currency=currency,
    )


def resolution_for(start: dt.datetime, end: dt.datetime) -> str:
    """The finest resolution whose points over ``[start, end)`` fit ``MAX_POINTS``."""
    minutes = (end - start) // dt.timedelta(minutes=1)
    if minutes <= MAX_POINTS:
        return "minute"
    if minutes / MINUTES_PER_HOUR <= MAX_POINTS:
        return "hour"
    return "day"


def point_count(start: dt.datetime, end: dt.datetime, resolution: str) -> int:
    step = {
        "minute": SECONDS_PER_MINUTE,
        "hour": SECONDS_PER_HOUR,
        "day": SECONDS_PER_DAY,
    }[resolution]
    return -(-int((end - start).total_seconds()) // step)


def _number(value: Any, digits: int = 2) -> float | None:
    # Minute arrays are float32: a NaN there is no Python float, so test the converted value.
    number = None if value is None else float(value)
    if number is None or math.isnan(number):
        return None
    return round(number, digits)


def timeseries(
    *, instance: Instance, start: dt.datetime, end: dt.datetime, resolution: str
) -> list[dict[str, Any]]:
    """Points of one instance, only where something was observed, oldest first.

    ``minute``: the raw values; ``hour``/``day``: the rollups' averages, the p95 and max of GPU
    utilization and the minutes observed (days are UTC days, as the daily rollups are).
    """
    if resolution == "minute":
        arrays = metrics_read_many(
            instance_ids=[instance.pk], metrics=SERIES_METRICS, start=start, end=end
        )
        stacked = np.stack([arrays[m.value][0] for m in SERIES_METRICS])
        observed = ~np.isnan(stacked).all(axis=0)
        first = start.replace(second=0, microsecond=0)
        return [
            {
                "t": first + dt.timedelta(minutes=int(j)),
                "gpu_util_pct": _number(stacked[0, j]),
                "gpu_util_p95_pct": None,
                "gpu_util_max_pct": None,
                "gpu_mem_used_pct": _number(stacked[1, j]),
                "cpu_util_pct": _number(stacked[2, j]),
                "gpu_temp_c": _number(stacked[3, j]),
                # Minutes with a GPU utilization point, as at hours and days.
                "observed_minutes": int(not np.isnan(stacked[0, j])),
            }
            for j in np.flatnonzero(observed).tolist()
        ]
    columns = (
        "gpu_util_pct_avg",
        "gpu_util_pct_p95",
        "gpu_util_pct_max",
        "gpu_mem_used_pct_avg",
        "cpu_util_pct_avg",
        "gpu_temp_c_avg",
        "gpu_util_pct_minutes",
    )
    rows: Any
    if resolution == "hour":
        rows = (
            InstanceHourRollup.objects.filter(
                instance=instance, hour_start__gte=start, hour_start__lt=end
            )
            .order_by("hour_start")
            .values_list("hour_start", *columns)
        )
    else:
        rows = (
            InstanceDayRollup.objects.filter(
                instance=instance,
                day__gte=start.date(),
                day__lte=(end - dt.timedelta(microseconds=1)).date(),
            )
            .order_by("day")
            .values_list("day", *columns)
        )
    return [
        {
            "t": t
            if isinstance(t, dt.datetime)
            else dt.datetime.combine(t, dt.time(), tzinfo=dt.UTC),
            "gpu_util_pct": _number(avg),
            "gpu_util_p95_pct": _number(p95),
            "gpu_util_max_pct": _number(peak),
            "gpu_mem_used_pct": _number(mem),
            "cpu_util_pct": _number(cpu),
            "gpu_temp_c": _number(temp),
            "observed_minutes": minutes,
        }
        for t, avg, p95, peak, mem, cpu, temp, minutes in rows
    ]


@dataclasses.dataclass(frozen=True)
class HourOfWeekCell:
    weekday: int  # 0 = Monday
    hour: int  # 0-23, local
    instance_hours: int
    gpu_hours: float
    gpu_busy_hours: float

    @property
    def gpu_util_avg_pct(self) -> float | None:
        if not self.gpu_hours:
            return None
        return round(self.gpu_busy_hours / self.gpu_hours * 100, 2)


def hour_of_week(
    *,
    organization: Organization,
    start: dt.datetime,
    end: dt.datetime,
    project_id: int | None = None,
) -> list[HourOfWeekCell]:
    """The fleet's hourly rollups over ``[start, end)`` summed per local weekday and hour.

    One grouped query per UTC hour, each hour then shifted to the organization's timezone (so a
    daylight-saving change lands each hour on its own local hour). An hour of a timezone with a
    half-hour offset counts in the local hour it starts in. Only cells with a
    rollup are returned, Monday 00:00 first.
    """
    tz = zoneinfo.ZoneInfo(organization.timezone)
    rows = InstanceHourRollup.objects.for_organization(organization).filter(
        hour_start__gte=start, hour_start__lt=end
    )
    if project_id is not None:
        rows = rows.filter(instance__project_id=project_id)
    # Summed per UTC hour by the database and folded into local cells here: shifting every
    # row to the local time in SQL (two EXTRACTs ... AT TIME ZONE per row) cost ~40 % of the
    # query, and a month has only ~720 distinct hours. ``astimezone`` keeps each hour on its
    # own local hour across a daylight-saving change.
    per_hour = (
        rows.values("hour_start")
        .annotate(
            instance_hours=Count("id"),
            gpu_hours=Coalesce(Sum("gpu_hours"), 0.0),
            gpu_busy_hours=Coalesce(Sum("gpu_busy_hours"), 0.0),
        )
        .order_by()
        .values_list("hour_start", "instance_hours", "gpu_hours", "gpu_busy_hours")
    )
    cells: dict[tuple[int, int], list[float]] = defaultdict(lambda: [0, 0.0, 0.0])
    with jit_off():
        hourly = list(per_hour)
    for hour_start, count, hours, busy in hourly:
        local = hour_start.astimezone(tz)
        cell = cells[(local.weekday(), local.hour)]
        cell[0] += count
        cell[1] += hours
        cell[2] += busy
    return [
        HourOfWeekCell(
            weekday=weekday,
            hour=hour,
            instance_hours=int(cell[0]),
            gpu_hours=round(float(cell[1]), 4),
            gpu_busy_hours=round(float(cell[2]), 4),
        )
        for (weekday, hour), cell in sorted(cells.items())
    ]
