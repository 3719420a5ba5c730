"""The dashboard's usage tables, recomputed by hand from the stored rows.

The fleet is tests/analysis's (four Acme instances, three days of metrics through the real
metric store, analysed); two of them are billed by the hour so that cost and waste differ.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from rest_framework.test import APIClient

from apps.analysis import pricing, services
from apps.billing.models import BillLine
from apps.billing.signals import bill_lines_changed
from apps.cloud.models import Instance
from apps.metrics.models import InstanceHourRollup
from tests.analysis.conftest import (  # noqa: F401  (fixtures)
    AS_OF,
    START,
    acme_account,
    fleet,
    make_instance,
    vision,
)
from tests.analysis.test_pricing import bill_hours

pytestmark = pytest.mark.django_db
SHANGHAI = ZoneInfo("Asia/Shanghai")
PERIOD = {"start": "2026-10-27", "end": "2026-10-28"}
PERIOD_START = dt.datetime(2026, 10, 27, tzinfo=SHANGHAI)
PERIOD_END = dt.datetime(2026, 10, 29, tzinfo=SHANGHAI)
DAYS = [dt.date(2026, 10, 27), dt.date(2026, 10, 28)]
URL = "/api/v1/usage/instances"
INSTANCES_QUERIES = 15
PROJECTS_QUERIES = 14


@pytest.fixture
def analysed(fleet: list[Instance]) -> list[Instance]:  # noqa: F811
    services.analysis_run(instance_ids=[i.pk for i in fleet], start=START, end=AS_OF, as_of=AS_OF)
    bill_hours(fleet[0], START, 72)
    bill_hours(fleet[1], START, 72, compute=Decimal("7.25"))
    # As a bills sync does once the lines are written (apps.billing.months).
    organization = fleet[0].organization
    bill_lines_changed.send(sender=BillLine, organization=organization, months=None)
    return fleet


def _hand_util(instance: Instance) -> tuple[float | None, list[float | None]]:
    hours = InstanceHourRollup.objects.filter(
        instance=instance,
        hour_start__gte=PERIOD_START,
        hour_start__lt=PERIOD_END,
        gpu_util_pct_minutes__gt=0,
    )
    total = [0.0, 0.0]
    daily: dict[dt.date, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for h in hours:
        day = h.hour_start.astimezone(SHANGHAI).date()
        for cell in (total, daily[day]):
            cell[0] += h.gpu_hours or 0
            cell[1] += h.gpu_busy_hours or 0
    avg = total[1] / total[0] * 100 if total[0] else None
    spark = [daily[d][1] / daily[d][0] * 100 if d in daily else None for d in DAYS]
    return avg, spark


def _hand_cost(instance: Instance) -> Decimal:
    lines = BillLine.objects.filter(
        instance=instance, fee_begin_at__gte=PERIOD_START, fee_begin_at__lt=PERIOD_END
    )
    return sum((line.cost for line in lines), Decimal(0))


def test_a_row_is_recomputable_from_the_stored_rows(
    alice_client: APIClient, analysed: list[Instance]
) -> None:
    response = alice_client.get(URL, PERIOD)
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["days"] == [d.isoformat() for d in DAYS]
    assert body["count"] == 4
    rows = {row["id"]: row for row in body["results"]}
    billed = analysed[0]
    row = rows[billed.pk]
    assert Decimal(row["cost"]) == _hand_cost(billed) > 0
    # Waste: the idle minutes of the billed hours priced as the analysis prices them (the
    # per-minute reference implementation, not the rollup path the endpoint reads).
    (reference,) = pricing.instances_waste(
        instances=[billed], start=PERIOD_START, end=PERIOD_END, currency="CNY"
    )
    assert Decimal(row["waste"]) == reference.idle_cost
    avg, spark = _hand_util(billed)
    assert avg is not None
    assert row["gpu_util_avg_pct"] == pytest.approx(avg, abs=0.01)
    assert row["util_daily"] == pytest.approx(spark, abs=0.01)
    assert row["project"] == {"slug": "vision", "name": "vision"}
    # An instance without bills costs nothing in the range.
    unbilled = rows[analysed[3].pk]
    assert Decimal(unbilled["cost"]) == 0


def test_the_instances_costs_add_up_to_the_cost_report(
    alice_client: APIClient, analysed: list[Instance]
) -> None:
    rows = alice_client.get(URL, {**PERIOD, "page_size": "500"}).json()["results"]
    report = alice_client.get("/api/v1/costs", PERIOD).json()
    assert sum(Decimal(r["cost"]) for r in rows) == Decimal(report["total"]) > 0
    projects = alice_client.get("/api/v1/usage/projects", PERIOD).json()["results"]
    assert sum(Decimal(p["cost"]) for p in projects) == Decimal(report["total"])
    by_project = alice_client.get("/api/v1/costs", {**PERIOD, "group_by": "project"}).json()
    expected = {g["keys"][0]["value"]: Decimal(g["cost"]) for g in by_project["groups"]}
    assert {p["slug"]: Decimal(p["cost"]) for p in projects if Decimal(p["cost"])} == expected


@pytest.mark.parametrize("ordering", ["-cost", "cost", "-waste", "waste", "-util", "util", "name"])
def test_pages_follow_the_ordering_without_overlap(
    alice_client: APIClient, analysed: list[Instance], ordering: str
) -> None:
    whole = alice_client.get(URL, {**PERIOD, "ordering": ordering}).json()["results"]
    paged = []
    for page in (1, 2, 3, 4):
        body = alice_client.get(
            URL, {**PERIOD, "ordering": ordering, "page_size": 1, "page": page}
        ).json()
        paged.extend(body["results"])
    assert [r["id"] for r in paged] == [r["id"] for r in whole]
    field = {"cost": "cost", "waste": "waste", "util": "gpu_util_avg_pct", "name": "name"}[
        ordering.lstrip("-")
    ]
    values = [r[field] for r in whole if r[field] is not None]
    if field in ("cost", "waste"):
        values = [Decimal(v) for v in values]
    assert values == sorted(values, reverse=ordering.startswith("-"))
    # Rows without the figure come last.
    flags = [r[field] is None for r in whole]
    assert flags == sorted(flags)


def test_it_filters(alice_client: APIClient, analysed: list[Instance]) -> None:
    def ids(**query: str) -> set[int]:
        response = alice_client.get(URL, {**PERIOD, **query})
        assert response.status_code == 200, response.json()
        return {r["id"] for r in response.json()["results"]}

    assert ids(project="vision") == {analysed[0].pk, analysed[1].pk}
    assert ids(search=analysed[2].provider_id.upper()) == {analysed[2].pk}
    Instance.objects.filter(pk=analysed[3].pk).update(tags={"team": "nlp"}, state="STOPPED")
    assert ids(tag="team:nlp") == {analysed[3].pk}
    assert ids(state="STOPPED") == {analysed[3].pk}
    assert ids(region="nowhere") == set()
    utils = {
        r["id"]: r["gpu_util_avg_pct"] for r in alice_client.get(URL, PERIOD).json()["results"]
    }
    low = sorted(u for u in utils.values() if u is not None)[1]
    assert ids(util_min=str(low)) == {k for k, u in utils.items() if u is not None and u >= low}


def test_terminated_instances_show_when_they_cost_something(
    alice_client: APIClient, analysed: list[Instance]
) -> None:
    Instance.objects.filter(pk__in=[analysed[0].pk, analysed[3].pk]).update(
        state="TERMINATED", terminated_at=START - dt.timedelta(days=1)
    )
    rows = {r["id"]: r for r in alice_client.get(URL, PERIOD).json()["results"]}
    assert rows[analysed[0].pk]["state"] == "TERMINATED"
    assert analysed[3].pk not in rows


@pytest.mark.parametrize(
    ("query", "parameter"),
    [
        ({"ordering": "price"}, "ordering"),
        ({"start": "2026-10-28", "end": "2026-10-20"}, "end"),
        ({"start": "2026-01-01", "end": "2026-10-20"}, "end"),
        ({"project": "nope"}, "project"),
        ({"tag": "team"}, "tag"),
        ({"util_min": "150"}, "util_min"),
        ({"util_min": "50", "util_max": "10"}, "util_max"),
        ({"charge_type": "FREE"}, "charge_type"),
        ({"colour": "red"}, "colour"),
        ({"page_size": "0"}, "page_size"),
    ],
)
def test_it_rejects_bad_queries_naming_the_parameter(
    alice_client: APIClient, query: dict[str, str], parameter: str
) -> None:
    response = alice_client.get(URL, query)
    assert response.status_code == 400
    assert parameter in str(response.json())


def test_projects_usage_matches_utilization_by_project(
    alice_client: APIClient, analysed: list[Instance]
) -> None:
    body = alice_client.get("/api/v1/usage/projects", PERIOD).json()
    rows = {r["slug"]: r for r in body["results"]}
    assert body["results"][-1]["slug"] is None
    assert rows[None]["name"] == "Unallocated"
    util = alice_client.get("/api/v1/utilization", {**PERIOD, "scope": "project"}).json()
    groups = {g["key"]: g for g in util["groups"]}
    for slug in ("vision", None):
        assert rows[slug]["gpu_hours"] == pytest.approx(groups[slug]["gpu_hours"], abs=1e-3)
        assert rows[slug]["gpu_util_avg_pct"] == pytest.approx(
            groups[slug]["gpu_util_avg_pct"], abs=0.01
        )
    instances = alice_client.get(URL, {**PERIOD, "project": "vision"}).json()["results"]
    assert Decimal(rows["vision"]["waste"]) == sum(Decimal(r["waste"]) for r in instances)
    assert len(rows["vision"]["cost_daily"]) == 2
    assert sum(Decimal(c) for c in rows["vision"]["cost_daily"]) == Decimal(rows["vision"]["cost"])
    assert alice_client.get("/api/v1/usage/projects", {"end": "x"}).status_code == 400


def test_queries_do_not_grow_with_rows(
    alice_client: APIClient, analysed: list[Instance], django_assert_max_num_queries
) -> None:
    # Warm up: the first read builds the daily cost rollup.
    assert alice_client.get(URL, PERIOD).status_code == 200
    # Session and membership (4), the count, the instances, their costs, their hours, the waste
    # pricing's few queries, the facets: the same whatever the number of instances
    # (tests/api/test_query_counts.py adds rows and pins it).
    for ordering in ("-cost", "-waste", "util", "name"):
        with django_assert_max_num_queries(INSTANCES_QUERIES):
            assert alice_client.get(URL, {**PERIOD, "ordering": ordering}).status_code == 200
    with django_assert_max_num_queries(PROJECTS_QUERIES):
        assert alice_client.get("/api/v1/usage/projects", PERIOD).status_code == 200
