"""Hourly per-GPU rollups of the agent's samples, rebuilt for the hours a batch touched.

The figures are defined as the Cloud Monitor rollups' (``apps.metrics.stats``: mean, numpy's
default linear p95, max over the values present), over samples rather than minutes (an agent
reads every 10-60 s), in float64: a block is an hour of one card, a few hundred values at
most. A missing value is left out, never counted as 0.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

import numpy as np

from apps.cloud.models import Instance
from apps.metrics.agent.models import (
    POWER_THROTTLE,
    THERMAL_THROTTLE,
    GpuHourRollup,
    GpuSample,
)
from apps.metrics.stats import P95

HOUR = dt.timedelta(hours=1)
# (column prefix, stats kept) per measured field.
MEASURES = {
    "util_pct": ("avg", "p95", "max"),
    "mem_used_mb": ("avg", "max"),
    "power_w": ("avg", "max"),
    "temp_c": ("avg", "max"),
    "sm_clock_mhz": ("avg",),
}
ROLLED_UP = ("gpu_name", "mem_total_mb", "power_limit_w", "throttle_reasons", *MEASURES)


def floor_hour(moment: dt.datetime) -> dt.datetime:
    return moment.astimezone(dt.UTC).replace(minute=0, second=0, microsecond=0)


def gpu_hours_rebuild(
    *, instance: Instance, touched: Iterable[tuple[int, dt.datetime]], now: dt.datetime
) -> int:
    """Recompute the rollup rows of ``(gpu_index, hour_start)`` from their samples; rows written.

    One read of the touched hours' samples and one upsert; the caller's transaction holds the
    instance's lock, so two batches cannot rebuild the same hour from different samples.
    """
    wanted = set(touched)
    if not wanted:
        return 0
    hours = sorted({hour for _, hour in wanted})
    by_block: dict[tuple[int, dt.datetime], list[dict[str, Any]]] = defaultdict(list)
    # Plain values of the columns rolled up only: an hour of 8 cards at 10 s is 2,880 rows,
    # read again by each batch of the hour, so no model objects and no processes JSON.
    samples = (
        GpuSample.objects.filter(
            instance=instance,
            sampled_at__gte=hours[0],
            sampled_at__lt=hours[-1] + HOUR,
            gpu_index__in={index for index, _ in wanted},
        )
        .order_by("sampled_at")
        .values("gpu_index", "sampled_at", *ROLLED_UP)
    )
    for sample in samples:
        key = (sample["gpu_index"], floor_hour(sample["sampled_at"]))
        if key in wanted:
            by_block[key].append(sample)
    rows = [_rollup(instance, index, hour, block, now) for (index, hour), block in by_block.items()]
    GpuHourRollup.objects.bulk_create(
        rows,
        update_conflicts=True,
        unique_fields=["instance", "hour_start", "gpu_index"],
        update_fields=[
            f.name
            for f in GpuHourRollup._meta.concrete_fields
            if f.name not in {"id", "instance", "hour_start", "gpu_index"}
        ],
    )
    return len(rows)


def _rollup(
    instance: Instance,
    index: int,
    hour: dt.datetime,
    block: list[dict[str, Any]],
    now: dt.datetime,
) -> GpuHourRollup:
    figures: dict[str, float | int | None] = {}
    for field, kept in MEASURES.items():
        present = np.array(
            [value for s in block if (value := s[field]) is not None], dtype=np.float64
        )
        figures[f"{field}_samples"] = present.size
        for stat in kept:
            figures[f"{field}_{stat}"] = _stat(present, stat) if present.size else None
    reasons = [s["throttle_reasons"] for s in block if s["throttle_reasons"] is not None]
    totals = [s["mem_total_mb"] for s in block if s["mem_total_mb"] is not None]
    limits = [s["power_limit_w"] for s in block if s["power_limit_w"] is not None]
    return GpuHourRollup(
        instance=instance,
        gpu_index=index,
        hour_start=hour,
        gpu_name=block[-1]["gpu_name"],
        samples=len(block),
        mem_total_mb=max(totals) if totals else None,
        power_limit_w=max(limits) if limits else None,
        throttle_samples=len(reasons),
        power_throttled_samples=sum(1 for r in reasons if r & POWER_THROTTLE),
        thermal_throttled_samples=sum(1 for r in reasons if r & THERMAL_THROTTLE),
        updated_at=now,
        **figures,
    )


def _stat(values: np.ndarray, stat: str) -> float:
    if stat == "avg":
        return float(values.mean())
    if stat == "p95":
        return float(np.percentile(values, P95))
    return float(values.max())
