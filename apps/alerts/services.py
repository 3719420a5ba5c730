"""Writes of the alerts app: budgets, rules, recipients, settings, and raising an alert (which
notifies)."""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone, translation

from apps.accounts.audit import actions as audit_actions
from apps.accounts.audit.services import (
    audit_record,
    changes_between,
    current_values,
    stored_values,
)
from apps.accounts.models import Organization, User
from apps.alerts.delivery import deliveries_plan, webhook_url_check
from apps.alerts.models import (
    AlertDelivery,
    AlertEvent,
    AlertRecipient,
    AlertSettings,
    Budget,
    Channel,
    Comparison,
    DeliveryStatus,
    ThresholdRule,
)
from apps.alerts.wording import event_wording
from apps.cloud.models import Project
from apps.core.crypto import encrypt_str
from apps.core.sweep import deliveries_take_back
from apps.metrics.constants import Metric

# The sweep sends again what a delivery task's retries (a few minutes) could not, for a day
# after the alert was raised; an alert older than that is news nobody needs any more.
SWEEP_WINDOW = dt.timedelta(days=1)
# A pending delivery untouched this long has no task any more (the broker lost it): longer than
# the longest wait between two retries (10 minutes), so a live retry is never doubled.
SWEEP_IDLE = dt.timedelta(minutes=30)
GAVE_UP = "Not sent within a day of the alert."

# What the audit log records of each object: its settings, never a secret.
BUDGET_FIELDS = (
    "name",
    "project",
    "amount",
    "currency",
    "actual_thresholds_pct",
    "forecast_thresholds_pct",
)
RULE_FIELDS = (
    "name",
    "metric",
    "comparison",
    "threshold",
    "duration_minutes",
    "project",
    "enabled",
)
RECIPIENT_FIELDS = ("role", "user", "project")
SETTINGS_FIELDS = (
    "webhook_url",
    "webhook_enabled",
    "anomaly_k",
    "anomaly_min_amount",
    "anomaly_min_idle_gpu_hours",
)

#: The rules every organization starts with (DOMAIN.md: thresholds in common use).
DEFAULT_RULES: tuple[dict[str, Any], ...] = (
    {
        "name": "GPU underused",
        "metric": Metric.GPU_UTIL_PCT,
        "comparison": Comparison.BELOW,
        "threshold": 30.0,
        "duration_minutes": 10,
    },
    {
        "name": "GPU memory nearly full",
        "metric": Metric.GPU_MEM_USED_PCT,
        "comparison": Comparison.ABOVE,
        "threshold": 90.0,
        "duration_minutes": 5,
    },
    {
        "name": "GPU running hot",
        "metric": Metric.GPU_TEMP_C,
        "comparison": Comparison.ABOVE,
        "threshold": 85.0,
        "duration_minutes": 5,
    },
)


@transaction.atomic
def budget_create(
    *,
    organization: Organization,
    name: str,
    amount: Decimal,
    currency: str | None = None,
    project: Project | None = None,
    actual_thresholds_pct: list[int] | None = None,
    forecast_thresholds_pct: list[int] | None = None,
) -> Budget:
    budget = Budget(
        organization=organization,
        name=name,
        amount=amount,
        currency=currency or organization.currency,
        project=project,
    )
    if actual_thresholds_pct is not None:
        budget.actual_thresholds_pct = sorted(set(actual_thresholds_pct))
    if forecast_thresholds_pct is not None:
        budget.forecast_thresholds_pct = sorted(set(forecast_thresholds_pct))
    budget.full_clean()
    budget.save()
    audit_record(
        organization=organization,
        action=audit_actions.BUDGET_CREATED,
        target=budget,
        target_label=budget.name,
        details={"values": current_values(budget, BUDGET_FIELDS)},
    )
    return budget


