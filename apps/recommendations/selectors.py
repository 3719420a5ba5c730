"""Reads of the recommendations: filtered lists, totals by kind and project, realised savings."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections import defaultdict
from decimal import Decimal

from django.db.models import Count, F, Max, Min, Q, QuerySet, Sum

from apps.accounts.models import Organization
from apps.billing.models import BillLine
from apps.billing.selectors import cost_total
from apps.cloud.models import Instance
from apps.recommendations.models import Recommendation, RecommendationSettings, Status
from apps.recommendations.rules import KINDS, PLAN

WEEK = dt.timedelta(days=7)
CENT = Decimal("0.01")
# Weeks of bills before acceptance that the realised saving compares against.
BASELINE_WEEKS = 4

# Rows without a saving (null: thermal, the data pipeline) sort after every saving, whichever
# the direction: PostgreSQL would put them first in a descending order.
_SAVING_DESC = F("monthly_saving").desc(nulls_last=True)
_SAVING_ASC = F("monthly_saving").asc(nulls_last=True)

ORDERINGS = {
    "saving": (_SAVING_ASC, "id"),
    "-saving": (_SAVING_DESC, "id"),
    "risk": ("risk_level", _SAVING_DESC, "id"),
    "-risk": ("-risk_level", _SAVING_DESC, "id"),
    "first_seen": ("first_seen_at", "id"),
    "-first_seen": ("-first_seen_at", "-id"),
    "kind": ("kind", _SAVING_DESC, "id"),
}


def recommendations_list(
    *,
    organization: Organization,
    kinds: list[str] | None = None,
    statuses: list[str] | None = None,
    project_id: int | None = None,
    role: str | None = None,
    instance_id: int | str | None = None,
    min_saving: Decimal | None = None,
    ordering: str = "-saving",
) -> QuerySet[Recommendation]:
    """The organization's recommendations, filtered (default: not resolved) and ordered.

    ``instance_id`` is the internal id (``int``) or the cloud's (``str``, ``ins-...``): the
    rows already belong to the organization, so another one's id matches nothing."""
    rows = Recommendation.objects.for_organization(organization).select_related(
        "instance", "project"
    )
    rows = rows.filter(status__in=statuses) if statuses else rows.exclude(status=Status.RESOLVED)
    if kinds:
        rows = rows.filter(kind__in=kinds)
    if project_id is not None:
        rows = rows.filter(project_id=project_id)
    if role is not None:
        rows = rows.filter(role=role)
    if isinstance(instance_id, str):
        rows = rows.filter(instance__provider_id=instance_id)
    elif instance_id is not None:
        rows = rows.filter(instance_id=instance_id)
    if min_saving is not None:
        rows = rows.filter(monthly_saving__gte=min_saving)
    return rows.order_by(*ORDERINGS[ordering])


@dataclasses.dataclass(frozen=True)
class Total:
    key: str | int | None
    label: str
    count: int
    monthly_saving: Decimal | None
    """The savings of the rows that have one; None when none of them has (thermal)."""
    currency: str
    alternatives: int = 0
    """Of ``count``, the alternatives: counted, their money not (``recommendations_totals``)."""


def recommendations_totals(*, rows: QuerySet[Recommendation]) -> tuple[list[Total], list[Total]]:
    """Monthly savings summed by kind and by project (per currency, largest first); one query.

    Every row is counted; the money is the plan rows' only: an alternative excludes or
    overlaps its instance's plan, and adding it up would count the same money twice
    (``rules.plans``). Rows without a saving (null) add nothing to the money either: a group
    where no row has one has no saving (None) rather than a zero one.
    """
    by_kind: dict[tuple[str, str], list] = defaultdict(lambda: [0, None, "", 0])
    by_project: dict[tuple[int | None, str], list] = defaultdict(lambda: [0, None, "", 0])
    grouped = (
        rows.order_by()
        .values("kind", "project_id", "project__name", "currency")
        .annotate(
            total=Sum("monthly_saving", filter=Q(role=PLAN)),
            n=Count("id"),
            alternatives=Count("id", filter=~Q(role=PLAN)),
            priced=Count("monthly_saving"),
        )
    )
    labels = dict(KINDS)

    def add(into: list, n: int, total: Decimal | None, priced: int) -> None:
        into[0] += n
        if total is not None or priced:
            # Rows with a saving that are all alternatives: a saving of zero, not none.
            into[1] = (into[1] or Decimal(0)) + (total or Decimal(0))

    for item in grouped:
        kind = by_kind[(item["kind"], item["currency"])]
        add(kind, item["n"], item["total"], item["priced"])
        kind[2] = labels.get(item["kind"], item["kind"])
        kind[3] += item["alternatives"]
        project = by_project[(item["project_id"], item["currency"])]
        add(project, item["n"], item["total"], item["priced"])
        project[2] = item["project__name"] or "Unallocated"
        project[3] += item["alternatives"]

    def order(total: Total) -> tuple[bool, Decimal, str]:
        # Largest saving first, groups without one last.
        saving = total.monthly_saving
        return (saving is None, -(saving or Decimal(0)), str(total.key))

    def rounded(total: Decimal | None) -> Decimal | None:
        return total.quantize(CENT) if total is not None else None

    kinds = [
        Total(key, label, n, rounded(total), currency, alternatives)
        for (key, currency), (n, total, label, alternatives) in by_kind.items()
    ]
    projects = [
        Total(key, label, n, rounded(total), currency, alternatives)
        for (key, currency), (n, total, label, alternatives) in by_project.items()
    ]
    return sorted(kinds, key=order), sorted(projects, key=order)


