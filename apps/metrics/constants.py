"""The metric vocabulary and the minute grid, in one place.

Importable without the Django app registry, so the generator, the benchmark and pure tests can
use it before (or without) ``django.setup()``.
"""

from __future__ import annotations

from django.db import models

# The minute grid is the project's (apps.core.timegrid); re-exported for the metric vocabulary.
from apps.core.timegrid import (
    HOURS_PER_DAY,
    MINUTES_PER_DAY,
    MINUTES_PER_HOUR,
    SECONDS_PER_DAY,
    SECONDS_PER_MINUTE,
)

__all__ = [
    "DEFAULT_RAW_RETENTION_DAYS",
    "HOURS_PER_DAY",
    "MINUTES_PER_DAY",
    "MINUTES_PER_HOUR",
    "ROLLUP_STATS",
    "SECONDS_PER_DAY",
    "SECONDS_PER_MINUTE",
    "Metric",
    "stat_column",
]
DEFAULT_RAW_RETENTION_DAYS = 35


class Metric(models.TextChoices):
    """Per-minute metrics of an instance. GPU values are averages over the instance's cards."""

    GPU_UTIL_PCT = "gpu_util_pct", "GPU utilization (%)"
    GPU_MEM_USED_PCT = "gpu_mem_used_pct", "GPU memory used (%)"
    GPU_MEM_USED_MB = "gpu_mem_used_mb", "GPU memory used (MB per card)"
    GPU_TEMP_C = "gpu_temp_c", "GPU temperature (°C)"
    GPU_POWER_W = "gpu_power_w", "GPU power draw (W)"
    CPU_UTIL_PCT = "cpu_util_pct", "CPU utilization (%)"
    MEM_UTIL_PCT = "mem_util_pct", "Host memory utilization (%)"


# The statistics every rollup keeps per metric; columns are named "<metric>_<stat>".
ROLLUP_STATS = ("avg", "p95", "max", "minutes")


def stat_column(metric: str, stat: str) -> str:
    """The rollup column holding ``stat`` of ``metric`` (e.g. ``gpu_util_pct_p95``)."""
    return f"{metric}_{stat}"
