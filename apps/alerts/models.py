"""Budgets, metric threshold rules, and the alerts they raise, with their deliveries.

Each kind of alert is made "once" by a database constraint, not by a check in Python, so a
duplicate beat tick or two workers evaluating at the same moment cannot raise it twice:

- a budget threshold: one ``BudgetCrossing`` per (budget, month, threshold, basis);
- a cost anomaly: one ``AlertEvent`` per ``dedup_key`` (kind, subject, day);
- a metric threshold: at most one *open* ``AlertEvent`` per (rule, instance) while the
  condition lasts; clearing it closes the event and raises a recovery notice;
- the summary of an imported history: one per organization and import (``dedup_key``).

An alert about history a backfill imported is recorded with ``imported`` set and sent to
nobody; the summary (kind ``history``) that reports it is (``apps.alerts.history``).
"""

from __future__ import annotations

from decimal import Decimal

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q

from apps.accounts.models import User
from apps.accounts.roles import Role
from apps.billing.models import MONEY
from apps.cloud.models import Instance, Project
from apps.core.models import OrganizationScopedModel, TimestampedModel
from apps.metrics.constants import Metric

#: Percentages of the budget at which an alert is raised, for spend so far and for the forecast.
DEFAULT_THRESHOLDS_PCT = [50, 80, 100]


def default_thresholds_pct() -> list[int]:
    return list(DEFAULT_THRESHOLDS_PCT)


class Budget(OrganizationScopedModel):
    """A monthly budget of the whole organization (``project`` empty) or of one project.

    The month is the calendar month in the organization's timezone.
    """

    name = models.CharField(max_length=100)
    project = models.ForeignKey(
        Project, null=True, blank=True, on_delete=models.CASCADE, related_name="budgets"
    )
    amount = models.DecimalField(
        max_digits=16, decimal_places=2, validators=[MinValueValidator(0)], help_text="Per month."
    )
    currency = models.CharField(max_length=3, default="CNY")
    # An empty list: no alerts on that basis.
    actual_thresholds_pct = models.JSONField(default=default_thresholds_pct, blank=True)
    forecast_thresholds_pct = models.JSONField(default=default_thresholds_pct, blank=True)

    class Meta:
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return f"{self.name}: {self.amount} {self.currency}/month"


class BudgetBasis(models.TextChoices):
    ACTUAL = "actual", "Spend so far"
    FORECAST = "forecast", "Forecast to month end"


class BudgetCrossing(models.Model):
    """A threshold of a budget crossed in a month: the row that makes its alert happen once."""

    budget = models.ForeignKey(Budget, on_delete=models.CASCADE, related_name="crossings")
    month = models.CharField(max_length=7, help_text="yyyy-mm in the organization's timezone.")
    threshold_pct = models.PositiveIntegerField()
    basis = models.CharField(max_length=8, choices=BudgetBasis.choices)
    amount = models.DecimalField(**MONEY, help_text="Spend (or forecast) when it was crossed.")
    crossed_at = models.DateTimeField()
    # Thresholds crossed together (a jump from 40 % to 110 %) share one alert: the highest.
    event = models.ForeignKey(
        "AlertEvent", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["budget", "month", "threshold_pct", "basis"],
                name="budgetcrossing_once_per_month",
            )
        ]

    def __str__(self) -> str:
        return f"{self.budget_id} {self.month} {self.threshold_pct}% {self.basis}"


class Comparison(models.TextChoices):
    BELOW = "below", "below"
    ABOVE = "above", "above"


class ThresholdRule(OrganizationScopedModel):
    """A metric condition held for ``duration_minutes`` on a running instance."""

    name = models.CharField(max_length=100)
    metric = models.CharField(max_length=32, choices=Metric.choices)
    comparison = models.CharField(max_length=5, choices=Comparison.choices)
    threshold = models.FloatField()
    duration_minutes = models.PositiveIntegerField(default=10, validators=[MinValueValidator(1)])
    project = models.ForeignKey(
        Project, null=True, blank=True, on_delete=models.CASCADE, related_name="threshold_rules"
    )
    enabled = models.BooleanField(default=True)

    class Meta:
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return f"{self.metric} {self.comparison} {self.threshold} for {self.duration_minutes} min"


class AlertKind(models.TextChoices):
    BUDGET = "budget", "Budget threshold"
    ANOMALY = "anomaly", "Cost anomaly"
    THRESHOLD = "threshold", "Metric threshold"
    RECOVERY = "recovery", "Metric threshold cleared"
    HISTORY = "history", "Imported history"
    AUTOMATION = "automation", "Automation"


class Severity(models.TextChoices):
    INFO = "info", "Info"
    WARNING = "warning", "Warning"
    CRITICAL = "critical", "Critical"


