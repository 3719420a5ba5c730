"""How a raw day's 1,440 values are laid out in its row: fixed-point int16 when that is lossless.

Percentages, degrees and watts usually carry at most two decimals, so most days are exactly
``code / scale`` for an int16 ``code`` and a scale of 100, 10 or 1. Such a day is
stored as 1,440 little-endian int16 (2,880 bytes, ``MISSING`` where there is no point) with its
scale beside it; any other day (memory in MB, values with more decimals) as 1,440 little-endian
float32 (5,760 bytes) with scale 0. Encoding is checked value by value, bit for bit, so a
reader always gets back exactly the float32 that was written.

Half the bytes is not the point in itself: a 2,880-byte day fits inline in its table row (two
rows a page), so PostgreSQL reads a fleet without a TOAST lookup per day, which is what a
whole-fleet read spent most of its time on (bench/RESULTS.md, "Metric store").
"""

from __future__ import annotations

import numpy as np

from apps.metrics.constants import MINUTES_PER_DAY
from apps.metrics.storage.points import STORED_DTYPE

CODE_DTYPE = np.dtype("<i2")
MISSING = -32768  # the code of a minute without a point
RAW = 0  # the scale of a day stored as float32
SCALES = (100, 10, 1)  # tried in this order: the first that is exact for the whole day wins
CODED_BYTES = MINUTES_PER_DAY * CODE_DTYPE.itemsize
RAW_BYTES = MINUTES_PER_DAY * STORED_DTYPE.itemsize


def payload_bytes(scale: int) -> int:
    return RAW_BYTES if scale == RAW else CODED_BYTES


def decode(codes: np.ndarray, scale: int, out: np.ndarray) -> np.ndarray:
    """Write the float32 values of int16 ``codes`` (any shape) into ``out`` (same shape)."""
    np.divide(codes, np.float32(scale), out=out)
    missing = codes == MISSING
    if missing.any():  # a complete day skips the slowest step
        np.putmask(out, missing, np.nan)
    return out


def encode(days: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The scale of each (1,440,) float32 day and its int16 codes (meaningless where scale 0)."""
    days = np.asarray(days, dtype=np.float32).reshape(-1, MINUTES_PER_DAY)
    scales = np.full(days.shape[0], RAW, dtype=np.int16)
    codes = np.full(days.shape, MISSING, dtype=CODE_DTYPE)
    missing = np.isnan(days)
    pending = np.arange(days.shape[0])
    for scale in SCALES:
        if not pending.size:
            break
        values, gaps = days[pending], missing[pending]
        scaled = np.rint(values.astype(np.float64) * scale)
        # Out of range (or infinite) values get MISSING too: they then fail the check below.
        unfit = gaps | ~(np.abs(scaled) <= -MISSING - 1)
        candidate = np.where(unfit, MISSING, scaled).astype(CODE_DTYPE)
        decoded = decode(candidate, scale, np.empty(values.shape, np.float32))
        same = (decoded.view(np.uint32) == values.view(np.uint32)) | (gaps & np.isnan(decoded))
        exact = same.all(axis=1)
        scales[pending[exact]] = scale
        codes[pending[exact]] = candidate[exact]
        pending = pending[~exact]
    return scales, codes


def to_bytes(day: np.ndarray, scale: int, codes: np.ndarray) -> bytes:
    """The stored payload of one day, given its ``encode`` result."""
    if scale == RAW:
        return np.asarray(day, dtype=STORED_DTYPE).tobytes()
    return codes.astype(CODE_DTYPE, copy=False).tobytes()


def from_bytes(payload, scale: int, out: np.ndarray, offset: int = 0) -> None:
    """Decode one stored day (``payload`` from ``offset``) into the (1,440,) float32 ``out``."""
    if scale == RAW:
        out[:] = np.frombuffer(payload, STORED_DTYPE, MINUTES_PER_DAY, offset)
    else:
        decode(np.frombuffer(payload, CODE_DTYPE, MINUTES_PER_DAY, offset), scale, out)
