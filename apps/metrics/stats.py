"""Rollup statistics of blocks of minutes: pure numpy, no database.

A block is one row of a (blocks, minutes) float32 array with NaN for missing minutes: 60
minutes for an hour rollup, 1,440 for a day. Missing minutes are left out of every figure, so
a block with no point has minutes = 0 and NaN statistics (stored as NULL).
"""

from __future__ import annotations

import dataclasses

import numpy as np

P95 = 95.0


@dataclasses.dataclass(frozen=True)
class BlockStats:
    """Per-block figures, each of shape (blocks,); avg/p95/max are NaN where minutes == 0."""

    avg: np.ndarray
    p95: np.ndarray
    max: np.ndarray
    minutes: np.ndarray
    total: np.ndarray  # sum of the observed values, for busy GPU-hours


def block_stats(blocks: np.ndarray) -> BlockStats:
    """avg, p95 (numpy's default linear interpolation), max and observed minutes per row.

    Equal to ``np.nanmean``/``np.nanpercentile(.., 95)``/``np.nanmax`` per row, but vectorized:
    one sort of all rows (NaN sorts last), then the two order statistics around the 95th
    percentile's rank are gathered per row.
    """
    blocks = np.asarray(blocks, dtype=np.float32)
    if blocks.ndim != 2:
        raise ValueError("blocks must be a 2-D (blocks, minutes) array")
    n_blocks = blocks.shape[0]
    ordered = np.sort(blocks, axis=1)
    minutes = np.count_nonzero(~np.isnan(ordered), axis=1)
    seen = minutes > 0
    rows = np.arange(n_blocks)
    last = np.maximum(minutes - 1, 0)
    rank = (P95 / 100.0) * last
    below = np.floor(rank).astype(np.int64)
    above = np.minimum(below + 1, last)
    low = ordered[rows, below].astype(np.float64)
    high = ordered[rows, above].astype(np.float64)
    p95 = low + (high - low) * (rank - below)
    total = np.where(seen, np.nansum(ordered, axis=1, dtype=np.float64), 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        avg = np.where(seen, total / minutes, np.nan)
    maximum = np.where(seen, ordered[rows, last].astype(np.float64), np.nan)
    p95 = np.where(seen, p95, np.nan)
    return BlockStats(avg=avg, p95=p95, max=maximum, minutes=minutes, total=total)
