"""Digest subscriptions, an organization's holidays, and one delivery row per digest sent.

A subscription is claimed through its ``next_send_at`` with a conditional UPDATE (see
``services.subscriptions_claim_due``), and each (subscription, period) has at most one
``DigestDelivery`` (a unique constraint): two workers or a doubled beat tick cannot send a
period's digest twice, and every attempt's outcome (the SMTP Message-ID or the error) stays
on that row.
"""

from __future__ import annotations

import datetime as dt

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from apps.accounts.models import User, validate_timezone
from apps.cloud.models import Project
from apps.core.models import OrganizationScopedModel


class Frequency(models.TextChoices):
    DAILY = "daily", "Daily"
    WEEKLY = "weekly", "Weekly"
    MONTHLY = "monthly", "Monthly"


class DigestSubscription(OrganizationScopedModel):
    """One person's digest of one organization: when, in which timezone, about what."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="digest_subscriptions")
    frequency = models.CharField(max_length=8, choices=Frequency.choices, default=Frequency.WEEKLY)
    # Weekly digests go out on this weekday (0 = Monday), monthly ones on this day of the month
    # (at most 28, so every month has it); both at ``send_time`` local time.
    weekday = models.PositiveSmallIntegerField(
        default=0, validators=[MinValueValidator(0), MaxValueValidator(6)]
    )
    day_of_month = models.PositiveSmallIntegerField(
        default=1, validators=[MinValueValidator(1), MaxValueValidator(28)]
    )
    send_time = models.TimeField(default=dt.time(9, 0))
    # Blank: the organization's timezone (followed when the organization changes it).
    timezone = models.CharField(max_length=64, blank=True, validators=[validate_timezone])
    # No projects: the whole organization.
    projects = models.ManyToManyField(Project, blank=True, related_name="+")
    workdays_only = models.BooleanField(default=True)
    is_active = models.BooleanField(default=True)
    unsubscribed_at = models.DateTimeField(null=True, blank=True)
    # The moment the next digest is due (UTC); NULL while inactive. Claiming moves it forward.
    next_send_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["next_send_at"], name="digestsub_next_send")]

    def __str__(self) -> str:
        return f"{self.frequency} digest of {self.organization} for {self.user}"

    @property
    def effective_timezone(self) -> str:
        return self.timezone or self.organization.timezone


class Holiday(OrganizationScopedModel):
    """A day off in the organization: workdays-only digests are not sent on it."""

    date = models.DateField()
    name = models.CharField(max_length=100, blank=True)

    class Meta:
        ordering = ["date"]
        constraints = [
            models.UniqueConstraint(fields=["organization", "date"], name="holiday_unique_date")
        ]

    def __str__(self) -> str:
        return f"{self.date} {self.name}"


class DeliveryStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    SENDING = "sending", "Sending"
    SENT = "sent", "Sent"
    FAILED = "failed", "Failed"


class DigestDelivery(OrganizationScopedModel):
    """The digest of one subscription for one period: its state, Message-ID or error."""

    subscription = models.ForeignKey(
        DigestSubscription, on_delete=models.CASCADE, related_name="deliveries"
    )
    period_start = models.DateTimeField()
    period_end = models.DateTimeField()
    scheduled_for = models.DateTimeField(help_text="The send time that was due (UTC).")
    recipient = models.EmailField()
    status = models.CharField(
        max_length=8, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING
    )
    attempts = models.PositiveSmallIntegerField(default=0)
    # Set while a worker sends; a claim older than the lease (a worker died) can be taken over.
    claimed_at = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    message_id = models.CharField(max_length=255, blank=True)
    error = models.TextField(blank=True)
    # Failed only because the mail server stayed down or busy through the task's retries: the
    # sweep (``services.deliveries_sweep``) sends it again. A permanent refusal is never set.
    retryable = models.BooleanField(default=False)
    # Where the time of the last attempt went (queries, charts, templates, SMTP), in ms.
    timings_ms = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-period_start", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["subscription", "period_start"], name="digestdelivery_unique_period"
            )
        ]

    def __str__(self) -> str:
        return f"digest {self.subscription_id} {self.period_start:%Y-%m-%d} {self.status}"
