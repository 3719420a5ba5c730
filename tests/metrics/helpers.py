"""Snapshots of what a reader of the metric store observes, for comparing two write histories."""

from __future__ import annotations

from collections.abc import Sequence

from apps.metrics.constants import ROLLUP_STATS, Metric, stat_column
from apps.metrics.models import InstanceDayRollup, InstanceHourRollup, ProjectDayRollup

STAT_COLUMNS = [stat_column(m, s) for m in Metric.values for s in ROLLUP_STATS]
FIGURES = [*STAT_COLUMNS, "gpu_count", "gpu_hours", "gpu_busy_hours"]
PROJECT_FIGURES = [
    "instance_count",
    "gpu_hours",
    "gpu_busy_hours",
    *(stat_column(m, s) for m in Metric.values for s in ("avg", "max", "minutes")),
]


def _rounded(row: dict) -> dict:
    # Sums in another order can differ in the last bits; anything coarser is a real difference.
    return {k: round(v, 6) if isinstance(v, float) else v for k, v in row.items()}


def rollup_snapshot(instance_ids: Sequence[int] | None = None) -> dict[str, list[dict]]:
    hours = InstanceHourRollup.objects.order_by("instance_id", "hour_start")
    days = InstanceDayRollup.objects.order_by("instance_id", "day")
    if instance_ids is not None:
        hours = hours.filter(instance_id__in=instance_ids)
        days = days.filter(instance_id__in=instance_ids)
    projects = ProjectDayRollup.objects.order_by("project_id", "day")
    return {
        "hours": [_rounded(r) for r in hours.values("instance_id", "hour_start", *FIGURES)],
        "days": [_rounded(r) for r in days.values("instance_id", "day", "project_id", *FIGURES)],
        "projects": [_rounded(r) for r in projects.values("project_id", "day", *PROJECT_FIGURES)],
    }
