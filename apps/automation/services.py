"""Writes of automation: the switch, plans (create, pause/resume, holidays, end) and the
materialising of their actions ahead of time. The executor is ``executor.py``.

Every write is audit-logged, and every change of a plan is an event in its recommendation's
history (``apps.recommendations.messages.events``: stored in English, shown per language).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from apps.accounts.audit import actions as audit_actions
from apps.accounts.audit.services import audit_record
from apps.accounts.models import Organization, User
from apps.alerts.models import AlertKind, Severity
from apps.alerts.services import alert_event_raise
from apps.automation import planner
from apps.automation import reasons as r
from apps.automation.models import (
    ActionKind,
    ActionStatus,
    AutomationAction,
    AutomationPlan,
    AutomationSettings,
    PlanKind,
    PlanStatus,
)
from apps.automation.selectors import (
    AutomationRefused,
    automation_kind,
    plan_instances,
    unavailable_reason,
)
from apps.cloud.models import Instance
from apps.recommendations.messages import events
from apps.recommendations.models import Recommendation, RecommendationEvent

#: How far ahead actions are materialised (the beat task keeps it topped up).
AHEAD = dt.timedelta(days=7)


def automation_settings_update(*, organization: Organization, paused: bool) -> AutomationSettings:
    """Turn the organization's switch; pausing cancels nothing (resuming carries on), the
    executor skips every action while it is on."""
    with transaction.atomic():
        row, _ = AutomationSettings.objects.select_for_update().get_or_create(
            organization=organization
        )
        before = row.paused
        if before != paused:
            row.paused = paused
            row.save()
            audit_record(
                organization=organization,
                action=audit_actions.AUTOMATION_SETTINGS_UPDATED,
                target=row,
                target_label="",
                details={"changes": {"paused": {"old": before, "new": paused}}},
            )
    return row


def _event(plan: AutomationPlan, reason: str, actor: User | None, at: dt.datetime) -> None:
    status = plan.recommendation.status
    RecommendationEvent.objects.create(
        recommendation=plan.recommendation,
        actor=actor,
        at=at,
        from_status=status,
        to_status=status,
        reason=reason,
    )


def _audit(plan: AutomationPlan, action: str, details: dict[str, Any]) -> None:
    audit_record(
        organization=plan.organization,
        action=action,
        target=plan,
        target_label=plan.recommendation.title[:200],
        details=details,
    )


def _dates(values: Sequence[dt.date | str]) -> list[str]:
    return sorted({(v if isinstance(v, str) else v.isoformat()) for v in values})


def automation_plan_create(
    *,
    recommendation: Recommendation,
    actor: User | None,
    now: dt.datetime,
    skip_dates: Sequence[dt.date | str] = (),
    grace_hours: int | None = None,
    memory_held_confirmed: bool = False,
) -> AutomationPlan:
    """Automate an accepted recommendation. Refused (``AutomationRefused`` with a code) when it
    is not accepted, not of an automatable kind, its instances' accounts cannot be automated,
    the organization's switch is paused, it is automated already, or it is idle-held (GPU
    memory held) without ``memory_held_confirmed``.

    Stop idle tells the owners (an alert to the instance's project's recipients) at once and
    stops ``grace_hours`` later (``told_at + grace``)."""
    with transaction.atomic():
        row = Recommendation.objects.select_for_update().get(pk=recommendation.pk)
        refusal = unavailable_reason(row)
        if refusal:
            raise AutomationRefused(refusal)
        kind = automation_kind(row)
        assert kind is not None
        if row.kind == "idle_held" and not memory_held_confirmed:
            raise AutomationRefused(r.MEMORY_HELD_NOT_CONFIRMED)
        plan = AutomationPlan(
            organization=row.organization,
            recommendation=row,
            kind=kind,
            skip_dates=_dates(skip_dates),
            memory_held_confirmed=memory_held_confirmed,
            created_by=actor,
            started_at=now,
        )
        if grace_hours is not None:
            plan.grace_hours = grace_hours
        if kind == PlanKind.STOP_IDLE:
            plan.told_at = now
        try:
            with transaction.atomic():
                plan.save()
        except IntegrityError:
            raise AutomationRefused(r.PLAN_EXISTS) from None
        _event(plan, events.AUTOMATION_ON, actor, now)
        _audit(
            plan,
            audit_actions.AUTOMATION_PLAN_CREATED,
            {
                "kind": kind,
                "skip_dates": plan.skip_dates,
                "grace_hours": plan.grace_hours,
                "memory_held_confirmed": memory_held_confirmed,
            },
        )
        if kind == PlanKind.STOP_IDLE:
            _tell_stop_idle(plan, now)
        actions_materialise(plan=plan, now=now)
    return plan


def _tell_stop_idle(plan: AutomationPlan, now: dt.datetime) -> None:
    assert plan.told_at is not None
    at = planner.idle_stop_at(plan.told_at, plan.grace_hours)
    for instance in plan_instances(plan):
        alert_event_raise(
            organization=plan.organization,
            started_at=now,
            kind=AlertKind.AUTOMATION,
            severity=Severity.INFO,
            project=instance.project,
            instance=instance,
            dedup_key=f"automation:told:{plan.pk}:{instance.pk}",
            evidence={
                "event": "stop_planned",
                "instance": instance.provider_id,
                "at": at.isoformat(),
                "grace_hours": plan.grace_hours,
            },
        )
        _event(
            plan,
            events.automation_reason(
                events.AUTOMATION_TOLD, instance=instance.provider_id, at=at.isoformat()
            ),
            None,
            now,
        )


def automation_plan_update(
    *,
    plan: AutomationPlan,
    actor: User | None,
    now: dt.datetime,
    status: str | None = None,
    skip_dates: Sequence[dt.date | str] | None = None,
) -> AutomationPlan:
    """Pause or resume (``status``) and/or replace the holidays. Pausing cancels the pending
    actions; resuming (and new holidays) materialises them again from now."""
    with transaction.atomic():
        plan = (
            AutomationPlan.objects.select_for_update()
            .select_related("recommendation")
            .get(pk=plan.pk)
        )
        if plan.status == PlanStatus.ENDED:
            raise AutomationRefused(r.PLAN_ENDED)
        changes: dict[str, Any] = {}
        if status is not None and status != plan.status:
            if status == PlanStatus.ACTIVE and organization_refusal(plan):
                raise AutomationRefused(organization_refusal(plan))
            changes["status"] = {"old": plan.status, "new": status}
            plan.status = status
        if skip_dates is not None and _dates(skip_dates) != plan.skip_dates:
            changes["skip_dates"] = {"old": plan.skip_dates, "new": _dates(skip_dates)}
            plan.skip_dates = _dates(skip_dates)
        if not changes:
            return plan
        plan.save()
        if "status" in changes:
            paused = plan.status == PlanStatus.PAUSED
            _event(
                plan, events.AUTOMATION_PAUSED if paused else events.AUTOMATION_RESUMED, actor, now
            )
        if "skip_dates" in changes:
            _event(plan, events.AUTOMATION_CHANGED, actor, now)
        _audit(plan, audit_actions.AUTOMATION_PLAN_UPDATED, {"changes": changes})
        if plan.status == PlanStatus.ACTIVE:
            actions_materialise(plan=plan, now=now)
        else:
            _cancel_pending(plan, now)
    return plan


def organization_refusal(plan: AutomationPlan) -> str:
    from apps.automation.guards import organization_paused

    return r.AUTOMATION_PAUSED if organization_paused(plan.organization_id) else ""


def automation_plan_end(*, plan: AutomationPlan, actor: User | None, now: dt.datetime) -> None:
    """End the plan: its pending actions are cancelled; it stays as history."""
    with transaction.atomic():
        plan = (
            AutomationPlan.objects.select_for_update()
            .select_related("recommendation")
            .get(pk=plan.pk)
        )
        if plan.status == PlanStatus.ENDED:
            return
        before = plan.status
        plan.status = PlanStatus.ENDED
        plan.ended_at = now
        plan.save()
        _cancel_pending(plan, now)
        _event(plan, events.AUTOMATION_ENDED, actor, now)
        _audit(
            plan,
            audit_actions.AUTOMATION_PLAN_ENDED,
            {"changes": {"status": {"old": before, "new": PlanStatus.ENDED}}},
        )


def _cancel_pending(plan: AutomationPlan, now: dt.datetime) -> int:
    return AutomationAction.objects.filter(plan=plan, status=ActionStatus.PENDING).update(
        status=ActionStatus.CANCELLED, reason=r.PLAN_NOT_ACTIVE, finished_at=now, updated_at=now
    )


def planned_actions(
    plan: AutomationPlan, *, after: dt.datetime, until: dt.datetime
) -> list[planner.PlannedAction]:
    """The planner's actions of the plan in ``(after, until]`` (none unless active)."""
    if plan.status != PlanStatus.ACTIVE:
        return []
    if plan.kind == PlanKind.STOP_IDLE:
        if plan.told_at is None:
            return []
        at = planner.idle_stop_at(plan.told_at, plan.grace_hours)
        return [planner.PlannedAction(at=at, kind=planner.STOP, run_date=at.date())]
    window = plan.recommendation.action.get("window") or {}
    return planner.window_actions(
        planner.runs_from_window(window),
        window.get("tz") or plan.organization.timezone,
        after=after,
        until=until,
        skip_dates={dt.date.fromisoformat(d) for d in plan.skip_dates},
    )


