"""Points merged into existing days: kept as recent points, folded, compacted, pruned."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest
from django.core.management import call_command

from apps.core.timegrid import datetime_to_epoch_seconds
from apps.metrics import services, tasks
from apps.metrics.constants import MINUTES_PER_DAY, Metric
from apps.metrics.models import (
    InstanceDayRollup,
    InstanceHourRollup,
    MetricDay,
    MetricDayRecent,
    ProjectDayRollup,
)
from apps.metrics.selectors import metrics_read
from apps.metrics.services import (
    MetricSeries,
    metrics_raw_prune,
    metrics_recent_compact,
    metrics_write_bulk,
)
from tests.metrics.conftest import MIDNIGHT
from tests.metrics.helpers import rollup_snapshot

GPU, CPU = Metric.GPU_UTIL_PCT, Metric.CPU_UTIL_PCT
BASE = datetime_to_epoch_seconds(MIDNIGHT)
END = MIDNIGHT + dt.timedelta(days=2)


def day_of_points(instances, seed: int) -> dict[tuple[int, str, int], float]:
    """Points of two days for every instance and two metrics, with gaps and a stopped night."""
    rng = np.random.default_rng(seed)
    points: dict[tuple[int, str, int], float] = {}
    for instance in instances:
        for metric in (GPU, CPU):
            minutes = np.flatnonzero(rng.random(2 * MINUTES_PER_DAY) < 0.3)
            for minute, value in zip(minutes, rng.integers(0, 10_000, minutes.size), strict=True):
                points[(instance.id, metric, int(minute))] = value / 100
    return points


def write_in_increments(points: dict, increment_minutes: int) -> None:
    """Write the points as a sync would: every ``increment_minutes``, all series at once."""
    by_window: dict[int, list] = {}
    for (instance_id, metric, minute), value in sorted(points.items(), key=lambda p: p[0][2]):
        by_window.setdefault(minute // increment_minutes, []).append(
            MetricSeries(instance_id, metric, [BASE + 60 * minute], [value])
        )
    for series in by_window.values():
        metrics_write_bulk(series=series)


def observed(instances) -> tuple[dict, dict]:
    ids = [i.id for i in instances]
    arrays = {
        m: metrics_read(instance_ids=ids, metric=m, start=MIDNIGHT, end=END) for m in (GPU, CPU)
    }
    return arrays, rollup_snapshot(ids)


def reset() -> None:
    for model in (MetricDayRecent, MetricDay, InstanceHourRollup, InstanceDayRollup):
        model.objects.all().delete()
    ProjectDayRollup.objects.all().delete()


@pytest.mark.parametrize("recent_max_points", [0, 3, 240])
def test_it_reads_and_rolls_up_the_same_whether_points_were_folded_or_kept_recent(
    acme, make_instances, monkeypatch, recent_max_points
) -> None:
    instances = make_instances(acme, 2, gpu_count=2)
    points = day_of_points(instances, seed=recent_max_points)
    metrics_write_bulk(
        series=[
            MetricSeries(i, m, [BASE + 60 * minute], [v]) for (i, m, minute), v in points.items()
        ]
    )
    expected_arrays, expected_rollups = observed(instances)
    reset()

    monkeypatch.setattr(services, "RECENT_MAX_POINTS", recent_max_points)
    write_in_increments(points, increment_minutes=97)
    arrays, rollups = observed(instances)

    for metric, array in expected_arrays.items():
        np.testing.assert_array_equal(arrays[metric], array)
    assert rollups == expected_rollups
    pending = MetricDayRecent.objects.count()
    if recent_max_points in (0, 240):  # always folded / never needs folding here
        assert (pending > 0) == (recent_max_points > 0)
    assert all(len(r.values) <= 4 * recent_max_points for r in MetricDayRecent.objects.all())
    assert sum(MetricDay.objects.values_list("minutes_observed", flat=True)) == len(points)


def test_it_compacts_recent_points_into_the_days_without_changing_what_readers_see(
    acme, make_instances
) -> None:
    instances = make_instances(acme, 2)
    points = day_of_points(instances, seed=7)
    write_in_increments(points, increment_minutes=60)
    before = observed(instances)
    assert MetricDayRecent.objects.exists()

    folded = tasks.compact_recent.delay().get()

    assert folded == MetricDay.objects.count()  # every day had recent points
    assert not MetricDayRecent.objects.exists()
    after = observed(instances)
    for metric, array in before[0].items():
        np.testing.assert_array_equal(after[0][metric], array)
    assert after[1] == before[1]
    assert metrics_recent_compact(batch_size=1) == 0


def test_it_compacts_in_batches(acme, make_instances) -> None:
    instances = make_instances(acme, 3)
    write_in_increments(day_of_points(instances, seed=3), increment_minutes=120)
    pending = MetricDayRecent.objects.count()
    before = observed(instances)[0]

    assert metrics_recent_compact(batch_size=2) == pending
    after = observed(instances)[0]
    for metric, array in before.items():
        np.testing.assert_array_equal(after[metric], array)


def test_it_rebuilds_rollups_from_days_with_recent_points(acme, make_instances) -> None:
    instances = make_instances(acme, 2, gpu_count=4)
    write_in_increments(day_of_points(instances, seed=11), increment_minutes=45)
    incremental = rollup_snapshot()
    InstanceHourRollup.objects.all().delete()
    InstanceDayRollup.objects.all().delete()
    ProjectDayRollup.objects.all().delete()

    call_command("metrics_rebuild_rollups", stdout=None)

    assert rollup_snapshot() == incremental


def test_it_prunes_recent_points_with_their_days(acme, make_instances) -> None:
    (instance,) = make_instances(acme, 1)
    for minute in (0, 1, 2, 1440, 1441):
        metrics_write_bulk(series=[MetricSeries(instance.id, GPU, [BASE + 60 * minute], [1.0])])
    assert MetricDayRecent.objects.count() == 2

    deleted = metrics_raw_prune(as_of=MIDNIGHT + dt.timedelta(days=2), retention_days=1)

    assert deleted == 1
    assert list(MetricDayRecent.objects.values_list("day", flat=True)) == [
        (MIDNIGHT + dt.timedelta(days=1)).date()
    ]


def test_it_changes_nothing_when_recent_points_are_written_again(acme_gpu) -> None:
    series = [MetricSeries(acme_gpu.id, GPU, [BASE + 60 * m], [float(m)]) for m in (0, 5, 6)]
    metrics_write_bulk(series=series[:1])
    metrics_write_bulk(series=series[1:])
    recent = MetricDayRecent.objects.get()

    again = metrics_write_bulk(series=series)

    assert (again.points_changed, again.days_updated, again.hours_recomputed) == (0, 0, 0)
    assert MetricDayRecent.objects.get().updated_at == recent.updated_at
