"""What the metrics present can tell apart, per minute and per segment.

The classifier decides on whatever metrics a minute has (see ``classify_phases``): GPU
utilization alone separates idle from busy, CPU separates idle from data-bound, GPU memory
separates evaluation from training. A source that lacks a metric therefore still gets phases, and
this module says, for each minute or segment, which metrics were there and so which phases could
not be told apart. A phase label with weak evidence is still the best reading of the data; the
list of unseparated phases is what keeps a reader from trusting it further than it goes.
"""

from __future__ import annotations

from enum import IntFlag

import numpy as np
import numpy.typing as npt

from .features import as_fleet
from .thresholds import Phase


class Evidence(IntFlag):
    """Which metrics a minute (or most minutes of a segment) had; stored as a small integer."""

    NONE = 0
    GPU_UTIL = 1
    GPU_MEM = 2
    CPU = 4
    FULL = GPU_UTIL | GPU_MEM | CPU


#: The metric each evidence bit stands for, by its API name.
EVIDENCE_METRICS: tuple[tuple[Evidence, str], ...] = (
    (Evidence.GPU_UTIL, "gpu_util"),
    (Evidence.GPU_MEM, "gpu_mem"),
    (Evidence.CPU, "cpu_util"),
)

_NAMES = ("gpu_util", "gpu_mem", "cpu_util")

# The pair of phases each missing metric leaves apart only by weaker means.
_SEPARATED_BY: tuple[tuple[Evidence, tuple[Phase, Phase]], ...] = (
    # Data-bound is low GPU utilization with a busy CPU; without CPU it looks idle (or idle
    # looks data-bound when the GPU does a little).
    (Evidence.CPU, (Phase.IDLE, Phase.DATA_PROCESSING)),
    # Evaluation holds far less GPU memory than training; without memory only the variability
    # of utilization separates them, which noisy training defeats.
    (Evidence.GPU_MEM, (Phase.EVALUATION, Phase.TRAINING)),
)


def minute_evidence(
    gpu_util: npt.ArrayLike, gpu_mem: npt.ArrayLike, cpu_util: npt.ArrayLike
) -> np.ndarray:
    """Per-minute :class:`Evidence` bits (uint8) of the three classifier inputs.

    Shapes as for ``classify_phases``: (minutes,) or (instances, minutes), NaN where missing.
    """
    one_dimensional = np.ndim(gpu_util) == 1
    inputs = (gpu_util, gpu_mem, cpu_util)
    arrays = [as_fleet(name, a) for name, a in zip(_NAMES, inputs, strict=True)]
    if not arrays[0].shape == arrays[1].shape == arrays[2].shape:
        raise ValueError("gpu_util, gpu_mem and cpu_util must have one shape")
    bits = np.zeros(arrays[0].shape, dtype=np.uint8)
    for (flag, _name), values in zip(EVIDENCE_METRICS, arrays, strict=True):
        bits |= np.isfinite(values).view(np.uint8) * np.uint8(flag)
    return bits[0] if one_dimensional else bits


def segment_evidence(
    starts: np.ndarray,
    lengths: np.ndarray,
    known: np.ndarray,
    gpu_mem: np.ndarray,
    cpu_util: np.ndarray,
) -> np.ndarray:
    """:class:`Evidence` bits of flat segments: a metric counts when at least half is present.

    ``starts`` and ``lengths`` index the flattened (instances x minutes) arrays, as in
    ``segment_table``, and the segments tile them; ``known`` is False for UNKNOWN segments,
    which get no evidence at all (every minute of a known segment has GPU utilization).
    """
    bits = np.where(known, np.uint8(Evidence.GPU_UTIL), np.uint8(0)).astype(np.uint8)
    if starts.size == 0:
        return bits
    for flag, values in ((Evidence.GPU_MEM, gpu_mem), (Evidence.CPU, cpu_util)):
        flat = np.ascontiguousarray(values).reshape(-1)
        present = _present_in_half(flat, starts, lengths, known)
        bits |= present.view(np.uint8) * np.uint8(flag)
    return bits


def _present_in_half(
    flat: np.ndarray, starts: np.ndarray, lengths: np.ndarray, known: np.ndarray
) -> np.ndarray:
    """Per known segment: the metric has a value in at least half of its minutes.

    Speed: a NaN poisons only its own segment's sum, so one ``reduceat`` over the values finds
    the segments with a gap (usually few: sources drop all metrics of a minute together, and
    those minutes are UNKNOWN segments of their own); only their minutes are counted.
    """
    with np.errstate(invalid="ignore", over="ignore"):
        sums = np.add.reduceat(flat, starts)
    gappy = np.flatnonzero(known & np.isnan(sums))
    present = known.copy()
    if gappy.size == 0:
        return present
    gappy_lengths = lengths[gappy]
    if 4 * int(gappy_lengths.sum()) > flat.size:
        # Most minutes are in gappy segments (a source without the metric): count them all.
        counts = np.add.reduceat(np.isfinite(flat).view(np.uint8), starts, dtype=np.int64)
        return known & (2 * counts >= lengths)
    ends = np.cumsum(gappy_lengths)
    firsts = ends - gappy_lengths
    # Minute indices of the gappy segments, concatenated: each segment's start plus 0..length.
    minutes = np.repeat(starts[gappy] - firsts, gappy_lengths) + np.arange(int(ends[-1]))
    observed = np.isfinite(flat[minutes]).view(np.uint8)
    counts = np.add.reduceat(observed, firsts, dtype=np.int64)
    present[gappy] = 2 * counts >= gappy_lengths
    return present


def unseparated_phases(evidence: int) -> tuple[tuple[Phase, Phase], ...]:
    """Pairs of phases the metrics in ``evidence`` could not tell apart (empty with all three).

    Without GPU utilization nothing is classified (the minutes are UNKNOWN), so nothing is
    reported as unseparated either.
    """
    if not evidence & Evidence.GPU_UTIL:
        return ()
    return tuple(pair for flag, pair in _SEPARATED_BY if not evidence & flag)


def missing_metrics(evidence: int) -> tuple[str, ...]:
    """API names of the metrics absent from ``evidence``, e.g. ``("cpu_util",)``."""
    return tuple(name for flag, name in EVIDENCE_METRICS if not evidence & flag)
