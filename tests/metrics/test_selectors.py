"""Rollup selectors are scoped to the organization; the raw reader's grid rules."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from apps.metrics.constants import Metric
from apps.metrics.selectors import (
    instance_day_rollups,
    instance_hour_rollups,
    metrics_read,
    metrics_read_many,
)
from apps.metrics.services import metrics_write
from tests.metrics.conftest import DAY, MIDNIGHT

GPU = Metric.GPU_UTIL_PCT


def test_it_never_returns_rollups_of_another_organization(acme, globex, make_instances) -> None:
    (mine,) = make_instances(acme, 1)
    (theirs,) = make_instances(globex, 1)
    for instance in (mine, theirs):
        metrics_write(instance_id=instance.id, metric=GPU, timestamps=[MIDNIGHT], values=[1])
    end = MIDNIGHT + dt.timedelta(days=1)

    hours = instance_hour_rollups(organization=acme, start=MIDNIGHT, end=end)
    asked_for_theirs = instance_day_rollups(
        organization=acme, start_day=DAY, end_day=DAY, instance_ids=[theirs.id]
    )

    assert [row.instance_id for row in hours] == [mine.id]
    assert list(asked_for_theirs) == []


def test_it_reads_a_range_that_is_not_whole_days(acme_gpu) -> None:
    metrics_write(
        instance_id=acme_gpu.id,
        metric=GPU,
        timestamps=[MIDNIGHT + dt.timedelta(minutes=m) for m in (89, 90, 91)],
        values=[1, 2, 3],
    )

    values = metrics_read_many(
        instance_ids=[acme_gpu.id],
        metrics=[GPU, Metric.GPU_POWER_W],
        start=MIDNIGHT + dt.timedelta(minutes=90, seconds=30),  # inside minute 90
        end=MIDNIGHT + dt.timedelta(minutes=92),
    )

    np.testing.assert_array_equal(values[GPU], [[2, 3]])
    assert np.isnan(values[Metric.GPU_POWER_W]).all()


def test_it_rejects_repeated_instances_and_reversed_ranges(acme_gpu) -> None:
    with pytest.raises(ValueError, match="repeat"):
        metrics_read(instance_ids=[acme_gpu.id] * 2, metric=GPU, start=MIDNIGHT, end=MIDNIGHT)
    with pytest.raises(ValueError, match="before"):
        metrics_read(
            instance_ids=[acme_gpu.id], metric=GPU, start=MIDNIGHT, end=MIDNIGHT - dt.timedelta(1)
        )
