"""Which phases the metrics present could not tell apart, per minute and per segment."""

from __future__ import annotations

import numpy as np
import pytest

from apps.analysis.engine import (
    Evidence,
    Phase,
    classify_phases,
    minute_evidence,
    missing_metrics,
    segment_table,
    segments,
    unseparated_phases,
)
from tests.fleet_generator import generate_traces

NAN = np.nan


def test_it_records_which_metrics_each_minute_has() -> None:
    gpu = np.array([50.0, 50.0, NAN, 50.0])
    mem = np.array([80.0, NAN, 80.0, NAN])
    cpu = np.array([20.0, 20.0, 20.0, NAN])

    bits = minute_evidence(gpu, mem, cpu)

    assert bits.dtype == np.uint8
    assert [Evidence(int(b)) for b in bits] == [
        Evidence.FULL,
        Evidence.GPU_UTIL | Evidence.CPU,
        Evidence.GPU_MEM | Evidence.CPU,
        Evidence.GPU_UTIL,
    ]


@pytest.mark.parametrize(
    ("evidence", "expected", "missing"),
    [
        (Evidence.FULL, (), ()),
        (
            Evidence.GPU_UTIL | Evidence.GPU_MEM,
            ((Phase.IDLE, Phase.DATA_PROCESSING),),
            ("cpu_util",),
        ),
        (Evidence.GPU_UTIL | Evidence.CPU, ((Phase.EVALUATION, Phase.TRAINING),), ("gpu_mem",)),
        (
            Evidence.GPU_UTIL,
            ((Phase.IDLE, Phase.DATA_PROCESSING), (Phase.EVALUATION, Phase.TRAINING)),
            ("gpu_mem", "cpu_util"),
        ),
        # Without GPU utilization nothing is classified, so nothing is "unseparated".
        (Evidence.GPU_MEM | Evidence.CPU, (), ("gpu_util",)),
    ],
)
def test_it_names_the_phases_a_missing_metric_leaves_unseparated(
    evidence: Evidence, expected: tuple, missing: tuple
) -> None:
    assert unseparated_phases(evidence) == expected
    assert missing_metrics(evidence) == missing


def test_it_gives_each_segment_the_metrics_present_in_most_of_its_minutes() -> None:
    fleet = generate_traces(np.random.default_rng(8), instances=3, days=1, missing_fraction=0.05)
    cpu = fleet.cpu_util.copy()
    cpu[1] = np.nan  # the second instance's source has no CPU at all
    labels = classify_phases(fleet.gpu_util, fleet.gpu_mem, cpu)

    table = segment_table(labels, fleet.gpu_util, gpu_mem=fleet.gpu_mem, cpu_util=cpu)

    assert table.evidence is not None
    known = table.phase != Phase.UNKNOWN
    without_cpu = table.instance == 1
    assert (table.evidence[known & without_cpu] == Evidence.GPU_UTIL | Evidence.GPU_MEM).all()
    assert (table.evidence[known & ~without_cpu] == Evidence.FULL).all()
    assert (table.evidence[~known] == Evidence.NONE).all()


def test_it_counts_a_metric_for_a_segment_when_half_its_minutes_have_it() -> None:
    gpu = np.full(40, 50.0)
    mem = np.full(40, 80.0)
    cpu = np.full(40, 20.0)
    cpu[:15] = NAN  # half of the first segment: counted
    labels = np.full(40, Phase.TRAINING, dtype=np.uint8)
    labels[30:] = Phase.EVALUATION
    mem[30:39] = NAN  # 9 of the last 10: not counted

    first, second = segments(labels, gpu, gpu_mem=mem, cpu_util=cpu)

    assert first.evidence == Evidence.FULL
    assert second.evidence == Evidence.GPU_UTIL | Evidence.CPU
    assert segments(labels, gpu)[0].evidence is None


def test_it_counts_only_the_segments_with_a_gap_the_same_way() -> None:
    """Few gappy segments among many minutes take the counting path for just those segments."""
    gpu = np.full(1000, 50.0)
    mem = np.full(1000, 80.0)
    cpu = np.full(1000, 20.0)
    labels = np.full(1000, Phase.TRAINING, dtype=np.uint8)
    labels[900:950] = Phase.EVALUATION
    labels[950:] = Phase.IDLE
    cpu[900:930] = NAN  # 20 of 50 minutes with CPU: not counted
    cpu[950:970] = NAN  # 30 of 50: counted
    mem[100:101] = NAN  # one minute of 900: counted

    training, evaluation, idle = segments(labels, gpu, gpu_mem=mem, cpu_util=cpu)

    assert training.evidence == Evidence.FULL
    assert evaluation.evidence == Evidence.GPU_UTIL | Evidence.GPU_MEM
    assert idle.evidence == Evidence.FULL
