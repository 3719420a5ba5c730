"""Budget status: spend so far in the bill month, the costs forecast, thresholds crossed."""

from __future__ import annotations

import datetime as dt
import zoneinfo
from decimal import ROUND_HALF_UP, Decimal

import pytest

from apps.accounts.models import Organization
from apps.alerts.models import Budget
from apps.alerts.selectors import CENT, budget_statuses
from apps.billing.models import BillLine
from tests.alerts.builders import bill, make_account, make_project

pytestmark = pytest.mark.django_db

SHANGHAI = zoneinfo.ZoneInfo("Asia/Shanghai")
# Midnight starting 16 November in Shanghai: 15 whole days of November are behind, 15 ahead.
AS_OF = dt.datetime(2026, 11, 16, tzinfo=SHANGHAI)


def test_it_sums_the_month_in_the_organizations_timezone_and_forecasts_from_the_last_week(
    acme: Organization, globex: Organization
) -> None:
    account = make_account(acme)
    vision = make_project(acme, "vision")
    speech = make_project(acme, "speech")
    # 100 CNY a day for vision at 10:00 Shanghai time, from 20 October to 15 November.
    day = dt.datetime(2026, 10, 20, 10, tzinfo=SHANGHAI)
    while day < AS_OF:
        bill(account, day, "100.00000000", project=vision)
        day += dt.timedelta(days=1)
    # Either side of the month's first instant in Shanghai (both are 31 October in UTC).
    bill(account, dt.datetime(2026, 10, 31, 23, 30, tzinfo=SHANGHAI), "7", project=speech)
    bill(account, dt.datetime(2026, 11, 1, 0, 30, tzinfo=SHANGHAI), "11", project=speech)
    # After as_of's (bill) day, in another currency, and another organization's: none counts.
    bill(account, AS_OF + dt.timedelta(days=1, hours=1), "1000", project=vision)
    bill(account, dt.datetime(2026, 11, 3, tzinfo=SHANGHAI), "500", currency="USD")
    bill(make_account(globex), dt.datetime(2026, 11, 3, tzinfo=SHANGHAI), "900", currency="CNY")

    Budget.objects.create(organization=acme, name="Acme", amount=Decimal("3000"), currency="CNY")
    Budget.objects.create(
        organization=acme, name="Vision", project=vision, amount=Decimal("2000"), currency="CNY"
    )

    whole, project = budget_statuses(acme, "2026-11", as_of=AS_OF)

    # Vision: 15 days x 100 = 1500 spent; the last 7 days average 100 a day; 15 days left.
    assert project.scope == "project"
    assert project.project_name == "vision"
    assert project.spent == Decimal("1500.00")
    assert project.daily_average == Decimal("100.00")
    assert project.days_left == Decimal("15")
    assert project.forecast == Decimal("3000.00")
    assert project.percent_used == Decimal("75.0")  # 1500 / 2000
    assert project.forecast_pct == Decimal("150.0")  # 3000 / 2000
    assert [(t.threshold_pct, t.basis) for t in project.thresholds_crossed] == [
        (50, "actual"),
        (50, "forecast"),
        (80, "forecast"),
        (100, "forecast"),
    ]
    # The organization: vision's 1500 plus speech's 11 of 1 November (not the 7 of 31 October).
    assert whole.scope == "organization"
    assert whole.project_id is None
    assert whole.spent == Decimal("1511.00")
    # The trailing week (9-15 November) holds only vision's 700: 100 a day.
    assert whole.forecast == Decimal("3011.00")
    assert whole.percent_used == Decimal("50.4")  # 1511 / 3000
    assert [(t.threshold_pct, t.basis) for t in whole.thresholds_crossed] == [
        (50, "actual"),
        (50, "forecast"),
        (80, "forecast"),
        (100, "forecast"),
    ]


def test_it_forecasts_an_ended_month_as_what_it_spent(acme: Organization) -> None:
    account = make_account(acme)
    bill(account, dt.datetime(2026, 10, 5, 12, tzinfo=SHANGHAI), "40")
    Budget.objects.create(organization=acme, name="Acme", amount=Decimal("100"), currency="CNY")

    (status,) = budget_statuses(acme, "2026-10", as_of=AS_OF)

    assert (status.spent, status.forecast, status.days_left) == (
        Decimal("40.00"),
        Decimal("40.00"),
        Decimal(0),
    )
    assert status.thresholds_crossed == []


def test_its_spend_and_daily_average_are_the_lines_recomputed_one_by_one(
    acme: Organization,
) -> None:
    account = make_account(acme)
    vision = make_project(acme, "vision")
    # Every third hour of November so far, with eight decimals and a refund among them.
    hour, n = dt.datetime(2026, 11, 1, tzinfo=SHANGHAI), 0
    while hour < AS_OF:
        cost = Decimal("-3.33333333") if n % 50 == 7 else Decimal(n % 17) + Decimal("0.12345678")
        bill(account, hour, cost, project=vision if n % 2 else None)
        hour += dt.timedelta(hours=3)
        n += 1
    Budget.objects.create(organization=acme, name="Acme", amount=Decimal("9000"), currency="CNY")
    Budget.objects.create(
        organization=acme, name="Vision", project=vision, amount=Decimal("9000"), currency="CNY"
    )

    whole, project = budget_statuses(acme, "2026-11", as_of=AS_OF)

    def by_hand(start: dt.datetime, project_id: int | None = None) -> Decimal:
        lines = BillLine.objects.filter(organization=acme)
        return sum(
            (
                line.cost
                for line in lines
                if start <= line.fee_begin_at < AS_OF
                and (project_id is None or line.project_id == project_id)
            ),
            Decimal(0),
        )

    week_ago = AS_OF - dt.timedelta(days=7)
    month_start = dt.datetime(2026, 11, 1, tzinfo=SHANGHAI)
    assert whole.spent == by_hand(month_start).quantize(CENT, rounding=ROUND_HALF_UP)
    assert project.spent == by_hand(month_start, vision.pk).quantize(CENT, rounding=ROUND_HALF_UP)
    assert whole.daily_average == (by_hand(week_ago) / 7).quantize(CENT, rounding=ROUND_HALF_UP)
    assert project.daily_average == (by_hand(week_ago, vision.pk) / 7).quantize(
        CENT, rounding=ROUND_HALF_UP
    )
    assert whole.spent != project.spent > 0
