"""Reads of the digests app: subscriptions, holidays, and the figures a digest shows.

Every figure comes from the selectors the API answers with, so a digest and the API agree to
the cent for the same period: spend is ``costs.spend.spend_by`` over the bill lines whose fee
began in the period (every component, like the bill); GPU-hours and money per phase are
``analysis.fleet_pricing.instances_waste`` over ``gpu_instances_in_period``, summed by the same
``waste_totals_json`` as ``/api/v1/analysis/summary``; recommendations are
``recommendations_list`` ordered by saving, like ``/api/v1/recommendations``.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import zoneinfo
from collections import defaultdict
from collections.abc import Sequence
from decimal import Decimal
from typing import Any, cast

from django.conf import settings
from django.core.cache import cache
from django.db.models import Avg, Prefetch, QuerySet

from apps.accounts.models import Organization, User
from apps.analysis import fleet_pricing
from apps.analysis import selectors as analysis_selectors
from apps.analysis.serializers import waste_totals_json
from apps.cloud.models import CloudAccount, Instance
from apps.costs.spend import spend_by
from apps.digests.cachekeys import figures_key
from apps.digests.models import DigestDelivery, DigestSubscription, Holiday
from apps.metrics.models import InstanceHourRollup
from apps.recommendations.models import Status
from apps.recommendations.rules import PLAN
from apps.recommendations.selectors import recommendations_list

TOP_MOVERS = 5
TOP_RECOMMENDATIONS = 5
UNALLOCATED = "Unallocated"


# How far back a subscription's latest delivery is looked for (a monthly digest, twice).
LAST_DELIVERY_LOOKBACK = dt.timedelta(days=62)


def subscriptions_of(
    *, organization: Organization, user: User, now: dt.datetime
) -> QuerySet[DigestSubscription]:
    """A person's own subscriptions in the organization (nobody sees another's), each with
    its recent deliveries newest first in ``recent_deliveries`` (one query for all)."""
    recent = DigestDelivery.objects.filter(period_start__gte=now - LAST_DELIVERY_LOOKBACK).order_by(
        "-period_start", "-id"
    )
    return (
        DigestSubscription.objects.for_organization(organization)
        .filter(user=user)
        .select_related("organization", "user")
        .prefetch_related(
            "projects", Prefetch("deliveries", queryset=recent, to_attr="recent_deliveries")
        )
    )


def holidays_of(organization: Organization) -> QuerySet[Holiday]:
    return Holiday.objects.for_organization(organization)


def holiday_dates(organization_id: int) -> set[dt.date]:
    return set(
        Holiday.objects.filter(organization_id=organization_id).values_list("date", flat=True)
    )


def deliveries_of(subscription: DigestSubscription) -> QuerySet[DigestDelivery]:
    return DigestDelivery.objects.filter(subscription=subscription)


# --- the figures of a digest ---------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class PeriodSpend:
    start: dt.datetime
    end: dt.datetime
    cost: Decimal


@dataclasses.dataclass(frozen=True)
class Mover:
    key: int | None
    name: str
    current: Decimal
    previous: Decimal

    @property
    def change(self) -> Decimal:
        return self.current - self.previous


@dataclasses.dataclass(frozen=True)
class RecommendationLine:
    id: int
    title: str
    kind: str
    monthly_saving: Decimal
    currency: str
    target_name: str | None = None
    """The instance's name (else its id) or the project's name: the digest's title in a
    language the rules' English titles are not written in."""
    words: dict = dataclasses.field(default_factory=dict)
    """The rules' words (``Recommendation.words``): the title in the reader's language."""


@dataclasses.dataclass(frozen=True)
class FailingAccount:
    id: int
    name: str
    last_error: str
    last_error_at: dt.datetime | None


@dataclasses.dataclass(frozen=True)
class DigestFigures:
    """Everything a digest shows, independent of its reader (language, unsubscribe link)."""

    organization_name: str
    currency: str
    timezone: str
    project_names: list[str]
    periods: list[PeriodSpend]  # the digest's period first, then the two before it
    daily_spend: list[tuple[dt.date, int, Decimal]]  # (local day, period index, cost)
    project_movers: list[Mover]
    instance_movers: list[Mover]
    phases: dict[str, Any]  # waste_totals_json, exactly as /api/v1/analysis/summary
    recommendations: list[RecommendationLine]
    failing_accounts: list[FailingAccount]
    heatmap: list[list[float | None]]  # local day x local hour: mean GPU utilization (%)
    heatmap_days: list[dt.date]
    budgets: list[Any]


