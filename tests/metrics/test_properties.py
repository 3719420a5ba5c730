"""Property tests: the store's observable state depends on the set of points, not on history."""

from __future__ import annotations

import datetime as dt
import itertools
import warnings
from collections import defaultdict

import numpy as np
import pytest
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apps.core.timegrid import datetime_to_epoch_seconds
from apps.metrics.constants import MINUTES_PER_DAY, Metric
from apps.metrics.models import InstanceHourRollup
from apps.metrics.selectors import metrics_read
from apps.metrics.services import MetricSeries, metrics_write_bulk
from tests.metrics.conftest import MIDNIGHT
from tests.metrics.helpers import rollup_snapshot

pytestmark = pytest.mark.django_db
DAYS = 2
METRICS = [Metric.GPU_UTIL_PCT, Metric.GPU_TEMP_C]
BASE_SECONDS = datetime_to_epoch_seconds(MIDNIGHT)
END = MIDNIGHT + dt.timedelta(days=DAYS)
DB_SETTINGS = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# (instance index, metric index, minute) -> value; float32-exact values so no rounding hides.
# Two-decimal values (as Cloud Monitor reports) let days be stored as int16 codes, any others
# as float32 (see apps/metrics/storage/codec.py), so both layouts are written and merged.
points_strategy = st.dictionaries(
    st.tuples(
        st.integers(0, 1),
        st.integers(0, len(METRICS) - 1),
        # Clustered minutes: several points share an hour, so merges and rollups interact.
        st.one_of(st.integers(0, DAYS * MINUTES_PER_DAY - 1), st.integers(1430, 1510)),
    ),
    st.one_of(
        st.integers(0, 10_000).map(lambda k: float(np.float32(k / 100))),
        st.floats(0, 100, width=32, allow_nan=False),
    ),
    min_size=1,
    max_size=80,
)


def write(instances, points: list[tuple[tuple[int, int, int], float]], batches: list[int]) -> None:
    """Write ``points`` in the given order, cut into calls at ``batches``, a series per run of
    points of the same (instance, metric)."""
    cuts = sorted({c % (len(points) + 1) for c in batches} | {0, len(points)})
    for start, end in itertools.pairwise(cuts):
        series = []
        for (instance, metric, minute), value in points[start:end]:
            series.append(
                MetricSeries(
                    instances[instance].id, METRICS[metric], [BASE_SECONDS + 60 * minute], [value]
                )
            )
        metrics_write_bulk(series=series)


def observe(instances) -> tuple[dict, dict]:
    ids = [i.id for i in instances]
    arrays = {
        m.value: metrics_read(instance_ids=ids, metric=m, start=MIDNIGHT, end=END) for m in METRICS
    }
    return arrays, rollup_snapshot(ids)


def in_rollback(action):
    with transaction.atomic():
        result = action()
        transaction.set_rollback(True)
    return result


@DB_SETTINGS
@given(points=points_strategy, data=st.data())
def test_it_ends_in_the_same_state_whatever_the_order_batching_and_repetition(
    acme, make_instances, points, data
) -> None:
    instances = getattr(acme, "_gpus", None) or make_instances(acme, 2, gpu_count=4)
    acme._gpus = instances
    in_order = sorted(points.items(), key=lambda item: (item[0][2], item[0][:2]))
    shuffled = data.draw(st.permutations(list(points.items())))
    cuts = data.draw(st.lists(st.integers(0, 100), max_size=6))

    def once_in_order():
        write(instances, in_order, [])
        return observe(instances)

    def shuffled_twice():
        write(instances, shuffled, cuts)
        write(instances, list(reversed(shuffled)), cuts[::-1])
        return observe(instances)

    expected_arrays, expected_rollups = in_rollback(once_in_order)
    arrays, rollups = in_rollback(shuffled_twice)

    for metric in expected_arrays:
        np.testing.assert_array_equal(arrays[metric], expected_arrays[metric])
    assert rollups == expected_rollups
    # Missing minutes stay missing: exactly the written minutes hold a value.
    expected = {m.value: np.full((2, DAYS * MINUTES_PER_DAY), np.nan, np.float32) for m in METRICS}
    for (instance, metric, minute), value in points.items():
        expected[METRICS[metric].value][instance, minute] = value
    for metric, array in expected.items():
        np.testing.assert_array_equal(arrays[metric], array)


@DB_SETTINGS
@given(points=points_strategy)
def test_it_keeps_every_rollup_equal_to_the_figure_computed_from_raw(
    acme, make_instances, points
) -> None:
    instances = getattr(acme, "_gpus", None) or make_instances(acme, 2, gpu_count=4)
    acme._gpus = instances

    def check() -> None:
        write(instances, list(points.items()), [7, 19])
        hours_with_points = defaultdict(set)
        for instance, _metric, minute in points:
            hours_with_points[instances[instance].id].add(minute // 60)
        rows = list(InstanceHourRollup.objects.all())
        assert {(r.instance_id, _hour_index(r.hour_start)) for r in rows} == {
            (i, h) for i, hours in hours_with_points.items() for h in hours
        }
        for row in rows:
            position = [i.id for i in instances].index(row.instance_id)
            hour = _hour_index(row.hour_start)
            for metric in METRICS:
                raw = metrics_read(
                    instance_ids=[row.instance_id], metric=metric, start=MIDNIGHT, end=END
                )[0, hour * 60 : hour * 60 + 60]
                assert getattr(row, f"{metric}_minutes") == np.count_nonzero(~np.isnan(raw))
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN hours
                    figures = {
                        "avg": np.nanmean(raw.astype(np.float64)),
                        "p95": np.nanpercentile(raw.astype(np.float64), 95),
                        "max": np.nanmax(raw) if np.any(~np.isnan(raw)) else np.nan,
                    }
                for stat, figure in figures.items():
                    stored = getattr(row, f"{metric}_{stat}")
                    if np.isnan(figure):
                        assert stored is None
                    else:
                        assert stored == pytest.approx(float(figure), rel=1e-6, abs=1e-6)
            gpu = metrics_read(
                instance_ids=[row.instance_id], metric=Metric.GPU_UTIL_PCT, start=MIDNIGHT, end=END
            )[0, hour * 60 : hour * 60 + 60]
            assert row.gpu_hours == pytest.approx(4 * np.count_nonzero(~np.isnan(gpu)) / 60)
            del position

    in_rollback(check)


def _hour_index(hour_start: dt.datetime) -> int:
    return int((hour_start - MIDNIGHT).total_seconds() // 3600)
