"""A full sync through the real SDK against the simulator yields exactly the simulator's data."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import numpy as np
import pytest

from apps.billing.models import BalanceSnapshot, BillLine
from apps.billing.selectors import cost_total, cost_totals
from apps.cloud.models import CloudAccount, Instance, InstancePrice, Project, SyncKind
from apps.cloud.providers.tencent.simulator import SimulatorServer
from apps.cloud.sync import runner
from apps.cloud.tasks import run_sync
from apps.metrics.constants import Metric
from apps.metrics.ingest import DATA_LAG, floor_minute
from apps.metrics.selectors import metrics_read
from tests.cloud.conftest import BACKFILL_DAYS, SIM_NOW

pytestmark = [pytest.mark.django_db, pytest.mark.integration]


def full_sync(account: CloudAccount) -> None:
    for kind in runner.ORDER:
        runner.run_kind(account, kind, now=SIM_NOW, backfill_days=BACKFILL_DAYS)


def row_counts() -> dict[str, int]:
    from apps.metrics.models import InstanceDayRollup, InstanceHourRollup, MetricDay

    models = [
        Instance,
        Project,
        InstancePrice,
        BillLine,
        MetricDay,
        InstanceHourRollup,
        InstanceDayRollup,
    ]
    return {model.__name__: model._default_manager.count() for model in models}


def test_it_mirrors_the_simulators_inventory_tags_and_projects(
    account: CloudAccount, simulator: SimulatorServer
) -> None:
    runner.run_kind(account, SyncKind.INVENTORY, now=SIM_NOW)
    expected = {i.instance_id: i for i in simulator.cloud.instances()}
    synced = {i.provider_id: i for i in Instance.objects.filter(account=account)}
    assert set(synced) == set(expected)
    for provider_id, instance in synced.items():
        assert instance.tags == dict(expected[provider_id].tags)
        assert instance.instance_type == expected[provider_id].spec.instance_type
        assert instance.gpu_count > 0
        assert instance.gpu_memory_gb > 0
        project_tag = dict(expected[provider_id].tags).get("project")
        assert (instance.project.name if instance.project else None) == project_tag
    assert set(Project.objects.values_list("name", flat=True)) >= {"项目A"}


def test_it_stores_exactly_the_simulators_metric_points(
    account: CloudAccount, simulator: SimulatorServer
) -> None:
    runner.run_kind(account, SyncKind.INVENTORY, now=SIM_NOW)
    result = runner.run_kind(account, SyncKind.METRICS, now=SIM_NOW, backfill_days=BACKFILL_DAYS)
    start = floor_minute(SIM_NOW - timedelta(days=BACKFILL_DAYS))
    end = floor_minute(SIM_NOW - DATA_LAG)
    expected = simulator.cloud.expected_point_counts(start, end - timedelta(minutes=1))
    instances = list(Instance.objects.filter(account=account).order_by("pk"))
    assert result.points == sum(expected[i.provider_id] for i in instances) * len(Metric.values)
    arrays = metrics_read(
        instance_ids=[i.pk for i in instances], metric=Metric.GPU_UTIL_PCT, start=start, end=end
    )
    for row, instance in zip(arrays, instances, strict=True):
        assert int((~np.isnan(row)).sum()) == expected[instance.provider_id], instance.provider_id
    # Spot-check values: the stored minute equals what the API served.
    series = simulator.cloud.metric_series(
        instances[0].provider_id, "GpuUtil", start, end - timedelta(minutes=1)
    )
    minute = int((series.timestamps[10] - start.timestamp()) // 60)
    assert arrays[0][minute] == pytest.approx(series.values[10], rel=1e-6)


def test_it_reconciles_bills_to_the_cent_per_instance_and_project(
    account: CloudAccount, simulator: SimulatorServer
) -> None:
    full_sync(account)
    month = simulator.cloud.current_month()
    by_instance = cost_totals(BillLine.objects.filter(month=month), "resource_id")
    expected = simulator.cloud.expected_totals_by_instance(month)
    assert {k: v for k, v in by_instance.items() if v} == {k: v for k, v in expected.items() if v}

    by_project = cost_totals(BillLine.objects.filter(month=month), "project__name")
    assert by_project == simulator.cloud.expected_totals_by_project(month)
    balance = BalanceSnapshot.objects.get(account=account)
    assert balance.available == Decimal(simulator.cloud.expected_balance_fen()) / 100


def test_it_changes_nothing_when_synced_twice(account: CloudAccount) -> None:
    full_sync(account)
    before = row_counts()
    full_sync(account)
    assert row_counts() == before
    assert before["BillLine"] > 1000
    assert before["MetricDay"] > 0


@pytest.mark.stack
def test_it_completes_under_throttling_and_server_errors_within_rate_limits(
    make_simulator, acme
) -> None:
    from tests.cloud.conftest import connect

    simulator = make_simulator(throttle_every=5, internal_error_every=7)
    account = connect(acme, simulator)
    # Through the Celery task (run eagerly here), so its retries are part of what is tested.
    for kind in runner.ORDER:
        assert run_sync.apply(args=(account.pk, kind, SIM_NOW.isoformat())).get() == "ok", kind
    month = simulator.cloud.current_month()
    assert cost_total(BillLine.objects.filter(month=month)) == simulator.cloud.expected_month_total(
        month
    )
    outcomes = {record.outcome for record in simulator.request_log.records()}
    assert {"RequestLimitExceeded", "InternalError"} <= outcomes
    for action, limit in {
        "GetMonitorData": 20,
        "DescribeBillDetail": 5,
        "DescribeInstances": 40,
    }.items():
        assert simulator.max_requests_in_any_window(action, 1.0) <= limit, action