CostCell = tuple[dt.date, int | None, int | None]  # (local day, project id, instance id)


def period_costs(
    *, organization: Organization, start: dt.datetime, end: dt.datetime, tz_name: str
) -> dict[CostCell, Decimal]:
    """The cost of the bill lines whose fee began in ``[start, end)`` (every component, every
    currency), per local day, project and instance: ``costs.spend.spend_by``, one grouped
    query instead of one per figure.

    Every spend figure of a digest (the total, the days, the movers, for the whole
    organization or any projects) is a sum of these cells, so it equals the spend of the
    same lines anywhere else to the cent.
    """
    cells = spend_by(
        organization,
        start,
        end,
        ("day", "project", "instance"),
        tz=zoneinfo.ZoneInfo(tz_name),
    )
    return {(day, project, instance): cost for (day, project, instance), cost in cells.items()}


def _in_scope(
    cells: dict[CostCell, Decimal], project_ids: Sequence[int] | None
) -> dict[CostCell, Decimal]:
    if project_ids is None:
        return cells
    wanted = set(project_ids)
    return {cell: cost for cell, cost in cells.items() if cell[1] in wanted}


def _sum_by(cells: dict[CostCell, Decimal], index: int) -> dict[Any, Decimal]:
    totals: dict[Any, Decimal] = defaultdict(Decimal)
    for cell, cost in cells.items():
        totals[cell[index]] += cost
    return dict(totals)


def _movers(
    current: dict[Any, Decimal], previous: dict[Any, Decimal], names: dict[Any, str]
) -> list[Mover]:
    movers = [
        Mover(
            key=key,
            name=names.get(key, UNALLOCATED) if key is not None else UNALLOCATED,
            current=current.get(key, Decimal(0)),
            previous=previous.get(key, Decimal(0)),
        )
        for key in set(current) | set(previous)
    ]
    moved = [mover for mover in movers if mover.change]
    moved.sort(key=lambda mover: (-abs(mover.change), mover.name))
    return moved[:TOP_MOVERS]


def digest_figures(
    *,
    organization: Organization,
    project_ids: Sequence[int] | None,
    periods: Sequence[tuple[dt.datetime, dt.datetime]],
    tz_name: str,
    use_cache: bool = True,
) -> DigestFigures:
    """The figures of a digest of ``periods[0]`` (with ``periods[1:]`` beside it)."""
    tz = zoneinfo.ZoneInfo(tz_name)
    start, end = periods[0]
    scoped = [
        _in_scope(
            cached_period_costs(
                organization=organization, start=a, end=b, tz_name=tz_name, use_cache=use_cache
            ),
            project_ids,
        )
        for a, b in periods
    ]
    spends, daily = [], []
    for index, ((a, b), cells) in enumerate(zip(periods, scoped, strict=True)):
        spends.append(PeriodSpend(start=a, end=b, cost=sum(cells.values(), Decimal(0))))
        by_day = _sum_by(cells, 0)
        day, last = a.astimezone(tz).date(), b.astimezone(tz).date()
        while day < last:
            daily.append((day, index, by_day.get(day, Decimal(0))))
            day += dt.timedelta(days=1)
    daily.sort(key=lambda row: row[0])

    current = scoped[0]
    previous = scoped[1] if len(scoped) > 1 else {}
    project_names = analysis_selectors.project_names(organization=organization)
    project_movers = _movers(_sum_by(current, 1), _sum_by(previous, 1), project_names)
    by_instance_now = {k: v for k, v in _sum_by(current, 2).items() if k is not None}
    by_instance_before = {k: v for k, v in _sum_by(previous, 2).items() if k is not None}
    instance_names = {
        pk: name or provider_id
        for pk, name, provider_id in Instance.objects.filter(
            pk__in=set(by_instance_now) | set(by_instance_before)
        ).values_list("pk", "name", "provider_id")
    }
    instance_movers = _movers(by_instance_now, by_instance_before, instance_names)

    instances = analysis_selectors.gpu_instances_in_period(
        organization=organization, start=start, end=end
    )
    if project_ids is not None:
        wanted = set(project_ids)
        instances = [instance for instance in instances if instance.project_id in wanted]
    fleet = fleet_pricing.fleet_waste(
        instances=instances, start=start, end=end, currency=organization.currency
    )
    heatmap_days, heatmap = utilization_heatmap(
        instance_ids=[instance.pk for instance in instances], start=start, end=end, tz=tz
    )
    return DigestFigures(
        organization_name=organization.name,
        currency=organization.currency,
        timezone=tz_name,
        project_names=sorted(project_names[pk] for pk in project_ids or () if pk in project_names),
        periods=spends,
        daily_spend=daily,
        project_movers=project_movers,
        instance_movers=instance_movers,
        phases=waste_totals_json(fleet, organization.currency),
        recommendations=top_recommendations(organization=organization, project_ids=project_ids),
        failing_accounts=failing_accounts(organization),
        heatmap=heatmap,
        heatmap_days=heatmap_days,
        budgets=[],
    )


