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
        present = np.isfinite(np.ascontiguousarray(values).reshape(-1)).view(np.uint8)
        counts = np.add.reduceat(present, starts, dtype=np.int64)
        bits |= (known & (2 * counts >= lengths)).view(np.uint8) * np.uint8(flag)
    return bits


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
