"""Reads for alerts: budget status (spend so far and forecast), alert history, recipients.

Budget figures are the costs app's month-end forecast (``apps.costs.forecast``), the one the
Overview shows, of the budget's scope (the organization, or the lines allocated to its project)
in the budget's currency:

- the month is the bill month (Beijing time, as Tencent bills), so a budget reads the same in
  every timezone;
- ``spent``: the month's amortized cost so far (today included), a prepaid renewal spread over
  the days it covers;
- ``daily_average``: the forecast's run rate (the last 7 complete days without purchases);
- ``forecast``: the costs forecast (complete days + rate x days left + purchases already known);
  a month that has ended forecasts what it cost, a month not yet begun forecasts nothing;
- ``percent_used`` = spent / amount x 100 and ``forecast_pct`` = forecast / amount x 100.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

from django.db.models import QuerySet
from django.utils import timezone

from apps.accounts.models import Organization
from apps.alerts.models import AlertEvent, AlertKind, Budget, BudgetBasis
from apps.costs import forecast as costs_forecast

FORECAST_METHOD = costs_forecast.METHOD
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
    # forecast = spent_before_today + daily_average x days_left + known_purchases.
    spent_before_today: Decimal = Decimal(0)
    known_purchases: Decimal = Decimal(0)


def month_of(organization: Organization, moment: dt.datetime) -> str:
    """The bill month (yyyy-mm, Beijing time) of ``moment``: a budget's month, the same for
    every organization whatever its timezone (``organization`` is kept for the callers)."""
    return costs_forecast.bill_month_of(moment)


def _cents(amount: Decimal) -> Decimal:
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


def _pct(part: Decimal, whole: Decimal) -> Decimal:
    if whole <= 0:
        return Decimal(0)
    return (part / whole * 100).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)


def budget_statuses_of(
    budgets: Sequence[Budget], month: str, *, as_of: dt.datetime | None = None
) -> list[BudgetStatus]:
    """The status of each budget (all of one organization) in bill ``month`` as of ``as_of``
    (default now), in order; see the module for the figures. One query per currency, however
    many budgets."""
    if not budgets:
        return []
    # As of a given moment (an evaluation, the bills' boundary), today's lines count up to it.
    until = as_of
    as_of = as_of or timezone.now()
    organization = budgets[0].organization
    money = {
        currency: costs_forecast.project_day_money(organization, currency, month, until=until)
        for currency in {budget.currency for budget in budgets}
    }
    statuses = []
    for budget in budgets:
        per_project = money[budget.currency]
        if budget.project_id is not None:
            per_project = {budget.project_id: per_project.get(budget.project_id, {})}
        figures = costs_forecast.forecast_of(costs_forecast.merged(per_project), month, as_of)
        statuses.append(_status(budget, month, figures))
    return statuses


def _status(budget: Budget, month: str, figures: costs_forecast.Forecast) -> BudgetStatus:
    spent = _cents(figures.spent)
    before_today, known = _cents(figures.spent_before_today), _cents(figures.known_purchases)
    # From the figures as shown (cents), so a reader recomputes it to the cent.
    forecast = before_today + figures.run_rate_daily * figures.days_left + known
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
        spent=spent,
        daily_average=figures.run_rate_daily,
        days_left=Decimal(figures.days_left).quantize(Decimal("0.0001")),
        forecast=forecast,
        percent_used=_pct(spent, amount),
        forecast_pct=_pct(forecast, amount),
        thresholds_crossed=crossed,
        forecast_method=figures.method,
        spent_before_today=before_today,
        known_purchases=known,
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