@dataclasses.dataclass(frozen=True)
class Realised:
    """What an accepted recommendation saved: cost per week after vs the weeks before.

    Every figure it is computed from is here, so it can be recomputed by hand: the cost billed
    in ``[before_start, before_end)`` over ``weeks_before``, and in ``[after_start, after_end)``
    over ``weeks_after`` (weeks rounded to 4 places, and those rounded weeks are what divide).
    """

    before_start: dt.datetime
    before_end: dt.datetime
    weeks_before: float
    cost_before: Decimal
    weekly_cost_before: Decimal | None
    after_start: dt.datetime
    after_end: dt.datetime
    weeks_after: float
    cost_after: Decimal | None
    weekly_cost_after: Decimal | None
    weekly_saving: Decimal | None
    monthly_saving_realised: Decimal | None
    monthly_saving_promised: Decimal | None
    """None for a finding that promised no saving (the data pipeline, thermal)."""
    currency: str
    instances: list[str]
    """Whose bills these are (names): the target, or the instances a project-wide one stops."""


def _weeks(start: dt.datetime, end: dt.datetime) -> Decimal:
    return (Decimal((end - start).total_seconds()) / 604800).quantize(Decimal("0.0001"))


def _measured_instances(recommendation: Recommendation) -> list[Instance]:
    """Whose bills show what an accepted recommendation saved: its target instance, or for a
    project-wide one the instances its action stops (fewer at night); none otherwise."""
    if recommendation.instance_id is not None:
        assert recommendation.instance is not None
        return [recommendation.instance]
    stopped = recommendation.action.get("stop_instances") or []
    return list(
        Instance.objects.filter(
            organization_id=recommendation.organization_id, provider_id__in=stopped
        ).order_by("provider_id")
    )


def realised_saving(recommendation: Recommendation, *, now: dt.datetime) -> Realised | None:
    """From the bills (every component) of the instances it changes: None unless accepted.

    The weeks before are at most ``BASELINE_WEEKS``, and no earlier than the instances' launch
    (their first bill line when the launch is unknown; the youngest's for several) nor the
    first line synced for their accounts: a younger instance is not averaged over weeks it did
    not exist. The weeks after end at the latest line synced for the accounts (bills arrive a
    day or more late; a stopped instance has no lines of its own), not at ``now``: weeks
    without bills yet would read as savings.
    """
    if recommendation.status != Status.ACCEPTED or recommendation.accepted_at is None:
        return None
    instances = _measured_instances(recommendation)
    if not instances:
        return None
    accepted = recommendation.accepted_at
    ids = [instance.pk for instance in instances]
    lines = BillLine.objects.filter(
        organization_id=recommendation.organization_id, instance_id__in=ids
    )
    # What the bills sync covers: the instances' accounts' lines (the organization's without).
    synced = BillLine.objects.filter(organization_id=recommendation.organization_id)
    accounts = {instance.account_id for instance in instances}
    if None not in accounts:
        synced = synced.filter(account_id__in=accounts)
    covered = synced.aggregate(first=Min("fee_begin_at"), last=Max("fee_end_at"))
    first_billed = dict(
        lines.values("instance_id")
        .annotate(first=Min("fee_begin_at"))
        .values_list("instance_id", "first")
    )
    births = [instance.launched_at or first_billed.get(instance.pk) for instance in instances]
    born = max((b for b in births if b is not None), default=None)
    before_start = max(
        moment
        for moment in (accepted - BASELINE_WEEKS * WEEK, born, covered["first"])
        if moment is not None
    )
    before_start = min(before_start, accepted)
    weeks_before = _weeks(before_start, accepted)
    # Amounts in cents, as shown, are what divide.
    cost_before = cost_total(
        lines.filter(fee_begin_at__gte=before_start, fee_begin_at__lt=accepted)
    ).quantize(CENT)
    weekly_before = (cost_before / weeks_before).quantize(CENT) if weeks_before > 0 else None
    last = covered["last"]
    if last is not None and last.second == 59:
        last += dt.timedelta(seconds=1)  # inclusive ends, like the bills: 10:59:59 is 11:00
    after_end = max(min(now, last or accepted), accepted)
    weeks_after = _weeks(accepted, after_end)
    cost_after = weekly_after = saving = monthly = None
    if weeks_after > 0:
        cost_after = cost_total(
            lines.filter(fee_begin_at__gte=accepted, fee_begin_at__lt=after_end)
        ).quantize(CENT)
        weekly_after = (cost_after / weeks_after).quantize(CENT)
        if weekly_before is not None:
            saving = weekly_before - weekly_after
            monthly = (saving * Decimal(30) / 7).quantize(CENT)
    return Realised(
        before_start=before_start,
        before_end=accepted,
        weeks_before=float(weeks_before),
        cost_before=cost_before,
        weekly_cost_before=weekly_before,
        after_start=accepted,
        after_end=after_end,
        weeks_after=float(weeks_after),
        cost_after=cost_after,
        weekly_cost_after=weekly_after,
        weekly_saving=saving,
        monthly_saving_realised=monthly,
        monthly_saving_promised=recommendation.monthly_saving,
        currency=recommendation.currency,
        instances=[instance.name or instance.provider_id for instance in instances],
    )


def recommendation_settings_get(organization: Organization) -> RecommendationSettings:
    row = RecommendationSettings.objects.filter(organization=organization).first()
    return row or RecommendationSettings(organization=organization, thresholds={})
