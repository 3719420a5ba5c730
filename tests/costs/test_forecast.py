"""The one month-end forecast: bill month, amortized, the same in every timezone."""

from __future__ import annotations

import datetime as dt
import zoneinfo
from decimal import Decimal
from typing import Any

import pytest
from rest_framework.test import APIClient

from apps.accounts import services as accounts_services
from apps.accounts.models import Organization, User
from apps.alerts.models import Budget
from apps.alerts.selectors import budget_statuses
from apps.billing.models import BillLine
from apps.billing.signals import bill_lines_changed
from apps.cloud.models import CloudAccount, Instance
from apps.costs.forecast import DayMoney, forecast_of, month_end_forecast

pytestmark = pytest.mark.django_db
SHANGHAI = zoneinfo.ZoneInfo("Asia/Shanghai")
# 10:00 on 16 November in Beijing: 15 complete days of the bill month behind, 15 left.
AS_OF = dt.datetime(2026, 11, 16, 10, tzinfo=SHANGHAI)
RENEWAL = Decimal("53239.50")


def test_the_forecast_is_recomputable_from_the_rate_in_cents_as_shown() -> None:
    """The screens show the daily rate in cents: the forecast must be that rate times the days
    left, not an unrounded rate's (100.00 over 7 days is 14.2857..., shown as 14.29)."""
    days = {dt.date(2026, 11, day): DayMoney(Decimal("10.00")) for day in range(3, 10)}
    days[dt.date(2026, 11, 3)] = DayMoney(Decimal("40.00"))  # 7 days: 100.00
    as_of = dt.datetime(2026, 11, 10, 9, tzinfo=SHANGHAI)
    forecast = forecast_of(days, "2026-11", as_of)
    assert forecast.run_rate_daily == Decimal("14.29")
    assert forecast.days_left == 21
    assert forecast.spent_before_today == Decimal("100.00")
    assert forecast.forecast == Decimal("100.00") + Decimal("14.29") * 21 == Decimal("400.09")


def test_a_known_purchase_is_added_once_and_not_run_as_a_rate() -> None:
    # 10 a day of usage; a renewal spread at 30 a day over the whole month.
    days = {
        dt.date(2026, 11, 1) + dt.timedelta(days=i): DayMoney(Decimal(40), Decimal(30))
        for i in range(30)
    }
    forecast = forecast_of(days, "2026-11", AS_OF)
    assert forecast.spent_before_today == Decimal(40 * 15)
    assert forecast.run_rate_daily == Decimal("10.00")
    assert forecast.known_purchases == Decimal(30 * 15)
    # Exactly the month's money: 30 days x 40.
    assert forecast.forecast == Decimal(40 * 30)


def test_an_ended_month_forecasts_what_it_cost_and_one_to_come_nothing() -> None:
    days = {dt.date(2026, 10, 5): DayMoney(Decimal(40))}
    ended = forecast_of(days, "2026-10", AS_OF)
    assert (ended.spent, ended.forecast, ended.days_left) == (Decimal(40), Decimal(40), 0)
    to_come = forecast_of(days, "2026-12", AS_OF)
    assert (to_come.spent, to_come.forecast) == (Decimal(0), Decimal(0))


def _fleet(organization: Organization) -> None:
    """The same bills for any organization: a renewal of the 15th, hourly usage every day."""
    account = CloudAccount.objects.create(
        organization=organization, name="t", secret_id="AKID", secret_key_encrypted="x", regions=[]
    )
    instance = Instance.objects.create(
        organization=organization, account=account, provider_id="ins-1", name="gpu", gpu_count=1
    )
    common: dict[str, Any] = {
        "organization": organization,
        "account": account,
        "component_code": "v_cvm_gpu",
        "item_code": "sv_cvm_gpu",
        "instance": instance,
        "list_cost": Decimal(0),
    }
    rows = [
        BillLine(
            **common,
            bill_id="renewal",
            month="2026-11",
            charge_category="purchase",
            fee_begin_at=dt.datetime(2026, 11, 15, tzinfo=SHANGHAI),
            fee_end_at=dt.datetime(2026, 12, 14, 23, 59, 59, tzinfo=SHANGHAI),
            cost=RENEWAL,
        )
    ]
    hour = dt.datetime(2026, 10, 25, tzinfo=SHANGHAI)
    while hour < AS_OF:
        # Busier in Beijing's working hours: a timezone's day boundary would change the rate.
        cost = Decimal("15.12") if 9 <= hour.hour < 18 else Decimal("3.02")
        rows.append(
            BillLine(
                **common,
                bill_id=f"h-{hour:%Y%m%d%H}",
                month=hour.strftime("%Y-%m"),
                fee_begin_at=hour,
                fee_end_at=hour + dt.timedelta(minutes=59, seconds=59),
                cost=cost,
            )
        )
        hour += dt.timedelta(hours=1)
    BillLine.objects.bulk_create(rows)
    bill_lines_changed.send(sender=BillLine, organization=organization, months=None)


def test_the_same_fleet_forecasts_the_same_in_shanghai_and_in_utc(
    acme: Organization, alice: User, client_for: Any
) -> None:
    utc = accounts_services.organization_create(name="Utc", owner=alice, timezone_name="UTC")
    for organization in (acme, utc):
        _fleet(organization)
        Budget.objects.create(
            organization=organization, name="All", amount=Decimal("100000"), currency="CNY"
        )
    in_shanghai = month_end_forecast(acme, currency="CNY", as_of=AS_OF)
    in_utc = month_end_forecast(utc, currency="CNY", as_of=AS_OF)
    assert in_shanghai == in_utc
    assert in_shanghai.month == "2026-11"
    # The renewal's days of November from today on (16th .. 30th) are known, not run as a rate;
    # its 15th is spent.
    assert abs(in_shanghai.known_purchases - RENEWAL * 15 / 30) < Decimal("0.00000001")
    assert in_shanghai.run_rate_daily == Decimal("15.12") * 9 + Decimal("3.02") * 15
    # The budgets and the cost report say the same.
    (budget_shanghai,) = budget_statuses(acme, as_of=AS_OF)
    (budget_utc,) = budget_statuses(utc, as_of=AS_OF)
    assert (
        budget_shanghai.forecast
        == budget_utc.forecast
        == in_shanghai.forecast.quantize(Decimal("0.01"))
    )


def test_the_cost_report_shows_the_forecast(acme: Organization, alice_client: APIClient) -> None:
    _fleet(acme)
    from django.utils import timezone

    body = alice_client.get("/api/v1/costs").json()
    mtd = body["month_to_date"]
    forecast = month_end_forecast(acme, currency="CNY", as_of=timezone.now())
    assert mtd["forecast"] == f"{forecast.forecast:.8f}"
    assert mtd["month"] == forecast.month
    expected = (
        Decimal(mtd["cost_before_today"])
        + Decimal(mtd["run_rate_daily"]) * mtd["days_left"]
        + Decimal(mtd["known_purchases"])
    )
    assert Decimal(mtd["forecast"]) == expected
