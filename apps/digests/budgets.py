"""The budget section of a digest, from the alerts app's ``budget_statuses`` (the same figures
the budget alerts and the budgets API use)."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Sequence
from decimal import Decimal

from django.conf import settings
from django.core.cache import cache

from apps.accounts.models import Organization
from apps.alerts.selectors import budget_statuses, month_of
from apps.digests.cachekeys import figures_key


@dataclasses.dataclass(frozen=True)
class BudgetLine:
    name: str
    project_id: int | None
    project_name: str | None
    month: str
    amount: Decimal
    spent: Decimal
    forecast: Decimal
    percent_used: Decimal
    forecast_pct: Decimal
    currency: str

    @property
    def over(self) -> bool:
        return self.spent > self.amount

    @property
    def forecast_over(self) -> bool:
        return self.forecast > self.amount


def budget_lines(
    *,
    organization: Organization,
    period_end: dt.datetime,
    project_ids: Sequence[int] | None,
    use_cache: bool = True,
) -> list[BudgetLine]:
    """Each budget's month as of the end of the digest's period (the month it ends in).

    A project-scoped digest shows the budgets of its projects only; a whole-organization one
    shows every budget. Every scope's digest reads the organization's statuses from the
    cache (see ``content``).
    """
    as_of = period_end
    # The month the period's last instant belongs to: a monthly digest of October, sent on
    # 1 November, shows how October ended.
    month = month_of(organization, period_end - dt.timedelta(microseconds=1))
    key = figures_key(organization, "budgets", str(period_end.timestamp()))
    lines = cache.get(key) if use_cache else None
    if lines is None:
        lines = _all_budget_lines(organization, month, as_of)
        if use_cache:
            cache.set(key, lines, timeout=settings.DIGEST_FIGURES_CACHE_SECONDS)
    wanted = None if project_ids is None else set(project_ids)
    return [line for line in lines if wanted is None or line.project_id in wanted]


def _all_budget_lines(
    organization: Organization, month: str, as_of: dt.datetime
) -> list[BudgetLine]:
    return [
        BudgetLine(
            name=status.budget.name,
            project_id=status.project_id,
            project_name=status.project_name,
            month=status.month,
            amount=status.amount,
            spent=status.spent,
            forecast=status.forecast,
            percent_used=status.percent_used,
            forecast_pct=status.forecast_pct,
            currency=status.currency,
        )
        for status in budget_statuses(organization, month, as_of=as_of)
    ]
