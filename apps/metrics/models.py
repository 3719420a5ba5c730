"""Raw per-minute metric days and the hourly/daily rollups the dashboard and the API read.

Raw data is one row per (instance, metric, UTC day) holding its 1,440 minute values (int16
fixed point when that is exact, float32 otherwise; see ``storage/codec.py``), a missing value for
a minute without a point. The analysis reads whole days of whole fleets, and one row per day
keeps that read a scan of compact bytes (see bench/metrics_store.py for why this shape and not a
row per value). Points merged into a day that already exists wait in a small
MetricDayRecent row until they are folded into the array, so a 5-minute increment does not
rewrite whole days. Rollups keep avg/p95/max/minutes per metric as columns, so a dashboard
reads one row per instance-hour and never touches raw data.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.db.models.functions import Length
from django.db.models.lookups import Exact

from apps.core.models import OrganizationScopedModel
from apps.metrics.constants import Metric
from apps.metrics.storage import codec


class MetricDay(models.Model):
    """One metric of one instance for one UTC day: 1,440 minute slots (missing = no point).

    The day's points are these values with its MetricDayRecent points, if any, applied over
    them; ``minutes_observed`` counts both.
    """

    instance = models.ForeignKey(
        "cloud.Instance", on_delete=models.CASCADE, related_name="metric_days", db_index=False
    )
    metric = models.CharField(max_length=24, choices=Metric.choices)
    day = models.DateField(help_text="UTC day.")
    scale = models.PositiveSmallIntegerField(
        default=codec.RAW,
        help_text="0: values are float32 (NaN = no point); N: int16 codes, value = code / N.",
    )
    values = models.BinaryField(
        help_text="1,440 little-endian float32 or int16 codes (see scale), minute 0 first."
    )
    minutes_observed = models.PositiveSmallIntegerField()
    updated_at = models.DateTimeField()

    class Meta:
        constraints = [
            # Also the index of every read and merge: (instance, metric, day range).
            models.UniqueConstraint(
                fields=["instance", "metric", "day"], name="metricday_unique_instance_metric_day"
            ),
            # Fixed-size days let the PostgreSQL reader decode an instance's days in one numpy
            # call; a short array would shift every day after it.
            models.CheckConstraint(
                condition=Q(Exact(Length("values"), codec.RAW_BYTES), scale=codec.RAW)
                | Q(Exact(Length("values"), codec.CODED_BYTES), scale__in=codec.SCALES),
                name="metricday_values_one_day",
            ),
        ]
        indexes = [models.Index(fields=["day"], name="metricday_day_idx")]  # for pruning

    def __str__(self) -> str:
        return f"{self.instance_id} {self.metric} {self.day}"


class MetricDayRecent(models.Model):
    """Points merged into an existing raw day since it was last rewritten (its "recent" points).

    A 5-minute increment of a fleet would otherwise rewrite every touched day array for a
    handful of points. The writer appends the changed points here
    instead, one small inline row per (instance, metric, day) holding the minute slots (int16)
    and their values (float32) in slot order; readers apply them over the day row, and
    ``metrics_recent_compact`` (or the writer, once a row holds ``RECENT_MAX_POINTS``) folds
    them into the day array. A row exists only beside its MetricDay row.
    """

    instance = models.ForeignKey(
        "cloud.Instance", on_delete=models.CASCADE, related_name="+", db_index=False
    )
    metric = models.CharField(max_length=24, choices=Metric.choices)
    day = models.DateField(help_text="UTC day.")
    slots = models.BinaryField(help_text="Minutes of the day, little-endian int16, ascending.")
    values = models.BinaryField(help_text="One little-endian float32 per slot.")
    updated_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["instance", "metric", "day"], name="metricdayrecent_unique_day"
            ),
        ]
        indexes = [models.Index(fields=["day"], name="metricdayrecent_day_idx")]

    def __str__(self) -> str:
        return f"{self.instance_id} {self.metric} {self.day} (recent)"


class MetricStats(OrganizationScopedModel):
    """avg, p95, max and observed minutes of each metric; NULL stats where nothing was observed.

    p95 is numpy's default (linear interpolation) percentile of the observed minutes.
    """

    gpu_util_pct_avg = models.FloatField(null=True, blank=True)
    gpu_util_pct_p95 = models.FloatField(null=True, blank=True)
    gpu_util_pct_max = models.FloatField(null=True, blank=True)
    gpu_util_pct_minutes = models.PositiveSmallIntegerField(default=0)
    gpu_mem_used_pct_avg = models.FloatField(null=True, blank=True)
    gpu_mem_used_pct_p95 = models.FloatField(null=True, blank=True)
    gpu_mem_used_pct_max = models.FloatField(null=True, blank=True)
    gpu_mem_used_pct_minutes = models.PositiveSmallIntegerField(default=0)
    gpu_mem_used_mb_avg = models.FloatField(null=True, blank=True)
    gpu_mem_used_mb_p95 = models.FloatField(null=True, blank=True)
    gpu_mem_used_mb_max = models.FloatField(null=True, blank=True)
    gpu_mem_used_mb_minutes = models.PositiveSmallIntegerField(default=0)
    gpu_temp_c_avg = models.FloatField(null=True, blank=True)
    gpu_temp_c_p95 = models.FloatField(null=True, blank=True)
    gpu_temp_c_max = models.FloatField(null=True, blank=True)
    gpu_temp_c_minutes = models.PositiveSmallIntegerField(default=0)
    gpu_power_w_avg = models.FloatField(null=True, blank=True)
    gpu_power_w_p95 = models.FloatField(null=True, blank=True)
    gpu_power_w_max = models.FloatField(null=True, blank=True)
    gpu_power_w_minutes = models.PositiveSmallIntegerField(default=0)
    cpu_util_pct_avg = models.FloatField(null=True, blank=True)
    cpu_util_pct_p95 = models.FloatField(null=True, blank=True)
    cpu_util_pct_max = models.FloatField(null=True, blank=True)
    cpu_util_pct_minutes = models.PositiveSmallIntegerField(default=0)
    mem_util_pct_avg = models.FloatField(null=True, blank=True)
    mem_util_pct_p95 = models.FloatField(null=True, blank=True)
    mem_util_pct_max = models.FloatField(null=True, blank=True)
    mem_util_pct_minutes = models.PositiveSmallIntegerField(default=0)
    gpu_count = models.FloatField(default=0, help_text="Cards of the instance when rolled up.")
    gpu_hours = models.FloatField(
        null=True, blank=True, help_text="gpu_count x hours with a GPU utilization point."
    )
    gpu_busy_hours = models.FloatField(
        null=True, blank=True, help_text="gpu_count x hours x GPU utilization / 100."
    )
    # Phase minutes live in the analysis app's narrow PhaseDay table instead: updating these
    # wide rows hour by hour was the analysis' bottleneck. Cost is for the billing rollups.
    phase_minutes = models.JSONField(null=True, blank=True)
    cost = models.DecimalField(max_digits=16, decimal_places=6, null=True, blank=True)
    currency = models.CharField(max_length=3, blank=True)

    class Meta:
        abstract = True

    def __str__(self) -> str:
        period = getattr(self, "hour_start", None) or getattr(self, "day", "")
        return f"{self.instance_id} {period}"  # type: ignore[attr-defined]


class InstanceHourRollup(MetricStats):
    instance = models.ForeignKey(
        "cloud.Instance", on_delete=models.CASCADE, related_name="hour_rollups", db_index=False
    )
    hour_start = models.DateTimeField(help_text="UTC, on the hour.")

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["instance", "hour_start"], name="instancehourrollup_unique_hour"
            )
        ]
        indexes = [models.Index(fields=["organization", "hour_start"], name="hourrollup_org_hour")]


class InstanceDayRollup(MetricStats):
    instance = models.ForeignKey(
        "cloud.Instance", on_delete=models.CASCADE, related_name="day_rollups", db_index=False
    )
    day = models.DateField(help_text="UTC day.")
    # The instance's project when the day was rolled up: moving an instance later does not
    # rewrite where its past days were allocated.
    project = models.ForeignKey(
        "cloud.Project", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["instance", "day"], name="instancedayrollup_unique_day")
        ]
        indexes = [
            models.Index(fields=["organization", "day"], name="dayrollup_org_day"),
            # Covering (PostgreSQL): the analysis-behind check of a fleet's period
            # (apps.analysis.no_data) reads only the GPU minutes of each day; from these wide
            # rows that was one heap page per row (~80 ms a 1,000-instance month), from this
            # index an index-only scan (~20 ms).
            models.Index(
                fields=["instance", "day"],
                include=["gpu_util_pct_minutes"],
                name="dayrollup_gpu_minutes",
            ),
        ]


class ProjectDayRollup(OrganizationScopedModel):
    """A project's UTC day, aggregated from its instances' day rollups.

    Averages are weighted by observed minutes; a p95 is not kept because it cannot be derived
    from the instances' own percentiles.
    """

    project = models.ForeignKey("cloud.Project", on_delete=models.CASCADE, related_name="+")
    day = models.DateField(help_text="UTC day.")
    instance_count = models.PositiveIntegerField(default=0)
    gpu_hours = models.FloatField(default=0)
    gpu_busy_hours = models.FloatField(default=0)
    gpu_util_pct_avg = models.FloatField(null=True, blank=True)
    gpu_util_pct_max = models.FloatField(null=True, blank=True)
    gpu_util_pct_minutes = models.PositiveIntegerField(default=0)
    gpu_mem_used_pct_avg = models.FloatField(null=True, blank=True)
    gpu_mem_used_pct_max = models.FloatField(null=True, blank=True)
    gpu_mem_used_pct_minutes = models.PositiveIntegerField(default=0)
    gpu_mem_used_mb_avg = models.FloatField(null=True, blank=True)
    gpu_mem_used_mb_max = models.FloatField(null=True, blank=True)
    gpu_mem_used_mb_minutes = models.PositiveIntegerField(default=0)
    gpu_temp_c_avg = models.FloatField(null=True, blank=True)
    gpu_temp_c_max = models.FloatField(null=True, blank=True)
    gpu_temp_c_minutes = models.PositiveIntegerField(default=0)
    gpu_power_w_avg = models.FloatField(null=True, blank=True)
    gpu_power_w_max = models.FloatField(null=True, blank=True)
    gpu_power_w_minutes = models.PositiveIntegerField(default=0)
    cpu_util_pct_avg = models.FloatField(null=True, blank=True)
    cpu_util_pct_max = models.FloatField(null=True, blank=True)
    cpu_util_pct_minutes = models.PositiveIntegerField(default=0)
    mem_util_pct_avg = models.FloatField(null=True, blank=True)
    mem_util_pct_max = models.FloatField(null=True, blank=True)
    mem_util_pct_minutes = models.PositiveIntegerField(default=0)
    phase_minutes = models.JSONField(null=True, blank=True)
    cost = models.DecimalField(max_digits=18, decimal_places=6, null=True, blank=True)
    currency = models.CharField(max_length=3, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["project", "day"], name="projectdayrollup_unique_day")
        ]
        indexes = [models.Index(fields=["organization", "day"], name="projectrollup_org_day")]

    def __str__(self) -> str:
        return f"{self.project_id} {self.day}"


# The agent's points live in their own module of this app (apps/metrics/agent/).
from apps.metrics.agent.models import (  # noqa: E402
    GpuHourRollup,
    GpuSample,
    WorkCounterPoint,
    WorkCounterSource,
)

__all__ = [
    "GpuHourRollup",
    "GpuSample",
    "InstanceDayRollup",
    "InstanceHourRollup",
    "MetricDay",
    "MetricDayRecent",
    "ProjectDayRollup",
    "WorkCounterPoint",
    "WorkCounterSource",
]
