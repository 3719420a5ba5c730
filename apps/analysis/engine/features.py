"""Rolling-window features of per-minute metrics, computed on blocks of minutes.

Speed drives the shape of this module: a fleet of 1,000 instances over 30 days is 43.2 M minutes,
and the engine must handle 20 M minutes per second per core. So per-minute data is touched by
block sums only (matrix-vector products, which run at memory speed), on chunks of instances small
enough to stay in the CPU cache. Missing data is found on the block sums (NaN propagates into its
own block's sum and nowhere else), so no per-minute mask is built for the blocks that are whole;
the few blocks with a gap get a per-minute mask of their own (:class:`PartialBlocks`). Everything
after the block sums works on blocks (5 minutes by default), i.e. on a fifth of the data.
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
    """Windowed features per block, shape (instances, blocks); NaN where the window saw nothing."""

    gpu_util_pct: np.ndarray
    gpu_util_sd_pct: np.ndarray
    gpu_mem_pct: np.ndarray
    cpu_pct: np.ndarray


@dataclasses.dataclass(frozen=True)
class PartialBlocks:
    """Blocks with at least one missing minute, and which of their minutes are observed.

    ``index`` holds flat (instance x blocks + block) indices of a chunk; ``observed`` is a
    (len(index), block_minutes) uint8 mask, 1 where all three metrics are present.
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
) -> tuple[BlockFeatures, PartialBlocks]:
    """Centred rolling-window mean and sd of GPU utilization, and means of memory and CPU.

    Inputs are (instances, minutes) arrays of percentages with NaN for missing minutes; call it on
    a chunk of instances (see :func:`instance_chunks`). A block with any missing minute is left
    out of every window it belongs to; its minutes are still labelled from the neighbouring
    evidence and then masked to UNKNOWN where actually missing, which is what the returned
    :class:`PartialBlocks` are for.
    """
    instances, minutes = gpu_util.shape
    blocks = -(-minutes // block_minutes)
    gpu, mem, cpu = (_padded(a, blocks * block_minutes) for a in (gpu_util, gpu_mem, cpu_util))
    sums = np.empty((4, instances * blocks), dtype=np.float32)
    for row, values in enumerate((gpu, np.multiply(gpu, gpu), mem, cpu)):
        _block_sums(values, block_minutes, out=sums[row])
    total = sums[0] + sums[2]
    total += sums[3]
    block_ok = np.isfinite(total)
    partial = _partial_blocks(block_ok, (gpu, mem, cpu), block_minutes)
    sums = sums.reshape(4, instances, blocks)
    block_ok = block_ok.reshape(instances, blocks)

    window_blocks = max(1, window_minutes // block_minutes)
    if window_blocks > 1:
        # Missing blocks contribute nothing to a window: zero their sums. (A one-block window
        # needs no zeroing: the count below is 0 there, which makes every feature NaN.)
        sums.reshape(4, -1)[:, partial.index] = np.float32(0.0)
    windowed = _centred_window_sum(sums, window_blocks)
    with np.errstate(invalid="ignore", divide="ignore"):
        # A window without a single observed block has no features at all (NaN).
        if window_blocks == 1:
            inverse = np.where(block_ok, np.float32(1.0 / block_minutes), np.float32(np.nan))
        else:
            count = _centred_window_sum(block_ok.astype(np.float32), window_blocks)
            inverse = np.float32(1.0 / block_minutes) / count
            inverse[count == 0] = np.nan
        mean = windowed[0] * inverse
        variance = windowed[1] * inverse
        variance -= mean * mean
        # Rounding can make a constant signal's variance slightly negative.
        np.maximum(variance, np.float32(0.0), out=variance)
        sd = np.sqrt(variance, out=variance)
        mem_mean = np.multiply(windowed[2], inverse, out=windowed[2])
        cpu_mean = np.multiply(windowed[3], inverse, out=windowed[3])
    return BlockFeatures(mean, sd, mem_mean, cpu_mean), partial


def _partial_blocks(
    block_ok: np.ndarray, metrics: tuple[np.ndarray, ...], block_minutes: int
) -> PartialBlocks:
    """Per-minute observed mask of the blocks that are not whole (a minority: gaps are runs)."""
    index = np.flatnonzero(~block_ok)
    observed = None
    for metric in metrics:
        # np.take is about twice as fast as fancy indexing for whole rows.
        present = np.isfinite(np.take(metric.reshape(-1, block_minutes), index, axis=0))
        if observed is None:
            observed = present
        else:
            observed &= present
    assert observed is not None
    return PartialBlocks(index, observed.view(np.uint8))


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
