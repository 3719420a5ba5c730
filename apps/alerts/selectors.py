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
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

from django.db.models import QuerySet
from django.utils import timezone

from apps.accounts.models import Organization
from apps.alerts.models import Budget, BudgetBasis
from apps.billing.models import BillLine
from apps.billing.selectors import cost_total

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


def budget_lines(budget: Budget) -> QuerySet[BillLine]:
    """The bill lines a budget counts (any time): its scope, in its currency."""
    lines = BillLine.objects.for_organization(budget.organization).filter(currency=budget.currency)
    if budget.project_id is not None:
        lines = lines.filter(project_id=budget.project_id)
    return lines


def _pct(part: Decimal, whole: Decimal) -> Decimal:
    if whole <= 0:
        return Decimal(0)
    return (part / whole * 100).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)


def budget_status(budget: Budget, month: str, *, as_of: dt.datetime | None = None) -> BudgetStatus:
    """The status of one budget in ``month`` as of ``as_of`` (default now); see the module."""
    as_of = as_of or timezone.now()
    organization = budget.organization
    start, end = month_bounds(organization, month)
    lines = budget_lines(budget)
    until = min(max(as_of, start), end)
    spent = cost_total(lines.filter(fee_begin_at__gte=start, fee_begin_at__lt=until))
    if as_of >= end:
        daily_average, days_left = Decimal(0), Decimal(0)
    else:
        trailing_start = max(as_of, start) - dt.timedelta(days=FORECAST_TRAILING_DAYS)
        trailing = cost_total(
            lines.filter(fee_begin_at__gte=trailing_start, fee_begin_at__lt=max(as_of, start))
        )
        daily_average = trailing / FORECAST_TRAILING_DAYS
        seconds_left = (end - max(as_of, start)).total_seconds()
        days_left = (Decimal(seconds_left) / 86400).quantize(Decimal("0.0001"))
    forecast = (spent + daily_average * days_left).quantize(CENT, rounding=ROUND_HALF_UP)
    amount = budget.amount
    percent_used = _pct(spent, amount)
    forecast_pct = _pct(forecast, amount)
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
        percent_used=percent_used,
        forecast_pct=forecast_pct,
        thresholds_crossed=crossed,
    )


def budget_statuses(
    organization: Organization, month: str | None = None, *, as_of: dt.datetime | None = None
) -> list[BudgetStatus]:
    """Every budget of the organization in ``month`` (default: the current one), by name."""
    as_of = as_of or timezone.now()
    month = month or month_of(organization, as_of)
    budgets = Budget.objects.for_organization(organization).select_related(
        "organization", "project"
    )
    return [budget_status(budget, month, as_of=as_of) for budget in budgets]
