"""Rolling-window features of per-minute metrics, computed on blocks of minutes.

Speed drives the shape of this module: a fleet of 1,000 instances over 30 days is 43.2 M minutes,
and the engine must handle 20 M minutes per second per core. So per-minute data is touched by
block sums only (matrix-vector products, which run at memory speed), on chunks of instances small
enough to stay in the CPU cache. Missing data is found on each metric's block sums (NaN
propagates into its own block's sum and nowhere else), so no per-minute mask is built for the
blocks that are whole; the few blocks with a gap in a metric get that metric's sum and count
redone from the minutes they have, and the blocks with a gap in GPU utilization keep a
per-minute mask (:class:`PartialBlocks`). Everything after the block sums works on blocks (5
minutes by default), i.e. on a fifth of the data.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.floating]

# Instances per chunk for the per-minute passes: 16 x 43,200 float32 minutes is 2.7 MB per
# array, which keeps the temporaries of one chunk in the last-level cache.
CHUNK_INSTANCES = 16


def as_fleet(name: str, values: npt.ArrayLike) -> np.ndarray:
    """Return ``values`` as a 2-D (instances, minutes) float array, validating its shape."""
    array = np.asarray(values)
    if array.dtype.kind not in "fiu":
        raise ValueError(f"{name}: expected a numeric array, got dtype {array.dtype}")
    if array.dtype not in (np.float32, np.float64):
        array = array.astype(np.float32)
    if array.ndim == 1:
        return array[np.newaxis, :]
    if array.ndim != 2:
        raise ValueError(f"{name}: expected shape (minutes,) or (instances, minutes)")
    return array


@dataclasses.dataclass(frozen=True)
class BlockFeatures:
    """Windowed features per block, shape (instances, blocks); NaN where the window saw nothing.

    Each metric's features are NaN where that metric had too few observed minutes, so a source
    that lacks one metric still gets the features of the others. Without GPU utilization a block
    has no features at all: memory and CPU alone do not tell what the card is doing.
    """

    gpu_util_pct: np.ndarray
    gpu_util_sd_pct: np.ndarray
    gpu_mem_pct: np.ndarray
    cpu_pct: np.ndarray
    gpu_mem_drop_pct: np.ndarray
    """How far GPU memory sits below its highest block mean within the context window around
    the block (0 when this block holds the most): evaluation releases memory that the training
    around it held."""


@dataclasses.dataclass(frozen=True)
class PartialBlocks:
    """Blocks with at least one minute without GPU utilization, and which minutes have it.

    ``index`` holds flat (instance x blocks + block) indices of a chunk; ``observed`` is a
    (len(index), block_minutes) uint8 mask, 1 where GPU utilization is present. Only GPU
    utilization decides whether a minute can be labelled at all (see ``Phase.UNKNOWN``).
    """

    index: np.ndarray
    observed: np.ndarray


def instance_chunks(instances: int) -> list[slice]:
    """Row slices small enough for per-minute temporaries to stay in the CPU cache."""
    return [
        slice(first, min(first + CHUNK_INSTANCES, instances))
        for first in range(0, instances, CHUNK_INSTANCES)
    ]


def _block_sums(values: np.ndarray, block_minutes: int, out: np.ndarray) -> None:
    """Sum of each block of ``block_minutes`` consecutive minutes of every row of ``values``.

    Each block is a row of the reshaped array, so a NaN only poisons its own block's sum (which
    is exactly how missing blocks are found). Column by column with plain ufuncs: as fast as a
    BLAS product with a vector of ones, and single-threaded, whereas OpenBLAS would start
    threads that spin on the core the rest of the pipeline (the writer, PostgreSQL) needs.
    """
    blocks = values.reshape(-1, block_minutes)
    np.copyto(out, blocks[:, 0])
    for column in range(1, block_minutes):
        np.add(out, blocks[:, column], out=out)


def block_features(
    gpu_util: np.ndarray,
    gpu_mem: np.ndarray,
    cpu_util: np.ndarray,
    *,
    block_minutes: int,
    window_minutes: int,
    min_observed_minutes: int = 1,
    context_minutes: int = 0,
) -> tuple[BlockFeatures, PartialBlocks]:
    """Centred rolling-window mean and sd of GPU utilization, and means of memory and CPU.

    Inputs are (instances, minutes) arrays of percentages with NaN for missing minutes; call it on
    a chunk of instances (see :func:`instance_chunks`). Each metric is judged on the minutes it
    has: a block with at least ``min_observed_minutes`` of a metric's minutes contributes their
    mean; with fewer, that metric says nothing about the block (it is left out of every window
    it belongs to). Minutes without GPU utilization are labelled from the neighbouring evidence
    and then masked to UNKNOWN, which is what the returned :class:`PartialBlocks` are for.
    ``context_minutes`` is the width of the centred window of the memory-drop feature (0: the
    feature is all NaN).
    """
    instances, minutes = gpu_util.shape
    blocks = -(-minutes // block_minutes)
    gpu, mem, cpu = (_padded(a, blocks * block_minutes) for a in (gpu_util, gpu_mem, cpu_util))
    sums = np.empty((4, instances * blocks), dtype=np.float32)
    for row, values in enumerate((gpu, np.multiply(gpu, gpu), mem, cpu)):
        _block_sums(values, block_minutes, out=sums[row])
    # Per metric (GPU utilization, shared by its square; memory; CPU): the blocks with a gap and
    # their observed minutes, 0 where too few to judge the block.
    gaps: list[tuple[np.ndarray, np.ndarray]] = []
    partial = PartialBlocks(np.zeros(0, dtype=np.int64), np.zeros((0, block_minutes), np.uint8))
    # A NaN poisons only its own block's sum: the whole blocks need no per-minute look. One
    # pass finds the blocks with a gap in any metric (usually all of them drop together).
    any_gap = sums[0] + sums[2]
    any_gap += sums[3]
    gappy = np.flatnonzero(np.isnan(any_gap))
    for metric, (values, first_sum) in enumerate(((gpu, 0), (mem, 2), (cpu, 3))):
        index = gappy[np.isnan(sums[first_sum, gappy])]
        # np.take is about twice as fast as fancy indexing for whole rows.
        rows = np.take(values.reshape(-1, block_minutes), index, axis=0)
        present = np.isfinite(rows)
        # take() returned a copy: zero its gaps in place. fmax turns NaN into 0 and keeps every
        # percentage (>= 0) as it is, in one pass without a mask.
        filled = np.fmax(rows, np.float32(0.0), out=rows)
        # Counts add up as bytes (at most 60 minutes a block), the cheapest row sum.
        observed = _row_sums(present.view(np.uint8)).astype(np.float32)
        # Too few minutes to judge the block: the metric contributes nothing to any window.
        too_few = observed < min_observed_minutes
        observed[too_few] = 0.0
        total = _row_sums(filled)
        total[too_few] = 0.0
        sums[first_sum, index] = total
        if metric == 0:
            squares = _row_sums(np.multiply(filled, filled))
            squares[too_few] = 0.0
            sums[1, index] = squares
            partial = PartialBlocks(index, present.view(np.uint8))
        gaps.append((index, observed))

    window_blocks = max(1, window_minutes // block_minutes)
    with np.errstate(invalid="ignore", divide="ignore"):
        if window_blocks == 1:
            mean, mean_square, mem_mean, cpu_mean = _block_means(sums, gaps, block_minutes)
        else:
            mean, mean_square, mem_mean, cpu_mean = _window_means(
                sums, gaps, block_minutes, window_blocks, instances
            )
        mean, mean_square, mem_mean, cpu_mean = (
            a.reshape(instances, blocks) for a in (mean, mean_square, mem_mean, cpu_mean)
        )
        variance = np.subtract(mean_square, mean * mean, out=mean_square)
        # Rounding can make a constant signal's variance slightly negative.
        np.maximum(variance, np.float32(0.0), out=variance)
        sd = np.sqrt(variance, out=variance)
    context_blocks = context_minutes // block_minutes
    if context_blocks > 0:
        # Half the context on each side; fmax skips the NaN of blocks without memory data.
        mem_drop = _centred_window_max(mem_mean, context_blocks // 2) - mem_mean
    else:
        mem_drop = np.full_like(mem_mean, np.nan)
    return BlockFeatures(mean, sd, mem_mean, cpu_mean, mem_drop), partial


def _block_means(
    sums: np.ndarray, gaps: list[tuple[np.ndarray, np.ndarray]], block_minutes: int
) -> tuple[np.ndarray, ...]:
    """Per-block means (one-block windows, the default): sums over whole blocks, then fixes.

    Whole blocks divide by ``block_minutes``; blocks with a gap are redone from their own
    count (0 / 0 = NaN where too few minutes were observed). A block without GPU utilization
    gets no memory or CPU feature either: memory and CPU alone would be a guess.
    """
    means = np.multiply(sums, np.float32(1.0 / block_minutes), out=sums)
    (gpu_index, gpu_observed), *others = gaps
    means[0, gpu_index] = means[0, gpu_index] * block_minutes / gpu_observed
    means[1, gpu_index] = means[1, gpu_index] * block_minutes / gpu_observed
    for row, (index, observed) in zip((2, 3), others, strict=True):
        means[row, index] = means[row, index] * block_minutes / observed
    no_gpu = gpu_index[gpu_observed == 0]
    means[2:, no_gpu] = np.nan
    return tuple(means)


def _window_means(
    sums: np.ndarray,
    gaps: list[tuple[np.ndarray, np.ndarray]],
    block_minutes: int,
    window_blocks: int,
    instances: int,
) -> tuple[np.ndarray, ...]:
    """Means over centred windows of ``window_blocks`` blocks, each metric on its own minutes.

    Windows stay within an instance's row (the flat sums are reshaped per instance).
    """
    counts = np.full((3, sums.shape[1]), np.float32(block_minutes), dtype=np.float32)
    for row, (index, observed) in enumerate(gaps):
        counts[row, index] = observed
    windowed = _centred_window_sum(sums.reshape(4, instances, -1), window_blocks)
    windowed_counts = _centred_window_sum(counts.reshape(3, instances, -1), window_blocks)
    # A window without a single judged block of a metric has a count of 0 and sums of 0, so
    # 0 x (1 / 0) = NaN: no feature of it.
    inverse = np.divide(np.float32(1.0), windowed_counts)
    # No GPU utilization in the window: 0 x inf makes the gate NaN there (and 0 elsewhere).
    gate = np.multiply(inverse[0], np.float32(0.0))
    inverse[1] += gate
    inverse[2] += gate
    return (
        windowed[0] * inverse[0],
        windowed[1] * inverse[0],
        windowed[2] * inverse[1],
        windowed[3] * inverse[2],
    )


def _row_sums(rows: np.ndarray) -> np.ndarray:
    """Sum of each row of a (k, block_minutes) array, column by column.

    ``sum(axis=1)`` over rows of five is several times slower: its inner loop is five long.
    """
    out = rows[:, 0].copy()
    for column in range(1, rows.shape[1]):
        out += rows[:, column]
    return out


def _centred_window_max(values: np.ndarray, half_width: int) -> np.ndarray:
    """Maximum over ``[i - half_width, i + half_width]`` along the last axis, NaN skipped.

    A sparse-table pass: maxima over windows of 1, 2, 4, ... blocks by doubling, then two
    overlapping power-of-two windows cover the width, so the cost grows with its logarithm.
    """
    if half_width <= 0:
        return values.copy()
    rows, length = values.shape
    width = 2 * half_width + 1
    current = np.full((rows, length + 2 * half_width), np.nan, dtype=values.dtype)
    current[:, half_width : half_width + length] = values
    span = 1
    while span * 2 <= width:
        # After this step current[:, i] is the maximum over [i, i + 2 * span).
        np.fmax(current[:, :-span], current[:, span:], out=current[:, :-span])
        span *= 2
    # [i, i + width) is the union of [i, i + span) and [i + width - span, i + width).
    return np.fmax(current[:, :length], current[:, width - span : width - span + length])


def _padded(chunk: np.ndarray, padded: int) -> np.ndarray:
    """Return a float32 chunk, padded with NaN on the right to a whole number of blocks."""
    if chunk.shape[1] == padded:
        return np.ascontiguousarray(chunk, dtype=np.float32)
    out = np.full((chunk.shape[0], padded), np.nan, dtype=np.float32)
    out[:, : chunk.shape[1]] = chunk
    return out


def _centred_window_sum(values: np.ndarray, window: int) -> np.ndarray:
    """Sum over a centred window along the last axis, by shifted adds (windows are small).

    Shifted adds instead of a cumulative sum keep float32 exact enough: a cumulative sum of
    squared utilizations over a month loses the variance of a steady signal to rounding.
    """
    if window == 1:
        return values
    out = values.copy()
    half_left = (window - 1) // 2
    half_right = window - 1 - half_left
    for shift in range(1, half_left + 1):
        out[..., shift:] += values[..., :-shift]
    for shift in range(1, half_right + 1):
        out[..., :-shift] += values[..., shift:]
    return out
