"""Utilization and an instance's time series, recomputed by hand from the rollups and raw data.

The fleet is tests/analysis's: four Acme instances with three days of synthetic metrics written
through the real metric store (so the rollups are the ones ingest writes), analysed, and one
instance billed by the hour.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from decimal import Decimal
from zoneinfo import ZoneInfo

import numpy as np
import pytest
from rest_framework.test import APIClient

from apps.accounts.models import Organization
from apps.analysis import fleet_pricing, services
from apps.cloud.models import Instance
from apps.metrics.constants import Metric
from apps.metrics.models import InstanceHourRollup
from apps.metrics.selectors import metrics_read
from tests.analysis.conftest import (  # noqa: F401  (fixtures)
    AS_OF,
    DATA_START,
    START,
    acme_account,
    fleet,
    make_instance,
    vision,
)
from tests.analysis.test_pricing import bill_hours
from tests.fleet_generator import fleet_generate

pytestmark = pytest.mark.django_db
SHANGHAI = ZoneInfo("Asia/Shanghai")
PERIOD = {"start": "2026-10-27", "end": "2026-10-28"}
PERIOD_START = dt.datetime(2026, 10, 27, tzinfo=SHANGHAI)
PERIOD_END = dt.datetime(2026, 10, 29, tzinfo=SHANGHAI)


@pytest.fixture
def analysed(fleet: list[Instance]) -> list[Instance]:  # noqa: F811
    services.analysis_run(instance_ids=[i.pk for i in fleet], start=START, end=AS_OF, as_of=AS_OF)
    bill_hours(fleet[0], START, 72)
    return fleet


def _hours(instances: list[Instance]) -> list[InstanceHourRollup]:
    return list(
        InstanceHourRollup.objects.filter(
            instance__in=instances,
            hour_start__gte=PERIOD_START,
            hour_start__lt=PERIOD_END,
            gpu_util_pct_minutes__gt=0,
        )
    )


def test_it_serves_fleet_usage_recomputable_from_the_hourly_rollups(
    alice_client: APIClient, analysed: list[Instance]
) -> None:
    response = alice_client.get("/api/v1/utilization", PERIOD)
    assert response.status_code == 200, response.json()
    total = response.json()["total"]
    hours = _hours(analysed)
    gpu_hours = sum(h.gpu_hours or 0 for h in hours)
    busy = sum(h.gpu_busy_hours or 0 for h in hours)
    assert total["gpu_hours"] == pytest.approx(gpu_hours, abs=1e-3)
    assert total["gpu_util_avg_pct"] == pytest.approx(busy / gpu_hours * 100, abs=0.01)
    assert total["gpu_util_p95_pct"] == pytest.approx(
        np.percentile([h.gpu_util_pct_avg for h in hours], 95), abs=0.01
    )
    assert total["instance_count"] == 4
    # Per phase: the summary's figures (billed money of the billed instance, split exactly).
    figures = fleet_pricing.instances_waste(
        instances=analysed, start=PERIOD_START, end=PERIOD_END, currency="CNY"
    )
    billed = sum((f.total_cost for f in figures), Decimal(0))
    assert billed > 0
    assert Decimal(total["cost"]) == billed
    assert sum(Decimal(p["cost"]) for p in total["phases"]) == billed
    assert {p["phase"] for p in total["phases"] if p["minutes"]} >= {"training", "idle"}


def test_it_groups_usage_by_project_and_by_instance(
    alice_client: APIClient, analysed: list[Instance], django_assert_max_num_queries
) -> None:
    with django_assert_max_num_queries(20):
        body = alice_client.get("/api/v1/utilization", {**PERIOD, "scope": "project"}).json()
    groups = {g["key"]: g for g in body["groups"]}
    assert set(groups) == {"vision", None}
    assert groups["vision"]["instance_count"] == 2
    assert groups[None]["label"] == "Unallocated"
    vision_hours = _hours(analysed[:2])
    assert groups["vision"]["gpu_hours"] == pytest.approx(
        sum(h.gpu_hours or 0 for h in vision_hours), abs=1e-3
    )
    with django_assert_max_num_queries(20):
        body = alice_client.get("/api/v1/utilization", {**PERIOD, "scope": "instance"}).json()
    assert {g["key"] for g in body["groups"]} == {str(i.pk) for i in analysed}
    only = alice_client.get("/api/v1/utilization", {**PERIOD, "project": "vision"}).json()
    assert only["total"]["instance_count"] == 2


@pytest.mark.parametrize(
    ("query", "parameter"),
    [
        ({"scope": "team"}, "scope"),
        ({"start": "2026-10-28", "end": "2026-10-20"}, "end"),
        ({"start": "2026-01-01", "end": "2026-10-20"}, "end"),
        ({"project": "nope"}, "project"),
        ({"granularity": "day"}, "granularity"),
    ],
)
def test_it_rejects_bad_utilization_queries(
    alice_client: APIClient, query: dict[str, str], parameter: str
) -> None:
    response = alice_client.get("/api/v1/utilization", query)
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == [parameter]


def test_it_serves_minutes_for_a_short_range_and_rollups_for_longer_ones(
    alice_client: APIClient, analysed: list[Instance]
) -> None:
    train = analysed[0]
    url = f"/api/v1/instances/{train.pk}/timeseries"
    start = dt.datetime(2026, 10, 27, 6, tzinfo=dt.UTC)
    short = alice_client.get(
        url, {"start": start.isoformat(), "end": (start + dt.timedelta(hours=6)).isoformat()}
    ).json()
    assert short["resolution"] == "minute"
    raw = metrics_read(
        instance_ids=[train.pk],
        metric=Metric.GPU_UTIL_PCT,
        start=start,
        end=start + dt.timedelta(hours=6),
    )[0]
    assert len(short["points"]) == int((~np.isnan(raw)).sum()) > 300
    first = short["points"][0]
    offset = int((dt.datetime.fromisoformat(first["t"]) - start).total_seconds() // 60)
    assert first["gpu_util_pct"] == pytest.approx(float(raw[offset]), abs=0.01)

    days = alice_client.get(
        url, {"start": "2026-10-26T00:00:00Z", "end": "2026-10-29T00:00:00Z"}
    ).json()
    assert days["resolution"] == "hour"
    hours = InstanceHourRollup.objects.filter(instance=train).order_by("hour_start")
    assert len(days["points"]) == hours.count() <= days["max_points"]
    assert days["points"][5]["gpu_util_p95_pct"] == pytest.approx(
        hours[5].gpu_util_pct_p95, abs=0.01
    )

    long = alice_client.get(url, {"start": "2026-08-01", "end": "2026-10-29"}).json()
    assert long["resolution"] == "day"
    assert len(long["points"]) == 3


def test_it_refuses_too_many_points_and_other_organizations_instances(
    alice_client: APIClient, bob_client: APIClient, analysed: list[Instance]
) -> None:
    url = f"/api/v1/instances/{analysed[0].pk}/timeseries"
    response = alice_client.get(
        url, {"start": "2026-10-26", "end": "2026-10-29", "resolution": "minute"}
    )
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["resolution"]
    assert bob_client.get(url).status_code == 404
    assert (
        bob_client.get("/api/v1/utilization", {**PERIOD, "scope": "instance"}).json()["groups"]
        == []
    )


def test_it_serves_gpu_temperature_from_the_stored_metrics_at_every_resolution(
    alice_client: APIClient, analysed: list[Instance]
) -> None:
    train = analysed[0]
    url = f"/api/v1/instances/{train.pk}/timeseries"
    # The analysis fleet has no temperature: write a day of it through the real metric store.
    fleet_generate(
        instance_ids=[train.pk],
        start_day=DATA_START,
        days=1,
        patterns=["training"],
        metrics=["gpu_temp_c"],
    )
    start = dt.datetime(2026, 10, 26, 6, tzinfo=dt.UTC)
    end = start + dt.timedelta(hours=6)
    raw = metrics_read(instance_ids=[train.pk], metric=Metric.GPU_TEMP_C, start=start, end=end)[0]
    minutes = alice_client.get(url, {"start": start.isoformat(), "end": end.isoformat()}).json()
    assert minutes["resolution"] == "minute"
    by_minute = {
        int((dt.datetime.fromisoformat(p["t"]) - start).total_seconds() // 60): p["gpu_temp_c"]
        for p in minutes["points"]
    }
    observed = np.flatnonzero(~np.isnan(raw))
    assert observed.size > 300
    for offset in observed[:: observed.size // 20]:
        assert by_minute[int(offset)] == pytest.approx(float(raw[offset]), abs=0.01)

    hours = alice_client.get(
        url, {"start": "2026-10-26T00:00:00Z", "end": "2026-10-29T00:00:00Z"}
    ).json()
    assert hours["resolution"] == "hour"
    rollups = {
        r.hour_start: r.gpu_temp_c_avg
        for r in InstanceHourRollup.objects.filter(instance=train, gpu_util_pct_minutes__gt=0)
    }
    served = {dt.datetime.fromisoformat(p["t"]): p["gpu_temp_c"] for p in hours["points"]}
    assert served.keys() == rollups.keys()
    first_day = [t for t in served if t.date() == DATA_START]
    assert first_day
    assert all(served[t] == pytest.approx(rollups[t], abs=0.01) for t in served)
    # Only the first day has temperature: the others are null, not zero.
    assert all(served[t] is None for t in served if t.date() > DATA_START)
    assert all(served[t] is not None for t in first_day)


def test_it_sums_the_hourly_rollups_per_local_weekday_and_hour(
    alice_client: APIClient, analysed: list[Instance]
) -> None:
    body = alice_client.get("/api/v1/utilization/hour-of-week", PERIOD).json()
    assert body["timezone"] == "Asia/Shanghai"
    # Recomputed here from every rollup of the period (including hours without a GPU point).
    expected: dict[tuple[int, int], list[float]] = {}
    for row in InstanceHourRollup.objects.filter(
        instance__in=analysed, hour_start__gte=PERIOD_START, hour_start__lt=PERIOD_END
    ):
        local = row.hour_start.astimezone(SHANGHAI)
        cell = expected.setdefault((local.weekday(), local.hour), [0, 0.0, 0.0])
        cell[0] += 1
        cell[1] += row.gpu_hours or 0
        cell[2] += row.gpu_busy_hours or 0
    got = {(c["weekday"], c["hour"]): c for c in body["cells"]}
    assert set(got) == set(expected)
    # Two local days (Tue 27th and Wed 28th October 2026): 48 cells.
    assert {day for day, _ in got} == {1, 2}
    assert len(got) == 48
    for key, (count, hours, busy) in expected.items():
        assert got[key]["instance_hours"] == count
        assert got[key]["gpu_hours"] == pytest.approx(hours, abs=1e-3)
        assert got[key]["gpu_util_avg_pct"] == pytest.approx(busy / hours * 100, abs=0.01)
    assert [(c["weekday"], c["hour"]) for c in body["cells"]] == sorted(got)
    # The fleet's GPU-hours are the utilization endpoint's (which counts hours with a point).
    total = alice_client.get("/api/v1/utilization", PERIOD).json()["total"]
    assert sum(c["gpu_hours"] for c in body["cells"]) == pytest.approx(total["gpu_hours"], abs=0.01)
    only = alice_client.get(
        "/api/v1/utilization/hour-of-week", {**PERIOD, "project": "vision"}
    ).json()
    vision_hours = sum(h.gpu_hours or 0 for h in _hours(analysed[:2]))
    assert only["project"] == "vision"
    assert sum(c["gpu_hours"] for c in only["cells"]) == pytest.approx(vision_hours, abs=0.01)


def test_it_places_rollup_hours_in_the_organization_timezone(
    alice_client: APIClient,
    make_instance: Callable[..., Instance],  # noqa: F811
    acme: Organization,
) -> None:
    instance = make_instance("one", gpu_count=2)
    # 2026-11-01 is a Sunday: 15:00 UTC is Sunday 23:00 and 16:00 UTC Monday 00:00 in Shanghai.
    for hour, busy in ((15, 0.5), (16, 1.5)):
        InstanceHourRollup.objects.create(
            organization=acme,
            instance=instance,
            hour_start=dt.datetime(2026, 11, 1, hour, tzinfo=dt.UTC),
            gpu_count=2,
            gpu_hours=2.0,
            gpu_busy_hours=busy,
            gpu_util_pct_minutes=60,
        )
    body = alice_client.get(
        "/api/v1/utilization/hour-of-week", {"start": "2026-11-01", "end": "2026-11-02"}
    ).json()
    assert body["cells"] == [
        {
            "weekday": 0,
            "hour": 0,
            "instance_hours": 1,
            "gpu_hours": 2.0,
            "gpu_busy_hours": 1.5,
            "gpu_util_avg_pct": 75.0,
        },
        {
            "weekday": 6,
            "hour": 23,
            "instance_hours": 1,
            "gpu_hours": 2.0,
            "gpu_busy_hours": 0.5,
            "gpu_util_avg_pct": 25.0,
        },
    ]


@pytest.mark.parametrize(
    ("query", "parameter"),
    [
        ({"scope": "project"}, "scope"),
        ({"start": "2026-10-28", "end": "2026-10-20"}, "end"),
        ({"project": "nope"}, "project"),
    ],
)
def test_it_rejects_bad_hour_of_week_queries(
    alice_client: APIClient, query: dict[str, str], parameter: str
) -> None:
    response = alice_client.get("/api/v1/utilization/hour-of-week", query)
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == [parameter]