def cached_period_costs(
    *,
    organization: Organization,
    start: dt.datetime,
    end: dt.datetime,
    tz_name: str,
    use_cache: bool = True,
) -> dict[CostCell, Decimal]:
    """``period_costs``, shared for a few minutes by every digest of the organization and
    period (whatever their projects), like the figures themselves (see ``content``)."""
    key = figures_key(organization, "costs", f"{start.timestamp()}:{end.timestamp()}:{tz_name}")
    cells = cache.get(key) if use_cache else None
    if cells is None:
        cells = period_costs(organization=organization, start=start, end=end, tz_name=tz_name)
        if use_cache:
            cache.set(key, cells, timeout=settings.DIGEST_FIGURES_CACHE_SECONDS)
    return cells


def top_recommendations(
    *, organization: Organization, project_ids: Sequence[int] | None
) -> list[RecommendationLine]:
    """The open recommendations worth the most per month (the scope's, if it has projects).

    Plan rows with a saving: an alternative overlaps its instance's plan (its money is counted
    there), and a thermal alert or a data pipeline's time spent waiting is not money the digest
    can promise per month."""
    rows = recommendations_list(
        organization=organization, statuses=[Status.OPEN], role=PLAN
    ).filter(monthly_saving__isnull=False)
    if project_ids is not None:
        rows = rows.filter(project_id__in=list(project_ids))
    return [
        RecommendationLine(
            id=row.pk,
            title=row.title,
            kind=row.kind,
            monthly_saving=cast(Decimal, row.monthly_saving),  # not null: filtered above
            currency=row.currency,
            target_name=(row.instance.name or row.instance.provider_id)
            if row.instance is not None
            else (row.project.name if row.project is not None else None),
        )
        for row in rows[:TOP_RECOMMENDATIONS]
    ]


def failing_accounts(organization: Organization) -> list[FailingAccount]:
    rows = CloudAccount.objects.for_organization(organization).filter(
        status=CloudAccount.Status.FAILING
    )
    return [
        FailingAccount(
            id=row.pk, name=row.name, last_error=row.last_error, last_error_at=row.last_error_at
        )
        for row in rows.order_by("name")
    ]


def utilization_heatmap(
    *, instance_ids: Sequence[int], start: dt.datetime, end: dt.datetime, tz: dt.tzinfo
) -> tuple[list[dt.date], list[list[float | None]]]:
    """Mean GPU utilization of the instances per local day and hour of ``[start, end)``.

    The mean of the instances' hourly averages (``InstanceHourRollup``), so an hour counts
    each instance that reported in it once; hours nobody reported are None.
    """
    days: list[dt.date] = []
    day, last = start.astimezone(tz).date(), end.astimezone(tz).date()
    while day < last:
        days.append(day)
        day += dt.timedelta(days=1)
    grid: list[list[float | None]] = [[None] * 24 for _ in days]
    if not instance_ids or not days:
        return days, grid
    row_of = {day: index for index, day in enumerate(days)}
    hours = (
        InstanceHourRollup.objects.filter(
            instance_id__in=list(instance_ids), hour_start__gte=start, hour_start__lt=end
        )
        .exclude(gpu_util_pct_avg__isnull=True)
        .order_by()
        .values("hour_start")
        .annotate(mean=Avg("gpu_util_pct_avg"))
    )
    for row in hours:
        local = row["hour_start"].astimezone(tz)
        index = row_of.get(local.date())
        if index is not None:
            grid[index][local.hour] = round(float(row["mean"]), 1)
    return days, grid
