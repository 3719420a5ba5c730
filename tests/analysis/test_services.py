"""The analysis service over the real metric store: stored results, idempotency, incrementality."""

from __future__ import annotations

import datetime as dt
import itertools
import zoneinfo
from typing import Any

import numpy as np
import pytest

from apps.analysis import services
from apps.analysis.models import AnalysisState, InstanceProfile, PhaseDay, PhaseSegment
from apps.analysis.selectors import analysis_due, phase_minutes_daily
from apps.cloud.models import Instance
from apps.metrics.constants import Metric
from apps.metrics.models import InstanceDayRollup, InstanceHourRollup
from apps.metrics.services import metrics_write
from tests.analysis.conftest import AS_OF, DATA_DAYS, START

pytestmark = pytest.mark.django_db


def phase_hours(instance: Instance | int) -> list[tuple[dt.datetime, dict[str, int]]]:
    """(UTC hour start, phase minutes) of the hours with data stored in ``PhaseDay``."""
    instance_id = instance if isinstance(instance, int) else instance.pk
    out = []
    for row in PhaseDay.objects.filter(instance_id=instance_id).order_by("day"):
        midnight = dt.datetime.combine(row.day, dt.time(), tzinfo=dt.UTC)
        for hour, minutes in enumerate(row.hour_minutes()):
            if any(minutes.values()):
                out.append((midnight + dt.timedelta(hours=hour), minutes))
    return out


def run(instances: list[Instance], **kwargs: Any) -> services.AnalysisRunResult:
    options = {"start": START, "end": AS_OF, "as_of": AS_OF, **kwargs}
    return services.analysis_run(instance_ids=[i.pk for i in instances], **options)


def snapshot() -> dict[str, list]:
    """Every row the analysis writes, every column, ids included."""
    return {
        "segments": list(PhaseSegment.objects.order_by("id").values()),
        "profiles": list(InstanceProfile.objects.order_by("id").values()),
        "states": list(AnalysisState.objects.order_by("pk").values()),
        "phase_days": list(PhaseDay.objects.order_by("instance_id", "day").values()),
        "hours": list(
            InstanceHourRollup.objects.order_by("id").values("id", "phase_minutes", "updated_at")
        ),
        "days": list(
            InstanceDayRollup.objects.order_by("id").values("id", "phase_minutes", "updated_at")
        ),
    }


def test_it_changes_nothing_when_the_analysis_is_run_again(fleet: list[Instance]) -> None:
    first = run(fleet)
    before = snapshot()
    assert first.segments_inserted > 0
    assert first.hours_updated == 4 * 24 * DATA_DAYS

    again = run(fleet)

    assert snapshot() == before
    assert (again.segments_inserted, again.segments_deleted, again.hours_updated) == (0, 0, 0)
    assert (again.hours_deleted, again.profiles_written) == (0, 0)


def test_it_tiles_each_day_with_segments_that_match_the_hourly_phase_minutes(
    fleet: list[Instance],
) -> None:
    run(fleet)
    for instance in fleet:
        segments = list(PhaseSegment.objects.filter(instance=instance).order_by("start_at"))
        assert segments[0].start_at == START
        assert segments[-1].end_at == AS_OF
        for left, right in itertools.pairwise(segments):
            assert left.end_at == right.start_at  # no gap, no overlap
            assert left.start_at.date() == (left.end_at - dt.timedelta(minutes=1)).date()
        hours = [minutes for _start, minutes in phase_hours(instance)]
        assert len(hours) == 24 * DATA_DAYS
        assert all(sum(h.values()) == 60 for h in hours)
        totals: dict[str, int] = {}
        for hour in hours:
            for phase, minutes in hour.items():
                totals[phase] = totals.get(phase, 0) + minutes
        from_segments: dict[str, int] = {}
        for segment in segments:
            key = segment.get_phase_display().split(" ")[0].lower()
            key = {"data": "data_processing"}.get(key, key)
            minutes = (segment.end_at - segment.start_at) // dt.timedelta(minutes=1)
            from_segments[key] = from_segments.get(key, 0) + minutes
        assert {k: v for k, v in totals.items() if v} == from_segments


