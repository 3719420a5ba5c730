"""The agent's raw points (see the package docstring). NULL is "the agent had no value"."""

from __future__ import annotations

from django.db import models


class GpuSample(models.Model):
    """One nvidia-smi reading of one card of one instance."""

    instance = models.ForeignKey(
        "cloud.Instance", on_delete=models.CASCADE, related_name="gpu_samples", db_index=False
    )
    gpu_index = models.PositiveSmallIntegerField()
    sampled_at = models.DateTimeField(help_text="When the agent read the card (its clock, UTC).")
    gpu_uuid = models.CharField(max_length=64, blank=True)
    gpu_name = models.CharField(max_length=64, blank=True, help_text="e.g. NVIDIA A100-SXM4-80GB")
    util_pct = models.FloatField(null=True, blank=True)
    mem_used_mb = models.FloatField(null=True, blank=True)
    mem_total_mb = models.FloatField(null=True, blank=True)
    power_w = models.FloatField(null=True, blank=True)
    power_limit_w = models.FloatField(null=True, blank=True)
    sm_clock_mhz = models.FloatField(null=True, blank=True)
    throttle_reasons = models.BigIntegerField(
        null=True, blank=True, help_text="nvidia-smi clocks_throttle_reasons.active bitmask."
    )
    temp_c = models.FloatField(null=True, blank=True)
    processes = models.JSONField(
        null=True, blank=True, help_text='[{"pid", "used_mem_mb"}]; NULL when not read.'
    )
    received_at = models.DateTimeField()

    class Meta:
        constraints = [
            # The idempotency key of ingest, and the index of every per-instance read.
            models.UniqueConstraint(
                fields=["instance", "sampled_at", "gpu_index"], name="gpusample_unique_point"
            )
        ]
        indexes = [models.Index(fields=["sampled_at"], name="gpusample_sampled_at_idx")]

    def __str__(self) -> str:
        return f"{self.instance_id} GPU {self.gpu_index} {self.sampled_at:%Y-%m-%d %H:%M:%S}"


class WorkCounterSource(models.TextChoices):
    REPORT = "report", "gpu_ledger_agent.report() in a training script"
    VLLM = "vllm", "vLLM Prometheus counters"


class WorkCounterPoint(models.Model):
    """A cumulative work counter of an instance at a moment (samples, tokens, requests).

    Never decreasing in time within (instance, source, name); the work of a period is the
    difference of the values at its ends.
    """

    instance = models.ForeignKey(
        "cloud.Instance", on_delete=models.CASCADE, related_name="work_counters", db_index=False
    )
    source = models.CharField(max_length=16, choices=WorkCounterSource.choices)
    name = models.CharField(max_length=48, help_text="e.g. samples, generation_tokens")
    sampled_at = models.DateTimeField()
    value = models.FloatField(help_text="Cumulative; a double holds integers exactly to 2^53.")
    received_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["instance", "source", "name", "sampled_at"],
                name="workcounterpoint_unique_point",
            ),
            models.CheckConstraint(
                condition=models.Q(value__gte=0), name="workcounter_value_gte_0"
            ),
        ]
        indexes = [models.Index(fields=["sampled_at"], name="workcounter_sampled_at_idx")]

    def __str__(self) -> str:
        return f"{self.instance_id} {self.source}:{self.name} {self.sampled_at} = {self.value}"


# nvidia-smi's clocks_throttle_reasons bits (nvml.h, nvmlClocksThrottleReason*).
THROTTLE_SW_POWER_CAP = 0x4
THROTTLE_HW_SLOWDOWN = 0x8
THROTTLE_SW_THERMAL = 0x20
THROTTLE_HW_THERMAL = 0x40
THROTTLE_HW_POWER_BRAKE = 0x80
POWER_THROTTLE = THROTTLE_SW_POWER_CAP | THROTTLE_HW_POWER_BRAKE
THERMAL_THROTTLE = THROTTLE_SW_THERMAL | THROTTLE_HW_THERMAL


class GpuHourRollup(models.Model):
    """One card's UTC hour from its samples: avg/p95/max over the samples that had a value.

    Each ``*_samples`` counts the samples with that value, so a figure with 0 of them is NULL
    (not observed), never 0. Throttling is counted in samples: ``power_throttled_samples`` of
    ``throttle_samples`` (those whose reasons were readable) is the share of the hour the card
    ran against its power cap. Rebuilt, in the same transaction, for every hour a batch adds to.
    """

    instance = models.ForeignKey(
        "cloud.Instance", on_delete=models.CASCADE, related_name="gpu_hours", db_index=False
    )
    gpu_index = models.PositiveSmallIntegerField()
    hour_start = models.DateTimeField(help_text="UTC, on the hour.")
    gpu_name = models.CharField(max_length=64, blank=True)
    samples = models.PositiveIntegerField()
    util_pct_avg = models.FloatField(null=True, blank=True)
    util_pct_p95 = models.FloatField(null=True, blank=True)
    util_pct_max = models.FloatField(null=True, blank=True)
    util_pct_samples = models.PositiveIntegerField(default=0)
    mem_used_mb_avg = models.FloatField(null=True, blank=True)
    mem_used_mb_max = models.FloatField(null=True, blank=True)
    mem_used_mb_samples = models.PositiveIntegerField(default=0)
    mem_total_mb = models.FloatField(null=True, blank=True)
    power_w_avg = models.FloatField(null=True, blank=True)
    power_w_max = models.FloatField(null=True, blank=True)
    power_w_samples = models.PositiveIntegerField(default=0)
    power_limit_w = models.FloatField(null=True, blank=True)
    temp_c_avg = models.FloatField(null=True, blank=True)
    temp_c_max = models.FloatField(null=True, blank=True)
    temp_c_samples = models.PositiveIntegerField(default=0)
    sm_clock_mhz_avg = models.FloatField(null=True, blank=True)
    sm_clock_mhz_samples = models.PositiveIntegerField(default=0)
    throttle_samples = models.PositiveIntegerField(default=0)
    power_throttled_samples = models.PositiveIntegerField(default=0)
    thermal_throttled_samples = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["instance", "hour_start", "gpu_index"], name="gpuhourrollup_unique_hour"
            )
        ]

    def __str__(self) -> str:
        return f"{self.instance_id} GPU {self.gpu_index} {self.hour_start:%Y-%m-%d %H}:00"
