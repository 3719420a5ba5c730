"""Per-minute phase classification: features, phase scores, smoothing, missing-data mask."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .features import BlockFeatures, as_fleet, block_features, instance_chunks
from .smoothing import merge_short_runs, viterbi_uniform_switch
from .thresholds import DEFAULT_THRESHOLDS, REAL_PHASES, PhaseThresholds


def classify_phases(
    gpu_util: npt.ArrayLike,
    gpu_mem: npt.ArrayLike,
    cpu_util: npt.ArrayLike,
    thresholds: PhaseThresholds = DEFAULT_THRESHOLDS,
) -> np.ndarray:
    """Label every minute with a :class:`Phase` value.

    Arguments are per-minute percentages (0-100) of shape (minutes,) or (instances, minutes),
    float32 or float64, NaN for a missing sample; ``gpu_mem`` is GPU memory used as a percentage
    of the card's memory. Returns a ``uint8`` array of the same shape.

    A minute where any of the three metrics is missing is ``Phase.UNKNOWN``; it is never guessed.
    Every other minute gets the phase of the smoothed path through the rolling-window evidence, so
    an observed minute is never UNKNOWN and no reported phase is shorter than
    ``thresholds.min_phase_minutes`` unless a gap of missing data cuts it.
    """
    gpu = as_fleet("gpu_util", gpu_util)
    mem = as_fleet("gpu_mem", gpu_mem)
    cpu = as_fleet("cpu_util", cpu_util)
    if not gpu.shape == mem.shape == cpu.shape:
        raise ValueError(
            f"gpu_util, gpu_mem and cpu_util must have one shape, got "
            f"{gpu.shape}, {mem.shape}, {cpu.shape}"
        )
    one_dimensional = np.ndim(gpu_util) == 1
    instances, minutes = gpu.shape
    if minutes == 0 or instances == 0:
        labels = np.zeros(gpu.shape, dtype=np.uint8)
        return labels[0] if one_dimensional else labels

    block = thresholds.block_minutes
    blocks = -(-minutes // block)
    observed = np.empty((instances, minutes), dtype=np.uint8)
    # Time-major (blocks, phases, instances): the Viterbi pass reads one time step at a time.
    scores = np.empty((blocks, len(REAL_PHASES), instances), dtype=np.float32)
    for rows in instance_chunks(instances):
        features = block_features(
            gpu[rows],
            mem[rows],
            cpu[rows],
            block_minutes=block,
            window_minutes=thresholds.feature_window_minutes,
            observed_out=observed[rows],
        )
        for index, score in enumerate(phase_scores(features, thresholds)):
            scores[:, index, rows] = score.T
    states = viterbi_uniform_switch(scores, thresholds.switch_penalty)
    min_blocks = -(-thresholds.min_phase_minutes // block)
    states = merge_short_runs(states, min_blocks)

    # State index k is phase REAL_PHASES[k]; build a lookup so the mapping does not depend on
    # the enum's numbering.
    lookup = np.array([int(phase) for phase in REAL_PHASES], dtype=np.uint8)
    block_labels = lookup[states]
    labels = np.repeat(block_labels, block, axis=1)[:, :minutes]
    # UNKNOWN is 0, so the product masks every minute with a missing metric.
    labels *= observed
    return labels[0] if one_dimensional else labels


def phase_scores(features: BlockFeatures, thresholds: PhaseThresholds) -> list[np.ndarray]:
    """Score every block for each real phase (in ``REAL_PHASES`` order): minus the violations.

    Each phase is a set of feature ranges; a feature outside its range costs its distance to the
    range divided by the feature's scale. A feature that is NaN (its window saw no data) costs
    nothing, so a block without evidence scores 0 for every phase and the smoothing bridges it.
    Returns one float32 (instances, blocks) array per phase.
    """
    t = thresholds
    # Scale factors are folded into the features once, so each range test below is one
    # subtraction and one fmax; fmax also turns NaN into "no violation".
    level_scale = np.float32(1.0 / t.gpu_util_scale_pct)
    sd_scale = np.float32(1.0 / t.gpu_util_sd_scale_pct)
    mem_scale = np.float32(1.0 / t.gpu_mem_scale_pct)
    cpu_scale = np.float32(1.0 / t.cpu_scale_pct)
    level = features.gpu_util_pct * level_scale
    sd = features.gpu_util_sd_pct * sd_scale
    mem = features.gpu_mem_pct * mem_scale
    cpu = features.cpu_pct * cpu_scale

    idle = _above(level, t.idle_gpu_util_max_pct * level_scale)
    idle += _above(cpu, t.cpu_busy_min_pct * cpu_scale)

    data = _above(level, t.data_gpu_util_max_pct * level_scale)
    data += _below(cpu, t.cpu_busy_min_pct * cpu_scale)
    data += _below(mem, t.gpu_mem_allocated_min_pct * mem_scale)

    evaluation = _below(level, t.eval_gpu_util_min_pct * level_scale)
    evaluation += _above(level, t.eval_gpu_util_max_pct * level_scale)
    evaluation += _above(sd, t.steady_gpu_util_sd_max_pct * sd_scale)

    training = _below(level, t.train_gpu_util_min_pct * level_scale)
    training += _above(level, t.train_gpu_util_max_pct * level_scale)
    training += _below(sd, t.steady_gpu_util_sd_max_pct * sd_scale)
    training += _below(mem, t.train_gpu_mem_min_pct * mem_scale)

    penalties = [idle, data, evaluation, training]
    for penalty in penalties:
        np.negative(penalty, out=penalty)
    return penalties


def _above(values: np.ndarray, limit: float) -> np.ndarray:
    """How far ``values`` exceed ``limit`` (0 inside the range and for NaN)."""
    out = values - np.float32(limit)
    return np.fmax(out, np.float32(0.0), out=out)


def _below(values: np.ndarray, limit: float) -> np.ndarray:
    """How far ``values`` fall short of ``limit`` (0 inside the range and for NaN)."""
    out = np.float32(limit) - values
    return np.fmax(out, np.float32(0.0), out=out)