def test_it_labels_each_synthetic_pattern_with_its_dominant_phase(fleet: list[Instance]) -> None:
    run(fleet)
    train, idle, _serve, data = fleet
    utc = train.organization
    utc.timezone = "UTC"  # days of the selector in UTC, like the day rollups
    daily = phase_minutes_daily(organization=utc, start=START.date(), end=AS_OF.date())

    def top(instance: Instance) -> str:
        minutes = daily[(instance.pk, START.date())]
        return max(minutes, key=minutes.__getitem__)

    assert top(idle) == "idle"
    assert top(data) == "data_processing"
    assert top(train) in {"training", "evaluation"}


def test_it_leaves_the_metric_rollups_alone_so_its_own_writes_are_not_new_data(
    fleet: list[Instance],
) -> None:
    fields = ("id", "updated_at", "phase_minutes")
    hours = list(InstanceHourRollup.objects.order_by("id").values_list(*fields))
    days = list(InstanceDayRollup.objects.order_by("id").values_list(*fields))
    run(fleet)
    assert list(InstanceHourRollup.objects.order_by("id").values_list(*fields)) == hours
    assert list(InstanceDayRollup.objects.order_by("id").values_list(*fields)) == days


def test_it_sums_phase_minutes_per_local_day_per_instance_and_project(
    fleet: list[Instance],
) -> None:
    run(fleet)
    acme = fleet[0].organization
    acme.timezone = "Asia/Shanghai"  # UTC+8: a local day is 16:00-16:00 UTC
    day = dt.date(2026, 10, 27)
    local_start = dt.datetime(2026, 10, 26, 16, tzinfo=dt.UTC)
    by_instance = phase_minutes_daily(organization=acme, start=day, end=day + dt.timedelta(1))
    assert set(by_instance) == {(i.pk, day) for i in fleet}
    for instance in fleet:
        hours = [
            minutes
            for hour_start, minutes in phase_hours(instance)
            if local_start <= hour_start < local_start + dt.timedelta(days=1)
        ]
        expected: dict[str, int] = {}
        for hour in hours:
            for phase, minutes in hour.items():
                expected[phase] = expected.get(phase, 0) + minutes
        assert by_instance[(instance.pk, day)] == expected
        assert sum(expected.values()) == 24 * 60

    by_project = phase_minutes_daily(
        organization=acme, start=day, end=day + dt.timedelta(1), group_by="project"
    )
    vision = fleet[0].project_id
    assert set(by_project) == {(vision, day), (None, day)}
    for project_id, members in ((vision, fleet[:2]), (None, fleet[2:])):
        for phase in by_project[(project_id, day)]:
            assert by_project[(project_id, day)][phase] == sum(
                by_instance[(i.pk, day)][phase] for i in members
            )
    # The first local day starts 8 hours before the data: only 16 hours of it were analysed.
    first = phase_minutes_daily(organization=acme, start=START.date(), end=day)
    assert {sum(m.values()) for m in first.values()} == {16 * 60}


@pytest.mark.parametrize("tz", ["Asia/Kolkata", "America/St_Johns", "UTC"])
def test_it_sums_the_stored_hours_on_the_local_day_each_hour_starts_in(
    fleet: list[Instance], tz: str
) -> None:
    run(fleet)
    acme = fleet[0].organization
    acme.timezone = tz  # half-hour offsets shift a local day by half an hour
    zone = zoneinfo.ZoneInfo(tz)
    first, last = START.date() - dt.timedelta(days=1), AS_OF.date() + dt.timedelta(days=1)
    ids = [fleet[0].pk, fleet[2].pk]
    daily = phase_minutes_daily(organization=acme, start=first, end=last, instance_ids=ids)
    expected: dict[tuple[int, dt.date], dict[str, int]] = {}
    for instance_id in ids:
        for hour_start, minutes in phase_hours(instance_id):
            day = hour_start.astimezone(zone).date()
            if first <= day < last:
                totals = expected.setdefault((instance_id, day), dict.fromkeys(minutes, 0))
                for phase, count in minutes.items():
                    totals[phase] += count
    assert daily == expected
    assert sum(sum(m.values()) for m in daily.values()) == 2 * 24 * 60 * DATA_DAYS


def test_it_deletes_the_phase_hours_of_hours_that_lost_their_data(
    fleet: list[Instance],
) -> None:
    idle = fleet[1]
    run([idle])
    assert len(phase_hours(idle)) == 24 * DATA_DAYS
    # Re-analysing one day with no data at all (as if its points were pruned) empties it.
    from apps.analysis import storage

    result = storage.phase_days_replace(
        organization_id=idle.organization_id,
        instance_ids=[idle.pk],
        row_instance_ids=np.zeros(0, dtype=np.int64),
        day_starts=np.zeros(0, dtype=np.int64),
        minutes=np.zeros((0, 24, 5), dtype=np.uint8),
        start=START,
        end=START + dt.timedelta(days=1),
    )
    assert result == (0, 24)
    assert len(phase_hours(idle)) == 24 * (DATA_DAYS - 1)
    assert not [h for h, _m in phase_hours(idle) if h < START + dt.timedelta(days=1)]
    assert not PhaseDay.objects.filter(instance=idle, day=START.date()).exists()


