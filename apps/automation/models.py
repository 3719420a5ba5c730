"""Automation: GPU Ledger carries out an accepted recommendation (stops and starts instances).

- ``AutomationSettings``: the organization's one switch that stops all automation at once.
- ``AutomationPlan``: one per accepted recommendation (schedule, fewer instances at night, stop
  idle), with its holidays (``skip_dates``), stop-idle grace and the confirmation that an
  instance holding GPU memory may be stopped.
- ``AutomationAction``: one stop or start of one instance at one moment, materialised from the
  planner ahead of time; unique per (plan, instance, kind, due_at), so materialising twice
  creates nothing. The executor claims a due row with a conditional UPDATE (pending ->
  claimed), so two workers or a duplicate beat tick make one cloud call.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q

from apps.core.models import OrganizationScopedModel, TimestampedModel


class AutomationSettings(TimestampedModel):
    organization = models.OneToOneField(
        "accounts.Organization", on_delete=models.CASCADE, related_name="automation_settings"
    )
    paused = models.BooleanField(
        default=False, help_text="Stops all automation of the organization at once."
    )

    def __str__(self) -> str:
        return f"automation settings of {self.organization_id}"


class PlanStatus(models.TextChoices):
    ACTIVE = "active", "Active"
    PAUSED = "paused", "Paused"
    ENDED = "ended", "Ended"


class PlanKind(models.TextChoices):
    SCHEDULE = "schedule", "Day/night schedule"
    FEWER_INSTANCES = "fewer_instances", "Fewer instances at night"
    STOP_IDLE = "stop_idle", "Stop idle"


DEFAULT_GRACE_HOURS = 24


class AutomationPlan(OrganizationScopedModel):
    recommendation = models.ForeignKey(
        "recommendations.Recommendation", on_delete=models.CASCADE, related_name="automation_plans"
    )
    kind = models.CharField(max_length=16, choices=PlanKind.choices)
    status = models.CharField(max_length=8, choices=PlanStatus.choices, default=PlanStatus.ACTIVE)
    skip_dates = models.JSONField(
        default=list, blank=True, help_text="ISO dates in the organization's timezone."
    )
    grace_hours = models.PositiveIntegerField(default=DEFAULT_GRACE_HOURS)
    memory_held_confirmed = models.BooleanField(default=False)
    told_at = models.DateTimeField(
        null=True, blank=True, help_text="Stop idle: when the owners were told of the stop."
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    started_at = models.DateTimeField(
        help_text="When automation began (the service's ``now``): weeks and prices count from it."
    )
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            # One plan per recommendation that is not ended (an ended one is history).
            models.UniqueConstraint(
                fields=["recommendation"],
                condition=~Q(status="ended"),
                name="automationplan_one_live_per_recommendation",
            )
        ]

    def __str__(self) -> str:
        return f"{self.kind} plan of recommendation {self.recommendation_id} ({self.status})"


class ActionKind(models.TextChoices):
    STOP = "stop", "Stop"
    START = "start", "Start"


class ActionStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    CLAIMED = "claimed", "Claimed"
    SENT = "sent", "Sent"
    CONFIRMED = "confirmed", "Confirmed"
    SKIPPED = "skipped", "Skipped"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


class AutomationAction(OrganizationScopedModel):
    plan = models.ForeignKey(AutomationPlan, on_delete=models.CASCADE, related_name="actions")
    instance = models.ForeignKey("cloud.Instance", on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=5, choices=ActionKind.choices)
    due_at = models.DateTimeField()
    status = models.CharField(
        max_length=9, choices=ActionStatus.choices, default=ActionStatus.PENDING
    )
    attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField(help_text="When the executor may take it (next).")
    claimed_until = models.DateTimeField(null=True, blank=True)
    client_token = models.UUIDField(default=uuid.uuid4, editable=False)
    request_id = models.CharField(max_length=128, blank=True)
    reason = models.CharField(max_length=32, blank=True, help_text="A code (wording.py).")
    reason_params = models.JSONField(default=dict, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-due_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["plan", "instance", "kind", "due_at"], name="automationaction_once"
            )
        ]
        indexes = [
            models.Index(fields=["status", "next_attempt_at"], name="automationaction_due"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.instance_id} at {self.due_at:%Y-%m-%d %H:%M} ({self.status})"
