"""Thresholds: defaults from DOMAIN.md and validated organization overrides."""

from __future__ import annotations

import pytest

from apps.analysis.engine import DEFAULT_THRESHOLDS, PhaseThresholds


def test_it_starts_from_the_domain_signatures() -> None:
    t = DEFAULT_THRESHOLDS
    assert (t.idle_gpu_util_max_pct, t.data_gpu_util_max_pct) == (5.0, 20.0)
    assert (t.eval_gpu_util_min_pct, t.eval_gpu_util_max_pct) == (40.0, 60.0)
    assert (t.train_gpu_util_min_pct, t.train_gpu_util_max_pct) == (30.0, 90.0)
    assert t.min_phase_minutes == 10


def test_it_applies_valid_overrides_without_touching_the_original() -> None:
    changed = DEFAULT_THRESHOLDS.with_overrides({"min_phase_minutes": 30, "cpu_busy_min_pct": 45})
    assert changed.min_phase_minutes == 30
    assert changed.cpu_busy_min_pct == 45.0
    assert isinstance(changed.cpu_busy_min_pct, float)
    assert DEFAULT_THRESHOLDS.min_phase_minutes == 10


@pytest.mark.parametrize(
    ("overrides", "key"),
    [
        ({"idle_gpu_util_max": 5}, "idle_gpu_util_max"),
        ({"idle_gpu_util_max_pct": "5"}, "idle_gpu_util_max_pct"),
        ({"idle_gpu_util_max_pct": True}, "idle_gpu_util_max_pct"),
        ({"idle_gpu_util_max_pct": 150}, "idle_gpu_util_max_pct"),
        ({"idle_gpu_util_max_pct": float("nan")}, "idle_gpu_util_max_pct"),
        ({"min_phase_minutes": 2.5}, "min_phase_minutes"),
        ({"min_phase_minutes": 0}, "min_phase_minutes"),
        ({"switch_penalty": -1}, "switch_penalty"),
        ({"profile_min_coverage": 1.5}, "profile_min_coverage"),
        ({"eval_gpu_util_min_pct": 70}, "eval_gpu_util_min_pct"),
        ({"block_minutes": 7}, "feature_window_minutes"),
    ],
)
def test_it_rejects_bad_overrides_naming_the_key(overrides: dict[str, object], key: str) -> None:
    with pytest.raises(ValueError, match=f"^{key}:"):
        DEFAULT_THRESHOLDS.with_overrides(overrides)


def test_it_refuses_to_construct_contradictory_thresholds() -> None:
    with pytest.raises(ValueError, match="idle_gpu_util_max_pct"):
        PhaseThresholds(idle_gpu_util_max_pct=30.0, data_gpu_util_max_pct=20.0)
