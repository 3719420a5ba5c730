"""Monitor: GetMonitorData limits, determinism, gaps, lag and the utilisation patterns."""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import pytest
from tencentcloud.common.exception.tencent_cloud_sdk_exception import TencentCloudSDKException

from apps.cloud.providers.tencent.simulator.constants import to_epoch

from ._sdk import NOW, get_monitor_data, monitor


def _iso(moment):
    return moment.isoformat()


def _points(sim, instance_id, metric, start, end, period=60, region=None):
    inst = sim.fleet.get(instance_id)
    response = get_monitor_data(
        monitor(sim, region or inst.region),
        [instance_id],
        MetricName=metric,
        Period=period,
        StartTime=_iso(start),
        EndTime=_iso(end),
    )
    point = response.DataPoints[0]
    return dict(zip(point.Timestamps, point.Values, strict=True))


def _live(sim, pattern):
    return next(i for i in sim.fleet.with_pattern(pattern) if i.terminated_at is None)


def test_it_rejects_more_than_ten_instances(sim):
    ids = [i.instance_id for i in sim.cloud.instances(NOW, "ap-guangzhou")][:11]

    with pytest.raises(TencentCloudSDKException) as caught:
        get_monitor_data(monitor(sim), ids, MetricName="GpuUtil", Period=60)

    assert caught.value.get_code() == "LimitExceeded"
    ten = get_monitor_data(monitor(sim), ids[:10], MetricName="GpuUtil", Period=60)
    assert len(ten.DataPoints) == 10


def test_it_rejects_more_than_1440_points(sim):
    start = NOW - timedelta(days=2)
    client = monitor(sim)
    instance_id = sim.cloud.instances(NOW, "ap-guangzhou")[0].instance_id
    with pytest.raises(TencentCloudSDKException) as caught:
        get_monitor_data(
            client,
            [instance_id],
            MetricName="GpuUtil",
            Period=60,
            StartTime=_iso(start),
            EndTime=_iso(start + timedelta(minutes=1440)),
        )

    assert caught.value.get_code() == "LimitExceeded"
    ok = get_monitor_data(
        client,
        [instance_id],
        MetricName="GpuUtil",
        Period=60,
        StartTime=_iso(start),
        EndTime=_iso(start + timedelta(minutes=1439)),
    )
    assert 1400 < len(ok.DataPoints[0].Timestamps) <= 1440


def test_it_gives_identical_values_to_overlapping_queries(sim):
    inst = _live(sim, "training")
    day = (NOW - timedelta(days=3)).replace(hour=0, minute=0, second=0)

    first = _points(sim, inst.instance_id, "GpuUtil", day, day + timedelta(hours=12))
    second = _points(
        sim, inst.instance_id, "gpuutil", day + timedelta(hours=6), day + timedelta(hours=20)
    )

    shared = set(first) & set(second)
    assert len(shared) > 300
    assert all(first[t] == second[t] for t in shared)


def test_it_averages_five_minutes_for_period_300(sim):
    inst = _live(sim, "inference")
    start = (NOW - timedelta(days=1)).replace(minute=0, second=0)
    minutes = _points(sim, inst.instance_id, "CPUUsage", start, start + timedelta(minutes=59))
    fives = _points(sim, inst.instance_id, "CPUUsage", start, start + timedelta(minutes=55), 300)

    for slot, value in fives.items():
        window = [minutes[t] for t in range(slot, slot + 300, 60) if t in minutes]
        assert value == pytest.approx(np.mean(window), abs=0.001)
    assert len(fives) == 12


def test_it_has_no_points_while_a_day_only_instance_is_stopped(sim):
    inst = _live(sim, "day_only_stopped")
    evening = NOW.replace(hour=10, minute=0, second=0) - timedelta(days=1)  # 18:00-06:00 Beijing

    points = _points(sim, inst.instance_id, "GpuUtil", evening, evening + timedelta(hours=12))

    stopped_from = to_epoch(evening.replace(hour=11))
    stopped_until = stopped_from + 14 * 3600
    assert points  # the last hour before 19:00 Beijing has data
    assert all(not stopped_from <= t < stopped_until for t in points)


def test_it_has_no_points_after_termination_or_before_creation(sim):
    gone = next(i for i in sim.fleet.all_instances if i.terminated_at is not None)
    around = gone.terminated_at - 6 * 3600
    start = NOW.fromtimestamp(around, NOW.tzinfo)

    points = _points(sim, gone.instance_id, "GpuUtil", start, start + timedelta(hours=12))

    assert points
    assert max(points) < gone.terminated_at
    before = NOW.fromtimestamp(gone.created_at - 7200, NOW.tzinfo)
    early = _points(sim, gone.instance_id, "GpuUtil", before, before + timedelta(hours=3))
    assert min(early) >= gone.created_at


def test_it_publishes_nothing_newer_than_the_lag(sim):
    inst = _live(sim, "inference")

    points = _points(sim, inst.instance_id, "GpuUtil", NOW - timedelta(hours=1), NOW)

    assert max(points) + 60 <= to_epoch(NOW) - 90
    assert max(points) + 60 > to_epoch(NOW) - 90 - 120


def test_it_matches_the_expected_point_count_helper(sim):
    inst = _live(sim, "day_only_idle")
    start, end = NOW - timedelta(hours=23, minutes=59), NOW

    points = _points(sim, inst.instance_id, "GpuMemUsed", start, end)

    assert len(points) == sim.cloud.expected_point_count(inst.instance_id, "GpuMemUsed", start, end)
    series = sim.cloud.metric_series(inst.instance_id, "GpuMemUsed", start, end)
    assert dict(zip(series.timestamps, series.values, strict=True)) == points


def test_it_returns_empty_points_for_an_instance_of_another_region(sim):
    inst = sim.cloud.instances(NOW, "ap-shanghai")[0]

    response = get_monitor_data(
        monitor(sim, "ap-guangzhou"), [inst.instance_id], MetricName="GpuUtil", Period=300
    )

    assert response.DataPoints[0].Timestamps == []


@pytest.mark.parametrize(
    ("pattern", "metric", "low", "high"),
    [
        ("idle", "GpuUtil", 0, 5),
        ("data_bound", "GpuUtil", 0, 20),
        ("data_bound", "CPUUsage", 60, 100),
        ("memory_pressure", "GpuMemUsage", 90, 100),
        ("hot", "GpuTemp", 85, 100),
        ("training", "GpuMemUsage", 55, 95),
    ],
)
def test_it_shapes_metrics_by_pattern(sim, pattern, metric, low, high):
    inst = next(i for i in sim.fleet.with_pattern(pattern) if i.is_running(to_epoch(NOW) - 86400))
    start = NOW - timedelta(days=1)

    values = list(
        _points(sim, inst.instance_id, metric, start, start + timedelta(hours=20), 300).values()
    )

    assert values
    assert low <= min(values)
    assert max(values) <= high


def test_it_fluctuates_training_between_thirty_and_ninety_percent(sim):
    inst = _live(sim, "training")
    start = NOW - timedelta(days=2)

    values = np.array(
        list(_points(sim, inst.instance_id, "GpuUtil", start, start + timedelta(hours=23)).values())
    )

    assert values.min() >= 30
    assert values.max() <= 92
    assert values.std() > 8
    # Evaluation stretches sit at 40-60 % for 45 minutes of every 7 hours.
    assert ((values >= 40) & (values <= 60)).mean() > 0.1
