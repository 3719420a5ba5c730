"""The two bases of /costs and the usage tables: billed equals the bill, amortized spreads a
purchase over the days it covers, both to the cent, for every group_by."""

from __future__ import annotations

import datetime as dt
import zoneinfo
from decimal import Decimal
from typing import Any

import pytest
from rest_framework.test import APIClient

from apps.accounts.models import Organization
from apps.billing.models import BillLine
from apps.billing.signals import bill_lines_changed
from apps.cloud.models import CloudAccount, Instance, Project
from apps.costs.models import CostDay
from apps.costs.services import cost_days_rebuild

pytestmark = pytest.mark.django_db
SHANGHAI = zoneinfo.ZoneInfo("Asia/Shanghai")
RENEWAL = Decimal("53239.50000000")
REFUND = Decimal("-5627.00000000")
CREDIT = Decimal("-120.96000000")
HOURLY = Decimal("15.12000000")
GROUP_BYS = [
    "",
    "project",
    "instance",
    "instance_type",
    "gpu_model",
    "charge_type",
    "region",
    "tag:team",
    "phase",
    "project,phase",
]


def _at(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text).replace(tzinfo=SHANGHAI)


def _line(account: CloudAccount, instance: Instance, bill_id: str, **fields: Any) -> BillLine:
    return BillLine(
        organization=account.organization,
        account=account,
        bill_id=bill_id,
        component_code="v_cvm_gpu",
        item_code="sv_cvm_gpu",
        resource_id=instance.provider_id,
        instance=instance,
        project=instance.project,
        component_class="runtime",
        list_cost=fields["cost"],
        **fields,
    )


@pytest.fixture
def bills(acme: Organization) -> list[BillLine]:
    """A prepaid instance renewed for a month (2026-10-15 .. 11-14), a refund of its last
    days, an SLA credit; a pay-as-you-go instance billing three hours a day."""
    account = CloudAccount.objects.create(
        organization=acme, name="t", secret_id="AKID", secret_key_encrypted="x", regions=[]
    )
    vision = Project.objects.create(organization=acme, name="Vision", slug="vision")
    prepaid, hourly = (
        Instance.objects.create(
            organization=acme,
            account=account,
            provider_id=f"ins-{name}",
            name=name,
            region="ap-shanghai",
            instance_type="GN10X.9XLARGE160",
            gpu_model="V100",
            gpu_count=4,
            charge_type=charge_type,
            project=vision if name == "prepaid" else None,
            tags={"team": "research"},
        )
        for name, charge_type in (("prepaid", "PREPAID"), ("hourly", "POSTPAID_BY_HOUR"))
    )
    # (bill id, month, ActionTypeName, category, fee period, cost) of the prepaid instance.
    prepaid_lines = [
        ("renewal", "2026-10", "包年包月续费", "purchase", "10-15", "11-14", RENEWAL),
        ("refund", "2026-11", "包年包月退款", "refund", "11-10", "11-14", REFUND),
        ("credit", "2026-11", "调账", "credit", "11-03", "11-30", CREDIT),
    ]
    rows = [
        _line(
            account,
            prepaid,
            bill_id,
            month=month,
            action_type_name=action,
            charge_type="PREPAID",
            charge_category=category,
            fee_begin_at=_at(f"2026-{first} 00:00:00"),
            fee_end_at=_at(f"2026-{last} 23:59:59"),
            cost=cost,
        )
        for bill_id, month, action, category, first, last, cost in prepaid_lines
    ]
    day = dt.date(2026, 10, 13)
    while day <= dt.date(2026, 11, 16):
        for hour in (9, 10, 11):
            begin = dt.datetime.combine(day, dt.time(hour), tzinfo=SHANGHAI)
            rows.append(
                _line(
                    account,
                    hourly,
                    f"h-{day}-{hour}",
                    month=day.strftime("%Y-%m"),
                    action_type_name="按量计费小时结",
                    charge_type="POSTPAID_BY_HOUR",
                    fee_begin_at=begin,
                    fee_end_at=begin + dt.timedelta(minutes=59, seconds=59),
                    cost=HOURLY,
                )
            )
        day += dt.timedelta(days=1)
    created = BillLine.objects.bulk_create(rows)
    bill_lines_changed.send(sender=BillLine, organization=acme, months=["2026-10", "2026-11"])
    return created


def _report(client: APIClient, **query: str) -> dict[str, Any]:
    response = client.get("/api/v1/costs", query)
    assert response.status_code == 200, response.json()
    return response.json()


def _totals(body: dict[str, Any]) -> tuple[Decimal, Decimal, Decimal]:
    cells = sum((Decimal(p["cost"]) for g in body["groups"] for p in g["series"]), Decimal(0))
    groups = sum((Decimal(g["cost"]) for g in body["groups"]), Decimal(0))
    return Decimal(body["total"]), groups, cells


