"""Cloud inventory: projects and GPU instances.

The Tencent Cloud connector (CloudAccount, prices, tag rules, sync) extends this module; the
instance is the unit every metric, cost and recommendation hangs from.
"""

from __future__ import annotations

from django.db import models

from apps.core.models import OrganizationScopedModel


class Project(OrganizationScopedModel):
    """A cost-allocation bucket, named by tag values (e.g. tag ``project``)."""

    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=200)

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["organization", "slug"], name="project_unique_slug")]

    def __str__(self) -> str:
        return self.name


class ChargeType(models.TextChoices):
    POSTPAID_BY_HOUR = "POSTPAID_BY_HOUR", "Pay-as-you-go"
    PREPAID = "PREPAID", "Monthly subscription"
    SPOTPAID = "SPOTPAID", "Spot"
    CDHPAID = "CDHPAID", "Dedicated host"
    CDCPAID = "CDCPAID", "Dedicated cluster"


class Instance(OrganizationScopedModel):
    """A cloud GPU instance. Never deleted: a vanished instance is marked terminated."""

    provider_id = models.CharField(max_length=64, help_text="e.g. ins-9bxebleo")
    name = models.CharField(max_length=200, blank=True)
    region = models.CharField(max_length=32)
    zone = models.CharField(max_length=32, blank=True)
    instance_type = models.CharField(max_length=64)
    gpu_model = models.CharField(max_length=64, blank=True)
    gpu_count = models.FloatField(default=0, help_text="Below 1 means a vGPU share.")
    gpu_memory_gb = models.FloatField(default=0, help_text="Per card.")
    cpu_cores = models.PositiveIntegerField(default=0)
    memory_gb = models.PositiveIntegerField(default=0)
    charge_type = models.CharField(max_length=20, choices=ChargeType.choices, default=ChargeType.POSTPAID_BY_HOUR)
    state = models.CharField(max_length=20, default="RUNNING")
    tags = models.JSONField(default=dict, blank=True)
    project = models.ForeignKey(Project, null=True, blank=True, on_delete=models.SET_NULL, related_name="instances")
    launched_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    terminated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["name", "provider_id"]
        constraints = [
            models.UniqueConstraint(fields=["organization", "provider_id"], name="instance_unique_provider_id")
        ]

    def __str__(self) -> str:
        return f"{self.name or self.provider_id} ({self.instance_type})"
