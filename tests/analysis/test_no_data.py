"""'No data' is labelled with its reason: no metrics, stopped, or not analysed yet.

The three endpoints that show phase money (an instance's phases, the summary, utilization)
split the unknown phase by reason, and the parts add up to it exactly.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pytest
from rest_framework.test import APIClient

from apps.analysis import services
from apps.cloud.models import Instance
from apps.metrics.models import InstanceHourRollup
from tests.analysis.conftest import AS_OF, START
from tests.analysis.test_pricing import bill_hours

pytestmark = pytest.mark.django_db

DAY = dt.timedelta(days=1)
# The three days with metrics and the day after them, which has none.
PERIOD = {"start": START.isoformat(), "end": (AS_OF + DAY).isoformat()}


def reasons(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {item["reason"]: item for item in body["no_data"]}


def gpu_minutes(instance: Instance, start: dt.datetime, end: dt.datetime) -> int:
    hours = InstanceHourRollup.objects.filter(
        instance=instance, hour_start__gte=start, hour_start__lt=end
    )
    return sum(hours.values_list("gpu_util_pct_minutes", flat=True))


def assert_adds_up(no_data: dict[str, dict[str, Any]], unknown: dict[str, Any]) -> None:
    assert sum(r["minutes"] for r in no_data.values()) == unknown["minutes"]
    assert sum(Decimal(r["gpu_hours"]) for r in no_data.values()) == Decimal(unknown["gpu_hours"])
    if unknown["cost"] is not None:
        assert sum(Decimal(r["cost"]) for r in no_data.values()) == Decimal(unknown["cost"])


def phases(client: APIClient, instance: Instance) -> dict[str, Any]:
    response = client.get(f"/api/v1/instances/{instance.pk}/phases", PERIOD)
    assert response.status_code == 200, response.json()
    return response.json()


def test_it_calls_days_with_metrics_but_no_analysis_not_analysed(
    alice_client: APIClient, fleet: list[Instance]
) -> None:
    train = fleet[0]
    # Only the first day was analysed; all four days are billed.
    services.analysis_run(instance_ids=[train.pk], start=START, end=START + DAY, as_of=AS_OF)
    bill_hours(train, START, 4 * 24)
    body = phases(alice_client, train)
    no_data = reasons(body)
    assert set(no_data) == {"no_metrics", "stopped", "not_analysed"}
    pending = gpu_minutes(train, START + DAY, AS_OF)
    assert pending > 2 * 20 * 60  # two days of samples
    assert no_data["not_analysed"]["minutes"] == pending
    assert no_data["stopped"]["minutes"] == 0
    # The fourth day is billed and has no samples at all.
    assert no_data["no_metrics"]["minutes"] >= 24 * 60
    assert Decimal(no_data["not_analysed"]["cost"]) > 0
    assert_adds_up(no_data, body["totals"]["unknown"])

    # Once the analysis has caught up, nothing is pending any more.
    services.analysis_recent_run(as_of=AS_OF)
    caught_up = reasons(phases(alice_client, train))
    assert caught_up["not_analysed"]["minutes"] == 0
    assert caught_up["no_metrics"]["minutes"] == body["totals"]["unknown"]["minutes"] - pending


def test_it_calls_a_billed_instance_without_samples_no_metrics(
    alice_client: APIClient, fleet: list[Instance]
) -> None:
    train = fleet[0]
    services.analysis_recent_run(as_of=AS_OF)
    bill_hours(train, START, 4 * 24)
    body = phases(alice_client, train)
    no_data = reasons(body)
    assert no_data["no_metrics"]["minutes"] == body["totals"]["unknown"]["minutes"]
    assert no_data["no_metrics"]["minutes"] >= 24 * 60
    assert no_data["no_metrics"]["cost"] == body["totals"]["unknown"]["cost"]
    assert (no_data["stopped"]["minutes"], no_data["not_analysed"]["minutes"]) == (0, 0)


@pytest.mark.parametrize(("state", "reason"), [("STOPPED", "stopped"), ("RUNNING", "no_metrics")])
def test_it_calls_an_unbilled_instance_without_samples_stopped_unless_it_runs(
    alice_client: APIClient, fleet: list[Instance], state: str, reason: str
) -> None:
    idle = fleet[1]
    Instance.objects.filter(pk=idle.pk).update(state=state)
    services.analysis_recent_run(as_of=AS_OF)
    body = phases(alice_client, idle)
    assert body["cost_source"] != "bills"
    no_data = reasons(body)
    assert no_data[reason]["minutes"] == body["totals"]["unknown"]["minutes"]
    assert no_data[reason]["minutes"] >= 24 * 60
    assert no_data["not_analysed"]["minutes"] == 0
    assert_adds_up(no_data, body["totals"]["unknown"])


def test_it_splits_the_summary_and_utilization_no_data_by_reason(
    alice_client: APIClient, fleet: list[Instance]
) -> None:
    services.analysis_run(
        instance_ids=[i.pk for i in fleet], start=START, end=START + DAY, as_of=AS_OF
    )
    for instance in fleet:
        bill_hours(instance, START, 4 * 24)
    response = alice_client.get("/api/v1/analysis/summary", {**PERIOD, "group_by": "project"})
    assert response.status_code == 200
    body = response.json()
    totals = reasons(body["totals"])
    pending = sum(gpu_minutes(i, START + DAY, AS_OF) for i in fleet)
    assert totals["not_analysed"]["minutes"] == pending
    assert_adds_up(totals, body["totals"]["phases"]["unknown"])
    for group in body["groups"]:
        assert_adds_up(reasons(group), group["phases"]["unknown"])

    response = alice_client.get(
        "/api/v1/utilization", {"start": "2026-10-26", "end": "2026-10-29", "scope": "project"}
    )
    assert response.status_code == 200
    usage = response.json()
    for item in [usage["total"], *usage["groups"]]:
        unknown = next(p for p in item["phases"] if p["phase"] == "unknown")
        assert_adds_up(reasons(item), unknown)
    assert reasons(usage["total"])["not_analysed"]["minutes"] > 0
