"""Acceptance: /costs over a bill month, as billed, adds up to the bill lines' RealCost exactly,
for every group_by, on the simulator's fleet synced through the real code path."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from decimal import Decimal

import pytest
from rest_framework.test import APIClient

from apps.billing.models import BillLine
from apps.billing.selectors import cost_total, cost_totals
from tests.costs.conftest import MONTH

pytestmark = [pytest.mark.django_db, pytest.mark.integration, pytest.mark.stack]

# The bill as invoiced: a line on the day it was charged (the amortized basis spreads purchases).
BILLED = {"basis": "billed"}
GROUP_BYS = [
    "",
    "project",
    "tag:team",
    "instance",
    "instance_type",
    "gpu_model",
    "charge_type",
    "region",
    "phase",
    "project,phase",
    "charge_type,tag:project",
]


def test_it_reconciles_a_month_to_the_bill_lines_for_every_group_by(
    billed, alice_client: APIClient
) -> None:
    month_lines = BillLine.objects.filter(month=MONTH)
    billed_total = cost_total(month_lines)
    assert month_lines.count() > 10_000
    assert billed_total > 0
    for group_by in GROUP_BYS:
        response = alice_client.get(
            "/api/v1/costs",
            {**BILLED, "start": f"{MONTH}-01", "end": f"{MONTH}-31", "group_by": group_by},
        )
        assert response.status_code == 200, (group_by, response.json())
        body = response.json()
        cells = [Decimal(p["cost"]) for g in body["groups"] for p in g["series"]]
        assert sum(cells, Decimal(0)) == billed_total, group_by
        assert Decimal(body["total"]) == billed_total, group_by
        assert sum(Decimal(g["cost"]) for g in body["groups"]) == billed_total, group_by
        assert len(body["buckets"]) == 31


def test_it_allocates_each_group_to_the_bill_lines_it_names(
    billed, alice_client: APIClient
) -> None:
    """The groups are the lines' own projects, charge types and phases, not just any split."""
    month_lines = BillLine.objects.filter(month=MONTH)
    by_project = cost_totals(month_lines, "project__slug")
    body = alice_client.get(
        "/api/v1/costs",
        {**BILLED, "start": f"{MONTH}-01", "end": f"{MONTH}-31", "group_by": "project"},
    ).json()
    served = {g["keys"][0]["value"]: Decimal(g["cost"]) for g in body["groups"]}
    assert served == {slug: total for slug, total in by_project.items() if total}
    unallocated = by_project.get(None, Decimal(0))
    assert Decimal(body["unallocated"]["cost"]) == unallocated
    assert sum(Decimal(r["cost"]) for r in body["unallocated"]["by_reason"]) == unallocated

    # charge_type is how the simulator billed each instance (its fleet's charge type), whatever
    # codes its lines carry.
    _account, simulator = billed
    expected: dict[str, Decimal] = defaultdict(Decimal)
    fleet_ids = simulator.cloud.fleet.by_id
    for resource_id, charge_type, cost in month_lines.values_list(
        "resource_id", "charge_type", "cost"
    ):
        # A line of no instance (a reserved instance's own purchase) says its charge type itself.
        if resource_id in fleet_ids:
            charge_type = fleet_ids[resource_id].charge_type
        expected[charge_type] += cost
    body = alice_client.get(
        "/api/v1/costs",
        {**BILLED, "start": f"{MONTH}-01", "end": f"{MONTH}-31", "group_by": "charge_type"},
    ).json()
    assert {g["keys"][0]["value"]: Decimal(g["cost"]) for g in body["groups"]} == expected
    assert {"SPOTPAID", "POSTPAID_BY_HOUR"} <= set(expected)

    # The analysed days (Oct 31 local) carry phases; the split of each hour is exact.
    body = alice_client.get(
        "/api/v1/costs",
        {**BILLED, "start": f"{MONTH}-31", "end": f"{MONTH}-31", "group_by": "phase"},
    ).json()
    phases = {g["keys"][0]["value"]: Decimal(g["cost"]) for g in body["groups"]}
    assert phases["training"] > 0
    assert phases["idle"] > 0
    day_lines = month_lines.filter(fee_begin_at__gte=dt.datetime(2026, 10, 30, 16, tzinfo=dt.UTC))
    assert sum(phases.values(), Decimal(0)) == cost_total(day_lines)
    # A filter on one phase serves exactly that phase's share.
    only_idle = alice_client.get(
        "/api/v1/costs", {**BILLED, "start": f"{MONTH}-31", "end": f"{MONTH}-31", "phase": "idle"}
    ).json()
    assert Decimal(only_idle["total"]) == phases["idle"]


def test_it_compares_with_the_previous_period_and_filters_by_tag(
    billed, alice_client: APIClient
) -> None:
    body = alice_client.get(
        "/api/v1/costs",
        {**BILLED, "start": "2026-10-16", "end": "2026-10-31", "tag:team": "research"},
    ).json()
    assert body["previous_period"] == {
        "start": "2026-09-30",
        "end": "2026-10-15",
        "cost": body["previous_period"]["cost"],
    }
    local = dt.timedelta(hours=8)  # Asia/Shanghai
    research = [
        line
        for line in BillLine.objects.filter(month=MONTH).select_related("instance")
        if {**((line.instance.tags if line.instance else None) or {}), **line.tags}.get("team")
        == "research"
    ]
    assert research

    def in_days(first: dt.date, last: dt.date) -> Decimal:
        return sum(
            (line.cost for line in research if first <= (line.fee_begin_at + local).date() <= last),
            Decimal(0),
        )

    assert Decimal(body["total"]) == in_days(dt.date(2026, 10, 16), dt.date(2026, 10, 31))
    # September was not synced: its last day contributes nothing; October 1-15 is all there.
    assert Decimal(body["previous_period"]["cost"]) == in_days(
        dt.date(2026, 10, 1), dt.date(2026, 10, 15)
    )


def test_the_usage_tables_reconcile_to_the_cost_report_on_a_billed_month(
    billed, alice_client: APIClient
) -> None:
    """The simulator's whole fleet, a month of bills: every instance row's cost adds up to the
    report's total less the lines billed to no instance, and the projects' spend to the total."""
    period = {"start": f"{MONTH}-01", "end": f"{MONTH}-31"}
    report = alice_client.get("/api/v1/costs", {**period, "group_by": "instance"}).json()
    total = Decimal(report["total"])
    no_instance = sum(
        (Decimal(g["cost"]) for g in report["groups"] if g["keys"][0]["value"] is None),
        Decimal(0),
    )
    rows = []
    page = 1
    while True:
        body = alice_client.get(
            "/api/v1/usage/instances",
            {**period, "page_size": "500", "page": str(page), "ordering": "-waste"},
        ).json()
        rows.extend(body["results"])
        if not body["next"]:
            break
        page += 1
    assert len({r["id"] for r in rows}) == len(rows) == body["count"]
    assert sum(Decimal(r["cost"]) for r in rows) == total - no_instance
    by_instance = {g["keys"][0]["value"]: Decimal(g["cost"]) for g in report["groups"]}
    assert {r["provider_id"]: Decimal(r["cost"]) for r in rows if Decimal(r["cost"])} == {
        key: cost for key, cost in by_instance.items() if key is not None and cost
    }
    projects = alice_client.get("/api/v1/usage/projects", period).json()["results"]
    assert sum(Decimal(p["cost"]) for p in projects) == total
