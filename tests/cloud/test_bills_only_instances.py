"""An instance terminated before the account was connected is learned from its bills.

The simulator's ``gone_before_connect`` scenario adds an idle pay-as-you-go instance that ran
about three days and was terminated about five days before the first backfill: DescribeInstances
no longer lists it, its bill lines and its Cloud Monitor metrics are still there.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import numpy as np
import pytest
from rest_framework.test import APIClient

from apps.accounts.models import Organization
from apps.analysis import pricing, services
from apps.billing import classify
from apps.billing.models import BillLine
from apps.billing.selectors import cost_total
from apps.cloud.models import CloudAccount, Instance, InstanceSource, SyncKind
from apps.cloud.providers.tencent.simulator import (
    DEFAULT_SECRET_ID,
    DEFAULT_SECRET_KEY,
    SimulatedCloud,
    SimulatorServer,
)
from apps.cloud.providers.tencent.simulator.constants import from_epoch
from apps.cloud.providers.tencent.simulator.fleet import GONE_BEFORE_CONNECT
from apps.cloud.services import cloud_account_create
from apps.cloud.sync import runner
from apps.cloud.sync.inventory import sync_inventory
from apps.metrics.constants import Metric
from apps.metrics.ingest import DATA_LAG, MONITOR_METRICS, floor_minute
from apps.metrics.selectors import metrics_read

pytestmark = [pytest.mark.django_db, pytest.mark.integration, pytest.mark.stack]

# Ten days into a month: the gone instance's whole life and the backfill are in November.
NOW = datetime(2026, 11, 10, 4, 30, 17, tzinfo=UTC)
BACKFILL_DAYS = 7
HORIZON = floor_minute(NOW - timedelta(days=BACKFILL_DAYS))
GONE_NAME = "gn7-idle-gone"


@pytest.fixture
def simulator(make_simulator: Callable[..., SimulatorServer]) -> SimulatorServer:
    server = make_simulator(now=lambda: NOW, rate_limits={})
    # The server is built with the default fleet; the scenario's cloud replaces it before any
    # request is served (the handlers read ``server.cloud`` on every request).
    server.cloud = SimulatedCloud(
        seed=1, now=lambda: NOW, monitor=server.cloud.monitor, scenarios={GONE_BEFORE_CONNECT}
    )
    return server


@pytest.fixture
def account(acme: Organization, simulator: SimulatorServer) -> CloudAccount:
    # One region keeps the metric backfill short; the gone instance ran in ap-guangzhou-3.
    return cloud_account_create(
        organization=acme,
        name="Tencent (simulated)",
        secret_id=DEFAULT_SECRET_ID,
        secret_key=DEFAULT_SECRET_KEY,
        regions=["ap-guangzhou"],
        endpoint=simulator.endpoint,
        endpoint_scheme="http",
    )


def first_backfill(account: CloudAccount) -> None:
    """What ``manage.py backfill`` runs, at the frozen simulation time."""
    for kind in runner.ORDER:
        runner.run_kind(account, kind, now=NOW, backfill_days=BACKFILL_DAYS)
        runner.sync_release(account.pk, kind, next_run_at=NOW, success_at=NOW)


def gone(simulator: SimulatorServer):
    (instance,) = simulator.cloud.fleet.find(name=GONE_NAME)
    return instance


def test_it_lists_an_instance_terminated_before_the_connection_as_terminated(
    account: CloudAccount, simulator: SimulatorServer, alice_client: APIClient
) -> None:
    simulated = gone(simulator)
    listed = {i.instance_id for i in simulator.cloud.instances(NOW, "ap-guangzhou")}
    assert simulated.instance_id not in listed, "the cloud must no longer list it"

    first_backfill(account)

    instance = Instance.objects.get(account=account, provider_id=simulated.instance_id)
    assert instance.source == InstanceSource.BILLS
    assert instance.state == "TERMINATED"
    # Its life from its first and last billed second, exactly.
    assert instance.launched_at == from_epoch(simulated.created_at)
    assert instance.terminated_at == from_epoch(simulated.terminated_at)
    assert (instance.region, instance.zone) == ("ap-guangzhou", "ap-guangzhou-3")
    assert instance.instance_type == "GN7.2XLARGE32"
    assert (instance.gpu_count, instance.gpu_model) == (1.0, simulated.spec.gpu_type)
    assert instance.gpu_memory_gb > 0
    assert instance.charge_type == "POSTPAID_BY_HOUR"
    assert instance.tags == dict(simulated.tags)
    assert instance.project is not None
    assert instance.project.name == "vision"

    response = alice_client.get("/api/v1/instances", {"state": "TERMINATED"})
    assert response.status_code == 200
    rows = {row["provider_id"]: row for row in response.json()["results"]}
    assert rows[simulated.instance_id]["state"] == "TERMINATED"
    assert rows[simulated.instance_id]["project"] == "vision"


def test_it_attaches_the_gone_instances_bills_to_it(
    account: CloudAccount, simulator: SimulatorServer
) -> None:
    simulated = gone(simulator)
    first_backfill(account)
    instance = Instance.objects.get(provider_id=simulated.instance_id)
    lines = BillLine.objects.filter(resource_id=simulated.instance_id)
    assert lines.count() > 2 * 24 * 2, "about three days of hourly lines, two components each"
    assert not lines.exclude(instance=instance).exists()
    assert not lines.exclude(project=instance.project).exists()
    assert cost_total(lines) == simulator.cloud.expected_bill_total(
        simulated.instance_id, "2026-11"
    )
    # The month still reconciles to the cent, and nothing else became an instance.
    assert cost_total(BillLine.objects.all()) == simulator.cloud.expected_month_total("2026-11")
    assert not Instance.objects.filter(source=InstanceSource.BILLS).exclude(pk=instance.pk).exists()


def test_it_stores_the_gone_instances_metrics_for_the_time_it_ran_and_asks_no_more(
    account: CloudAccount, simulator: SimulatorServer
) -> None:
    simulated = gone(simulator)
    first_backfill(account)
    instance = Instance.objects.get(provider_id=simulated.instance_id)
    end = floor_minute(NOW - DATA_LAG)
    (row,) = metrics_read(
        instance_ids=[instance.pk], metric=Metric.GPU_UTIL_PCT, start=HORIZON, end=end
    )
    expected = simulator.cloud.metric_series(
        simulated.instance_id, "GpuUtil", HORIZON, end - timedelta(minutes=1)
    )
    assert len(expected.timestamps) > 1000, "more than a day of its life is inside the backfill"
    stored = np.flatnonzero(~np.isnan(row))
    assert len(stored) == len(expected.timestamps)
    last_minute = (expected.timestamps[-1] - int(HORIZON.timestamp())) // 60
    assert stored[-1] == last_minute
    assert row[last_minute] == pytest.approx(expected.values[-1], rel=1e-6)
    assert instance.terminated_at is not None
    assert from_epoch(expected.timestamps[-1]) < instance.terminated_at

    # The next sync asks Cloud Monitor only about the live instances, in one window each.
    later = NOW + timedelta(minutes=10)
    result = runner.run_kind(account, SyncKind.METRICS, now=later, backfill_days=BACKFILL_DAYS)
    live = len(simulator.cloud.instances(NOW, "ap-guangzhou"))
    assert result.requests == math.ceil(live / 10) * len(MONITOR_METRICS)


def test_it_shows_the_gone_instances_idle_cost_in_the_analysis(
    account: CloudAccount, simulator: SimulatorServer, alice_client: APIClient
) -> None:
    simulated = gone(simulator)
    first_backfill(account)
    services.analysis_full_run(as_of=NOW)
    instance = Instance.objects.get(provider_id=simulated.instance_id)

    (figures,) = pricing.instances_waste(
        instances=[instance], start=HORIZON, end=NOW, currency="CNY"
    )
    billed_in_period = cost_total(
        BillLine.objects.filter(
            instance=instance,
            component_class__in=classify.PRICED_AS_RUNTIME,
            fee_begin_at__gte=HORIZON,
        )
    )
    assert figures.cost_source == pricing.SOURCE_BILLS
    assert figures.idle_cost > Decimal("0.9") * billed_in_period > 0

    response = alice_client.get(
        "/api/v1/analysis/summary",
        {"start": HORIZON.isoformat(), "end": NOW.isoformat(), "group_by": "project"},
    )
    assert response.status_code == 200, response.json()
    (vision,) = [g for g in response.json()["groups"] if g["project_name"] == "vision"]
    vision_instances = Instance.objects.filter(project=instance.project).exclude(pk=instance.pk)
    without = pricing.instances_waste(
        instances=[i for i in vision_instances if i.gpu_count], start=HORIZON, end=NOW,
        currency="CNY",
    )  # fmt: skip
    assert Decimal(vision["idle_cost"]) == (
        sum((w.idle_cost for w in without), Decimal(0)) + figures.idle_cost
    ).quantize(Decimal("0.01"))
    assert Decimal(vision["idle_cost"]) > 0


def test_it_keeps_the_gone_instance_terminated_when_the_inventory_runs_again(
    account: CloudAccount, simulator: SimulatorServer
) -> None:
    simulated = gone(simulator)
    first_backfill(account)
    before = Instance.objects.get(provider_id=simulated.instance_id)
    sync_inventory(account, account_client(account), now=NOW + timedelta(hours=1))
    runner.run_kind(account, SyncKind.BILLS, now=NOW + timedelta(hours=1))
    after = Instance.objects.get(provider_id=simulated.instance_id)
    assert (after.state, after.source) == ("TERMINATED", InstanceSource.BILLS)
    assert (after.launched_at, after.terminated_at) == (before.launched_at, before.terminated_at)


def account_client(account: CloudAccount):
    from apps.cloud.services import cloud_account_client

    return cloud_account_client(account)
