"""Stored results of the utilization analysis and the organization's threshold overrides.

The per-minute labels themselves are never stored: they are summarized three ways, each for a
different reader. Phase segments (when did the card do what), per-hour phase minutes in the
metric rollups (dashboards, summaries) and one hour-of-week profile per instance (day/night
schedules). Everything here is recomputable from the raw metrics, so it is written idempotently
by ``services.analysis_run`` and never edited by hand.
"""

from __future__ import annotations

from django.db import models

from apps.analysis.engine import DEFAULT_THRESHOLDS, Phase, PhaseThresholds
from apps.core.models import OrganizationQuerySet, OrganizationScopedModel, TimestampedModel


class PhaseChoices(models.IntegerChoices):
    """Mirror of ``engine.Phase``: the integers are stored, so they must never change."""

    UNKNOWN = int(Phase.UNKNOWN), "Unknown (no data)"
    IDLE = int(Phase.IDLE), "Idle"
    DATA_PROCESSING = int(Phase.DATA_PROCESSING), "Data processing (data-bound)"
    EVALUATION = int(Phase.EVALUATION), "Evaluation"
    TRAINING = int(Phase.TRAINING), "Training"


def phase_key(phase: int) -> str:
    """The JSON/API name of a phase, e.g. ``data_processing``."""
    return Phase(phase).name.lower()


PHASE_KEYS: tuple[str, ...] = tuple(phase_key(p) for p in Phase)


class AnalysisSettings(TimestampedModel):
    """An organization's overrides of ``PhaseThresholds`` (only the keys it changed)."""

    organization = models.OneToOneField(
        "accounts.Organization", on_delete=models.CASCADE, related_name="analysis_settings"
    )
    thresholds = models.JSONField(default=dict, blank=True)

    def __str__(self) -> str:
        return f"analysis settings of {self.organization_id}"

    def phase_thresholds(self) -> PhaseThresholds:
        """The effective thresholds: defaults with this organization's overrides applied."""
        return DEFAULT_THRESHOLDS.with_overrides(self.thresholds or {})


class PhaseSegment(models.Model):
    """A run of minutes of one phase, ``[start_at, end_at)``, never crossing a UTC midnight.

    Segments are cut at UTC midnights so that re-analysing a range of whole days replaces whole
    rows and never has to clip a neighbour (which would make a re-run drift); the selectors
    merge adjacent segments of the same phase back together for readers.
    """

    organization = models.ForeignKey(
        "accounts.Organization", on_delete=models.CASCADE, related_name="+", db_index=False
    )
    instance = models.ForeignKey(
        "cloud.Instance", on_delete=models.CASCADE, related_name="phase_segments", db_index=False
    )
    phase = models.PositiveSmallIntegerField(choices=PhaseChoices.choices)
    start_at = models.DateTimeField()
    end_at = models.DateTimeField()
    mean_gpu_util_pct = models.FloatField(
        null=True, blank=True, help_text="NULL for an unknown segment (nothing observed)."
    )

    objects = OrganizationQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["instance", "start_at"], name="phasesegment_unique_instance_start"
            ),
            models.CheckConstraint(
                condition=models.Q(end_at__gt=models.F("start_at")),
                name="phasesegment_not_empty",
            ),
        ]
        indexes = [models.Index(fields=["organization", "start_at"], name="phasesegment_org_start")]

    def __str__(self) -> str:
        return f"{self.instance_id} {phase_key(self.phase)} {self.start_at}-{self.end_at}"


class InstanceProfile(OrganizationScopedModel):
    """Hour-of-week profile of an instance's GPU utilization over the last 14 days.

    Matrices are 7 x 24 lists (Monday first, local hours of ``tz``), ``null`` where a cell had
    no observed minute. ``computed_at`` is the analysis' ``as_of``, not the wall clock, so
    re-running the same analysis rewrites nothing.
    """

    instance = models.OneToOneField(
        "cloud.Instance", on_delete=models.CASCADE, related_name="analysis_profile"
    )
    tz = models.CharField(max_length=64)
    start_at = models.DateTimeField()
    end_at = models.DateTimeField()
    computed_at = models.DateTimeField()
    median_pct = models.JSONField()
    p95_pct = models.JSONField()
    coverage = models.JSONField()
    has_off_window = models.BooleanField(default=False)
    off_window_weekly_hours = models.PositiveSmallIntegerField(null=True, blank=True)
    off_window_supporting_weeks = models.PositiveSmallIntegerField(null=True, blank=True)
    off_window = models.JSONField(
        null=True, blank=True, help_text="Runs, cells and support of the off window, or NULL."
    )

    def __str__(self) -> str:
        return f"profile of {self.instance_id} ({self.tz})"


class AnalysisState(models.Model):
    """Per-instance watermark of the incremental analysis.

    ``analysed_until`` is the end of the last analysed range; ``data_checked_at`` the wall-clock
    moment before the data of the last incremental or full run was read. Rollup rows updated
    after it (late points) or hours at or after ``analysed_until`` are what the next hourly run
    re-analyses.
    """

    instance = models.OneToOneField(
        "cloud.Instance", on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    analysed_until = models.DateTimeField()
    data_checked_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.instance_id} analysed until {self.analysed_until}"
