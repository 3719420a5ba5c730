"""The vectorized block statistics equal numpy's NaN-aware functions (no database)."""

from __future__ import annotations

import warnings

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from apps.metrics.stats import block_stats

values = st.one_of(st.just(np.nan), st.floats(0, 1000, width=32))


@given(arrays(np.float32, st.tuples(st.integers(1, 6), st.integers(1, 90)), elements=values))
def test_it_equals_numpy_nan_statistics_per_block(blocks: np.ndarray) -> None:
    stats = block_stats(blocks)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN blocks
        wide = blocks.astype(np.float64)
        np.testing.assert_allclose(stats.avg, np.nanmean(wide, axis=1), rtol=1e-9)
        np.testing.assert_allclose(stats.p95, np.nanpercentile(wide, 95, axis=1), rtol=1e-9)
        np.testing.assert_array_equal(stats.max, np.nanmax(wide, axis=1))
    np.testing.assert_array_equal(stats.minutes, np.count_nonzero(~np.isnan(blocks), axis=1))
