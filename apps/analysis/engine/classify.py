"""Per-minute phase classification: features, phase costs, smoothing, missing-data mask."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .features import BlockFeatures, as_fleet, block_features, instance_chunks
from .smoothing import decode_runs, merge_short_encoded, viterbi_uniform_switch
from .thresholds import DEFAULT_THRESHOLDS, REAL_PHASES, PhaseThresholds

# A threshold times a float32 scale factor is a numpy scalar, not a Python float.
Limit = float | np.floating
# Penalty units charged to data processing in a block without CPU data: half the cost of a GPU
# 2.5 points above the idle level, so idle wins below that and data processing above.
_NO_CPU_DATA_COST = np.float32(0.5)


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

    A minute without GPU utilization is ``Phase.UNKNOWN``; it is never guessed. Every other minute
    gets the phase of the smoothed path through the evidence the metrics present support: GPU
    utilization alone separates idle from busy; without CPU, idle and data processing cannot be
    told apart, and without GPU memory evaluation and training are told apart by the variability
    alone (``evidence.unseparated_phases`` says which, per minute). A block is decided on the
    minutes it has (at least ``thresholds.block_min_observed_minutes`` of a metric's minutes, or
    that metric says nothing about it). No reported phase is shorter than
    ``thresholds.min_phase_minutes`` unless a gap in the GPU data cuts it.
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
        labels: np.ndarray = np.zeros(gpu.shape, dtype=np.uint8)
        return labels[0] if one_dimensional else labels

    block = thresholds.block_minutes
    blocks = -(-minutes // block)
    # Time-major (blocks, phases, instances): the Viterbi pass reads one time step at a time.
    costs = np.empty((blocks, len(REAL_PHASES), instances), dtype=np.float32)
    partial_index, partial_observed = [], []
    for rows in instance_chunks(instances):
        features, partial = block_features(
            gpu[rows],
            mem[rows],
            cpu[rows],
            block_minutes=block,
            window_minutes=thresholds.feature_window_minutes,
            min_observed_minutes=min(thresholds.block_min_observed_minutes, block),
            context_minutes=thresholds.memory_context_minutes,
        )
        # (instances, blocks) -> (blocks, instances), one phase at a time: twice as fast as one
        # three-dimensional strided copy.
        for phase_index, cost in enumerate(phase_costs(features, thresholds)):
            costs[:, phase_index, rows] = cost.T
        partial_index.append(partial.index + rows.start * blocks)
        partial_observed.append(partial.observed)
    starts, states = viterbi_uniform_switch(costs, thresholds.switch_penalty)
    del costs
    min_blocks = -(-thresholds.min_phase_minutes // block)
    starts, states = merge_short_encoded(starts, states, blocks, instances * blocks, min_blocks)

    # State index k is phase REAL_PHASES[k]; build a lookup so the mapping does not depend on
    # the enum's numbering.
    lookup = np.array([int(phase) for phase in REAL_PHASES], dtype=np.uint8)
    padded = decode_runs(starts, lookup[states], instances * blocks, repeat=block)
    # UNKNOWN is 0, so the product masks every minute without GPU utilization; only blocks with
    # such a minute need it.
    by_block = padded.reshape(instances * blocks, block)
    index = np.concatenate(partial_index)
    by_block[index] *= np.concatenate(partial_observed)
    labels = padded.reshape(instances, blocks * block)
    if blocks * block != minutes:
        labels = np.ascontiguousarray(labels[:, :minutes])
    return labels[0] if one_dimensional else labels


def phase_costs(features: BlockFeatures, thresholds: PhaseThresholds) -> np.ndarray:
    """Cost of every block for each real phase: the sum of its range violations.

    Each phase is a set of feature ranges; a feature outside its range costs its distance to the
    range divided by the feature's scale. A feature that is NaN (its window saw no data) costs
    nothing, so a block without evidence costs 0 for every phase and the smoothing bridges it.
    Returns a float32 (phases, instances, blocks) array, phases in ``REAL_PHASES`` order.
    """
    t = thresholds
    # Scale factors are folded into the features once, so each range test below is one
    # subtraction and one fmax; fmax also turns NaN into "no violation".
    level_scale = np.float32(1.0 / t.gpu_util_scale_pct)
    sd_scale = np.float32(1.0 / t.gpu_util_sd_scale_pct)
    mem_scale = np.float32(1.0 / t.gpu_mem_scale_pct)
    cpu_scale = np.float32(1.0 / t.cpu_scale_pct)
    level = np.multiply(features.gpu_util_pct, level_scale)
    sd = np.multiply(features.gpu_util_sd_pct, sd_scale)
    mem = np.multiply(features.gpu_mem_pct, mem_scale)
    cpu = np.multiply(features.cpu_pct, cpu_scale)
    drop_scale = np.float32(1.0 / t.gpu_mem_drop_scale_pct)
    drop = np.multiply(features.gpu_mem_drop_pct, drop_scale)
    out = np.empty((len(REAL_PHASES), *level.shape), dtype=np.float32)
    idle, data, evaluation, training = out
    scratch = np.empty_like(level)

    def violation(into: np.ndarray, values: np.ndarray, limit: Limit, *, above: bool) -> None:
        """Write (or add) how far ``values`` are beyond ``limit`` (0 inside and for NaN)."""
        target = into if into is not scratch else scratch
        if above:
            np.subtract(values, np.float32(limit), out=target)
        else:
            np.subtract(np.float32(limit), values, out=target)
        np.fmax(target, np.float32(0.0), out=target)

    def add(into: np.ndarray, values: np.ndarray, limit: Limit, *, above: bool) -> None:
        violation(scratch, values, limit, above=above)
        into += scratch

    violation(idle, level, t.idle_gpu_util_max_pct * level_scale, above=True)
    add(idle, cpu, t.cpu_busy_min_pct * cpu_scale, above=True)

    violation(data, level, t.data_gpu_util_max_pct * level_scale, above=True)
    # Data-bound needs a busy CPU. Without CPU data, a near-idle GPU is read as idle (a small
    # cost tips the tie) and only a GPU clearly above idle as data processing: both are
    # reported as not separated (see evidence.py).
    violation(scratch, cpu, t.cpu_busy_min_pct * cpu_scale, above=False)
    np.copyto(scratch, _NO_CPU_DATA_COST, where=np.isnan(cpu))
    data += scratch
    add(data, mem, t.gpu_mem_allocated_min_pct * mem_scale, above=False)

    violation(evaluation, level, t.eval_gpu_util_min_pct * level_scale, above=False)
    add(evaluation, level, t.eval_gpu_util_max_pct * level_scale, above=True)
    add(evaluation, sd, t.steady_gpu_util_sd_max_pct * sd_scale, above=True)
    # Evaluation holds far less GPU memory than the training around it: a steady stretch that
    # keeps the memory of the surrounding hour is a quiet spell of training, not evaluation.
    add(evaluation, drop, t.eval_gpu_mem_drop_min_pct * drop_scale, above=False)

    violation(training, level, t.train_gpu_util_min_pct * level_scale, above=False)
    add(training, level, t.train_gpu_util_max_pct * level_scale, above=True)
    add(training, sd, t.steady_gpu_util_sd_max_pct * sd_scale, above=False)
    add(training, mem, t.train_gpu_mem_min_pct * mem_scale, above=False)
    add(training, drop, t.train_gpu_mem_drop_max_pct * drop_scale, above=True)
    return out
