"""The writer's merge rules and the reader's grid, as a caller observes them."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from apps.cloud.models import Instance
from apps.metrics.constants import Metric
from apps.metrics.models import InstanceHourRollup, MetricDay
from apps.metrics.selectors import metrics_read
from apps.metrics.services import MetricSeries, metrics_write, metrics_write_bulk
from tests.metrics.conftest import MIDNIGHT

GPU = Metric.GPU_UTIL_PCT
NEXT_DAY = MIDNIGHT + dt.timedelta(days=1)


def minutes(*offsets: int) -> list[dt.datetime]:
    return [MIDNIGHT + dt.timedelta(minutes=m) for m in offsets]


def read_day(instance: Instance, metric: str = GPU) -> np.ndarray:
    return metrics_read(instance_ids=[instance.id], metric=metric, start=MIDNIGHT, end=NEXT_DAY)[0]


def test_it_reads_back_points_on_the_minute_grid_with_missing_minutes_as_nan(
    acme_gpu: Instance,
) -> None:
    metrics_write(instance_id=acme_gpu.id, metric=GPU, timestamps=minutes(0, 5), values=[10, 0])

    day = read_day(acme_gpu)

    assert day.shape == (1440,)
    assert day.dtype == np.float32
    assert day[0] == 10.0
    assert day[5] == 0.0  # a measured zero is a value...
    assert np.isnan(np.delete(day, [0, 5])).all()  # ...and a minute without a point is not


def test_it_floors_timestamps_to_the_minute_and_accepts_unix_seconds(acme_gpu: Instance) -> None:
    seconds = int(MIDNIGHT.timestamp()) + 7 * 60 + 59
    metrics_write(instance_id=acme_gpu.id, metric=GPU, timestamps=[seconds], values=[42.5])

    assert read_day(acme_gpu)[7] == 42.5


def test_it_fills_gaps_with_late_points_and_replaces_a_corrected_value(acme_gpu: Instance) -> None:
    metrics_write(instance_id=acme_gpu.id, metric=GPU, timestamps=minutes(0, 2), values=[1, 3])
    metrics_write(instance_id=acme_gpu.id, metric=GPU, timestamps=minutes(1, 2), values=[2, 4])

    assert read_day(acme_gpu)[:3].tolist() == [1.0, 2.0, 4.0]
    assert MetricDay.objects.get().minutes_observed == 3


def test_it_changes_nothing_when_the_same_points_are_written_again(acme_gpu: Instance) -> None:
    metrics_write(instance_id=acme_gpu.id, metric=GPU, timestamps=minutes(0, 1), values=[5, 6])
    stamp = MetricDay.objects.get().updated_at

    again = metrics_write(
        instance_id=acme_gpu.id, metric=GPU, timestamps=minutes(0, 1), values=[5, 6]
    )

    assert (again.points_changed, again.days_updated, again.hours_recomputed) == (0, 0, 0)
    assert MetricDay.objects.get().updated_at == stamp


def test_it_never_erases_a_stored_value_with_a_nan(acme_gpu: Instance) -> None:
    metrics_write(instance_id=acme_gpu.id, metric=GPU, timestamps=minutes(3), values=[30])
    metrics_write(instance_id=acme_gpu.id, metric=GPU, timestamps=minutes(3, 4), values=[np.nan, 1])

    assert read_day(acme_gpu)[3:5].tolist() == [30.0, 1.0]


def test_it_splits_points_across_utc_days(acme_gpu: Instance) -> None:
    metrics_write(
        instance_id=acme_gpu.id, metric=GPU, timestamps=minutes(1439, 1440), values=[7, 8]
    )

    values = metrics_read(
        instance_ids=[acme_gpu.id],
        metric=GPU,
        start=MIDNIGHT + dt.timedelta(minutes=1438),
        end=MIDNIGHT + dt.timedelta(minutes=1442),
    )

    assert MetricDay.objects.count() == 2
    np.testing.assert_array_equal(values, [[np.nan, 7, 8, np.nan]])


def test_it_reads_many_instances_in_the_order_asked(acme, make_instances) -> None:
    first, second, third = make_instances(acme, 3)
    metrics_write_bulk(
        series=[
            MetricSeries(first.id, GPU, minutes(0), [1]),
            MetricSeries(third.id, GPU, minutes(0), [3]),
        ]
    )

    values = metrics_read(
        instance_ids=[third.id, second.id, first.id], metric=GPU, start=MIDNIGHT, end=NEXT_DAY
    )

    assert values.shape == (3, 1440)
    np.testing.assert_array_equal(values[:, 0], [3, np.nan, 1])


def test_it_refuses_bad_input_and_writes_nothing(acme_gpu: Instance) -> None:
    good = MetricSeries(acme_gpu.id, GPU, minutes(0), [1])
    bad_inputs = [
        (MetricSeries(acme_gpu.id, "gpu_util", minutes(0), [1]), "unknown metric"),
        (MetricSeries(acme_gpu.id + 999, GPU, minutes(0), [1]), "unknown instance"),
        (MetricSeries(acme_gpu.id, GPU, [dt.datetime(2024, 3, 4, 1, 0)], [1]), "timezone-aware"),
        (MetricSeries(acme_gpu.id, GPU, minutes(0, 1), [1]), "2 timestamps but 1 values"),
        (MetricSeries(acme_gpu.id, GPU, minutes(0), [np.inf]), "finite"),
    ]
    for bad, reason in bad_inputs:
        with pytest.raises(ValueError, match=reason):
            metrics_write_bulk(series=[good, bad])

    assert not MetricDay.objects.exists()
    assert not InstanceHourRollup.objects.exists()
