"""The analysis backend on sources that lack a metric, and instances idle around the clock."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Callable

import pytest
from rest_framework.test import APIClient

from apps.analysis import services
from apps.analysis.engine import Evidence, Phase
from apps.analysis.models import InstanceProfile, PhaseSegment
from apps.cloud.models import Instance
from tests.analysis.conftest import AS_OF, DATA_DAYS, DATA_START, START
from tests.fleet_generator import fleet_generate

pytestmark = pytest.mark.django_db
WITHOUT_CPU = ["gpu_util_pct", "gpu_mem_used_pct"]
PERIOD = {"start": "2026-10-26T00:00:00Z", "end": "2026-10-27T00:00:00Z"}


@pytest.fixture
def no_cpu_fleet(make_instance: Callable[..., Instance]) -> list[Instance]:
    """A training and an idle instance whose source reports no CPU at all."""
    instances = [make_instance("train-no-cpu"), make_instance("idle-no-cpu")]
    fleet_generate(
        instance_ids=[i.pk for i in instances],
        start_day=DATA_START,
        days=DATA_DAYS,
        patterns=["training", "idle"],
        metrics=WITHOUT_CPU,
    )
    return instances


def phase_minutes(instance: Instance) -> Counter[Phase]:
    minutes: Counter[Phase] = Counter()
    for segment in PhaseSegment.objects.filter(instance=instance):
        minutes[Phase(segment.phase)] += int((segment.end_at - segment.start_at).total_seconds())
    return Counter({phase: seconds // 60 for phase, seconds in minutes.items()})


def test_it_finds_idle_and_busy_phases_on_a_fleet_without_cpu(no_cpu_fleet: list[Instance]) -> None:
    """Before, every minute without CPU was unknown: such a fleet had no phases at all."""
    services.analysis_run(
        instance_ids=[i.pk for i in no_cpu_fleet], start=START, end=AS_OF, as_of=AS_OF
    )
    train, idle = no_cpu_fleet
    train_minutes, idle_minutes = phase_minutes(train), phase_minutes(idle)
    total = DATA_DAYS * 1440

    assert idle_minutes[Phase.IDLE] >= 0.95 * total
    assert train_minutes[Phase.TRAINING] + train_minutes[Phase.EVALUATION] >= 0.95 * total
    known = PhaseSegment.objects.filter(instance__in=no_cpu_fleet).exclude(phase=Phase.UNKNOWN)
    assert {s.evidence for s in known} == {Evidence.GPU_UTIL | Evidence.GPU_MEM}


def test_it_updates_the_evidence_of_segments_when_the_missing_metric_arrives(
    no_cpu_fleet: list[Instance],
) -> None:
    ids = [i.pk for i in no_cpu_fleet]
    services.analysis_run(instance_ids=ids, start=START, end=AS_OF, as_of=AS_OF)
    fleet_generate(
        instance_ids=ids,
        start_day=DATA_START,
        days=DATA_DAYS,
        patterns=["training", "idle"],
        metrics=["cpu_util_pct"],
    )

    services.analysis_run(instance_ids=ids, start=START, end=AS_OF, as_of=AS_OF)

    known = PhaseSegment.objects.filter(instance_id__in=ids).exclude(phase=Phase.UNKNOWN)
    assert {s.evidence for s in known} == {Evidence.FULL}


def test_it_serves_which_phases_could_not_be_told_apart(
    alice_client: APIClient, no_cpu_fleet: list[Instance], fleet: list[Instance]
) -> None:
    ids = [i.pk for i in [*no_cpu_fleet, fleet[0]]]
    services.analysis_run(instance_ids=ids, start=START, end=AS_OF, as_of=AS_OF)

    idle = alice_client.get(f"/api/v1/instances/{no_cpu_fleet[1].pk}/phases", PERIOD).json()
    full = alice_client.get(f"/api/v1/instances/{fleet[0].pk}/phases", PERIOD).json()

    idle_segments = [s for s in idle["segments"] if s["phase"] == "idle"]
    assert idle_segments
    assert all(s["missing_metrics"] == ["cpu_util"] for s in idle_segments)
    assert all(s["unseparated_phases"] == [["idle", "data_processing"]] for s in idle_segments)
    assert idle["evidence"]["unseparated_phases"] == [
        {
            "phases": ["idle", "data_processing"],
            "minutes": sum(s["minutes"] for s in idle["segments"] if s["phase"] != "unknown"),
        }
    ]
    assert idle["evidence"]["full_evidence_minutes"] == 0
    assert all(s["unseparated_phases"] == [] for s in full["segments"])
    assert full["evidence"]["unseparated_phases"] == []
    assert full["evidence"]["full_evidence_minutes"] == sum(
        s["minutes"] for s in full["segments"] if s["phase"] != "unknown"
    )


def test_it_stores_an_instance_idle_around_the_clock_as_such_and_not_as_a_window(
    make_instance: Callable[..., Instance], alice_client: APIClient
) -> None:
    idle = make_instance("idle-for-weeks")
    first_day = AS_OF.date() - dt.timedelta(days=14)
    fleet_generate(
        instance_ids=[idle.pk],
        start_day=first_day,
        days=14,
        patterns=["idle"],
        metrics=["gpu_util_pct", "gpu_mem_used_pct", "cpu_util_pct"],
    )

    services.analysis_run(instance_ids=[idle.pk], start=START, end=AS_OF, as_of=AS_OF)

    profile = InstanceProfile.objects.get(instance=idle)
    assert profile.low_around_the_clock is True
    assert profile.has_off_window is False
    assert profile.off_window is None
    body = alice_client.get(f"/api/v1/instances/{idle.pk}/profile").json()
    assert body["off_window"] is None
    assert body["low_around_the_clock"]["text"] == "around the clock"
    assert body["low_around_the_clock"]["observed_hours"] == 168
    assert body["low_around_the_clock"]["supporting_weeks"] == 2
