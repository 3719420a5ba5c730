"""The figures behind /metrics: each live instance's cost rate, GPU utilization, phase and waste.

Read once per scrape, a few grouped queries for the whole organization (no query per instance):

- cost rate per hour: ``costs.spend.cost_rates_per_hour``: the instance's latest billed hour
  (the sum of that hour's lines, every component) within the last day; a subscription covering
  now counts as its cost over its hours. An instance with neither is at 0.
- GPU utilization: the average of its latest hour rollup with observed minutes (last 6 hours).
- phase: the phase of its latest analysed segment ending in the last 3 hours, else unknown.
- idle and data-bound cost today: ``analysis.pricing.instances_waste`` over the organization's
  day so far (local midnight to now), the same money the analysis pages show.
- budget use: each budget's percent spent and forecast percent of the current month (the
  organization's timezone), ``apps.alerts.selectors.budget_statuses``: the figures the budget
  alerts, the API and the digest show (two queries per currency, however many budgets).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import zoneinfo
from decimal import Decimal

from apps.accounts.models import Organization
from apps.alerts.selectors import budget_statuses
from apps.analysis import pricing
from apps.analysis.models import PhaseChoices, PhaseSegment, phase_key
from apps.cloud.models import Instance
from apps.costs.spend import cost_rates_per_hour
from apps.metrics.models import InstanceHourRollup

UTIL_LOOKBACK = dt.timedelta(hours=6)
PHASE_LOOKBACK = dt.timedelta(hours=3)
UNALLOCATED = "Unallocated"
UNKNOWN_PHASE = phase_key(PhaseChoices.UNKNOWN)


@dataclasses.dataclass(frozen=True)
class InstanceGauges:
    provider_id: str
    name: str
    project: str
    team: str
    instance_type: str
    region: str
    gpu_model: str
    gpu_count: float
    currency: str
    cost_rate_per_hour: Decimal
    gpu_util_pct: float | None
    phase: str
    idle_cost_today: Decimal
    data_bound_cost_today: Decimal


def live_instances(organization: Organization) -> list[Instance]:
    """The organization's instances that are not terminated, with their project, by id."""
    return list(
        Instance.objects.for_organization(organization)
        .filter(terminated_at__isnull=True)
        .select_related("project")
        .order_by("pk")
    )


def latest_gpu_utils(instance_ids: list[int], now: dt.datetime) -> dict[int, float]:
    """Instance id -> GPU utilization average of its latest hour with observed minutes."""
    rows = InstanceHourRollup.objects.filter(
        instance_id__in=instance_ids,
        hour_start__gte=now - UTIL_LOOKBACK,
        hour_start__lte=now,
        gpu_util_pct_minutes__gt=0,
        gpu_util_pct_avg__isnull=False,
    ).values_list("instance_id", "hour_start", "gpu_util_pct_avg")
    latest: dict[int, tuple[dt.datetime, float]] = {}
    for instance_id, hour, avg in rows:
        if avg is None:
            continue
        if instance_id not in latest or hour > latest[instance_id][0]:
            latest[instance_id] = (hour, avg)
    return {instance_id: avg for instance_id, (_, avg) in latest.items()}


def current_phases(instance_ids: list[int], now: dt.datetime) -> dict[int, str]:
    """Instance id -> phase key of its latest analysed segment ending in the lookback."""
    rows = (
        PhaseSegment.objects.filter(
            instance_id__in=instance_ids, end_at__gt=now - PHASE_LOOKBACK, start_at__lte=now
        )
        .exclude(phase=PhaseChoices.UNKNOWN)
        .values_list("instance_id", "end_at", "phase")
    )
    latest: dict[int, tuple[dt.datetime, int]] = {}
    for instance_id, end_at, phase in rows:
        if instance_id not in latest or end_at > latest[instance_id][0]:
            latest[instance_id] = (end_at, phase)
    return {instance_id: phase_key(phase) for instance_id, (_, phase) in latest.items()}


def local_midnight(organization: Organization, now: dt.datetime) -> dt.datetime:
    local = now.astimezone(zoneinfo.ZoneInfo(organization.timezone))
    return local.replace(hour=0, minute=0, second=0, microsecond=0).astimezone(dt.UTC)


def instance_gauges(organization: Organization, now: dt.datetime) -> list[InstanceGauges]:
    """The figures of every live instance of the organization at ``now``."""
    instances = live_instances(organization)
    ids = [instance.pk for instance in instances]
    rates = cost_rates_per_hour(organization, ids, now)
    utils = latest_gpu_utils(ids, now)
    phases = current_phases(ids, now)
    today = local_midnight(organization, now)
    minute = now.replace(second=0, microsecond=0)
    waste = (
        {
            item.instance_id: item
            for item in pricing.instances_waste(
                instances=instances, start=today, end=minute, currency=organization.currency
            )
        }
        if minute > today and instances
        else {}
    )
    out = []
    for instance in instances:
        figures = waste.get(instance.pk)
        priced = figures is not None and figures.cost_source != pricing.SOURCE_UNPRICED
        out.append(
            InstanceGauges(
                provider_id=instance.provider_id,
                name=instance.name,
                project=instance.project.name if instance.project else UNALLOCATED,
                team=(instance.tags or {}).get("team", ""),
                instance_type=instance.instance_type,
                region=instance.region,
                gpu_model=instance.gpu_model,
                gpu_count=instance.gpu_count,
                currency=figures.currency if figures is not None else organization.currency,
                cost_rate_per_hour=rates.get(instance.pk, Decimal(0)),
                gpu_util_pct=utils.get(instance.pk),
                phase=phases.get(instance.pk, UNKNOWN_PHASE),
                idle_cost_today=figures.idle_cost if priced and figures else Decimal(0),
                data_bound_cost_today=(
                    figures.data_bound_cost if priced and figures else Decimal(0)
                ),
            )
        )
    return out


@dataclasses.dataclass(frozen=True)
class BudgetGauges:
    budget: str
    project: str  # empty for a budget of the whole organization
    currency: str
    month: str
    used_pct: Decimal
    forecast_pct: Decimal


def budget_gauges(organization: Organization, now: dt.datetime) -> list[BudgetGauges]:
    """Each budget's use in the organization's current month at ``now``, by name."""
    return [
        BudgetGauges(
            budget=status.budget.name,
            project=status.project_name or "",
            currency=status.currency,
            month=status.month,
            used_pct=status.percent_used,
            forecast_pct=status.forecast_pct,
        )
        for status in budget_statuses(organization, as_of=now)
    ]
