"""The seeded fleet: composition, determinism and life events (no HTTP)."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

from apps.cloud.providers.tencent.simulator import SimulatedCloud
from apps.cloud.providers.tencent.simulator.constants import to_epoch

from ._sdk import NOW


def _cloud(seed=1):
    return SimulatedCloud(seed=seed, now=lambda: NOW)


def test_it_builds_three_dozen_gpu_instances_in_two_regions():
    fleet = _cloud().fleet

    assert len(fleet.all_instances) == 36
    assert fleet.regions == ("ap-guangzhou", "ap-shanghai")
    assert {i.spec.family for i in fleet} == {"GN7", "GN10Xp", "GT4", "PNV4", "GI3X"}
    assert Counter(i.charge_type for i in fleet) == {
        "POSTPAID_BY_HOUR": 26,
        "PREPAID": 6,
        "SPOTPAID": 4,
    }
    assert {i.pattern for i in fleet} >= {
        "training", "data_bound", "idle", "day_only_stopped", "day_only_idle",
        "inference", "memory_pressure", "hot",
    }  # fmt: skip


def test_it_has_untagged_and_non_ascii_tagged_instances():
    fleet = _cloud().fleet

    assert sum(1 for i in fleet if not i.tags) == 3
    assert any(i.tag("project") == "项目A" for i in fleet)
    assert any(i.tag("team") == "数据组" for i in fleet)
    assert any(i.tag("project") is None and i.tag("team") for i in fleet)


def test_it_has_one_new_and_one_terminated_instance_and_a_month_of_history():
    cloud = _cloud()
    now = to_epoch(NOW)
    fleet = cloud.fleet

    gone = [i for i in fleet if i.terminated_at is not None]
    new = [i for i in fleet if now - i.created_at < 3 * 86400]
    assert len(gone) == 1
    assert 9 * 86400 < now - gone[0].terminated_at < 11 * 86400
    assert len(new) == 1
    assert all(now - i.created_at > 30 * 86400 for i in fleet if i not in new)
    assert len(cloud.instances()) == 35


def test_it_is_deterministic_per_seed():
    first, again, other = _cloud(1), _cloud(1), _cloud(2)
    inst = first.fleet.all_instances[0]
    start = NOW - timedelta(days=3)

    assert [i.instance_id for i in first.fleet] == [i.instance_id for i in again.fleet]
    assert [i.instance_id for i in first.fleet] != [i.instance_id for i in other.fleet]
    assert first.metric_series(inst.instance_id, "GpuUtil", start, start + timedelta(hours=5)) == (
        again.metric_series(inst.instance_id, "GpuUtil", start, start + timedelta(hours=5))
    )
    assert first.expected_month_total("2026-10") == again.expected_month_total("2026-10")
    assert first.expected_month_total("2026-10") != other.expected_month_total("2026-10")


def test_it_anchors_history_to_the_day_the_simulation_started():
    later = _cloud()
    later_clock = SimulatedCloud(seed=1, now=lambda: NOW + timedelta(hours=5))

    assert later.anchor == later_clock.anchor
    assert later.anchor == to_epoch(NOW.replace(hour=0, minute=0, second=0))
