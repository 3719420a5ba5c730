"""Metric threshold alerts with durations, open while the condition lasts, then a recovery.

For each enabled rule and each running instance in its scope, the metric store's recent
minutes are read (``apps.metrics.selectors.metrics_read``). Metrics arrive minutes late, so
the rule is judged on the *latest data*: the ``duration_minutes`` minutes ending at the last
observed minute of the past ``LOOKBACK_MINUTES``.

- The condition holds when every observed value of those minutes is on the wrong side of the
  threshold (below 30 %, above 90 %, ...) and at most one minute in ten is missing (a lost
  sample must not hide a real breach; a condition seen for fewer minutes is not one yet).
- It has cleared when the latest ``CLEAR_MINUTES`` observed minutes are all on the right side.
- Otherwise (too little data, or mixed), nothing changes.

While it holds, one ``AlertEvent`` stays open per (rule, instance) (a partial unique
constraint), so re-evaluating every few minutes alerts once. When it clears, or the instance
stops running, the open event is closed by a conditional UPDATE and one recovery notice is
raised for it.

A condition whose judged minutes end before the metrics' boundary of imported history (the
minutes a backfill brought, ``apps.alerts.evaluation.history``) was seen in the imported
history: its alert is recorded, open as usual, and sent to nobody (the history summary
reports it), and so is its recovery. A condition the live minutes show alerts as usual.
"""

from __future__ import annotations

import datetime as dt
from typing import cast

import numpy as np
from django.db import IntegrityError, transaction
from django.utils import translation

from apps.accounts.models import Organization
from apps.alerts.evaluation.history import history_boundary
from apps.alerts.models import AlertEvent, AlertKind, Comparison, Severity, ThresholdRule
from apps.alerts.services import alert_event_raise, threshold_rules_ensure_defaults
from apps.alerts.wording import rule_description
from apps.cloud.models import Instance
from apps.metrics.constants import Metric
from apps.metrics.selectors import metrics_read

LOOKBACK_MINUTES = 30
CLEAR_MINUTES = 3
RUNNING = "RUNNING"


def _wrong_side(values: np.ndarray, rule: ThresholdRule) -> np.ndarray:
    if rule.comparison == Comparison.BELOW:
        return values < rule.threshold
    return values > rule.threshold


def judge(values: np.ndarray, rule: ThresholdRule) -> tuple[str, dict[str, object]]:
    """ "breach", "clear" or "unknown" for one instance's recent minutes (oldest first)."""
    observed = np.flatnonzero(~np.isnan(values))
    if observed.size == 0:
        return "unknown", {}
    last = int(observed[-1])
    window = values[max(0, last - rule.duration_minutes + 1) : last + 1]
    seen = window[~np.isnan(window)]
    evidence: dict[str, object] = {
        "window_minutes": rule.duration_minutes,
        "observed_minutes": int(seen.size),
        "min": round(float(seen.min()), 2),
        "max": round(float(seen.max()), 2),
        "avg": round(float(seen.mean()), 2),
        "threshold": rule.threshold,
        "comparison": rule.comparison,
        "minutes_before_now_of_last_point": len(values) - 1 - last,
    }
    enough = seen.size >= rule.duration_minutes - rule.duration_minutes // 10
    if enough and bool(_wrong_side(seen, rule).all()):
        return "breach", evidence
    latest = values[observed[-CLEAR_MINUTES:]]
    if not _wrong_side(latest, rule).any():
        return "clear", evidence
    return "unknown", evidence


