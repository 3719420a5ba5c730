"""FleetWaste: the columns hold exactly the per-instance figures, and their sums are the sums of
those figures (what the summary and the digest print)."""

from __future__ import annotations

from decimal import Decimal

import numpy as np

from apps.analysis.engine import Phase, cost_of_minutes
from apps.analysis.fleet_waste import FleetWaste
from apps.analysis.pricing import InstanceWaste, scaled_figures
from apps.analysis.serializers import money, waste_totals_json


def _item(instance_id: int, minutes: list[int], total: str, gpu_count: float) -> InstanceWaste:
    rounded, costs = cost_of_minutes(minutes, Decimal(0), total_cost=Decimal(total))
    return InstanceWaste(
        instance_id=instance_id,
        project_id=instance_id % 2 or None,
        cost_source="bills",
        currency="CNY",
        by_phase=scaled_figures(minutes, costs, gpu_count),
        total_cost=rounded,
        billed_cost=Decimal(total),
    )


ITEMS = [
    _item(1, [10, 120, 0, 30, 600], "123.456", 8),
    _item(2, [0, 0, 0, 0, 0], "7.005", 1),
    _item(3, [59, 1, 1, 1, 1], "-3.33", 0.5),
    _item(4, [1, 2, 3, 4, 5], "0.01", 0.25),
]


def test_it_prices_the_columns_as_each_instance_is_priced() -> None:
    fleet = FleetWaste.priced(
        instance_ids=[i.instance_id for i in ITEMS],
        project_ids=[i.project_id for i in ITEMS],
        gpu_counts=[8, 1, 0.5, 0.25],
        cost_sources=["bills"] * 4,
        currencies=["CNY"] * 4,
        billed_costs=[i.billed_cost for i in ITEMS],
        minutes=np.array([[i.by_phase[p].minutes for p in Phase] for i in ITEMS], dtype=np.int64),
        total_cents=np.array([int(i.total_cost * 100) for i in ITEMS], dtype=np.int64),
    )
    assert fleet.items() == ITEMS
    assert FleetWaste.of_items(ITEMS).items() == ITEMS


def test_its_sums_are_the_sums_of_the_instances_figures() -> None:
    fleet = FleetWaste.of_items(ITEMS)
    body = waste_totals_json(fleet, "CNY")
    for phase in Phase:
        key = phase.name.lower()
        cost = sum((i.by_phase[phase].cost for i in ITEMS), Decimal(0))
        hours = sum(i.by_phase[phase].gpu_hours for i in ITEMS)
        assert body["phases"][key]["cost"] == money(cost)
        assert body["phases"][key]["gpu_hours"] == str(hours)
        assert body["phases"][key]["minutes"] == sum(i.by_phase[phase].minutes for i in ITEMS)
    assert body["cost"] == money(
        sum((i.total_cost for i in ITEMS), Decimal(0))
    )  # 123.46 + 7.01 - 3.33 + 0.01
    assert body["cost"] == "127.15"
    assert body["instance_count"] == 4


def test_a_subset_sums_only_its_rows_and_an_empty_one_sums_to_zero() -> None:
    fleet = FleetWaste.of_items(ITEMS)
    assert waste_totals_json(fleet.subset([1, 3]), "CNY")["cost"] == "7.02"
    empty = waste_totals_json(fleet.subset([]), "CNY")
    assert (empty["cost"], empty["gpu_hours"], empty["instance_count"]) == ("0.00", "0", 0)
