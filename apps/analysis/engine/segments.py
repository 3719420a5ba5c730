"""Merging per-minute phase labels into phase segments."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import numpy.typing as npt

from .evidence import Evidence, segment_evidence
from .features import as_fleet
from .thresholds import Phase


@dataclasses.dataclass(frozen=True)
class Segment:
    """A maximal run of minutes with one phase: ``[start_minute, end_minute)``."""

    start_minute: int
    end_minute: int
    phase: Phase
    mean_gpu_util_pct: float | None
    """Mean GPU utilization over the segment; None for an UNKNOWN segment (nothing observed)."""
    evidence: Evidence | None = None
    """Metrics present in at least half of the segment's minutes; None when not computed."""

    @property
    def minutes(self) -> int:
        """Length of the segment in minutes."""
        return self.end_minute - self.start_minute


@dataclasses.dataclass(frozen=True)
class SegmentTable:
    """Segments of a whole fleet as parallel arrays (one entry per segment).

    Segments are ordered by instance, then by start minute, and tile every instance's period
    exactly: each minute belongs to exactly one segment.
    """

    instance: np.ndarray
    start_minute: np.ndarray
    end_minute: np.ndarray
    phase: np.ndarray
    mean_gpu_util_pct: np.ndarray
    """float64; NaN where the segment has no observed minute (UNKNOWN)."""
    evidence: np.ndarray | None = None
    """uint8 :class:`Evidence` bits per segment (0 for UNKNOWN) when memory and CPU were given."""

    def __len__(self) -> int:
        return int(self.instance.size)

    def for_instance(self, index: int) -> list[Segment]:
        """The segments of one instance (row ``index`` of the input) as :class:`Segment` objects."""
        first, last = np.searchsorted(self.instance, [index, index + 1])
        return [
            Segment(
                start_minute=int(self.start_minute[i]),
                end_minute=int(self.end_minute[i]),
                phase=Phase(int(self.phase[i])),
                mean_gpu_util_pct=_optional(float(self.mean_gpu_util_pct[i])),
                evidence=None if self.evidence is None else Evidence(int(self.evidence[i])),
            )
            for i in range(first, last)
        ]


def segment_table(
    labels: npt.ArrayLike,
    gpu_util: npt.ArrayLike,
    *,
    gpu_mem: npt.ArrayLike | None = None,
    cpu_util: npt.ArrayLike | None = None,
) -> SegmentTable:
    """Merge labels of shape (minutes,) or (instances, minutes) into segments of equal phase.

    ``gpu_util`` has the labels' shape; a segment's mean utilization is the mean over its minutes
    (all observed, for labels from :func:`classify_phases`). Runs never cross instances. Given
    the memory and CPU inputs too, each segment gets its :class:`Evidence` (which metrics were
    present in at least half of its minutes; see ``evidence.unseparated_phases``).
    """
    label_rows = np.asarray(labels)
    if label_rows.ndim == 1:
        label_rows = label_rows[np.newaxis, :]
    util_rows = as_fleet("gpu_util", gpu_util)
    if label_rows.shape != util_rows.shape:
        raise ValueError(f"labels {label_rows.shape} and gpu_util {util_rows.shape} differ")
    _instances, minutes = label_rows.shape
    if label_rows.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return SegmentTable(empty, empty, empty, empty.astype(np.uint8), empty.astype(float))

    change = np.empty(label_rows.shape, dtype=bool)
    change[:, 0] = True
    np.not_equal(label_rows[:, 1:], label_rows[:, :-1], out=change[:, 1:])
    starts = np.flatnonzero(change)
    ends = np.empty_like(starts)
    ends[:-1] = starts[1:]
    ends[-1] = label_rows.size
    # A run that reaches the next instance's first minute ends at its own row's end; row starts
    # are always change points, so starts[i + 1] is exactly that boundary.
    flat_util = np.ascontiguousarray(util_rows).reshape(-1)
    # float64 accumulation: a float32 running sum over a month of minutes loses ~0.1 points.
    sums = np.add.reduceat(flat_util, starts, dtype=np.float64)
    lengths = ends - starts
    phase = label_rows.reshape(-1)[starts].astype(np.uint8)
    evidence = None
    if gpu_mem is not None and cpu_util is not None:
        mem_rows, cpu_rows = as_fleet("gpu_mem", gpu_mem), as_fleet("cpu_util", cpu_util)
        if not mem_rows.shape == cpu_rows.shape == label_rows.shape:
            raise ValueError("gpu_mem and cpu_util must have the labels' shape")
        evidence = segment_evidence(starts, lengths, phase != Phase.UNKNOWN, mem_rows, cpu_rows)
    return SegmentTable(
        instance=starts // minutes,
        start_minute=starts % minutes,
        end_minute=(starts % minutes) + lengths,
        phase=phase,
        mean_gpu_util_pct=sums / lengths,
        evidence=evidence,
    )


def segments(
    labels: npt.ArrayLike,
    gpu_util: npt.ArrayLike,
    *,
    gpu_mem: npt.ArrayLike | None = None,
    cpu_util: npt.ArrayLike | None = None,
) -> list[Segment]:
    """Phase segments of one instance: labels and metrics of shape (minutes,).

    Each segment is ``[start_minute, end_minute)`` with its phase and mean GPU utilization (and
    its evidence when memory and CPU are given); the segments tile the period, UNKNOWN
    stretches included.
    """
    if np.ndim(labels) != 1:
        raise ValueError("segments() takes one instance's (minutes,) labels; use segment_table()")
    table = segment_table(labels, gpu_util, gpu_mem=gpu_mem, cpu_util=cpu_util)
    return table.for_instance(0)


def _optional(value: float) -> float | None:
    return None if math.isnan(value) else value
