"""The cost report's contract: bad input is a 400 naming the parameter, figures are the lines',
queries are pinned. Small hand-made bill lines (the simulator's are in test_reconciliation)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from rest_framework.test import APIClient

from apps.accounts import services as accounts_services
from apps.accounts.models import Organization
from apps.billing.models import BillLine
from apps.billing.services import bill_lines_reassign_projects
from apps.billing.signals import bill_lines_changed
from apps.cloud.models import CloudAccount, Instance, Project
from apps.cloud.projects import ProjectResolver
from apps.costs.models import CostDay

pytestmark = pytest.mark.django_db

SHANGHAI = dt.timezone(dt.timedelta(hours=8))


@pytest.fixture
def lines(acme: Organization) -> list[BillLine]:
    account = CloudAccount.objects.create(
        organization=acme, name="t", secret_id="AKID", secret_key_encrypted="x", regions=[]
    )
    vision = Project.objects.create(organization=acme, name="Vision", slug="vision")
    instances = [
        Instance.objects.create(
            organization=acme,
            account=account,
            provider_id=f"ins-{n}",
            name=f"gpu-{n}",
            region="ap-shanghai",
            instance_type="GN7.2XLARGE32",
            gpu_model="T4",
            gpu_count=1,
            project=vision if n % 2 else None,
            tags={"team": "research"} if n % 3 else {},
        )
        for n in range(6)
    ]
    rows = []
    for n, instance in enumerate(instances):
        for day in (dt.date(2026, 10, 31), dt.date(2026, 11, 1), dt.date(2026, 11, 2)):
            begin = dt.datetime.combine(day, dt.time(10), tzinfo=SHANGHAI)
            rows.append(
                BillLine(
                    organization=acme,
                    account=account,
                    bill_id=f"b-{n}-{day}",
                    component_code="v_cvm_compute",
                    item_code="sv_cvm_compute_gn7",
                    month=day.strftime("%Y-%m"),
                    resource_id=instance.provider_id,
                    instance=instance,
                    project=instance.project,
                    # What the bills sync reads off the line's words (apps.billing.classify).
                    action_type_name="竞价实例小时结" if n == 5 else "按量计费小时结",
                    charge_type="SPOTPAID" if n == 5 else "POSTPAID_BY_HOUR",
                    component_class="runtime",
                    fee_begin_at=begin,
                    fee_end_at=begin + dt.timedelta(minutes=59, seconds=59),
                    list_cost=Decimal("9.5"),
                    cost=Decimal("1.23456789") * (n + 1),
                )
            )
    created = BillLine.objects.bulk_create(rows)
    # As a bills sync does once the lines are written (apps.billing.months).
    bill_lines_changed.send(sender=BillLine, organization=acme, months=["2026-10", "2026-11"])
    return created


@pytest.mark.parametrize(
    ("query", "parameter"),
    [
        ({"group_by": "projet"}, "group_by"),
        ({"group_by": "project,instance,region"}, "group_by"),
        ({"group_by": "project,project"}, "group_by"),
        ({"start": "2026-11-05", "end": "2026-11-01"}, "end"),
        ({"start": "2025-01-01", "end": "2026-11-01"}, "end"),
        ({"start": "2020-01-01", "end": "2026-11-01", "granularity": "month"}, "end"),
        ({"granularity": "hour"}, "granularity"),
        ({"currency": "EUR"}, "currency"),
        ({"start": "01/11/2026"}, "start"),
        ({"projcet": "vision"}, "projcet"),
        ({"project": ""}, "project"),
    ],
)
def test_it_rejects_bad_input_naming_the_parameter(
    alice_client: APIClient, query: dict[str, str], parameter: str
) -> None:
    response = alice_client.get("/api/v1/costs", query)
    assert response.status_code == 400, response.json()
    assert list(response.json()["error"]["fields"]) == [parameter]


def test_it_sums_the_lines_by_local_day_and_dimension(
    lines: list[BillLine], alice_client: APIClient
) -> None:
    response = alice_client.get(
        "/api/v1/costs",
        {"start": "2026-11-01", "end": "2026-11-02", "group_by": "project,charge_type"},
    )
    assert response.status_code == 200, response.json()
    body = response.json()
    unit = Decimal("1.23456789")
    # Instances 1, 3, 5 are Vision's (5 is spot); 0, 2, 4 unallocated; two days each.
    expected = {
        ("vision", "POSTPAID_BY_HOUR"): unit * (2 + 4) * 2,
        ("vision", "SPOTPAID"): unit * 6 * 2,
        (None, "POSTPAID_BY_HOUR"): unit * (1 + 3 + 5) * 2,
    }
    served = {tuple(k["value"] for k in g["keys"]): Decimal(g["cost"]) for g in body["groups"]}
    assert served == expected
    assert Decimal(body["total"]) == unit * 21 * 2
    assert body["buckets"] == ["2026-11-01", "2026-11-02"]
    assert Decimal(body["unallocated"]["cost"]) == unit * 9 * 2
    assert body["unallocated"]["share_pct"] == round(9 / 21 * 100, 2)
    labels = {g["keys"][0]["label"] for g in body["groups"]}
    assert labels == {"Vision", "Unallocated"}
    # The previous two days hold only October 31st.
    assert body["previous_period"]["start"] == "2026-10-30"
    assert Decimal(body["previous_period"]["cost"]) == unit * 21


def test_it_filters_by_tag_and_project(lines: list[BillLine], alice_client: APIClient) -> None:
    body = alice_client.get(
        "/api/v1/costs",
        {"start": "2026-10-31", "end": "2026-11-02", "tag:team": "research", "project": "vision"},
    ).json()
    # Tagged research: instances 1, 2, 4, 5; of Vision: 1, 5.
    assert Decimal(body["total"]) == Decimal("1.23456789") * (2 + 6) * 3
    assert body["filters"] == {"project": ["vision"], "tag:team": ["research"]}


def test_it_buckets_by_week_and_month(lines: list[BillLine], alice_client: APIClient) -> None:
    weekly = alice_client.get(
        "/api/v1/costs", {"start": "2026-10-31", "end": "2026-11-02", "granularity": "week"}
    ).json()
    # Saturday Oct 31 and Sunday Nov 1 are one ISO week; Monday Nov 2 starts the next.
    assert weekly["buckets"] == ["2026-10-26", "2026-11-02"]
    (group,) = weekly["groups"]
    assert [Decimal(p["cost"]) for p in group["series"]] == [
        Decimal("1.23456789") * 21 * 2,
        Decimal("1.23456789") * 21,
    ]
    monthly = alice_client.get(
        "/api/v1/costs", {"start": "2026-10-31", "end": "2026-11-02", "granularity": "month"}
    ).json()
    assert monthly["buckets"] == ["2026-10-01", "2026-11-01"]


def test_it_forecasts_the_bill_month_end_from_the_last_seven_days(
    lines: list[BillLine], alice_client: APIClient
) -> None:
    from django.utils import timezone

    body = alice_client.get("/api/v1/costs").json()
    mtd = body["month_to_date"]
    today = timezone.now().astimezone(SHANGHAI).date()
    assert mtd["today"] == today.isoformat()
    assert mtd["month"] == today.strftime("%Y-%m")
    expected = (
        Decimal(mtd["cost_before_today"])
        + Decimal(mtd["run_rate_daily"]) * mtd["days_left"]
        + Decimal(mtd["known_purchases"])
    )
    assert Decimal(mtd["forecast"]) == expected
    assert mtd["run_rate_days"] == 7


def test_it_keeps_its_query_count_whatever_the_number_of_groups(
    lines: list[BillLine], alice_client: APIClient, django_assert_max_num_queries
) -> None:
    query = {"start": "2026-10-31", "end": "2026-11-02", "group_by": "instance,project"}
    alice_client.get("/api/v1/costs", query)  # builds the daily rollup (a bills sync would)
    with django_assert_max_num_queries(14):
        response = alice_client.get("/api/v1/costs", query)
    assert response.status_code == 200
    assert len(response.json()["groups"]) == 6


def test_it_follows_bill_lines_moved_to_another_project(
    lines: list[BillLine], alice_client: APIClient
) -> None:
    query = {"start": "2026-10-31", "end": "2026-11-02", "group_by": "project"}
    before = alice_client.get("/api/v1/costs", query).json()
    assert Decimal(before["unallocated"]["cost"]) == Decimal("1.23456789") * 9 * 3
    # Instance 0 joins Vision: the reassignment moves its lines, and the rollup follows.
    instance = lines[0].instance
    assert instance is not None
    instance.project = Project.objects.get(slug="vision")
    instance.save()
    bill_lines_reassign_projects(
        organization=instance.organization, resolver=ProjectResolver(instance.organization)
    )
    after = alice_client.get("/api/v1/costs", query).json()
    assert Decimal(after["unallocated"]["cost"]) == Decimal("1.23456789") * 8 * 3
    assert after["total"] == before["total"]


def test_it_rebuilds_the_local_days_when_the_timezone_changes(
    lines: list[BillLine], alice_client: APIClient, acme: Organization
) -> None:
    query = {"start": "2026-11-01", "end": "2026-11-01"}
    assert (
        Decimal(alice_client.get("/api/v1/costs", query).json()["total"])
        == Decimal("1.23456789") * 21
    )
    # 10:00 in Shanghai is 21:00 the day before in New York: November 1st's lines move to
    # October 31st, and November 2nd's to November 1st.
    acme.timezone = "America/New_York"
    acme.save()
    body = alice_client.get("/api/v1/costs", query).json()
    assert Decimal(body["total"]) == Decimal("1.23456789") * 21
    assert body["timezone"] == "America/New_York"
    assert Decimal(
        alice_client.get("/api/v1/costs", {"start": "2026-11-02", "end": "2026-11-02"}).json()[
            "total"
        ]
    ) == Decimal(0)


def test_a_timezone_change_rebuilds_the_rollup_at_the_change(
    lines: list[BillLine], acme: Organization
) -> None:
    def days() -> set[dt.date]:
        return set(CostDay.objects.filter(organization=acme).values_list("day", flat=True))

    assert days() == {dt.date(2026, 10, 31), dt.date(2026, 11, 1), dt.date(2026, 11, 2)}
    # 10:00 in Shanghai is 19:00 the day before in Los Angeles.
    accounts_services.organization_update(organization=acme, timezone="America/Los_Angeles")
    assert days() == {dt.date(2026, 10, 30), dt.date(2026, 10, 31), dt.date(2026, 11, 1)}
