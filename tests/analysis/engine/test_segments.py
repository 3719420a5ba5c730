"""Segments: merged runs of one phase that tile the period."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from apps.analysis.engine import Phase, Segment, segment_table, segments


def test_it_merges_minutes_into_segments_with_mean_utilization() -> None:
    labels = np.array([1, 1, 1, 0, 0, 4, 4, 4, 4, 3], dtype=np.uint8)
    util = np.array([1, 2, 3, np.nan, np.nan, 50, 60, 70, 80, 45], dtype=np.float32)
    assert segments(labels, util) == [
        Segment(0, 3, Phase.IDLE, 2.0),
        Segment(3, 5, Phase.UNKNOWN, None),
        Segment(5, 9, Phase.TRAINING, 65.0),
        Segment(9, 10, Phase.EVALUATION, 45.0),
    ]


def test_it_never_merges_across_instances_and_tiles_each_period() -> None:
    labels = np.array([[1, 1, 4, 4], [4, 4, 4, 1]], dtype=np.uint8)
    util = np.array([[1, 1, 60, 60], [60, 60, 60, 2]], dtype=np.float32)
    table = segment_table(labels, util)
    assert table.instance.tolist() == [0, 0, 1, 1]
    assert [(s.start_minute, s.end_minute) for s in table.for_instance(1)] == [(0, 3), (3, 4)]
    for row in range(2):
        parts = table.for_instance(row)
        assert parts[0].start_minute == 0
        assert parts[-1].end_minute == 4
        assert all(a.end_minute == b.start_minute for a, b in itertools.pairwise(parts))


def test_it_rejects_mismatched_shapes() -> None:
    with pytest.raises(ValueError, match="differ"):
        segment_table(np.zeros(4, dtype=np.uint8), np.zeros(5))
