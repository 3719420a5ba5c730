"""Stored recommendations, their history and an organization's rule settings.

A recommendation is identified by its fingerprint (kind + target + parameters): each run
updates the figures of the row with the same fingerprint in place, so one finding is one row
however often the rules run. At most one row per fingerprint is not resolved (a partial unique
constraint); a resolved row that comes back is reopened rather than duplicated.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q

from apps.core.models import OrganizationScopedModel, TimestampedModel
from apps.recommendations.rules import KINDS, PLAN, ROLES


class RecommendationSettings(TimestampedModel):
    """An organization's overrides of ``RuleThresholds`` and its reserved-instance prices.

    ``reserved_prices`` is data the organization edits (RI prices are not in the CVM price
    APIs): a list of ``{"region", "instance_type", "hourly", "term_years", "currency"}``.
    """

    organization = models.OneToOneField(
        "accounts.Organization", on_delete=models.CASCADE, related_name="recommendation_settings"
    )
    thresholds = models.JSONField(default=dict, blank=True)
    reserved_prices = models.JSONField(default=list, blank=True)

    def __str__(self) -> str:
        return f"recommendation settings of {self.organization_id}"


class Status(models.TextChoices):
    OPEN = "open", "Open"
    ACCEPTED = "accepted", "Accepted"
    DISMISSED = "dismissed", "Dismissed"
    SNOOZED = "snoozed", "Snoozed"
    RESOLVED = "resolved", "Resolved"


class Recommendation(OrganizationScopedModel):
    kind = models.CharField(max_length=32, choices=KINDS)
    fingerprint = models.CharField(max_length=64)
    instance = models.ForeignKey(
        "cloud.Instance",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="recommendations",
    )
    project = models.ForeignKey(
        "cloud.Project",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="recommendations",
    )
    parameters = models.JSONField(default=dict, blank=True)
    title = models.CharField(max_length=300, help_text="In English, as the rules' words render.")
    words = models.JSONField(
        default=dict,
        blank=True,
        help_text="The rules' words (message code and parameters per text, e.g. the title), "
        "rendered again in each reader's language (apps.recommendations.messages).",
    )
    explanation = models.TextField()
    # Null where the finding saves nothing the bill shows (thermal, the data pipeline): not a
    # zero saving, so it adds nothing to a total and sorts after every real one.
    monthly_saving = models.DecimalField(max_digits=16, decimal_places=2, null=True, blank=True)
    # "Paid while waiting" (the data pipeline): money and GPU-hours a month the GPU waits for
    # data. Its own figure, never added to savings; null for every other kind.
    monthly_paid_while_waiting = models.DecimalField(
        max_digits=16, decimal_places=2, null=True, blank=True
    )
    gpu_hours_waiting_per_month = models.DecimalField(
        max_digits=12, decimal_places=1, null=True, blank=True
    )
    # Upsize (GPU memory pressure): why it proposes what it does (next_in_family, or
    # no_larger_type), what the same work costs more a month on the target (never a negative
    # saving), and the work each type buys: BERT-base samples per unit of the currency.
    # Blank and null for every other kind.
    upsize_reason = models.CharField(max_length=16, blank=True, default="")
    monthly_extra_cost = models.DecimalField(max_digits=16, decimal_places=2, null=True, blank=True)
    current_samples_per_currency_unit = models.DecimalField(
        max_digits=20, decimal_places=1, null=True, blank=True
    )
    target_samples_per_currency_unit = models.DecimalField(
        max_digits=20, decimal_places=1, null=True, blank=True
    )
    currency = models.CharField(max_length=3)
    saving_formula = models.TextField(
        help_text="How the row's money figures are computed: the saving's, or where there is "
        "none, its paid-while-waiting (or upsize) figures'."
    )
    price_source = models.CharField(max_length=16)
    confidence = models.CharField(max_length=8)
    evidence_days = models.FloatField()
    coverage_pct = models.FloatField()
    risk_level = models.PositiveSmallIntegerField()
    risk_reason = models.TextField()
    evidence = models.JSONField(default=dict)
    action = models.JSONField(default=dict)
    role = models.CharField(
        max_length=11,
        choices=ROLES,
        default=PLAN,
        help_text="plan: part of its instance's plan (totals add these up); alternative: "
        "excludes or overlaps the plan, shown with its own figure.",
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    status_reason = models.TextField(blank=True)
    snoozed_until = models.DateTimeField(null=True, blank=True)
    accepted_at = models.DateTimeField(null=True, blank=True)
    first_seen_at = models.DateTimeField()
    last_seen_at = models.DateTimeField(help_text="as_of of the last run that found it.")
    resolved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = [F("monthly_saving").desc(nulls_last=True), "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["organization", "fingerprint"],
                condition=~Q(status="resolved"),
                name="recommendation_one_unresolved_per_fingerprint",
            )
        ]
        indexes = [
            models.Index(fields=["organization", "status"], name="recommendation_org_status"),
            models.Index(fields=["organization", "fingerprint"], name="recommendation_org_fp"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.title} ({self.status})"


class RecommendationEvent(models.Model):
    """One change of a recommendation: who (None: the rules run), when, from -> to, why."""

    recommendation = models.ForeignKey(
        Recommendation, on_delete=models.CASCADE, related_name="events"
    )
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    at = models.DateTimeField()
    from_status = models.CharField(max_length=10, blank=True)
    to_status = models.CharField(max_length=10)
    reason = models.TextField(blank=True)

    class Meta:
        ordering = ["at", "id"]

    def __str__(self) -> str:
        return f"{self.recommendation_id} {self.from_status or '-'} -> {self.to_status}"