def _hourly_between(first: dt.date, last: dt.date) -> Decimal:
    return HOURLY * 3 * ((last - first).days + 1)


@pytest.mark.parametrize("group_by", GROUP_BYS)
def test_billed_totals_equal_the_bill_for_every_group_by(
    bills: list[BillLine], alice_client: APIClient, group_by: str
) -> None:
    body = _report(
        alice_client, basis="billed", start="2026-10-01", end="2026-11-30", group_by=group_by
    )
    bill = sum((line.cost for line in bills), Decimal(0))
    assert body["basis"] == "billed"
    assert _totals(body) == (bill, bill, bill)
    # As invoiced: the renewal is all on the day it was charged.
    on_the_15th = _report(alice_client, basis="billed", start="2026-10-15", end="2026-10-15")
    assert Decimal(on_the_15th["total"]) == RENEWAL + HOURLY * 3


@pytest.mark.parametrize("group_by", GROUP_BYS)
def test_amortized_totals_over_the_covered_period_equal_the_purchase(
    bills: list[BillLine], alice_client: APIClient, group_by: str
) -> None:
    # The renewal's 31 days, the refund's 5 and the credit's day all lie in it.
    first, last = dt.date(2026, 10, 15), dt.date(2026, 11, 14)
    body = _report(alice_client, start=first.isoformat(), end=last.isoformat(), group_by=group_by)
    expected = RENEWAL + REFUND + CREDIT + _hourly_between(first, last)
    assert body["basis"] == "amortized"
    assert _totals(body) == (expected, expected, expected)


def test_amortized_days_carry_an_even_share_of_the_renewal(
    bills: list[BillLine], alice_client: APIClient
) -> None:
    body = _report(alice_client, start="2026-10-13", end="2026-11-16", group_by="instance")
    prepaid = next(g for g in body["groups"] if g["keys"][0]["value"] == "ins-prepaid")
    series = {p["period_start"]: Decimal(p["cost"]) for p in prepaid["series"]}
    share = RENEWAL / 31
    assert series["2026-10-14"] == 0
    assert abs(series["2026-10-15"] - share) < Decimal("0.00000001")
    # The refund returns the last five days: a fifth of it on each.
    assert abs(series["2026-11-12"] - (share + REFUND / 5)) < Decimal("0.00000002")
    assert series["2026-11-03"] - (share + CREDIT) < Decimal("0.00000001")
    assert series["2026-11-15"] == 0
    assert sum(series.values(), Decimal(0)) == RENEWAL + REFUND + CREDIT


def test_the_usage_tables_follow_the_basis(bills: list[BillLine], alice_client: APIClient) -> None:
    period = {"start": "2026-10-15", "end": "2026-10-21"}
    instances = {
        basis: {
            row["provider_id"]: Decimal(row["cost"])
            for row in alice_client.get("/api/v1/usage/instances", {**period, **basis_q}).json()[
                "results"
            ]
        }
        for basis, basis_q in (("amortized", {}), ("billed", {"basis": "billed"}))
    }
    assert instances["billed"]["ins-prepaid"] == RENEWAL
    assert abs(instances["amortized"]["ins-prepaid"] - RENEWAL * 7 / 31) < Decimal("0.0000001")
    assert instances["billed"]["ins-hourly"] == instances["amortized"]["ins-hourly"]
    projects = alice_client.get("/api/v1/usage/projects", {**period, "basis": "billed"}).json()
    assert projects["basis"] == "billed"
    vision = next(row for row in projects["results"] if row["slug"] == "vision")
    assert Decimal(vision["cost"]) == RENEWAL


@pytest.mark.parametrize(
    "path", ["/api/v1/costs", "/api/v1/usage/instances", "/api/v1/usage/projects"]
)
def test_a_bad_basis_is_a_400_naming_it(alice_client: APIClient, path: str) -> None:
    response = alice_client.get(path, {"basis": "cash"})
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["basis"]


def test_rebuilding_one_month_rewrites_the_days_its_purchases_cover(
    bills: list[BillLine], acme: Organization
) -> None:
    def rows() -> list[tuple[Any, ...]]:
        return sorted(
            CostDay.objects.filter(organization=acme).values_list(
                "basis", "day", "instance_id", "cost"
            )
        )

    full = rows()
    renewal = BillLine.objects.get(bill_id="renewal")
    BillLine.objects.filter(pk=renewal.pk).update(cost=RENEWAL * 2)
    cost_days_rebuild(organization=acme, months=["2026-10"])
    after = [row for row in rows() if row[0] == "amortized"]
    november = sum((row[3] for row in after if row[1] >= dt.date(2026, 11, 1)), Decimal(0))
    assert november > sum(
        (row[3] for row in full if row[0] == "amortized" and row[1] >= dt.date(2026, 11, 1)),
        Decimal(0),
    )
    # The same rows a full rebuild writes.
    partial = rows()
    cost_days_rebuild(organization=acme)
    assert rows() == partial
