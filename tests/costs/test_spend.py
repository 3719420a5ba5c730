"""The spend selectors every consumer reads (``apps.costs.spend``), recomputed from the lines."""

from __future__ import annotations

import datetime as dt
import zoneinfo
from decimal import Decimal

import pytest

from apps.accounts.models import Organization
from apps.billing.models import BillLine
from apps.costs import spend
from tests.alerts.builders import bill, make_account, make_instance, make_project

pytestmark = pytest.mark.django_db

SHANGHAI = zoneinfo.ZoneInfo("Asia/Shanghai")
START = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)
END = dt.datetime(2026, 11, 3, tzinfo=dt.UTC)


@pytest.fixture
def lines(acme: Organization, globex: Organization) -> dict[str, object]:
    account = make_account(acme)
    research = make_project(acme, "research")
    train = make_instance(account, "train", research)
    bill(account, START - dt.timedelta(hours=1), "100.00", instance=train, project=research)
    # 15:00 UTC is 23:00 in Shanghai (1 November), 16:00 is 00:00 (2 November).
    bill(account, START + dt.timedelta(hours=15), "0.12345678", instance=train, project=research)
    bill(account, START + dt.timedelta(hours=16), "2.50", instance=train, project=research)
    bill(account, START + dt.timedelta(hours=17), "-0.50", instance=train, project=research)
    bill(account, START + dt.timedelta(hours=18), "1.00")  # no project, no instance
    bill(account, START + dt.timedelta(hours=19), "3.00", currency="USD")
    bill(account, END, "100.00")
    bill(make_account(globex), START + dt.timedelta(hours=18), "50.00")
    return {"research": research, "train": train}


def test_it_sums_the_lines_that_begin_in_the_period_exactly(
    acme: Organization, lines: dict[str, object]
) -> None:
    assert spend.spend_total(acme, START, END) == Decimal("6.12345678")
    assert spend.spend_total(acme, START, END, currency="CNY") == Decimal("3.12345678")
    assert spend.spend_total(acme, END, START) == Decimal(0)


def test_it_groups_by_local_day_project_and_instance(
    acme: Organization, lines: dict[str, object]
) -> None:
    research, train = lines["research"].pk, lines["train"].pk  # type: ignore[attr-defined]
    by = spend.spend_by(
        acme, START, END, ("day", "project", "instance"), tz=SHANGHAI, currency="CNY"
    )
    assert by == {
        (dt.date(2026, 11, 1), research, train): Decimal("0.12345678"),
        (dt.date(2026, 11, 2), research, train): Decimal("2.00"),
        (dt.date(2026, 11, 2), None, None): Decimal("1.00"),
    }
    assert spend.spend_by(acme, START, END, ("day",), tz=dt.UTC, currency="CNY") == {
        (dt.date(2026, 11, 1),): Decimal("3.12345678")
    }
    assert spend.spend_by(acme, START, END, ("currency",), project_ids=[research]) == {
        ("CNY",): Decimal("2.12345678")
    }


def test_it_refuses_what_it_cannot_answer(acme: Organization) -> None:
    with pytest.raises(ValueError, match="amortized"):
        spend.spend_total(acme, START, END, basis=spend.AMORTIZED)
    with pytest.raises(ValueError, match="grouped"):
        spend.spend_by(acme, START, END, ("region",))
    with pytest.raises(ValueError, match="timezone"):
        spend.spend_by(acme, START, END, ("day",))


def test_its_cost_rate_is_the_latest_hour_else_the_subscriptions_per_hour(
    acme: Organization,
) -> None:
    account = make_account(acme)
    hourly = make_instance(account, "hourly")
    prepaid = make_instance(account, "prepaid")
    now = dt.datetime(2026, 11, 20, 12, 30, tzinfo=dt.UTC)
    bill(account, now - dt.timedelta(hours=3), "9.00", instance=hourly)
    for component, cost in (("v_cvm_compute", "1.20"), ("v_cvm_gpu", "8.00")):
        line = bill(account, now - dt.timedelta(hours=2), cost, instance=hourly)
        BillLine.objects.filter(pk=line.pk).update(component_code=component)
    bill(account, now - dt.timedelta(hours=30), "99.00", instance=prepaid)  # a day and more ago
    # Two subscriptions covering now, billed to hh:59:59 as Tencent does: 30 days and 7 days.
    for days, cost in ((30, "2160.00"), (7, "100.00")):
        line = bill(account, now - dt.timedelta(days=1, minutes=30), cost, instance=prepaid)
        BillLine.objects.filter(pk=line.pk).update(
            fee_end_at=line.fee_begin_at + dt.timedelta(days=days, seconds=-1)
        )

    rates = spend.cost_rates_per_hour(acme, [hourly.pk, prepaid.pk], now)

    # The latest hour's components, by hand; the subscriptions' cost over their hours.
    assert rates[hourly.pk] == Decimal("1.20") + Decimal("8.00")
    by_hand = Decimal("2160.00") / (30 * 24) + Decimal("100.00") / (7 * 24)
    assert rates[prepaid.pk] == by_hand.quantize(Decimal("0.00000001"))
    assert spend.cost_rates_per_hour(acme, [prepaid.pk], now - dt.timedelta(days=2)) == {}
