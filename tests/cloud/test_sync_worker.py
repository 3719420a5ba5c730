"""Syncs run by real Celery worker processes survive a SIGKILL: nothing lost, nothing doubled."""

from __future__ import annotations

import signal
from collections.abc import Callable
from datetime import timedelta

import numpy as np
import pytest
from django.conf import settings

from apps.billing.models import BillLine
from apps.billing.selectors import cost_total
from apps.cloud.models import CloudAccount, Instance, SyncKind, SyncState
from apps.cloud.providers.tencent.simulator import SimulatorServer
from apps.cloud.sync import runner
from apps.cloud.tasks import run_sync
from apps.metrics.constants import Metric
from apps.metrics.ingest import DATA_LAG, floor_minute
from apps.metrics.selectors import metrics_read
from tests.cloud.conftest import BACKFILL_DAYS, SIM_NOW, connect
from tests.integration.conftest import start_celery_worker, stop_worker, wait_for

pytestmark = [
    pytest.mark.integration,
    pytest.mark.stack,
    pytest.mark.django_db(transaction=True),
    pytest.mark.xdist_group("celery-worker"),
    pytest.mark.usefixtures("publish_to_broker"),
]

WORKER_ENV = {
    # Short leases so the restarted worker may take over the killed one's sync quickly, and
    # small metric windows so a backfill has many steps to be killed between.
    "SYNC_LEASE_SECONDS": "2",
    "SYNC_BACKFILL_DAYS": str(BACKFILL_DAYS),
    "MONITOR_MAX_POINTS": "240",
}


def worker_env() -> dict[str, str]:
    """``WORKER_ENV`` and the outbound hosts this test allows (the simulator): the worker is
    another process, with its own settings, and refuses any other host."""
    return {**WORKER_ENV, "OUTBOUND_ALLOWED_HOSTS": ",".join(settings.OUTBOUND_ALLOWED_HOSTS)}


def run_to_completion(account: CloudAccount, kind: str) -> None:
    """Start a worker, enqueue the sync, wait until it succeeded, stop the worker."""
    worker = start_celery_worker("sync", **worker_env())
    try:
        run_sync.delay(account.pk, kind, SIM_NOW.isoformat())
        done = wait_for(
            lambda: SyncState.objects.get(account=account, kind=kind).last_success_at is not None,
            timeout=180,
        )
        assert done, stop_worker(worker)[-4000:]
    finally:
        stop_worker(worker)


def kill_midway(account: CloudAccount, kind: str, started: Callable[[], object]) -> None:
    worker = start_celery_worker("sync", **worker_env())
    run_sync.delay(account.pk, kind, SIM_NOW.isoformat())
    assert wait_for(started, timeout=120), stop_worker(worker)[-4000:]
    worker.send_signal(signal.SIGKILL)
    worker.wait(timeout=20)
    assert SyncState.objects.get(account=account, kind=kind).last_success_at is None, (
        "killed too late"
    )
    # The killed worker's message is not acknowledged; beat would re-dispatch the due sync.
    wait_for(lambda: False, timeout=2.5)  # let the 2 s lease lapse


def test_it_finishes_a_killed_metrics_backfill_with_every_point_once(acme, make_simulator) -> None:
    simulator: SimulatorServer = make_simulator(delay_ms=25)
    account = connect(acme, simulator)
    runner.run_kind(account, SyncKind.INVENTORY, now=SIM_NOW)
    instances = list(Instance.objects.filter(account=account).order_by("pk"))

    kill_midway(
        account,
        SyncKind.METRICS,
        lambda: Instance.objects.filter(
            account=account, metrics_synced_until__isnull=False
        ).exists(),
    )
    stored_before = Instance.objects.filter(
        account=account, metrics_synced_until__isnull=False
    ).count()
    assert 0 < stored_before <= len(instances)
    run_to_completion(account, SyncKind.METRICS)

    start = floor_minute(SIM_NOW - timedelta(days=BACKFILL_DAYS))
    end = floor_minute(SIM_NOW - DATA_LAG)
    expected = simulator.cloud.expected_point_counts(start, end - timedelta(minutes=1))
    for metric in (Metric.GPU_UTIL_PCT, Metric.CPU_UTIL_PCT):
        arrays = metrics_read(
            instance_ids=[i.pk for i in instances], metric=metric, start=start, end=end
        )
        observed = {
            i.provider_id: int((~np.isnan(row)).sum())
            for i, row in zip(instances, arrays, strict=True)
        }
        assert observed == {i.provider_id: expected[i.provider_id] for i in instances}
    assert set(
        Instance.objects.filter(account=account).values_list("metrics_synced_until", flat=True)
    ) == {end}


def test_it_finishes_a_killed_bill_sync_with_every_line_once(acme, make_simulator) -> None:
    simulator: SimulatorServer = make_simulator(delay_ms=150)
    account = connect(acme, simulator)
    runner.run_kind(account, SyncKind.INVENTORY, now=SIM_NOW)
    month = simulator.cloud.current_month()

    kill_midway(
        account, SyncKind.BILLS, lambda: simulator.request_log.count("DescribeBillDetail") >= 3
    )
    run_to_completion(account, SyncKind.BILLS)

    lines = BillLine.objects.filter(account=account, month=month)
    assert lines.values("bill_id").distinct().count() == simulator.cloud.expected_bill_line_count(
        month
    )
    assert cost_total(lines) == simulator.cloud.expected_month_total(month)
