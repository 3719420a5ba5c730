"""Rollups as the dashboard reads them: instance hours/days, project days, rebuilds."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest
from django.core.management import CommandError, call_command

from apps.cloud.models import Project
from apps.metrics.constants import Metric
from apps.metrics.models import InstanceDayRollup, InstanceHourRollup, ProjectDayRollup
from apps.metrics.selectors import metrics_read
from apps.metrics.services import metrics_write
from tests.fleet_generator import fleet_generate
from tests.metrics.conftest import DAY, MIDNIGHT
from tests.metrics.helpers import rollup_snapshot

GPU = Metric.GPU_UTIL_PCT


def at(*offsets: int) -> list[dt.datetime]:
    return [MIDNIGHT + dt.timedelta(minutes=m) for m in offsets]


def test_it_rolls_up_an_hour_and_a_day_with_gpu_hours(acme_gpu) -> None:
    metrics_write(
        instance_id=acme_gpu.id, metric=GPU, timestamps=at(0, 1, 2, 61), values=[10, 20, 30, 50]
    )

    first_hour = InstanceHourRollup.objects.get(hour_start=MIDNIGHT)
    day = InstanceDayRollup.objects.get(day=DAY)

    assert (first_hour.gpu_util_pct_avg, first_hour.gpu_util_pct_max) == (20.0, 30.0)
    assert first_hour.gpu_util_pct_p95 == pytest.approx(29.0)
    assert first_hour.gpu_util_pct_minutes == 3
    assert first_hour.gpu_hours == pytest.approx(2 * 3 / 60)  # two cards for three minutes
    assert first_hour.gpu_busy_hours == pytest.approx(2 * (10 + 20 + 30) / 100 / 60)
    assert first_hour.cpu_util_pct_minutes == 0
    assert first_hour.cpu_util_pct_avg is None
    assert (day.gpu_util_pct_minutes, day.gpu_util_pct_avg) == (4, 27.5)
    assert InstanceHourRollup.objects.count() == 2


def test_it_recomputes_only_the_hours_a_write_changed(acme_gpu) -> None:
    metrics_write(instance_id=acme_gpu.id, metric=GPU, timestamps=at(0, 120), values=[1, 2])
    untouched = InstanceHourRollup.objects.get(hour_start=MIDNIGHT).updated_at

    result = metrics_write(instance_id=acme_gpu.id, metric=GPU, timestamps=at(121), values=[4])

    assert result.hours_recomputed == 1
    assert InstanceHourRollup.objects.get(hour_start=MIDNIGHT).updated_at == untouched
    assert (
        InstanceHourRollup.objects.get(hour_start=MIDNIGHT + dt.timedelta(hours=2)).gpu_util_pct_avg
        == 3.0
    )


def test_it_aggregates_project_days_weighted_by_observed_minutes(acme, make_instances) -> None:
    project = Project.objects.create(organization=acme, name="LLM", slug="llm")
    busy, quiet = make_instances(acme, 2, project=project, gpu_count=1)
    make_instances(acme, 1)  # no project: not in any project-day
    metrics_write(instance_id=busy.id, metric=GPU, timestamps=at(0, 1, 2), values=[90, 90, 90])
    metrics_write(instance_id=quiet.id, metric=GPU, timestamps=at(0), values=[10])

    row = ProjectDayRollup.objects.get()

    assert (row.project_id, row.day, row.instance_count) == (project.id, DAY, 2)
    assert row.gpu_util_pct_avg == pytest.approx((3 * 90 + 10) / 4)
    assert (row.gpu_util_pct_max, row.gpu_util_pct_minutes) == (90.0, 4)
    assert row.gpu_hours == pytest.approx(4 / 60)


def test_it_moves_a_project_day_when_the_instance_changes_project(acme, make_instances) -> None:
    old, new = (Project.objects.create(organization=acme, name=n, slug=n) for n in ("old", "new"))
    (instance,) = make_instances(acme, 1, project=old)
    metrics_write(instance_id=instance.id, metric=GPU, timestamps=at(0), values=[5])
    instance.project = new
    instance.save()

    metrics_write(instance_id=instance.id, metric=GPU, timestamps=at(1), values=[6])

    assert list(ProjectDayRollup.objects.values_list("project_id", flat=True)) == [new.id]


def test_it_rebuilds_the_same_rollups_from_raw_with_the_command(acme, make_instances) -> None:
    projects = [Project.objects.create(organization=acme, name=n, slug=n) for n in ("a", "b")]
    instances = make_instances(acme, 2, project=projects[0]) + make_instances(
        acme, 2, project=projects[1], gpu_count=8
    )
    fleet_generate(instance_ids=[i.id for i in instances], start_day=DAY, days=2, chunk_instances=3)
    incremental = rollup_snapshot()
    InstanceHourRollup.objects.all().delete()
    InstanceDayRollup.objects.all().delete()
    ProjectDayRollup.objects.all().delete()

    call_command("metrics_rebuild_rollups", stdout=None)

    assert rollup_snapshot() == incremental
    assert len(incremental["hours"]) > 0


def test_it_rejects_a_bad_date_in_the_rebuild_command() -> None:
    with pytest.raises(CommandError, match="not a date"):
        call_command("metrics_rebuild_rollups", since="yesterday")


def test_it_generates_deterministic_fleet_data_with_stopped_nights(acme, make_instances) -> None:
    instances = make_instances(acme, 6)
    ids = [i.id for i in instances]
    patterns = ["day_only", "training", "idle", "inference", "data_bound", "day_only"]
    fleet_generate(instance_ids=ids, start_day=DAY, days=1, patterns=patterns, chunk_instances=4)

    gpu = metrics_read(
        instance_ids=ids, metric=GPU, start=MIDNIGHT, end=MIDNIGHT + dt.timedelta(days=1)
    )

    # 20:00-01:00 UTC is the night in Shanghai: day-only instances are stopped, so no points.
    assert np.isnan(gpu[0, 12 * 60 : 24 * 60]).all()
    assert np.isfinite(gpu[1]).mean() > 0.99
    assert np.nanmean(gpu[1]) > np.nanmean(gpu[2]) + 30  # training vs idle
