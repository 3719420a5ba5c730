"""Acceptance on the built-in simulator's fleet: each pattern gets the recommendation it needs.

Inventory, prices and 15 days of bills are synced through the real code path; the metrics come
straight from the simulator's series into the store (as in tests/analysis), then the nightly
analysis and the recommendations run as their tasks run them.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import pytest

from apps.accounts.models import Organization
from apps.analysis import services as analysis_services
from apps.billing.models import BillLine
from apps.cloud.models import CloudAccount, Instance, SyncKind
from apps.cloud.providers.tencent.simulator import fleet as sim
from apps.cloud.providers.tencent.simulator.server import SimulatorServer
from apps.cloud.sync import runner
from apps.metrics.constants import Metric
from apps.metrics.ingest import DATA_LAG, floor_minute
from apps.metrics.services import MetricSeries, metrics_write_bulk
from apps.recommendations import services
from apps.recommendations.models import Recommendation, Status
from apps.recommendations.selectors import CENT
from tests.cloud.conftest import SIM_NOW, committed_simulated_organization, connect

pytestmark = [
    pytest.mark.django_db(transaction=False),
    pytest.mark.integration,
    pytest.mark.stack,
    # The module's fleet is built once per worker: its tests stay together.
    pytest.mark.xdist_group("recommendations-fleet"),
]

# Every runtime component (compute, GPU, unknown) of the hours of use: what an hour costs.
RUNTIME_CLASSES = ["runtime", "unknown"]

METRIC_DAYS = 15
AS_OF = SIM_NOW


def _store_metrics(account: CloudAccount, simulator, *, with_cpu: bool = True) -> None:
    start = floor_minute(SIM_NOW - dt.timedelta(days=METRIC_DAYS))
    end = floor_minute(SIM_NOW - DATA_LAG) - dt.timedelta(minutes=1)
    names = [
        ("GpuUtil", Metric.GPU_UTIL_PCT),
        ("GpuMemUsage", Metric.GPU_MEM_USED_PCT),
        ("GpuTemp", Metric.GPU_TEMP_C),
    ]
    if with_cpu:
        names.append(("CPUUsage", Metric.CPU_UTIL_PCT))
    series = []
    for instance in Instance.objects.filter(account=account):
        for name, metric in names:
            points = simulator.cloud.metric_series(instance.provider_id, name, start, end)
            series.append(MetricSeries(instance.pk, metric, points.timestamps, points.values))
    metrics_write_bulk(series=series)


def _sync_and_analyse(
    simulator: SimulatorServer, organization: Organization, *, with_cpu: bool = True
) -> CloudAccount:
    account = connect(organization, simulator)
    runner.run_kind(account, SyncKind.INVENTORY, now=SIM_NOW)
    runner.run_kind(account, SyncKind.PRICES, now=SIM_NOW)
    runner.run_kind(account, SyncKind.BILLS, now=SIM_NOW, backfill_days=METRIC_DAYS)
    _store_metrics(account, simulator, with_cpu=with_cpu)
    analysis_services.analysis_full_run(as_of=AS_OF)
    return account


@pytest.fixture(scope="module")
def fleet(django_db_setup: None, django_db_blocker: Any) -> Iterator[tuple[CloudAccount, Any]]:
    """The fleet synced, analysed and advised once, committed, shared by the module's tests
    (a minute of syncing: each test reads it, none changes it)."""
    with (
        django_db_blocker.unblock(),
        committed_simulated_organization(email="fleet@acme.test", name="Fleet", now=SIM_NOW) as (
            _owner,
            organization,
            simulator,
        ),
    ):
        account = _sync_and_analyse(simulator, organization)
        services.recommendations_run(organization=organization, as_of=AS_OF)
        yield account, simulator


def _instances(account: CloudAccount, simulator, pattern: str, **criteria) -> list[Instance]:
    ids = [
        i.instance_id
        for i in simulator.cloud.fleet.with_pattern(pattern)
        if i.terminated_at is None and all(getattr(i, k) == v for k, v in criteria.items())
    ]
    return list(Instance.objects.filter(account=account, provider_id__in=ids).order_by("pk"))


def _kinds(instance: Instance) -> set[str]:
    return set(
        Recommendation.objects.filter(instance=instance)
        .exclude(status=Status.RESOLVED)
        .values_list("kind", flat=True)
    )


def test_it_gives_each_pattern_of_the_fleet_its_recommendation(fleet) -> None:
    account, simulator = fleet
    idle = _instances(account, simulator, sim.IDLE)
    assert len(idle) == 4
    for instance in idle:
        kinds = _kinds(instance)
        assert "stop_idle" in kinds, (instance.name, kinds)
        assert "schedule" not in kinds, instance.name
    for pattern in (sim.DAY_ONLY_IDLE, sim.DAY_ONLY_STOPPED):
        instances = _instances(account, simulator, pattern)
        assert instances
        for instance in instances:
            row = Recommendation.objects.get(instance=instance, kind="schedule")
            window = row.action["window"]
            assert window["tz"] == "Asia/Shanghai"
            # Off from 19:00 to 09:00 on weeknights and over the weekend, within an hour.
            for run in window["runs"]:
                assert abs(run["start_hour"] - 19) <= 1, (instance.name, run)
                assert abs(run["end_hour"] - 9) <= 1, (instance.name, run)
            starts = sorted(run["start_weekday"] for run in window["runs"])
            assert starts == [0, 1, 2, 3, 4], (instance.name, window["runs"])
            assert any(
                "StopInstances" in line and "STOP_CHARGING" in line for line in row.action["cron"]
            )
    for instance in _instances(account, simulator, sim.DAY_ONLY_IDLE):
        saving = Recommendation.objects.get(instance=instance, kind="schedule").monthly_saving
        assert saving is not None
        assert saving > 0
    for instance in _instances(account, simulator, sim.MEMORY_PRESSURE):
        assert "upsize" in _kinds(instance), instance.name
        upsize = Recommendation.objects.get(instance=instance, kind="upsize")
        # The family's next type, or none larger: never a negative saving.
        assert upsize.upsize_reason in ("next_in_family", "no_larger_type"), instance.name
        assert upsize.monthly_saving is None or upsize.monthly_saving > 0, instance.name
        assert upsize.monthly_extra_cost is None or upsize.monthly_extra_cost >= 0
    for instance in _instances(account, simulator, sim.HOT):
        assert "thermal" in _kinds(instance), instance.name
        alert = Recommendation.objects.get(instance=instance, kind="thermal")
        assert alert.monthly_saving is None, instance.name
    for instance in _instances(account, simulator, sim.DATA_BOUND):
        assert "data_pipeline" in _kinds(instance), instance.name
        # Paid while waiting, not a saving: recomputed from the evidence the row shows.
        row = Recommendation.objects.get(instance=instance, kind="data_pipeline")
        assert row.monthly_saving is None, instance.name
        shown = row.evidence
        share = Decimal(shown["data_bound_minutes"]) / Decimal(shown["analysed_minutes"])
        hours = Decimal(shown["running_hours_per_month"])
        monthly = (Decimal(shown["price"]["runtime_hourly"]) * hours).quantize(CENT, ROUND_HALF_UP)
        assert row.monthly_paid_while_waiting == (monthly * share).quantize(CENT, ROUND_HALF_UP)
        gpu_hours = (hours * Decimal(str(shown["gpu_count"])) * share).quantize(
            Decimal("0.1"), ROUND_HALF_UP
        )
        assert row.gpu_hours_waiting_per_month == gpu_hours, instance.name


def test_it_switches_steady_pay_as_you_go_instances_to_monthly_at_the_right_break_even(
    fleet,
) -> None:
    account, simulator = fleet
    inference = _instances(account, simulator, sim.INFERENCE, charge_type=sim.POSTPAID)
    assert len(inference) == 4
    # The scenario's reserved instance pays part of one of them (its runtime at the RI's rate):
    # a month's subscription is dearer than those hours, so nothing says to switch it.
    reserved = [
        i for i in inference if BillLine.objects.filter(instance=i, commitment="RI").exists()
    ]
    assert len(reserved) == 1
    assert not Recommendation.objects.filter(instance=reserved[0], kind="subscription").exists()
    steady = [i for i in inference if i not in reserved]
    for instance in steady:
        row = Recommendation.objects.get(instance=instance, kind="subscription")
        spec = simulator.cloud.fleet.get(instance.provider_id).spec
        # Break-even: the month's subscription over a month of the hourly price paid.
        hourly = Decimal(row.evidence["hourly_price"])
        expected = (100 * spec.monthly_discount_cny / (hourly * 720)).quantize(
            Decimal("0.1"), rounding=ROUND_HALF_UP
        )
        assert Decimal(row.evidence["break_even_uptime_pct"]) == expected
        assert row.price_source == "bills"


def test_it_gives_well_used_training_instances_nothing(fleet) -> None:
    account, simulator = fleet
    # Training instances already on the cheaper charge types (a subscription, spot): there is
    # nothing to change. Pay-as-you-go ones running around the clock get "switch to monthly".
    quiet = [
        *_instances(account, simulator, sim.TRAINING, charge_type=sim.PREPAID),
        *_instances(account, simulator, sim.TRAINING, charge_type=sim.SPOT),
    ]
    assert [i.instance_type for i in quiet] == [
        "GN10Xp.20XLARGE320",
        "GT4.4XLARGE96",
        "GN10Xp.2XLARGE40",
    ]
    for instance in quiet:
        assert _kinds(instance) == set(), instance.name
    for instance in _instances(account, simulator, sim.TRAINING, charge_type=sim.POSTPAID):
        assert _kinds(instance) <= {"subscription"}, instance.name


def _paid_hourly(
    instance: Instance, start: dt.datetime, end: dt.datetime
) -> tuple[Decimal, Decimal]:
    """From the instance's raw runtime lines of ``[start, end)``: the runtime price paid per
    hour (to 4 places, as the evidence shows it) and the billed hours (to the thousandth)."""
    lines = BillLine.objects.filter(
        instance=instance,
        component_class__in=RUNTIME_CLASSES,
        charge_category="usage",
        fee_begin_at__gte=start,
        fee_begin_at__lt=end,
    )
    cost = sum(lines.values_list("cost", flat=True), Decimal(0))
    seconds = sum(
        (e + dt.timedelta(seconds=1) - b).total_seconds()
        for b, e in set(lines.values_list("fee_begin_at", "fee_end_at"))
    )
    billed = (Decimal(int(seconds)) / 3600).quantize(Decimal("0.001"))
    return (cost / billed).quantize(Decimal("0.0001"), ROUND_HALF_UP), billed


def test_it_recomputes_each_saving_from_the_bills_and_the_window(fleet) -> None:
    account, simulator = fleet
    (instance,) = _instances(account, simulator, sim.IDLE, zone="ap-guangzhou-4")
    row = Recommendation.objects.get(instance=instance, kind="stop_idle")
    end = dt.datetime(2026, 11, 3, 4, tzinfo=dt.UTC)
    start = end - dt.timedelta(days=14)
    # The evidence shows the billed hours to the thousandth and the price to 4 places.
    hourly, billed = _paid_hourly(instance, start, end)
    hours = billed.quantize(Decimal("0.1"), ROUND_HALF_UP) * 30 / Decimal("14.0")
    hours = min(hours.quantize(Decimal("0.1"), ROUND_HALF_UP), Decimal(720))
    assert row.monthly_saving == (hourly * hours).quantize(Decimal("0.01"), ROUND_HALF_UP)
    assert f"= {hourly} CNY/h" in row.saving_formula
    # The schedule: the window's running hours (from the profile) times the same price.
    (day_only,) = _instances(account, simulator, sim.DAY_ONLY_IDLE, zone="ap-guangzhou-6")
    schedule = Recommendation.objects.get(instance=day_only, kind="schedule")
    running = Decimal(schedule.evidence["running_hours_per_week_in_window"])
    day_hourly, _billed = _paid_hourly(day_only, start, end)
    month_hours = (running * 30 / 7).quantize(Decimal("0.1"), ROUND_HALF_UP)
    assert schedule.monthly_saving == (day_hourly * month_hours).quantize(
        Decimal("0.01"), ROUND_HALF_UP
    )


def _monthly_runtime_cost_from_lines(instance: Instance, start, end) -> Decimal:
    """A pay-as-you-go instance's monthly runtime cost from its raw lines: price paid per hour
    (runtime cost / billed hours) x its billed hours scaled to a month (at most 720)."""
    hourly, billed = _paid_hourly(instance, start, end)
    days = Decimal(str(round((end - start).total_seconds() / 86400, 2)))
    hours = (billed.quantize(Decimal("0.1"), ROUND_HALF_UP) * 30 / days).quantize(
        Decimal("0.1"), ROUND_HALF_UP
    )
    return (hourly * min(hours, Decimal(720))).quantize(Decimal("0.01"), ROUND_HALF_UP)


def test_no_instance_plan_saves_more_than_the_instance_costs(fleet) -> None:
    from tests.recommendations.test_plans import recomputed

    account, _simulator = fleet
    end = dt.datetime(2026, 11, 3, 4, tzinfo=dt.UTC)
    start = end - dt.timedelta(days=14)
    open_rows = Recommendation.objects.filter(
        instance__account=account, status=Status.OPEN
    ).select_related("instance")
    plans: dict[int, list[Recommendation]] = {}
    for row in open_rows:
        if row.role == "plan" and row.instance_id is not None:
            plans.setdefault(row.instance_id, []).append(row)
    assert plans
    checked = 0
    for rows in plans.values():
        priced = [r for r in rows if "plan" in r.evidence]
        if not priced:
            continue
        cost = Decimal(priced[0].evidence["plan"]["monthly_cost"])
        assert sum(r.monthly_saving or Decimal(0) for r in rows) <= cost, [r.kind for r in rows]
        instance = priced[0].instance
        assert instance is not None
        assert instance.launched_at is not None
        if instance.charge_type == "POSTPAID_BY_HOUR" and instance.launched_at <= start:
            assert cost == _monthly_runtime_cost_from_lines(instance, start, end), instance.name
            checked += 1
        for row in priced:
            # The stored evidence recomputes the stored saving.
            assert recomputed(row.evidence) == row.monthly_saving, row.kind
    assert checked
    # An alternative is never added up: the totals count only plan rows' money.
    from apps.recommendations.selectors import recommendations_totals

    by_kind, _by_project = recommendations_totals(rows=open_rows)
    assert sum(t.monthly_saving or Decimal(0) for t in by_kind) == sum(
        r.monthly_saving or Decimal(0) for r in open_rows if r.role == "plan"
    )


def test_it_runs_twice_without_duplicates_or_changes(fleet) -> None:
    account, _simulator = fleet
    before = list(Recommendation.objects.order_by("pk").values_list("pk", "updated_at"))
    again = services.recommendations_run(organization=account.organization, as_of=AS_OF)
    assert again.created == again.updated == again.resolved == 0
    assert again.unchanged == len(before)
    assert list(Recommendation.objects.order_by("pk").values_list("pk", "updated_at")) == before


def test_it_still_finds_idle_and_schedules_when_the_metrics_lack_cpu(
    make_simulator, acme: Organization
) -> None:
    simulator = make_simulator(rate_limits={})
    account = _sync_and_analyse(simulator, acme, with_cpu=False)
    services.recommendations_run(organization=acme, as_of=AS_OF)
    for instance in _instances(account, simulator, sim.IDLE):
        assert "stop_idle" in _kinds(instance), instance.name
    for pattern in (sim.DAY_ONLY_IDLE, sim.DAY_ONLY_STOPPED):
        for instance in _instances(account, simulator, pattern):
            assert "schedule" in _kinds(instance), instance.name
    # Without CPU a data-bound GPU looks like one idle holding memory: the pipeline finding
    # may be made, but says the cause is unconfirmed, with low confidence, never "CPU busy".
    pipeline = Recommendation.objects.filter(
        instance__in=_instances(account, simulator, sim.DATA_BOUND), kind="data_pipeline"
    )
    assert pipeline.exists()
    for row in pipeline:
        assert "the CPU busy preparing input" not in row.explanation, row.title
        assert "no CPU utilization" in row.explanation, row.title
        assert row.confidence == "low", row.title
