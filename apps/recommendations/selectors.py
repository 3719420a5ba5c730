"""Reads of the recommendations: filtered lists, totals by kind and project, realised savings."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections import defaultdict
from decimal import Decimal

from django.db.models import Count, QuerySet, Sum

from apps.accounts.models import Organization
from apps.billing.models import BillLine
from apps.billing.selectors import cost_total
from apps.recommendations.models import Recommendation, RecommendationSettings, Status
from apps.recommendations.rules import KINDS

WEEK = dt.timedelta(days=7)
# Weeks of bills before acceptance that the realised saving compares against.
BASELINE_WEEKS = 4

ORDERINGS = {
    "saving": ("monthly_saving", "id"),
    "-saving": ("-monthly_saving", "id"),
    "risk": ("risk_level", "-monthly_saving", "id"),
    "-risk": ("-risk_level", "-monthly_saving", "id"),
    "first_seen": ("first_seen_at", "id"),
    "-first_seen": ("-first_seen_at", "-id"),
    "kind": ("kind", "-monthly_saving", "id"),
}


def recommendations_list(
    *,
    organization: Organization,
    kinds: list[str] | None = None,
    statuses: list[str] | None = None,
    project_id: int | None = None,
    instance_id: int | None = None,
    min_saving: Decimal | None = None,
    ordering: str = "-saving",
) -> QuerySet[Recommendation]:
    """The organization's recommendations, filtered (default: not resolved) and ordered."""
    rows = Recommendation.objects.for_organization(organization).select_related(
        "instance", "project"
    )
    rows = rows.filter(status__in=statuses) if statuses else rows.exclude(status=Status.RESOLVED)
    if kinds:
        rows = rows.filter(kind__in=kinds)
    if project_id is not None:
        rows = rows.filter(project_id=project_id)
    if instance_id is not None:
        rows = rows.filter(instance_id=instance_id)
    if min_saving is not None:
        rows = rows.filter(monthly_saving__gte=min_saving)
    return rows.order_by(*ORDERINGS[ordering])


@dataclasses.dataclass(frozen=True)
class Total:
    key: str | int | None
    label: str
    count: int
    monthly_saving: Decimal
    currency: str


def recommendations_totals(*, rows: QuerySet[Recommendation]) -> tuple[list[Total], list[Total]]:
    """Monthly savings summed by kind and by project (per currency, largest first); one query."""
    by_kind: dict[tuple[str, str], list] = defaultdict(lambda: [0, Decimal(0), ""])
    by_project: dict[tuple[int | None, str], list] = defaultdict(lambda: [0, Decimal(0), ""])
    grouped = (
        rows.order_by()
        .values("kind", "project_id", "project__name", "currency")
        .annotate(total=Sum("monthly_saving"), n=Count("id"))
    )
    labels = dict(KINDS)
    for item in grouped:
        total = item["total"] or Decimal(0)
        kind = by_kind[(item["kind"], item["currency"])]
        kind[0] += item["n"]
        kind[1] += total
        kind[2] = labels.get(item["kind"], item["kind"])
        project = by_project[(item["project_id"], item["currency"])]
        project[0] += item["n"]
        project[1] += total
        project[2] = item["project__name"] or "Unallocated"

    def order(total: Total) -> tuple[Decimal, str]:
        return (-total.monthly_saving, str(total.key))

    kinds = [
        Total(key, label, n, total.quantize(Decimal("0.01")), currency)
        for (key, currency), (n, total, label) in by_kind.items()
    ]
    projects = [
        Total(key, label, n, total.quantize(Decimal("0.01")), currency)
        for (key, currency), (n, total, label) in by_project.items()
    ]
    return sorted(kinds, key=order), sorted(projects, key=order)


@dataclasses.dataclass(frozen=True)
class Realised:
    """What an accepted recommendation saved: cost per week after vs the weeks before."""

    weeks_before: int
    weeks_after: float
    weekly_cost_before: Decimal
    weekly_cost_after: Decimal | None
    weekly_saving: Decimal | None
    monthly_saving_realised: Decimal | None
    monthly_saving_promised: Decimal
    currency: str


def realised_saving(recommendation: Recommendation, *, now: dt.datetime) -> Realised | None:
    """From the target instance's bills (every component): None unless accepted."""
    if (
        recommendation.status != Status.ACCEPTED
        or recommendation.accepted_at is None
        or recommendation.instance_id is None
    ):
        return None
    accepted = recommendation.accepted_at
    lines = BillLine.objects.filter(
        organization_id=recommendation.organization_id, instance_id=recommendation.instance_id
    )
    before = cost_total(
        lines.filter(fee_begin_at__gte=accepted - BASELINE_WEEKS * WEEK, fee_begin_at__lt=accepted)
    )
    weekly_before = (before / BASELINE_WEEKS).quantize(Decimal("0.01"))
    elapsed = (now - accepted) / WEEK
    weekly_after = saving = monthly = None
    if elapsed > 0:
        after = cost_total(lines.filter(fee_begin_at__gte=accepted, fee_begin_at__lt=now))
        weekly_after = (after / Decimal(str(elapsed))).quantize(Decimal("0.01"))
        saving = weekly_before - weekly_after
        monthly = (saving * Decimal(30) / 7).quantize(Decimal("0.01"))
    return Realised(
        weeks_before=BASELINE_WEEKS,
        weeks_after=round(elapsed, 2),
        weekly_cost_before=weekly_before,
        weekly_cost_after=weekly_after,
        weekly_saving=saving,
        monthly_saving_realised=monthly,
        monthly_saving_promised=recommendation.monthly_saving,
        currency=recommendation.currency,
    )


def recommendation_settings_get(organization: Organization) -> RecommendationSettings:
    row = RecommendationSettings.objects.filter(organization=organization).first()
    return row or RecommendationSettings(organization=organization, thresholds={})