def actions_materialise(*, plan: AutomationPlan, now: dt.datetime) -> int:
    """Create the plan's actions of the next ``AHEAD`` (one per instance and moment; existing
    rows are left alone, so running it twice creates nothing), cancel the pending ones no
    longer planned (a new holiday) and make pending again the cancelled ones planned again
    (resumed). Returns how many were created or made pending again.

    Stop idle's one stop is created even when its moment is already past (a grace of 0): the
    executor takes it at once."""
    instances: list[Instance] = plan_instances(plan)
    planned = planned_actions(plan, after=now, until=now + AHEAD)
    wanted = {(i.pk, p.kind, p.at) for i in instances for p in planned}
    with transaction.atomic():
        existing = set(
            AutomationAction.objects.filter(plan=plan).values_list("instance_id", "kind", "due_at")
        )
        stale = AutomationAction.objects.filter(
            plan=plan, status=ActionStatus.PENDING, due_at__gt=now
        )
        for row in stale.values("pk", "instance_id", "kind", "due_at"):
            if (row["instance_id"], row["kind"], row["due_at"]) not in wanted:
                AutomationAction.objects.filter(pk=row["pk"], status=ActionStatus.PENDING).update(
                    status=ActionStatus.CANCELLED,
                    reason=r.PLAN_NOT_ACTIVE,
                    finished_at=now,
                    updated_at=now,
                )
        # Cancelled by a pause or a holiday and planned again (resumed, holiday removed).
        revived = 0
        for row in AutomationAction.objects.filter(
            plan=plan, status=ActionStatus.CANCELLED, due_at__gt=now
        ).values("pk", "instance_id", "kind", "due_at"):
            if (row["instance_id"], row["kind"], row["due_at"]) in wanted:
                revived += AutomationAction.objects.filter(
                    pk=row["pk"], status=ActionStatus.CANCELLED
                ).update(
                    status=ActionStatus.PENDING,
                    reason="",
                    finished_at=None,
                    next_attempt_at=row["due_at"],
                    attempts=0,
                    updated_at=now,
                )
        new = [
            AutomationAction(
                organization_id=plan.organization_id,
                plan=plan,
                instance_id=instance_id,
                kind=kind,
                due_at=at,
                next_attempt_at=at,
            )
            for instance_id, kind, at in sorted(wanted - existing, key=lambda k: (k[2], k[0]))
        ]
        AutomationAction.objects.bulk_create(new, ignore_conflicts=True)
    return len(new) + revived


def actions_materialise_all(*, now: dt.datetime | None = None) -> int:
    """Top up every active plan's actions (the beat task)."""
    now = now or timezone.now()
    created = 0
    for plan in AutomationPlan.objects.filter(status=PlanStatus.ACTIVE).select_related(
        "recommendation", "organization"
    ):
        created += actions_materialise(plan=plan, now=now)
    return created


__all__ = [
    "ActionKind",
    "AutomationRefused",
    "actions_materialise",
    "actions_materialise_all",
    "automation_plan_create",
    "automation_plan_end",
    "automation_plan_update",
    "automation_settings_update",
]