def test_it_replaces_the_segments_of_a_day_whose_data_changed(fleet: list[Instance]) -> None:
    run(fleet)
    idle = fleet[1]
    untouched = list(
        PhaseSegment.objects.filter(instance=idle, start_at__lt=START + dt.timedelta(days=1))
        .order_by("start_at")
        .values()
    )
    # Two busy hours on the last day: the card trains for a while.
    busy_start = AS_OF - dt.timedelta(hours=5)
    stamps = [busy_start + dt.timedelta(minutes=m) for m in range(120)]
    for metric, value in (
        (Metric.GPU_UTIL_PCT, None),
        (Metric.GPU_MEM_USED_PCT, 80.0),
        (Metric.CPU_UTIL_PCT, 40.0),
    ):
        values = 30 + 50 * np.abs(np.sin(np.arange(120) / 3.0)) if value is None else [value] * 120
        metrics_write(instance_id=idle.pk, metric=metric, timestamps=stamps, values=values)

    result = run([idle], start=AS_OF - dt.timedelta(hours=6))

    assert result.segments_inserted > 0
    phases = set(
        PhaseSegment.objects.filter(
            instance=idle, start_at__gte=busy_start, end_at__lte=busy_start + dt.timedelta(hours=2)
        ).values_list("phase", flat=True)
    )
    assert phases & {3, 4}  # evaluation or training now
    busy_hours = [
        minutes
        for hour_start, minutes in phase_hours(idle)
        if busy_start <= hour_start < busy_start + dt.timedelta(hours=2)
    ]
    assert result.hours_updated >= 2
    assert all(h["evaluation"] + h["training"] > 0 for h in busy_hours)
    after = list(
        PhaseSegment.objects.filter(instance=idle, start_at__lt=START + dt.timedelta(days=1))
        .order_by("start_at")
        .values()
    )
    assert after == untouched  # other days were not rewritten


def test_it_analyses_only_instances_with_new_data_on_the_hourly_run(fleet: list[Instance]) -> None:
    first = services.analysis_recent_run(as_of=AS_OF)
    assert first.instances == len(fleet)
    assert analysis_due(end=AS_OF, lookback_days=14) == {}
    assert services.analysis_recent_run(as_of=AS_OF).instances == 0

    late = AS_OF - dt.timedelta(days=1, hours=3)
    metrics_write(
        instance_id=fleet[2].pk, metric=Metric.GPU_UTIL_PCT, timestamps=[late], values=[99.0]
    )
    assert analysis_due(end=AS_OF, lookback_days=14) == {fleet[2].pk: late}
    again = services.analysis_recent_run(as_of=AS_OF)
    assert again.instances == 1
    # Re-analysed from the UTC midnight of the changed hour up to the hour of as_of.
    assert again.minutes == 2 * 24 * 60


def test_it_uses_the_organizations_threshold_overrides(fleet: list[Instance]) -> None:
    train = fleet[0]
    run([train])
    training_before = PhaseSegment.objects.filter(instance=train, phase=4).count()
    services.analysis_settings_update(
        organization=train.organization,
        thresholds={"idle_gpu_util_max_pct": 95.0, "data_gpu_util_max_pct": 95.0},
    )
    run([train])
    assert training_before > 0
    assert not PhaseSegment.objects.filter(instance=train, phase=4).exists()
    assert PhaseSegment.objects.filter(instance=train, phase=1).exists()


def test_it_reclassifies_every_retained_day_when_the_thresholds_change(
    fleet: list[Instance], monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks
) -> None:
    from apps.analysis import batches

    train = fleet[0]
    run([train])
    assert PhaseSegment.objects.filter(instance=train, phase=4).exists()
    # The fixture's days lie weeks before the wall clock: retained here, past the nightly 14.
    monkeypatch.setattr(batches, "analysed_days", lambda: 400)
    with django_capture_on_commit_callbacks(execute=True):
        services.analysis_settings_update(
            organization=train.organization,
            thresholds={"idle_gpu_util_max_pct": 95.0, "data_gpu_util_max_pct": 95.0},
        )
    assert not PhaseSegment.objects.filter(instance=train, phase=4).exists()
    assert PhaseSegment.objects.filter(instance=train, phase=1).exists()


