"""The executor: claims the due actions, checks the guards, makes the one cloud call, and
confirms by reading the state back on a later run.

Claiming is one conditional UPDATE per row (pending and due, or a claim whose lease ran out ->
claimed, with a new lease): only the worker whose UPDATE changed the row acts, so two workers
or a duplicate beat tick make ONE cloud call. After the call the row is ``sent`` with the
RequestId; a later run reads the state (DescribeInstances) and marks it ``confirmed`` when the
cloud says STOPPED (a stop) or RUNNING (a start), or ``failed`` (``not_confirmed``) when it
has not within ``CONFIRM_TIMEOUT``.

Failures: a start the cloud cannot serve (capacity sold out, or any transient failure) retries
with back-off (``RETRY_DELAYS``: finite) and raises a critical alert at once (a machine that
does not come back in the morning is an outage); a stop that fails is retried the same way
but warns. An instance already in the wanted state is done (``already_in_state``).
Every outcome is written to the recommendation's history and the audit log.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from apps.accounts.audit import actions as audit_actions
from apps.accounts.audit.services import audit_record
from apps.alerts.models import AlertEvent, AlertKind, Severity
from apps.alerts.services import alert_event_raise
from apps.automation import cloud, guards
from apps.automation import reasons as r
from apps.automation.models import (
    ActionKind,
    ActionStatus,
    AutomationAction,
    PlanStatus,
)
from apps.recommendations.evidence import organization_rule_settings
from apps.recommendations.messages import events
from apps.recommendations.models import RecommendationEvent

LEASE = dt.timedelta(minutes=5)
#: A stop later than this after its moment is skipped (the window is under way; a start is
#: never too late: the machine must come back).
STOP_LATE_LIMIT = dt.timedelta(hours=1)
CONFIRM_TIMEOUT = dt.timedelta(minutes=15)
#: The waits before each retry: 2, 4, 8, 16, 32 minutes; then the action has failed.
RETRY_DELAYS = tuple(dt.timedelta(minutes=2**n) for n in range(1, 6))
BATCH = 200


def actions_claim_due(*, now: dt.datetime, limit: int = BATCH) -> list[int]:
    """Claim the due actions (see the module); the ids this caller won."""
    due = Q(status=ActionStatus.PENDING, next_attempt_at__lte=now) | Q(
        status=ActionStatus.CLAIMED, claimed_until__lt=now
    )
    candidates = list(
        AutomationAction.objects.filter(due)
        .order_by("next_attempt_at", "id")
        .values_list("pk", "status", "claimed_until")[:limit]
    )
    won = []
    for pk, status, claimed_until in candidates:
        # Conditional on the row being exactly as read: a concurrent claimer's UPDATE changes
        # status or claimed_until first, and this one then matches nothing.
        changed = AutomationAction.objects.filter(
            pk=pk, status=status, claimed_until=claimed_until
        ).update(
            status=ActionStatus.CLAIMED,
            claimed_until=now + LEASE,
            attempts=F("attempts") + 1,
            updated_at=now,
        )
        if changed == 1:
            won.append(pk)
    return won


def _history(action: AutomationAction, template: str, now: dt.datetime) -> None:
    recommendation = action.plan.recommendation
    RecommendationEvent.objects.create(
        recommendation=recommendation,
        at=now,
        from_status=recommendation.status,
        to_status=recommendation.status,
        reason=events.automation_reason(template, instance=action.instance.provider_id),
    )


def _audit(action: AutomationAction, outcome: str) -> None:
    audit_record(
        organization=action.plan.organization,
        action=audit_actions.AUTOMATION_ACTION,
        target=action,
        target_label=f"{action.kind} {action.instance.provider_id}",
        details={
            "plan": action.plan_id,
            "recommendation": action.plan.recommendation_id,
            "instance": action.instance.provider_id,
            "kind": action.kind,
            "due_at": action.due_at,
            "outcome": outcome,
            "reason": action.reason,
            "reason_params": action.reason_params,
            "request_id": action.request_id,
            "attempts": action.attempts,
        },
    )


def _alert(action: AutomationAction, event: str, severity: str, now: dt.datetime) -> None:
    key = f"automation:{event}:{action.pk}"
    if AlertEvent.objects.filter(dedup_key=key).exists():
        return
    with transaction.atomic():
        _raise(action, event, severity, now, key)


def _raise(action: AutomationAction, event: str, severity: str, now: dt.datetime, key: str) -> None:
    instance = action.instance
    alert_event_raise(
        organization=action.plan.organization,
        started_at=now,
        kind=AlertKind.AUTOMATION,
        severity=severity,
        project=instance.project,
        instance=instance,
        # Once per action and event (a retried start alerts once, not per retry).
        dedup_key=key,
        evidence={
            "event": event,
            "instance": instance.provider_id,
            "action": action.kind,
            "due_at": action.due_at.isoformat(),
            "reason": action.reason,
            **action.reason_params,
        },
    )


_SKIP_HISTORY = {
    r.BUSY_GPU_UTIL: events.AUTOMATION_BUSY,
    r.BUSY_GPU_MEM: events.AUTOMATION_BUSY,
    r.OPTED_OUT: events.AUTOMATION_OPTED_OUT,
    r.NO_RECENT_METRICS: events.AUTOMATION_NO_METRICS,
}


def _finish(
    action: AutomationAction,
    status: str,
    now: dt.datetime,
    *,
    reason: str = "",
    params: dict[str, Any] | None = None,
) -> None:
    action.status = status
    action.reason = reason
    action.reason_params = params or {}
    action.finished_at = now
    action.claimed_until = None
    action.save(
        update_fields=[
            "status",
            "reason",
            "reason_params",
            "finished_at",
            "claimed_until",
            "request_id",
            "sent_at",
            "updated_at",
        ]
    )


def action_execute(*, action_id: int, now: dt.datetime) -> str:
    """Carry out one claimed action; its new status."""
    action = AutomationAction.objects.select_related(
        "plan__recommendation", "plan__organization", "instance__account", "instance__project"
    ).get(pk=action_id)
    if action.status != ActionStatus.CLAIMED:
        return action.status
    plan, instance = action.plan, action.instance
    with transaction.atomic():
        if plan.status != PlanStatus.ACTIVE:
            _finish(action, ActionStatus.CANCELLED, now, reason=r.PLAN_NOT_ACTIVE)
            return action.status
        if action.kind == ActionKind.STOP and now - action.due_at > STOP_LATE_LIMIT:
            _skip(action, now, guards.Verdict(r.TOO_LATE))
            return action.status
        if action.kind == ActionKind.STOP:
            thresholds, _ = organization_rule_settings(plan.organization)
            verdict = guards.stop_guard(
                plan=plan, instance=instance, thresholds=thresholds, now=now
            )
        else:
            verdict = guards.common_guard(plan=plan, instance=instance)
        if not verdict.ok:
            _skip(action, now, verdict)
            return action.status
    assert instance.account is not None
    call = cloud.stop if action.kind == ActionKind.STOP else cloud.start
    wanted = cloud.STOPPED if action.kind == ActionKind.STOP else cloud.RUNNING
    try:
        if (
            cloud.states(instance.account, instance.region, [instance.provider_id]).get(
                instance.provider_id
            )
            == wanted
        ):
            raise cloud.WrongState("already in the wanted state")
        action.request_id = call(instance.account, instance.region, [instance.provider_id])
    except cloud.WrongState as exc:
        with transaction.atomic():
            action.request_id = exc.request_id or action.request_id
            _finish(action, ActionStatus.CONFIRMED, now, reason=r.ALREADY_IN_STATE)
            _history(action, events.AUTOMATION_ALREADY, now)
            _audit(action, "already_in_state")
        return action.status
    except cloud.AutomationCloudError as exc:
        with transaction.atomic():
            _failed_call(action, exc, now)
        return action.status
    with transaction.atomic():
        action.sent_at = now
        _finish(action, ActionStatus.SENT, now)
        action.finished_at = None
        action.save(update_fields=["finished_at"])
        _history(
            action,
            events.AUTOMATION_STOPPED
            if action.kind == ActionKind.STOP
            else events.AUTOMATION_STARTED,
            now,
        )
        _audit(action, "sent")
    return action.status


def _skip(action: AutomationAction, now: dt.datetime, verdict: guards.Verdict) -> None:
    status = ActionStatus.CANCELLED if verdict.reason == r.PLAN_NOT_ACTIVE else ActionStatus.SKIPPED
    _finish(action, status, now, reason=verdict.reason, params=verdict.params)
    _history(action, _SKIP_HISTORY.get(verdict.reason, events.AUTOMATION_SKIPPED), now)
    _audit(action, "skipped")
    if verdict.reason in (r.BUSY_GPU_UTIL, r.BUSY_GPU_MEM):
        # The owner hears why their instance kept running (and costing) tonight.
        _alert(action, "skipped_busy", Severity.WARNING, now)


def _failed_call(
    action: AutomationAction, exc: cloud.AutomationCloudError, now: dt.datetime
) -> None:
    action.request_id = exc.request_id or action.request_id
    retryable = not isinstance(exc, cloud.Unauthorized | cloud.Gone | cloud.NoWriteCredential)
    start = action.kind == ActionKind.START
    if retryable and action.attempts <= len(RETRY_DELAYS):
        action.status = ActionStatus.PENDING
        action.reason = exc.code
        action.reason_params = {"attempts": action.attempts}
        action.next_attempt_at = now + RETRY_DELAYS[action.attempts - 1]
        action.claimed_until = None
        action.save(
            update_fields=[
                "status",
                "reason",
                "reason_params",
                "next_attempt_at",
                "claimed_until",
                "request_id",
                "updated_at",
            ]
        )
        _history(action, events.AUTOMATION_START_RETRY if start else events.AUTOMATION_SKIPPED, now)
        _audit(action, "retrying")
        _alert(action, "start_failed" if start else "stop_failed", _severity(start), now)
        return
    reason = r.RETRIES_EXHAUSTED if retryable else exc.code
    _finish(action, ActionStatus.FAILED, now, reason=reason, params={"error": exc.code})
    _history(action, events.AUTOMATION_FAILED, now)
    _audit(action, "failed")
    _alert(action, "start_failed" if start else "stop_failed", _severity(start), now)
    if retryable:
        _alert(action, "gave_up", _severity(start), now)


def _severity(start: bool) -> str:
    return Severity.CRITICAL if start else Severity.WARNING


def actions_confirm(*, now: dt.datetime) -> int:
    """Read back the state of the sent actions; how many were confirmed."""
    sent = list(
        AutomationAction.objects.filter(status=ActionStatus.SENT)
        .select_related(
            "instance__account", "instance__project", "plan__recommendation", "plan__organization"
        )
        .order_by("sent_at", "id")[:BATCH]
    )
    confirmed = 0
    by_call: dict[tuple[int, str], list[AutomationAction]] = {}
    for action in sent:
        if action.instance.account is None:
            continue
        by_call.setdefault((action.instance.account.pk, action.instance.region), []).append(action)
    for rows in by_call.values():
        account = rows[0].instance.account
        assert account is not None
        try:
            states = cloud.states(
                account, rows[0].instance.region, [a.instance.provider_id for a in rows]
            )
        except cloud.AutomationCloudError:
            continue  # read again on the next run
        for action in rows:
            wanted = cloud.STOPPED if action.kind == ActionKind.STOP else cloud.RUNNING
            state = states.get(action.instance.provider_id)
            with transaction.atomic():
                if state == wanted:
                    changed = AutomationAction.objects.filter(
                        pk=action.pk, status=ActionStatus.SENT
                    ).update(status=ActionStatus.CONFIRMED, finished_at=now, updated_at=now)
                    confirmed += changed
                elif action.sent_at is not None and now - action.sent_at > CONFIRM_TIMEOUT:
                    changed = AutomationAction.objects.filter(
                        pk=action.pk, status=ActionStatus.SENT
                    ).update(
                        status=ActionStatus.FAILED,
                        reason=r.NOT_CONFIRMED,
                        reason_params={"state": state or ""},
                        finished_at=now,
                        updated_at=now,
                    )
                    if changed:
                        action.status, action.reason = ActionStatus.FAILED, r.NOT_CONFIRMED
                        action.reason_params = {"state": state or ""}
                        _history(action, events.AUTOMATION_FAILED, now)
                        _audit(action, "not_confirmed")
                        _alert(
                            action, "not_confirmed", _severity(action.kind == ActionKind.START), now
                        )
    return confirmed


def executor_run(*, now: dt.datetime | None = None) -> dict[str, int]:
    """One run of the executor (the beat task): confirm what was sent, then act on what is due."""
    now = now or timezone.now()
    confirmed = actions_confirm(now=now)
    outcomes: dict[str, int] = {"confirmed": confirmed}
    for action_id in actions_claim_due(now=now):
        status = action_execute(action_id=action_id, now=now)
        outcomes[status] = outcomes.get(status, 0) + 1
    return outcomes
