"""Budget thresholds: an alert the first time each threshold is crossed in a month.

"Once" is the unique ``BudgetCrossing`` (budget, month, threshold, basis): a second run, a
duplicate tick or a second worker finds the row and raises nothing. Thresholds crossed in the
same run on the same basis (a jump from 40 % to 110 %) are one alert, the highest, with every
crossing recorded against it.

A threshold the month's spend (or forecast) had already crossed as of the bills' boundary of
imported history (``apps.alerts.evaluation.history``) was crossed by the imported history: it
is recorded as such and sent to nobody (the history summary reports it). Thresholds crossed
since are a live alert of their own.
"""

from __future__ import annotations

import datetime as dt

from django.db import IntegrityError, transaction

from apps.accounts.models import Organization
from apps.alerts.evaluation.history import history_boundary
from apps.alerts.models import AlertEvent, AlertKind, BudgetBasis, BudgetCrossing, Severity
from apps.alerts.selectors import BudgetStatus, budget_statuses, month_of
from apps.alerts.services import alert_event_raise


def budgets_evaluate(*, organization: Organization, as_of: dt.datetime) -> list[AlertEvent]:
    """Raise the alerts of thresholds newly crossed this month; returns them."""
    month = month_of(organization, as_of)
    raised = []
    statuses = budget_statuses(organization, month, as_of=as_of)
    crossed_before = _crossed_in_history(organization, month, statuses, as_of)
    for status in statuses:
        for basis in BudgetBasis:
            thresholds = [t.threshold_pct for t in status.thresholds_crossed if t.basis == basis]
            historic = crossed_before.get((status.budget.pk, basis), set())
            for part, imported in (
                ([t for t in thresholds if t in historic], True),
                ([t for t in thresholds if t not in historic], False),
            ):
                event = _raise_once(status, basis, part, as_of, imported=imported)
                if event is not None:
                    raised.append(event)
    return raised


def _crossed_in_history(
    organization: Organization, month: str, statuses: list[BudgetStatus], as_of: dt.datetime
) -> dict[tuple[int, str], set[int]]:
    """The thresholds of each (budget, basis) already crossed as of the bills' boundary of
    imported history, when it lies in ``month``: those the imported bills crossed."""
    if not any(status.thresholds_crossed for status in statuses):
        return {}
    until = history_boundary(organization, as_of=as_of).bills
    if until is None or month_of(organization, until) != month:
        return {}
    crossed: dict[tuple[int, str], set[int]] = {}
    for status in budget_statuses(organization, month, as_of=min(until, as_of)):
        for threshold in status.thresholds_crossed:
            crossed.setdefault((status.budget.pk, threshold.basis), set()).add(
                threshold.threshold_pct
            )
    return crossed


def _raise_once(
    status: BudgetStatus,
    basis: str,
    thresholds: list[int],
    as_of: dt.datetime,
    *,
    imported: bool = False,
) -> AlertEvent | None:
    if not thresholds:
        return None
    budget = status.budget
    with transaction.atomic():
        known = set(
            BudgetCrossing.objects.filter(
                budget=budget, month=status.month, basis=basis, threshold_pct__in=thresholds
            ).values_list("threshold_pct", flat=True)
        )
        new = [t for t in thresholds if t not in known]
        if not new:
            return None
        amount = status.spent if basis == BudgetBasis.ACTUAL else status.forecast
        try:
            with transaction.atomic():
                crossings = BudgetCrossing.objects.bulk_create(
                    [
                        BudgetCrossing(
                            budget=budget,
                            month=status.month,
                            threshold_pct=t,
                            basis=basis,
                            amount=amount,
                            crossed_at=as_of,
                        )
                        for t in new
                    ]
                )
        except IntegrityError:
            # Another worker recorded (some of) them first: it raises the alert.
            return None
        event = alert_event_raise(
            organization=budget.organization,
            started_at=as_of,
            kind=AlertKind.BUDGET,
            severity=Severity.CRITICAL if max(new) >= 100 else Severity.WARNING,
            budget=budget,
            project_id=budget.project_id,
            imported=imported,
            evidence=_evidence(status, basis, new),
        )
        BudgetCrossing.objects.filter(pk__in=[c.pk for c in crossings]).update(event=event)
        return event


def _evidence(status: BudgetStatus, basis: str, thresholds: list[int]) -> dict[str, object]:
    return {
        "month": status.month,
        "basis": basis,
        "thresholds_pct": sorted(thresholds),
        "budget_amount": str(status.amount),
        "currency": status.currency,
        "spent": str(status.spent),
        "percent_used": str(status.percent_used),
        "daily_average": str(status.daily_average),
        "days_left": str(status.days_left),
        "forecast": str(status.forecast),
        "forecast_pct": str(status.forecast_pct),
        "forecast_method": status.forecast_method,
    }