def test_it_refuses_threshold_overrides_that_contradict_each_other(fleet: list[Instance]) -> None:
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError, match="idle_gpu_util_max_pct"):
        services.analysis_settings_update(
            organization=fleet[0].organization, thresholds={"idle_gpu_util_max_pct": 50.0}
        )


def test_it_recomputes_the_last_fourteen_days_nightly(fleet: list[Instance]) -> None:
    result = services.analysis_full_run(as_of=AS_OF + dt.timedelta(minutes=30))
    assert result.instances == len(fleet)
    assert AnalysisState.objects.filter(analysed_until=AS_OF).count() == len(fleet)
    profile = InstanceProfile.objects.get(instance=fleet[0])
    assert profile.end_at == AS_OF
    assert profile.start_at == AS_OF - dt.timedelta(days=14)
    assert len(profile.median_pct) == 7
    assert len(profile.median_pct[0]) == 24


def test_it_runs_the_tasks_with_an_iso_as_of(fleet: list[Instance]) -> None:
    from apps.analysis.tasks import analyse_full, analyse_recent

    queued = analyse_recent.delay(as_of=AS_OF.isoformat()).get()
    assert queued["instances"] == len(fleet)
    assert AnalysisState.objects.filter(analysed_until=AS_OF).count() == len(fleet)
    phase_days = list(PhaseDay.objects.order_by("instance_id", "day").values())
    full = analyse_full.delay(as_of=AS_OF.isoformat()).get()
    # The nightly run covers 14 days: the days before the data are new UNKNOWN segments, the
    # analysed days are unchanged.
    assert full["instances"] == len(fleet)
    assert full["instance_days"] == len(fleet) * 14
    assert list(PhaseDay.objects.order_by("instance_id", "day").values()) == phase_days
    assert not PhaseSegment.objects.filter(start_at__lt=START).exclude(phase=0).exists()


def test_it_keeps_the_tail_of_a_stored_segment_that_runs_past_a_shorter_rerun(
    fleet: list[Instance],
) -> None:
    run(fleet)
    cut = AS_OF - dt.timedelta(hours=6, minutes=7)
    run(fleet, end=cut)
    for instance in fleet:
        segments = list(PhaseSegment.objects.filter(instance=instance).order_by("start_at"))
        assert segments[0].start_at == START
        assert segments[-1].end_at == AS_OF
        for left, right in itertools.pairwise(segments):
            assert left.end_at == right.start_at  # no gap, no overlap
    assert PhaseSegment.objects.filter(start_at=cut).exists()  # a kept tail
    # And re-running the shorter range again changes nothing.
    again = run(fleet, end=cut)
    assert (again.segments_inserted, again.segments_deleted, again.hours_updated) == (0, 0, 0)


def test_it_deletes_an_instances_results_with_the_instance(fleet: list[Instance]) -> None:
    # The result tables carry no database FK constraints (see models.RESULT_FK): the ORM's
    # cascade is what removes them.
    run(fleet)
    gone, kept = fleet[1], fleet[0]
    gone.delete()
    assert not PhaseDay.objects.filter(instance_id=gone.pk).exists()
    assert not PhaseSegment.objects.filter(instance_id=gone.pk).exists()
    assert len(phase_hours(kept)) == 24 * DATA_DAYS


@pytest.mark.django_db(transaction=True)
def test_it_stores_the_same_results_when_writes_are_pipelined(fleet: list[Instance]) -> None:
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("the pipelined writer runs on PostgreSQL only")
    # Committed transactions: the writer thread's own connection sees the fleet.
    first = run(fleet, chunk_instances=1, pipeline=True)
    assert first.instances == len(fleet)
    assert first.hours_updated == 4 * 24 * DATA_DAYS
    assert AnalysisState.objects.filter(analysed_until=AS_OF).count() == len(fleet)
    before = snapshot()
    # The sequential path finds every row already as it would write it.
    again = run(fleet, chunk_instances=1, pipeline=False)
    assert (again.segments_inserted, again.segments_deleted, again.hours_updated) == (0, 0, 0)
    assert (again.hours_deleted, again.profiles_written) == (0, 0)
    assert snapshot() == before
