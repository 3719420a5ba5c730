"""The column versions of the money split and the GPU-hours give the scalar versions' figures."""

from __future__ import annotations

from decimal import Decimal

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apps.analysis.engine import Phase, cost_of_minutes
from apps.analysis.engine.waste import gpu_hours_e4, gpu_hours_of_card_minutes, split_cents

rows = st.lists(
    st.tuples(
        st.integers(-(10**9), 10**9),
        # Small weights make ties (equal remainders) common; zeros make the all-unknown case.
        st.lists(st.one_of(st.integers(0, 3), st.integers(0, 200_000)), min_size=5, max_size=5),
    ),
    min_size=1,
    max_size=30,
)


@settings(max_examples=300, deadline=None)
@given(rows=rows)
def test_it_splits_every_row_as_the_scalar_split_does(rows: list[tuple[int, list[int]]]) -> None:
    totals = np.array([cents for cents, _ in rows], dtype=np.int64)
    weights = np.array([w for _, w in rows], dtype=np.int64)
    split = split_cents(totals, weights)
    for (cents, w), got in zip(rows, split.tolist(), strict=True):
        _, expected = cost_of_minutes(w, Decimal(0), total_cost=Decimal(cents).scaleb(-2))
        assert [Decimal(c).scaleb(-2) for c in got] == expected
        assert sum(got) == cents


def test_it_gives_the_cents_left_over_to_the_largest_remainders_lower_phase_first() -> None:
    # 100 cents over three equal weights: 33 each and one left, to the lowest phase of the tie.
    split = split_cents([100, 7], [[0, 1, 1, 1, 0], [0, 0, 0, 0, 0]])
    assert split.tolist() == [[0, 34, 33, 33, 0], [7, 0, 0, 0, 0]]
    assert int(Phase.UNKNOWN) == 0


@settings(max_examples=300, deadline=None)
@given(
    minutes=st.lists(st.lists(st.integers(0, 140_000), min_size=5, max_size=5), min_size=1),
    cards=st.lists(st.sampled_from([(0, 1), (1, 1), (8, 1), (1, 2), (1, 4), (3, 10)]), min_size=1),
)
def test_it_counts_gpu_hours_as_the_scalar_rounding_does(
    minutes: list[list[int]], cards: list[tuple[int, int]]
) -> None:
    cards = (cards * len(minutes))[: len(minutes)]
    got = gpu_hours_e4(minutes, [c[0] for c in cards], [c[1] for c in cards])
    for row, (num, den) in enumerate(cards):
        expected = [gpu_hours_of_card_minutes(m * num, den) for m in minutes[row]]
        assert [Decimal(int(v)).scaleb(-4) for v in got[row]] == expected


def test_it_refuses_what_64_bit_integers_cannot_hold_and_negative_counts() -> None:
    with pytest.raises(ValueError, match="too large"):
        split_cents([2**40], [[2**30, 0, 0, 0, 0]])
    with pytest.raises(ValueError, match="too large"):
        gpu_hours_e4([[10**6] * 5], [10**10], [1])
    with pytest.raises(ValueError, match="non-negative"):
        split_cents([1], [[-1, 0, 0, 0, 0]])