@transaction.atomic
def budget_update(*, budget: Budget, **fields: Any) -> Budget:
    for key in ("actual_thresholds_pct", "forecast_thresholds_pct"):
        if key in fields:
            fields[key] = sorted(set(fields[key]))
    before = stored_values(budget, BUDGET_FIELDS)
    for key, value in fields.items():
        setattr(budget, key, value)
    budget.full_clean()
    budget.save()
    changed = changes_between(before, current_values(budget, BUDGET_FIELDS))
    if changed:
        audit_record(
            organization=budget.organization,
            action=audit_actions.BUDGET_UPDATED,
            target=budget,
            target_label=budget.name,
            details={"changes": changed},
        )
    return budget


@transaction.atomic
def budget_delete(*, budget: Budget) -> None:
    audit_record(
        organization=budget.organization,
        action=audit_actions.BUDGET_DELETED,
        target=budget,
        target_label=budget.name,
        details={"values": current_values(budget, BUDGET_FIELDS)},
    )
    budget.delete()


@transaction.atomic
def alert_recipient_create(
    *,
    organization: Organization,
    role: str = "",
    user: User | None = None,
    project: Project | None = None,
) -> AlertRecipient:
    """Tell every member with ``role``, or one ``user`` (exactly one of the two, see the model's
    constraint), of one ``project``'s alerts or, without one, of all."""
    recipient = AlertRecipient.objects.create(
        organization=organization, role=role, user=user, project=project
    )
    _audit_recipient(recipient, audit_actions.ALERT_RECIPIENT_CREATED)
    return recipient


def _audit_recipient(recipient: AlertRecipient, action: str) -> None:
    audit_record(
        organization=recipient.organization,
        action=action,
        target=recipient,
        target_label=recipient.user.email if recipient.user else recipient.role,
        details={"values": current_values(recipient, RECIPIENT_FIELDS)},
    )


@transaction.atomic
def alert_recipient_delete(*, recipient: AlertRecipient) -> None:
    _audit_recipient(recipient, audit_actions.ALERT_RECIPIENT_DELETED)
    recipient.delete()


def alert_settings_get(organization: Organization) -> AlertSettings:
    settings, _ = AlertSettings.objects.get_or_create(organization=organization)
    return settings


@transaction.atomic
def alert_settings_update(
    *, organization: Organization, webhook_secret: str | None = None, **fields: Any
) -> AlertSettings:
    """Change the settings; a new ``webhook_secret`` is stored encrypted (write-only)."""
    settings = AlertSettings.objects.select_for_update().get(pk=alert_settings_get(organization).pk)
    before = current_values(settings, SETTINGS_FIELDS)
    for key, value in fields.items():
        setattr(settings, key, value)
    if webhook_secret is not None:
        settings.webhook_secret_encrypted = encrypt_str(webhook_secret)
    settings.full_clean()
    if fields.get("webhook_url"):
        webhook_url_check(settings.webhook_url)
    settings.save()
    details: dict[str, Any] = {}
    changed = changes_between(before, current_values(settings, SETTINGS_FIELDS))
    if changed:
        details["changes"] = changed
    if webhook_secret is not None:
        # That the signing secret changed, never the secret.
        details["secrets_changed"] = ["webhook_secret"]
    if details:
        audit_record(
            organization=organization,
            action=audit_actions.ALERT_SETTINGS_UPDATED,
            target=settings,
            target_label="",
            details=details,
        )
    return settings


def threshold_rules_ensure_defaults(organization: Organization) -> None:
    """Create the default rules once per organization (deleting them later is respected)."""
    # Every list of the rules comes here: the usual case (done long ago) costs one read.
    done = AlertSettings.objects.filter(
        organization=organization, default_rules_created_at__isnull=False
    )
    if done.exists():
        return
    with transaction.atomic():
        settings = AlertSettings.objects.select_for_update().get(
            pk=alert_settings_get(organization).pk
        )
        if settings.default_rules_created_at is not None:
            return
        ThresholdRule.objects.bulk_create(
            [ThresholdRule(organization=organization, **rule) for rule in DEFAULT_RULES]
        )
        settings.default_rules_created_at = timezone.now()
        settings.save(update_fields=["default_rules_created_at", "updated_at"])


