"""Waste: GPU-hours and money per phase, summing exactly to the period's cost."""

from __future__ import annotations

from decimal import Decimal

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apps.analysis.engine import Phase, waste


@settings(max_examples=200, deadline=None)
@given(
    minutes=st.lists(st.integers(0, 50_000), min_size=5, max_size=5),
    price=st.decimals(min_value=0, max_value=1000, places=8, allow_nan=False),
    gpu_count=st.integers(1, 8),
)
def test_it_splits_the_cost_so_the_phases_sum_exactly_to_the_total(
    minutes: list[int], price: Decimal, gpu_count: int
) -> None:
    labels = np.repeat(np.arange(5, dtype=np.uint8), minutes)
    report = waste(labels, price, gpu_count=gpu_count)
    costs = [report.by_phase[phase].cost for phase in Phase]
    assert sum(costs) == report.total_cost
    assert report.total_cost == (price * sum(minutes) / 60).quantize(Decimal("0.01"))
    assert all(cost.as_tuple().exponent == -2 for cost in costs)
    # Largest remainder: no phase is a cent or more away from its exact share of the billed
    # (cent-rounded) total. Against the unrounded price the rounding of the total adds up to
    # half a cent more, which the split cannot remove.
    for phase in Phase:
        exact = report.total_cost * minutes[phase] / sum(minutes) if sum(minutes) else Decimal(0)
        assert abs(report.by_phase[phase].cost - exact) < Decimal("0.01")
    assert report.total_minutes == sum(minutes)


@settings(max_examples=100, deadline=None)
@given(
    minutes=st.lists(st.integers(0, 5_000), min_size=5, max_size=5).filter(lambda m: sum(m) > 0),
    billed=st.decimals(min_value=-500, max_value=5000, places=2, allow_nan=False),
)
def test_it_splits_a_billed_amount_exactly(minutes: list[int], billed: Decimal) -> None:
    labels = np.repeat(np.arange(5, dtype=np.uint8), minutes)
    report = waste(labels, Decimal("1"), total_cost=billed)
    assert sum(report.by_phase[phase].cost for phase in Phase) == billed


def test_it_calls_out_idle_and_data_bound_money() -> None:
    labels = np.array(
        [Phase.IDLE] * 600
        + [Phase.DATA_PROCESSING] * 120
        + [Phase.TRAINING] * 660
        + [Phase.UNKNOWN] * 60,
        dtype=np.uint8,
    )
    report = waste(labels, Decimal("30.00"), gpu_count=4)
    assert report.total_cost == Decimal("720.00")
    assert report.idle_cost == Decimal("300.00")
    assert report.data_bound_cost == Decimal("60.00")
    assert report.wasted_cost == Decimal("360.00")
    assert report.unknown_cost == Decimal("30.00")
    assert report.by_phase[Phase.IDLE].gpu_hours == Decimal("40.0000")
    assert report.total_gpu_hours == Decimal("96.0000")


def test_it_gives_rounding_cents_to_the_largest_remainders() -> None:
    # Three equal thirds of 1.00: 0.34 goes to the lowest phase value, the others get 0.33.
    labels = np.array([Phase.IDLE, Phase.EVALUATION, Phase.TRAINING], dtype=np.uint8)
    report = waste(labels, Decimal("20.00"))
    assert report.total_cost == Decimal("1.00")
    assert [report.by_phase[p].cost for p in (Phase.IDLE, Phase.EVALUATION, Phase.TRAINING)] == [
        Decimal("0.34"),
        Decimal("0.33"),
        Decimal("0.33"),
    ]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"hourly_price": 1.5}, "hourly_price"),
        ({"hourly_price": Decimal("-1")}, "hourly_price"),
        ({"hourly_price": Decimal("1"), "gpu_count": 0}, "gpu_count"),
    ],
)
def test_it_rejects_bad_prices_and_counts(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        waste(np.zeros(10, dtype=np.uint8), **kwargs)  # type: ignore[arg-type]
