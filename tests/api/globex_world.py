"""Globex's data for the cross-organization test: one row of every organization-scoped model.

``globex_world`` builds them; ``globex_snapshot`` reads every row of them back, so a test can
prove that a request of another organization's member left all of Globex unchanged.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import numpy as np
from django.apps import apps
from django.db import models

from apps.accounts import services as accounts_services
from apps.accounts.models import AuditEntry, Invitation, Membership, Organization, User
from apps.alerts.models import AlertEvent, AlertRecipient, AlertSettings, Budget, ThresholdRule
from apps.analysis.engine.thresholds import Phase
from apps.analysis.models import (
    PHASE_DAY_SHAPE,
    AnalysisSettings,
    BilledHoursDay,
    BilledHoursState,
    InstanceProfile,
    PhaseDay,
    PhaseSegment,
    WasteDay,
    WasteDayState,
    phase_day_encode,
)
from apps.automation.models import (
    ActionKind,
    ActionStatus,
    AutomationAction,
    AutomationPlan,
    AutomationSettings,
    PlanKind,
)
from apps.billing.models import BalanceSnapshot, BillLine, InstanceBillDay, InstanceComponentDay
from apps.cloud.models import Instance, Project, ProjectTagKey, SyncState
from apps.cloud.services import cloud_account_create
from apps.costs.models import CostDay, CostProjectDay, CostRollupState
from apps.costs.services import cost_days_rebuild
from apps.digests.models import DigestDelivery, DigestSubscription, Holiday
from apps.metrics.models import InstanceDayRollup, InstanceHourRollup, ProjectDayRollup
from apps.recommendations.models import Recommendation, RecommendationSettings

DAY = dt.date(2026, 11, 2)
MIDNIGHT = dt.datetime(2026, 11, 2, tzinfo=dt.UTC)
# Distinctive overrides, so a response carrying them can only have read Globex's settings.
GLOBEX_THRESHOLDS = {"idle_gpu_util_max_pct": 3.5, "cpu_busy_min_pct": 41.0}


@dataclass(frozen=True)
class GlobexWorld:
    organization: Organization
    objects: dict[str, models.Model]

    def __getitem__(self, name: str) -> Any:
        return self.objects[name]


def organization_scoped_models() -> list[type[models.Model]]:
    """Every model with a foreign key (or one-to-one) to Organization, i.e. tenant data."""
    found = []
    for model in apps.get_models():
        for field in model._meta.concrete_fields:
            if field.is_relation and field.related_model is Organization:
                found.append(model)
                break
    return found


def globex_world(globex: Organization, bob: User) -> GlobexWorld:
    account = cloud_account_create(
        organization=globex,
        name="Globex Tencent",
        secret_id="AKIDglobex0000000000000000000000000",
        secret_key="globex-secret-key-0000000000000000",
        regions=["ap-shanghai"],
    )
    project = Project.objects.create(organization=globex, name="globex research", slug="research")
    instance = Instance.objects.create(
        organization=globex,
        account=account,
        provider_id="ins-globex01",
        name="globex-train",
        region="ap-shanghai",
        instance_type="GN7.2XLARGE32",
        gpu_count=1,
        project=project,
        launched_at=MIDNIGHT - dt.timedelta(days=30),
    )
    api_key, _ = accounts_services.api_key_create(
        organization=globex, name="bob key", scope="read", created_by=bob
    )
    minutes = np.zeros(PHASE_DAY_SHAPE, dtype=np.int64)
    minutes[:, Phase.TRAINING] = 60
    objects: dict[str, models.Model] = {
        "organization": globex,
        "member": Membership.objects.get(organization=globex, user=bob),
        "invitation": Invitation.objects.create(
            organization=globex,
            email="x@globex.test",
            token_hash="h" * 64,
            expires_at=MIDNIGHT + dt.timedelta(days=3650),
        ),
        "api_key": api_key,
        # Connecting the account and creating the key wrote entries of Globex's audit log.
        "audit_entry": AuditEntry.objects.filter(organization=globex).latest("id"),
        "cloud_account": account,
        "project": project,
        "project_tag_key": ProjectTagKey.objects.create(organization=globex, key="team"),
        "instance": instance,
        "bill_line": BillLine.objects.create(
            organization=globex,
            account=account,
            bill_id="globex-bill",
            component_code="v1",
            item_code="i1",
            month="2026-11",
            instance=instance,
            project=project,
            fee_begin_at=MIDNIGHT,
            fee_end_at=MIDNIGHT + dt.timedelta(hours=1),
            list_cost=Decimal("12.5"),
            cost=Decimal("10"),
        ),
        # Billing's day rollup of that line (the bills sync writes it).
        "instance_bill_day": InstanceBillDay.objects.create(
            organization=globex,
            account=account,
            month="2026-11",
            instance=instance,
            day=DAY,
            cost=Decimal("10"),
            billed_seconds=3600,
            lines=1,
        ),
        # The same line per component (what the evidence names with its hourly price).
        "instance_component_day": InstanceComponentDay.objects.create(
            organization=globex,
            account=account,
            month="2026-11",
            instance=instance,
            day=DAY,
            component_class="runtime",
            component_code="v_cvm_gpu",
            component_name="GPU",
            cost=Decimal("10"),
            billed_seconds=3600,
            lines=1,
        ),
        "balance_snapshot": BalanceSnapshot.objects.create(
            organization=globex,
            account=account,
            taken_at=MIDNIGHT,
            available=Decimal("1000"),
            cash=Decimal("1000"),
            frozen=Decimal("0"),
            owed=Decimal("0"),
        ),
        "instance_hour_rollup": InstanceHourRollup.objects.create(
            organization=globex, instance=instance, hour_start=MIDNIGHT, gpu_count=1
        ),
        "instance_day_rollup": InstanceDayRollup.objects.create(
            organization=globex, instance=instance, day=DAY, project=project, gpu_count=1
        ),
        "project_day_rollup": ProjectDayRollup.objects.create(
            organization=globex, project=project, day=DAY
        ),
        "phase_segment": PhaseSegment.objects.create(
            organization=globex,
            instance=instance,
            phase=Phase.TRAINING,
            start_at=MIDNIGHT,
            end_at=MIDNIGHT + dt.timedelta(hours=24),
            mean_gpu_util_pct=90.0,
        ),
        "phase_day": PhaseDay.objects.create(
            organization=globex, instance=instance, day=DAY, minutes=phase_day_encode(minutes)
        ),
        "instance_profile": InstanceProfile.objects.create(
            organization=globex,
            instance=instance,
            tz=globex.timezone,
            start_at=MIDNIGHT - dt.timedelta(days=14),
            end_at=MIDNIGHT,
            computed_at=MIDNIGHT,
            median_pct=[[90.0] * 24] * 7,
            p95_pct=[[95.0] * 24] * 7,
            coverage=[[1.0] * 24] * 7,
        ),
        "analysis_settings": AnalysisSettings.objects.create(
            organization=globex, thresholds=GLOBEX_THRESHOLDS
        ),
        "recommendation": Recommendation.objects.create(
            organization=globex,
            kind="stop_idle",
            fingerprint="globex-stop-idle",
            instance=instance,
            project=project,
            title="Stop idle globex-train",
            explanation="Idle.",
            monthly_saving=Decimal("3600.00"),
            currency="USD",
            saving_formula="5 USD/h x 720 h",
            price_source="bills",
            confidence="high",
            evidence_days=14.0,
            coverage_pct=100.0,
            risk_level=1,
            risk_reason="Low.",
            first_seen_at=MIDNIGHT,
            last_seen_at=MIDNIGHT,
        ),
        "recommendation_settings": RecommendationSettings.objects.create(
            organization=globex, thresholds={"idle_min_share": 0.77}
        ),
        **_alerts_objects(globex, project, instance),
    }
    subscription = DigestSubscription.objects.create(
        organization=globex, user=bob, next_send_at=MIDNIGHT + dt.timedelta(days=7)
    )
    subscription.projects.set([project])
    objects["digest_subscription"] = subscription
    objects["digest_delivery"] = DigestDelivery.objects.create(
        organization=globex,
        subscription=subscription,
        period_start=MIDNIGHT - dt.timedelta(days=7),
        period_end=MIDNIGHT,
        scheduled_for=MIDNIGHT + dt.timedelta(hours=9),
        recipient=bob.email,
        status="sent",
        message_id="<digest.globex@localhost>",
    )
    objects["holiday"] = Holiday.objects.create(organization=globex, date=DAY, name="Globex day")
    # The costs app's daily rollup of Globex's bill line (a bills sync would build it).
    cost_days_rebuild(organization=globex)
    objects["cost_day"] = CostDay.objects.get(organization=globex, basis="billed")
    objects["cost_project_day"] = CostProjectDay.objects.get(organization=globex, basis="billed")
    objects["cost_rollup_state"] = CostRollupState.objects.get(organization=globex)
    # The analysis's billed-hours rollup (its rebuild reads hourly compute lines only; the
    # line above is not one, so the row is written as a compute line's would be).
    objects["billed_hours_day"] = BilledHoursDay.objects.create(
        organization=globex,
        instance_id=objects["instance"].pk,
        day=DAY,
        cost=Decimal("10"),
        currency="CNY",
        hours=1,
        other_lines=0,
    )
    objects["billed_hours_state"] = BilledHoursState.objects.create(organization=globex)
    # The summary's per-day sums (written as ``waste_days`` writes them, PostgreSQL or not).
    objects["waste_day"] = WasteDay.objects.create(
        organization=globex,
        instance_id=objects["instance"].pk,
        day=DAY,
        billed_cost=Decimal("10"),
        billed_lines=1,
        billed_currency="CNY",
        billed_unknown_minutes=60,
        spread_cost=Decimal(0),
    )
    objects["waste_day_state"] = WasteDayState.objects.create(
        organization=globex, first_day=DAY, last_day=DAY
    )
    objects |= _automation_objects(globex, bob, instance, project)
    return GlobexWorld(organization=globex, objects=objects)


def _automation_objects(
    globex: Organization, bob: User, instance: Instance, project: Project
) -> dict[str, models.Model]:
    """An accepted night schedule automated on Globex's instance, one stop it made, and the
    organization's switch turned on (paused: no other organization's default shows that)."""
    recommendation = Recommendation.objects.create(
        organization=globex,
        kind="schedule",
        fingerprint="globex-schedule",
        instance=instance,
        project=project,
        title="Stop globex-train at night",
        explanation="Idle at night.",
        monthly_saving=Decimal("1200.00"),
        currency="USD",
        saving_formula="5 USD/h x 240 h",
        price_source="bills",
        confidence="high",
        evidence_days=14.0,
        coverage_pct=100.0,
        risk_level=2,
        risk_reason="Low.",
        action={
            "window": {
                "tz": "Asia/Shanghai",
                "runs": [
                    {
                        "start_weekday": day,
                        "start_hour": 22,
                        "end_weekday": day + 1,
                        "end_hour": 8,
                        "hours": 10,
                    }
                    for day in range(5)
                ],
                "weekly_hours": 50,
            }
        },
        status="accepted",
        accepted_at=MIDNIGHT,
        first_seen_at=MIDNIGHT,
        last_seen_at=MIDNIGHT,
    )
    plan = AutomationPlan.objects.create(
        organization=globex,
        recommendation=recommendation,
        kind=PlanKind.SCHEDULE,
        skip_dates=["2026-11-05"],
        created_by=bob,
        started_at=MIDNIGHT,
    )
    stop_at = MIDNIGHT + dt.timedelta(hours=14)
    return {
        "automation_settings": AutomationSettings.objects.create(organization=globex, paused=True),
        "automated_recommendation": recommendation,
        "automation_plan": plan,
        "automation_action": AutomationAction.objects.create(
            organization=globex,
            plan=plan,
            instance=instance,
            kind=ActionKind.STOP,
            due_at=stop_at,
            next_attempt_at=stop_at,
            status=ActionStatus.CONFIRMED,
            attempts=1,
            request_id="globex-request",
            sent_at=stop_at,
            finished_at=stop_at + dt.timedelta(minutes=1),
        ),
    }


def _alerts_objects(
    globex: Organization, project: Project, instance: Instance
) -> dict[str, models.Model]:
    rule = ThresholdRule.objects.create(
        organization=globex,
        name="globex hot",
        metric="gpu_temp_c",
        comparison="above",
        threshold=80,
        duration_minutes=5,
        project=project,
    )
    return {
        "budget": Budget.objects.create(
            organization=globex, name="globex budget", amount=Decimal("1000"), project=project
        ),
        "threshold_rule": rule,
        "alert_event": AlertEvent.objects.create(
            organization=globex,
            kind="threshold",
            title="globex alert",
            message="hot",
            rule=rule,
            instance=instance,
            project=project,
            started_at=MIDNIGHT,
        ),
        "alert_recipient": AlertRecipient.objects.create(
            organization=globex, role="finance", project=project
        ),
        "alert_settings": AlertSettings.objects.create(
            organization=globex,
            webhook_url="https://hooks.globex.test/alerts",
            default_rules_created_at=MIDNIGHT,
        ),
    }


def _rows(queryset: models.QuerySet) -> list[dict[str, Any]]:
    rows = [
        {
            key: bytes(value) if isinstance(value, memoryview) else value
            for key, value in row.items()
        }
        for row in queryset.values()
    ]
    return sorted(rows, key=repr)


def globex_snapshot(world: GlobexWorld) -> dict[str, list[dict[str, Any]]]:
    """Every row Globex owns (and its sync states), to compare before and after a request."""
    globex = world.organization
    snapshot = {
        model._meta.label: _rows(model._default_manager.filter(organization=globex))
        for model in organization_scoped_models()
    }
    snapshot["accounts.Organization"] = _rows(Organization.objects.filter(pk=globex.pk))
    snapshot["cloud.SyncState"] = _rows(SyncState.objects.filter(account__organization=globex))
    return snapshot
