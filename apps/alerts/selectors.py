"""Reads for alerts: budget status (spend so far and forecast), alert history, recipients.

Budget figures, and how to recompute them by hand from the bill lines:

- ``spent``: the sum of ``BillLine.cost`` (the real cost, after discounts) of the budget's
  scope (the organization, or lines allocated to its project) in the budget's currency, whose
  ``fee_begin_at`` lies in the month, in the organization's timezone, before ``as_of``;
- ``daily_average``: the same sum over the 7 days before ``as_of`` (crossing into the previous
  month if need be), divided by 7;
- ``forecast``: ``spent + daily_average x days_left``, where ``days_left`` is the time from
  ``as_of`` to the end of the month in days (fractional); a month that has ended forecasts
  what it spent, a month not yet begun forecasts nothing;
- ``percent_used`` = spent / amount x 100 and ``forecast_pct`` = forecast / amount x 100.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

from django.db.models import QuerySet
from django.utils import timezone

from apps.accounts.models import Organization
from apps.alerts.models import AlertEvent, AlertKind, Budget, BudgetBasis
from apps.core.timegrid import SECONDS_PER_DAY
from apps.costs.spend import spend_by

#: How many days the forecast's daily spend is averaged over.
FORECAST_TRAILING_DAYS = 7
FORECAST_METHOD = (
    "spent so far + average daily spend of the last 7 days x days left in the month "
    "(organization timezone)"
)
CENT = Decimal("0.01")


@dataclass(frozen=True)
class ThresholdCrossed:
    threshold_pct: int
    basis: str  # BudgetBasis


@dataclass(frozen=True)
class BudgetStatus:
    budget: Budget
    scope: str  # "organization" or "project"
    project_id: int | None
    project_name: str | None
    month: str
    amount: Decimal
    currency: str
    spent: Decimal
    daily_average: Decimal
    days_left: Decimal
    forecast: Decimal
    percent_used: Decimal
    forecast_pct: Decimal
    thresholds_crossed: list[ThresholdCrossed] = field(default_factory=list)
    forecast_method: str = FORECAST_METHOD


def month_bounds(organization: Organization, month: str) -> tuple[dt.datetime, dt.datetime]:
    """The first instant of ``month`` (yyyy-mm) and of the next one, in the organization's tz."""
    tz = zoneinfo.ZoneInfo(organization.timezone)
    first = dt.date.fromisoformat(f"{month}-01")
    following = (first + dt.timedelta(days=32)).replace(day=1)
    return (
        dt.datetime.combine(first, dt.time(), tzinfo=tz),
        dt.datetime.combine(following, dt.time(), tzinfo=tz),
    )


def month_of(organization: Organization, moment: dt.datetime) -> str:
    """yyyy-mm of ``moment`` in the organization's timezone."""
    return moment.astimezone(zoneinfo.ZoneInfo(organization.timezone)).strftime("%Y-%m")


def _spend_by_project(
    organization: Organization, currency: str, start: dt.datetime, end: dt.datetime
) -> dict[int | None, Decimal]:
    """Real cost of the organization's lines in ``currency`` with start <= fee_begin_at < end,
    per project id (None: unallocated): ``costs.spend.spend_by``, one query."""
    sums = spend_by(organization, start, end, ("project",), currency=currency)
    return {project_id: cost for (project_id,), cost in sums.items()}


def _of_scope(sums: dict[int | None, Decimal], budget: Budget) -> Decimal:
    if budget.project_id is not None:
        return sums.get(budget.project_id, Decimal(0))
    return sum(sums.values(), Decimal(0))


def _pct(part: Decimal, whole: Decimal) -> Decimal:
    if whole <= 0:
        return Decimal(0)
    return (part / whole * 100).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)


