"""What a stored metric point is: a float32 on the minute grid (``apps.core.timegrid``).

NaN means "no point"; infinities are refused.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

# Raw days are stored little-endian whatever the host, so a dump reads the same everywhere.
STORED_DTYPE = np.dtype("<f4")


def to_values(values: npt.ArrayLike, count: int) -> np.ndarray:
    """Values as float32; NaN means "no point" and infinities are refused."""
    array = np.asarray(values)
    if array.dtype != np.float32:
        array = array.astype(np.float64).astype(np.float32)
    array = array.reshape(-1)
    if array.shape[0] != count:
        raise ValueError(f"got {count} timestamps but {array.shape[0]} values")
    if np.isinf(array).any():
        raise ValueError("values must be finite numbers or NaN (missing)")
    return array