@transaction.atomic
def threshold_rule_save(*, rule: ThresholdRule) -> ThresholdRule:
    before = stored_values(rule, RULE_FIELDS)
    rule.full_clean()
    rule.save()
    if not before:
        audit_record(
            organization=rule.organization,
            action=audit_actions.ALERT_RULE_CREATED,
            target=rule,
            target_label=rule.name,
            details={"values": current_values(rule, RULE_FIELDS)},
        )
        return rule
    changed = changes_between(before, current_values(rule, RULE_FIELDS))
    if changed:
        audit_record(
            organization=rule.organization,
            action=audit_actions.ALERT_RULE_UPDATED,
            target=rule,
            target_label=rule.name,
            details={"changes": changed},
        )
    return rule


@transaction.atomic
def threshold_rule_delete(*, rule: ThresholdRule) -> None:
    audit_record(
        organization=rule.organization,
        action=audit_actions.ALERT_RULE_DELETED,
        target=rule,
        target_label=rule.name,
        details={"values": current_values(rule, RULE_FIELDS)},
    )
    # A deleted default stays deleted: threshold_rules_ensure_defaults creates them only once.
    rule.delete()


def alert_event_raise(
    *,
    organization: Organization,
    started_at: dt.datetime,
    imported: bool = False,
    summarizes: Sequence[int] = (),
    **fields: Any,
) -> AlertEvent:
    """Record an alert and plan its deliveries; they are sent once the transaction commits.

    Callers make "once" hold with a database constraint (see models); this only records.
    Without a ``title`` and ``message``, the English wording of ``apps.alerts.wording`` is
    stored: the same sentences the e-mail renders in each recipient's language.

    An ``imported`` alert (about history a backfill imported) is recorded and sent to nobody:
    the history summary reports it (``apps.alerts.evaluation.history``). ``summarizes`` names
    the imported alerts a summary reports; they are attached to it before it is planned, so
    its recipients include those of the projects they concern.
    """
    event = AlertEvent(
        organization=organization, started_at=started_at, imported=imported, **fields
    )
    if not event.title or not event.message:
        with translation.override("en"):
            event.title, event.message = event_wording(event)
    event.save()
    if summarizes:
        AlertEvent.objects.filter(pk__in=list(summarizes), organization=organization).update(
            summary=event
        )
    if imported:
        return event
    deliveries = deliveries_plan(event)
    transaction.on_commit(functools.partial(_enqueue, [d.pk for d in deliveries]))
    return event


def _enqueue(delivery_ids: list[int]) -> None:
    from apps.alerts.tasks import send_alert_email, send_alert_webhook

    for delivery in AlertDelivery.objects.filter(pk__in=delivery_ids):
        if delivery.channel == Channel.EMAIL:
            send_alert_email.delay(delivery.pk)
        else:
            send_alert_webhook.delay(delivery.pk)


def _unsent(now: dt.datetime) -> Q:
    """Deliveries no task will send: pending with no task (idle), or failed only because the
    server stayed unreachable. Sent ones and permanent failures never match."""
    return Q(status=DeliveryStatus.PENDING, updated_at__lt=now - SWEEP_IDLE) | Q(
        status=DeliveryStatus.FAILED, retryable=True
    )


def deliveries_sweep(*, now: dt.datetime) -> list[int]:
    """Queue again every delivery of the last ``SWEEP_WINDOW`` that no task will send; returns
    their ids. Older ones still unsent are recorded as failed for good.

    Each is taken back to pending by a conditional UPDATE (two sweeps at once queue it once);
    a delivery is sent under a row lock and only while pending, so never twice.
    """
    requeued = deliveries_take_back(
        AlertDelivery,
        unsent=_unsent(now),
        recent=Q(created_at__gte=now - SWEEP_WINDOW),
        now=now,
        failed=DeliveryStatus.FAILED,
        pending=DeliveryStatus.PENDING,
        gave_up=GAVE_UP,
    )
    if requeued:
        transaction.on_commit(functools.partial(_enqueue, requeued))
    return requeued
