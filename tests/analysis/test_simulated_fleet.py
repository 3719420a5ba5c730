"""Acceptance on the built-in Tencent Cloud simulator's fleet.

Inventory, prices and bills are synced through the real code path. The 15 days of metrics the
profiles need come straight from the simulator's series (exactly the points GetMonitorData
serves, see tests/cloud/test_sync.py) into the metric store, because 15 days over the SDK take
half a minute per test; then the nightly recompute runs as the task runs it.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from rest_framework.test import APIClient

from apps.accounts.models import Organization
from apps.analysis import batches, services, tasks
from apps.analysis.models import AnalysisState, InstanceProfile, PhaseDay
from apps.billing.models import BillLine
from apps.billing.selectors import cost_total
from apps.cloud.models import CloudAccount, Instance, SyncKind
from apps.cloud.sync import runner
from apps.core.timegrid import floor_hour
from apps.metrics.constants import Metric
from apps.metrics.ingest import DATA_LAG, floor_minute
from apps.metrics.models import InstanceDayRollup
from apps.metrics.services import MetricSeries, metrics_write, metrics_write_bulk
from tests.cloud.conftest import SIM_NOW, connect

pytestmark = [pytest.mark.django_db(transaction=False), pytest.mark.integration]

# Every runtime component (compute, GPU, unknown) of the hours of use: what an hour costs.
RUNTIME_CLASSES = ["runtime", "unknown"]

METRIC_DAYS = 15
# A first backfill longer than the fortnight the analysis used to cover.
BACKFILL_METRIC_DAYS = 20


@pytest.fixture
def synced(make_simulator, acme: Organization) -> tuple[CloudAccount, object]:
    simulator = make_simulator(rate_limits={})
    account = connect(acme, simulator)
    runner.run_kind(account, SyncKind.INVENTORY, now=SIM_NOW)
    runner.run_kind(account, SyncKind.PRICES, now=SIM_NOW)
    return account, simulator


def _store_metrics(account: CloudAccount, simulator, *, days: int, patterns=None) -> None:
    start = floor_minute(SIM_NOW - dt.timedelta(days=days))
    end = floor_minute(SIM_NOW - DATA_LAG) - dt.timedelta(minutes=1)
    instances = Instance.objects.filter(account=account)
    if patterns is not None:
        ids = [i.instance_id for p in patterns for i in simulator.cloud.fleet.with_pattern(p)]
        instances = instances.filter(provider_id__in=ids)
    series = []
    for instance in instances:
        for name, metric in (
            ("GpuUtil", Metric.GPU_UTIL_PCT),
            ("GpuMemUsage", Metric.GPU_MEM_USED_PCT),
            ("CPUUsage", Metric.CPU_UTIL_PCT),
        ):
            points = simulator.cloud.metric_series(instance.provider_id, name, start, end)
            series.append(MetricSeries(instance.pk, metric, points.timestamps, points.values))
    metrics_write_bulk(series=series)


def _with_pattern(simulator, pattern: str) -> list[Instance]:
    ids = [i.instance_id for i in simulator.cloud.fleet.with_pattern(pattern)]
    return list(Instance.objects.filter(provider_id__in=ids).order_by("pk"))


def test_it_finds_weeknights_and_weekends_off_for_a_day_only_instance(synced) -> None:
    account, simulator = synced
    _store_metrics(account, simulator, days=METRIC_DAYS, patterns=["day_only_idle"])
    services.analysis_full_run(as_of=SIM_NOW)
    (instance, *_) = _with_pattern(simulator, "day_only_idle")
    profile = InstanceProfile.objects.get(instance=instance)
    assert profile.tz == "Asia/Shanghai"
    assert profile.has_off_window
    window = profile.off_window
    assert window is not None
    cells = {
        (run["start_weekday"] * 24 + run["start_hour"] + h) % 168 // 1
        for run in window["runs"]
        for h in range(run["hours"])
    }

    def cell(weekday: int, hour: int) -> int:
        return weekday * 24 + hour

    # Weeknights (Tue 03:00, Wed 23:00 local) and the weekend are off ...
    assert {cell(1, 3), cell(2, 23), cell(5, 12), cell(6, 3), cell(0, 2)} <= cells
    # ... working hours (Wed 14:00, Mon 10:00 local) are not.
    assert not {cell(2, 14), cell(0, 10), cell(4, 16)} & cells
    assert window["supporting_weeks"] >= 2
    assert "Asia/Shanghai" in window["description"]
    assert window["text"] == "weekdays 19:00–09:00 and weekends"
    assert not profile.low_around_the_clock


def test_it_calls_idle_instances_low_around_the_clock_never_a_week_long_window(synced) -> None:
    """The instance page used to show them as "Recurring low window: Mon 00:00-Mon 00:00"."""
    account, simulator = synced
    _store_metrics(account, simulator, days=METRIC_DAYS, patterns=["idle"])
    services.analysis_full_run(as_of=SIM_NOW)
    instances = _with_pattern(simulator, "idle")
    assert instances
    for instance in instances:
        profile = InstanceProfile.objects.get(instance=instance)
        assert profile.low_around_the_clock, instance.name
        assert not profile.has_off_window
        assert profile.off_window is None
        assert profile.low_around_the_clock_detail is not None
        assert profile.low_around_the_clock_detail["text"] == "around the clock"


def test_it_finds_no_off_window_for_a_round_the_clock_inference_instance(synced) -> None:
    account, simulator = synced
    _store_metrics(account, simulator, days=METRIC_DAYS, patterns=["inference"])
    services.analysis_full_run(as_of=SIM_NOW)
    instances = _with_pattern(simulator, "inference")
    assert instances
    for instance in instances:
        profile = InstanceProfile.objects.get(instance=instance)
        assert not profile.has_off_window, instance.name
        assert profile.off_window is None
        assert not profile.low_around_the_clock


def test_it_splits_the_billed_cost_of_an_instance_exactly_over_its_phases(
    synced, alice_client: APIClient
) -> None:
    account, simulator = synced
    runner.run_kind(account, SyncKind.BILLS, now=SIM_NOW, backfill_days=2)
    _store_metrics(account, simulator, days=2)
    services.analysis_full_run(as_of=SIM_NOW)
    end = dt.datetime(2026, 11, 3, 3, tzinfo=dt.UTC)
    start = end - dt.timedelta(days=1)
    checked = 0
    for instance in Instance.objects.filter(account=account, charge_type="POSTPAID_BY_HOUR"):
        lines = BillLine.objects.filter(
            instance=instance,
            component_class__in=RUNTIME_CLASSES,
            charge_category="usage",
            fee_begin_at__gte=start,
            fee_begin_at__lt=end,
        )
        if not lines.exists():
            continue
        billed = cost_total(lines).quantize(Decimal("0.01"))
        response = alice_client.get(
            f"/api/v1/instances/{instance.pk}/phases",
            {"start": start.isoformat(), "end": end.isoformat()},
        )
        assert response.status_code == 200, response.json()
        body = response.json()
        assert body["cost_source"] == "bills"
        assert Decimal(body["cost"]) == billed
        assert sum(Decimal(p["cost"]) for p in body["totals"].values()) == billed
        checked += 1
    assert checked >= 10


def _days_with_metrics(account: CloudAccount) -> set[tuple[int, dt.date]]:
    rows = InstanceDayRollup.objects.filter(
        instance__account=account, gpu_util_pct_minutes__gt=0
    ).values_list("instance_id", "day")
    return set(rows)


def _days_with_phases(account: CloudAccount) -> set[tuple[int, dt.date]]:
    rows = PhaseDay.objects.filter(instance__account=account).values_list("instance_id", "day")
    return set(rows)


def test_it_analyses_every_day_a_backfill_of_more_than_fourteen_days_read(
    synced, monkeypatch, django_capture_on_commit_callbacks
) -> None:
    """The first backfill used to be analysed over its last 14 days only."""
    account, simulator = synced
    _store_metrics(account, simulator, days=BACKFILL_METRIC_DAYS, patterns=["idle", "inference"])
    # Small batches: the backfill's analysis is several chained tasks (run in-process here).
    monkeypatch.setattr(batches, "BATCH_INSTANCE_DAYS", 2 * BACKFILL_METRIC_DAYS)
    with django_capture_on_commit_callbacks(execute=True):
        for kind in (SyncKind.METRICS, SyncKind.BILLS):
            runner.sync_release(
                account.pk, kind, next_run_at=SIM_NOW, success_at=SIM_NOW, as_of=SIM_NOW
            )
    with_metrics = _days_with_metrics(account)
    assert len({day for _, day in with_metrics}) > 14
    assert _days_with_phases(account) == with_metrics
    assert set(
        AnalysisState.objects.filter(instance__account=account).values_list(
            "analysed_until", flat=True
        )
    ) == {floor_hour(SIM_NOW)}


def test_it_analyses_each_new_day_on_the_hourly_run(synced) -> None:
    account, simulator = synced
    _store_metrics(account, simulator, days=BACKFILL_METRIC_DAYS, patterns=["idle"])
    before = _days_with_metrics(account)
    services.analysis_full_run(as_of=SIM_NOW, days=BACKFILL_METRIC_DAYS + 1)
    assert _days_with_phases(account) == before
    (instance, *_) = _with_pattern(simulator, "idle")
    # A new UTC day's first points arrive after the analysis.
    tomorrow = dt.datetime.combine(SIM_NOW.date() + dt.timedelta(days=1), dt.time(), dt.UTC)
    stamps = [tomorrow + dt.timedelta(minutes=m) for m in range(90)]
    for metric in (Metric.GPU_UTIL_PCT, Metric.GPU_MEM_USED_PCT, Metric.CPU_UTIL_PCT):
        metrics_write(instance_id=instance.pk, metric=metric, timestamps=stamps, values=[1.0] * 90)
    later = tomorrow + dt.timedelta(hours=2)
    # Due: the new day, and every instance's last hour that was still open at SIM_NOW.
    queued = tasks.analyse_recent.delay(as_of=later.isoformat()).get()
    assert queued["instances"] == len(_with_pattern(simulator, "idle"))
    assert (instance.pk, tomorrow.date()) in _days_with_phases(account)
    assert _days_with_phases(account) == _days_with_metrics(account)
    # Nothing more is due: the next tick queues nothing.
    assert tasks.analyse_recent.delay(as_of=later.isoformat()).get()["batches"] == 0