class AlertEvent(OrganizationScopedModel):
    """One alert as people were told about it: the history the API lists."""

    kind = models.CharField(max_length=10, choices=AlertKind.choices)
    severity = models.CharField(max_length=8, choices=Severity.choices, default=Severity.WARNING)
    title = models.CharField(max_length=300)
    message = models.TextField()
    budget = models.ForeignKey(
        Budget, null=True, blank=True, on_delete=models.SET_NULL, related_name="events"
    )
    rule = models.ForeignKey(
        ThresholdRule, null=True, blank=True, on_delete=models.SET_NULL, related_name="events"
    )
    project = models.ForeignKey(
        Project, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    instance = models.ForeignKey(
        Instance, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # The figures behind the message, so a reader can recompute it (see each evaluator).
    evidence = models.JSONField(default=dict, blank=True)
    # Anomalies: "anomaly:<metric>:<subject>:<day>", unique, so one anomaly is raised once.
    dedup_key = models.CharField(max_length=200, null=True, blank=True, unique=True)
    started_at = models.DateTimeField()
    # Threshold alerts stay open while the condition lasts; the recovery closes them.
    resolved_at = models.DateTimeField(null=True, blank=True)
    recovery_of = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.CASCADE, related_name="recovery"
    )
    # About history a backfill imported (``apps.alerts.history``): recorded, sent to nobody;
    # ``summary`` is the one alert that reported it with the rest of that history.
    imported = models.BooleanField(default=False)
    summary = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="summarized"
    )

    class Meta:
        ordering = ["-started_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["rule", "instance"],
                condition=Q(kind="threshold", resolved_at__isnull=True),
                name="alertevent_one_open_per_rule_instance",
            )
        ]
        indexes = [models.Index(fields=["organization", "-started_at"], name="alertevent_org_at")]

    def __str__(self) -> str:
        return f"{self.kind}: {self.title}"


class AlertRecipient(OrganizationScopedModel):
    """Who is told: every member with ``role``, or one ``user``; of one project or all.

    An organization without any recipient row tells its owners and admins.
    """

    role = models.CharField(max_length=16, choices=Role.choices, blank=True)
    user = models.ForeignKey(User, null=True, blank=True, on_delete=models.CASCADE)
    project = models.ForeignKey(Project, null=True, blank=True, on_delete=models.CASCADE)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=(Q(role="") & Q(user__isnull=False))
                | (~Q(role="") & Q(user__isnull=True)),
                name="alertrecipient_role_xor_user",
            )
        ]

    def __str__(self) -> str:
        return f"{self.role or self.user_id} ({self.project_id or 'all projects'})"


class AlertSettings(TimestampedModel):
    """An organization's alert settings: the optional webhook and the anomaly sensitivity.

    The webhook is a JSON POST per alert, signed with the organization's own secret (stored
    encrypted, never shown again). An anomaly is a day above median + ``anomaly_k`` x 1.4826 x
    the spread of the days with data among the 30 before it *and* above the median by at least
    the minimum (money, or idle GPU-hours), so a flat, cheap series does not alert on pennies.
    The spread is the MAD, but at least ``anomaly_mad_floor_pct`` % of the median and at least
    the absolute floor (money, or idle GPU-hours): a flat series (MAD 0) does not make every
    rise an anomaly (``apps.alerts.evaluation.anomalies``).
    """

    organization = models.OneToOneField(
        "accounts.Organization", on_delete=models.CASCADE, related_name="alert_settings"
    )
    webhook_url = models.URLField(max_length=500, blank=True)
    webhook_secret_encrypted = models.TextField(blank=True)
    webhook_enabled = models.BooleanField(default=False)
    anomaly_k = models.FloatField(default=4.0, validators=[MinValueValidator(0)])
    anomaly_min_amount = models.DecimalField(
        max_digits=12, decimal_places=2, default=Decimal("50.00"), validators=[MinValueValidator(0)]
    )
    anomaly_min_idle_gpu_hours = models.FloatField(default=4.0, validators=[MinValueValidator(0)])
    anomaly_mad_floor_pct = models.FloatField(
        default=10.0, validators=[MinValueValidator(0), MaxValueValidator(100)]
    )
    anomaly_mad_floor_amount = models.DecimalField(
        max_digits=12, decimal_places=2, default=Decimal("10.00"), validators=[MinValueValidator(0)]
    )
    anomaly_mad_floor_idle_gpu_hours = models.FloatField(
        default=0.5, validators=[MinValueValidator(0)]
    )
    # Set once the default threshold rules were created, so deleting them all is respected.
    default_rules_created_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"alert settings of {self.organization_id}"


class Channel(models.TextChoices):
    EMAIL = "email", "E-mail"
    WEBHOOK = "webhook", "Webhook"


class DeliveryStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    SENT = "sent", "Sent"
    FAILED = "failed", "Failed"


class AlertDelivery(TimestampedModel):
    """One alert to one address (or the webhook): sent once, its failure recorded."""

    event = models.ForeignKey(AlertEvent, on_delete=models.CASCADE, related_name="deliveries")
    channel = models.CharField(max_length=8, choices=Channel.choices)
    address = models.CharField(max_length=500, help_text="E-mail address or webhook URL.")
    language = models.CharField(max_length=10, default="en")
    status = models.CharField(
        max_length=8, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING
    )
    attempts = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    # Failed only because the server stayed unreachable through the task's retries: the sweep
    # (``services.deliveries_sweep``) sends it again. A permanent refusal is never set.
    retryable = models.BooleanField(default=False)
    message_id = models.CharField(max_length=300, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["event", "channel", "address"], name="alertdelivery_once_per_address"
            )
        ]

    def __str__(self) -> str:
        return f"{self.channel} {self.address}: {self.status}"