def thresholds_evaluate(*, organization: Organization, as_of: dt.datetime) -> list[AlertEvent]:
    """Open, keep or close each (rule, instance) alert as of ``as_of``; returns new events."""
    threshold_rules_ensure_defaults(organization)
    raised: list[AlertEvent] = []
    end = as_of.replace(second=0, microsecond=0)
    history_until = history_boundary(organization, as_of=as_of).metrics
    rules = ThresholdRule.objects.for_organization(organization).filter(enabled=True)
    for rule in rules:
        instances = Instance.objects.for_organization(organization).filter(
            state=RUNNING, terminated_at__isnull=True
        )
        if rule.project_id is not None:
            instances = instances.filter(project_id=rule.project_id)
        by_id = {instance.pk: instance for instance in instances.order_by("pk")}
        if not by_id:
            continue
        minutes = metrics_read(
            instance_ids=list(by_id),
            metric=rule.metric,
            start=end - dt.timedelta(minutes=LOOKBACK_MINUTES + rule.duration_minutes),
            end=end,
        )
        for row, instance in enumerate(by_id.values()):
            verdict, evidence = judge(minutes[row], rule)
            if verdict == "breach":
                # The minute after the last one judged (``end`` is the window's exclusive end).
                after_last = cast(int, evidence["minutes_before_now_of_last_point"])
                seen_until = end - dt.timedelta(minutes=after_last)
                imported = history_until is not None and seen_until <= history_until
                event = _open(rule, instance, evidence, as_of, imported=imported)
                if event is not None:
                    raised.append(event)
            elif verdict == "clear":
                raised.extend(_close(rule, instance, evidence, as_of))
    # An open alert of an instance that stopped running (or of a rule now disabled or scoped
    # away from it) has nothing left to watch: it is closed with a recovery notice.
    stale = (
        AlertEvent.objects.for_organization(organization)
        .filter(kind=AlertKind.THRESHOLD, resolved_at__isnull=True)
        .exclude(instance__state=RUNNING, rule__enabled=True)
    )
    for event in stale.select_related("rule", "instance"):
        if event.rule is not None and event.instance is not None:
            raised.extend(_close(event.rule, event.instance, {}, as_of))
    return raised


def _describe(rule: ThresholdRule) -> str:
    """The rule in English, kept in the evidence (the e-mail words it in the reader's language)."""
    with translation.override("en"):
        return rule_description(
            metric=rule.metric,
            comparison=rule.comparison,
            threshold=rule.threshold,
            minutes=rule.duration_minutes,
        )


def _open(
    rule: ThresholdRule,
    instance: Instance,
    evidence: dict[str, object],
    as_of: dt.datetime,
    *,
    imported: bool = False,
) -> AlertEvent | None:
    if AlertEvent.objects.filter(
        kind=AlertKind.THRESHOLD, rule=rule, instance=instance, resolved_at__isnull=True
    ).exists():
        return None  # still open: told once while the condition lasts
    try:
        with transaction.atomic():
            return alert_event_raise(
                organization=rule.organization,
                started_at=as_of,
                kind=AlertKind.THRESHOLD,
                severity=Severity.CRITICAL
                if rule.metric == Metric.GPU_TEMP_C
                else Severity.WARNING,
                rule=rule,
                instance=instance,
                project_id=instance.project_id,
                imported=imported,
                evidence={"rule": _describe(rule), **evidence},
            )
    except IntegrityError:
        return None  # opened by a concurrent run


def _close(
    rule: ThresholdRule,
    instance: Instance,
    evidence: dict[str, object],
    as_of: dt.datetime,
) -> list[AlertEvent]:
    """Close the open alert and raise its recovery notice.

    Its wording says why from ``evidence``: the minutes judged clear, or none when the
    instance or rule is no longer watched (``apps.alerts.wording``).
    """
    open_events = AlertEvent.objects.filter(
        kind=AlertKind.THRESHOLD, rule=rule, instance=instance, resolved_at__isnull=True
    )
    raised = []
    for event in open_events:
        with transaction.atomic():
            # The conditional UPDATE claims the close: a concurrent run finds nothing to close.
            if not AlertEvent.objects.filter(pk=event.pk, resolved_at__isnull=True).update(
                resolved_at=as_of
            ):
                continue
            raised.append(
                alert_event_raise(
                    organization=rule.organization,
                    started_at=as_of,
                    kind=AlertKind.RECOVERY,
                    severity=Severity.INFO,
                    rule=rule,
                    instance=instance,
                    project_id=instance.project_id,
                    recovery_of=event,
                    # Nobody was told the imported one opened: nor that it closed.
                    imported=event.imported,
                    evidence={"rule": _describe(rule), **evidence},
                )
            )
    return raised
