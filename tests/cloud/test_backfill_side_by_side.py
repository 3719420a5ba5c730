"""manage.py backfill reads bills and metrics side by side (outside a caller's transaction):
the instances only the bills name still get their metrics, and a permanent error in one kind
stops the other at once.

These tests commit (``transaction=True``): inside a test's transaction the command runs the
kinds one after the other, since another thread's connection cannot see uncommitted rows.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from io import StringIO

import numpy as np
import pytest
from django.core.management import CommandError, call_command

from apps.accounts.models import Organization
from apps.cloud.models import CloudAccount, Instance, SyncKind, SyncState
from apps.cloud.providers.tencent.simulator import (
    DEFAULT_SECRET_ID,
    DEFAULT_SECRET_KEY,
    SimulatedCloud,
    SimulatorServer,
)
from apps.cloud.providers.tencent.simulator.fleet import GONE_BEFORE_CONNECT
from apps.cloud.services import cloud_account_create
from apps.metrics.constants import Metric
from apps.metrics.ingest import DATA_LAG, MONITOR_METRICS, floor_minute
from apps.metrics.selectors import metrics_read
from tests.cloud.conftest import SIM_NOW, connect

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration]

# As in test_bills_only_instances.py: the gone instance ran for about three days, ending about
# five days before this moment, all of it inside a 7-day backfill.
NOW = datetime(2026, 11, 10, 4, 30, 17, tzinfo=UTC)
BACKFILL_DAYS = 7
GONE_NAME = "gn7-idle-gone"


def backfill(account: CloudAccount, *, now: datetime, days: int) -> str:
    out = StringIO()
    call_command(
        "backfill",
        account=account.pk,
        days=days,
        no_progress=True,
        as_of=now.isoformat(),
        stdout=out,
        stderr=StringIO(),
    )
    return out.getvalue()


def test_it_reads_the_metrics_of_instances_only_the_bills_name(
    make_simulator: Callable[..., SimulatorServer], acme: Organization
) -> None:
    simulator = make_simulator(now=lambda: NOW, rate_limits={})
    simulator.cloud = SimulatedCloud(
        seed=1, now=lambda: NOW, monitor=simulator.cloud.monitor, scenarios={GONE_BEFORE_CONNECT}
    )
    # One region keeps the metric backfill short; the gone instance ran in ap-guangzhou-3.
    account = cloud_account_create(
        organization=acme,
        name="Tencent (simulated)",
        secret_id=DEFAULT_SECRET_ID,
        secret_key=DEFAULT_SECRET_KEY,
        regions=["ap-guangzhou"],
        endpoint=simulator.endpoint,
        endpoint_scheme="http",
    )

    output = backfill(account, now=NOW, days=BACKFILL_DAYS)

    assert "of instances only the bills name" in output
    (simulated,) = simulator.cloud.fleet.find(name=GONE_NAME)
    instance = Instance.objects.get(account=account, provider_id=simulated.instance_id)
    assert instance.state == "TERMINATED"
    horizon = floor_minute(NOW - timedelta(days=BACKFILL_DAYS))
    (row,) = metrics_read(
        instance_ids=[instance.pk],
        metric=Metric.GPU_UTIL_PCT,
        start=horizon,
        end=floor_minute(NOW - DATA_LAG),
    )
    expected = simulator.cloud.metric_series(
        simulated.instance_id, "GpuUtil", horizon, floor_minute(NOW - DATA_LAG)
    )
    assert int(np.count_nonzero(~np.isnan(row))) == len(expected.timestamps) > 1000
    # Every live instance was read once (side by side with the bills), not again after them.
    live = Instance.objects.filter(account=account).exclude(pk=instance.pk)
    assert not live.filter(metrics_synced_until__isnull=True).exists()


DAYS = 7


def test_it_stops_the_metrics_at_once_when_the_bills_fail_for_good(
    make_simulator: Callable[..., SimulatorServer], acme: Organization
) -> None:
    simulator = make_simulator(denied_actions=frozenset({"DescribeBillDetail"}))
    account = connect(acme, simulator)

    with pytest.raises(CommandError) as error:
        backfill(account, now=SIM_NOW, days=DAYS)

    assert str(error.value).startswith("bills failed: The key of this account is not allowed")
    assert simulator.request_log.count("DescribeBillDetail") == 1
    # The metrics beside it stopped at their next request, far from done: a week of the live
    # instances alone is a window a day for every batch of ten and every metric.
    live_batches = sum(
        math.ceil(len(simulator.cloud.instances(SIM_NOW, region)) / 10)
        for region in account.regions
    )
    full = live_batches * len(MONITOR_METRICS) * DAYS
    assert 0 < simulator.request_log.count("GetMonitorData") < full / 2
    assert SyncState.objects.get(account=account, kind=SyncKind.METRICS).last_success_at is None
    assert not SyncState.objects.filter(account=account, leased_until__isnull=False).exists()
    account.refresh_from_db()
    assert account.status == CloudAccount.Status.FAILING