def budget_statuses_of(
    budgets: Sequence[Budget], month: str, *, as_of: dt.datetime | None = None
) -> list[BudgetStatus]:
    """The status of each budget (all of one organization) in ``month`` as of ``as_of``
    (default now), in order; see the module for the figures. Two queries per currency,
    however many budgets."""
    if not budgets:
        return []
    as_of = as_of or timezone.now()
    organization = budgets[0].organization
    start, end = month_bounds(organization, month)
    window_end = min(max(as_of, start), end)
    ended = as_of >= end
    spent_sums, trailing_sums = {}, {}
    for currency in {budget.currency for budget in budgets}:
        spent_sums[currency] = _spend_by_project(organization, currency, start, window_end)
        trailing_sums[currency] = (
            {}
            if ended
            else _spend_by_project(
                organization,
                currency,
                window_end - dt.timedelta(days=FORECAST_TRAILING_DAYS),
                window_end,
            )
        )
    if ended:
        days_left = Decimal(0)
    else:
        seconds_left = (end - window_end).total_seconds()
        days_left = (Decimal(seconds_left) / SECONDS_PER_DAY).quantize(Decimal("0.0001"))
    return [
        _status(
            budget,
            month,
            spent=_of_scope(spent_sums[budget.currency], budget),
            trailing=_of_scope(trailing_sums[budget.currency], budget),
            days_left=days_left,
        )
        for budget in budgets
    ]


def _status(
    budget: Budget, month: str, *, spent: Decimal, trailing: Decimal, days_left: Decimal
) -> BudgetStatus:
    # From the figures as shown (cents, 4-decimal days), so a reader recomputes it to the cent.
    daily_average = (trailing / FORECAST_TRAILING_DAYS).quantize(CENT, rounding=ROUND_HALF_UP)
    forecast = (spent + daily_average * days_left).quantize(CENT, rounding=ROUND_HALF_UP)
    amount = budget.amount
    crossed = [
        ThresholdCrossed(int(t), BudgetBasis.ACTUAL)
        for t in sorted(budget.actual_thresholds_pct)
        if amount > 0 and spent * 100 >= amount * int(t)
    ] + [
        ThresholdCrossed(int(t), BudgetBasis.FORECAST)
        for t in sorted(budget.forecast_thresholds_pct)
        if amount > 0 and forecast * 100 >= amount * int(t)
    ]
    return BudgetStatus(
        budget=budget,
        scope="project" if budget.project_id else "organization",
        project_id=budget.project_id,
        project_name=budget.project.name if budget.project is not None else None,
        month=month,
        amount=amount,
        currency=budget.currency,
        spent=spent.quantize(CENT, rounding=ROUND_HALF_UP),
        daily_average=daily_average.quantize(CENT, rounding=ROUND_HALF_UP),
        days_left=days_left,
        forecast=forecast,
        percent_used=_pct(spent, amount),
        forecast_pct=_pct(forecast, amount),
        thresholds_crossed=crossed,
    )


def budget_status(budget: Budget, month: str, *, as_of: dt.datetime | None = None) -> BudgetStatus:
    """The status of one budget in ``month`` as of ``as_of`` (default now)."""
    return budget_statuses_of([budget], month, as_of=as_of)[0]


def budget_statuses(
    organization: Organization, month: str | None = None, *, as_of: dt.datetime | None = None
) -> list[BudgetStatus]:
    """Every budget of the organization in ``month`` (default: the current one), by name."""
    as_of = as_of or timezone.now()
    month = month or month_of(organization, as_of)
    budgets = Budget.objects.for_organization(organization).select_related(
        "organization", "project"
    )
    return budget_statuses_of(list(budgets), month, as_of=as_of)


def alert_events_filter(
    rows: QuerySet[AlertEvent],
    *,
    kind: list[str] | None = None,
    severity: list[str] | None = None,
    project: int | None = None,
    instance: int | None = None,
    budget: int | None = None,
    open: bool | None = None,
    since: dt.datetime | None = None,
    until: dt.datetime | None = None,
    delivery_status: str | None = None,
    **_: object,
) -> QuerySet[AlertEvent]:
    """The alert history filtered as the API's query says, newest first."""
    if kind:
        rows = rows.filter(kind__in=kind)
    if severity:
        rows = rows.filter(severity__in=severity)
    if project is not None:
        rows = rows.filter(project_id=project)
    if instance is not None:
        rows = rows.filter(instance_id=instance)
    if budget is not None:
        rows = rows.filter(budget_id=budget)
    if open is not None:
        rows = rows.filter(kind=AlertKind.THRESHOLD, resolved_at__isnull=open)
    if since is not None:
        rows = rows.filter(started_at__gte=since)
    if until is not None:
        rows = rows.filter(started_at__lt=until)
    if delivery_status is not None:
        rows = rows.filter(deliveries__status=delivery_status).distinct()
    return rows.order_by("-started_at", "-id")
