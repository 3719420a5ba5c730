"""A commitment's amortized hours on the instance-hours it paid for, the rest unused (pure)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from apps.exports.focus_commitments import allocate, commitment_kind, match_commitment

BEGIN = dt.datetime(2026, 10, 1, tzinfo=dt.UTC)
END = dt.datetime(2026, 10, 2, tzinfo=dt.UTC) - dt.timedelta(seconds=1)  # a day, :59 inclusive
H0, H1 = BEGIN, BEGIN + dt.timedelta(hours=1)
DAY_HOURS = [BEGIN + dt.timedelta(hours=n) for n in range(24)]


def test_each_covered_instance_hour_takes_one_unit_and_the_rest_is_unused() -> None:
    # 2 units, 48.00 a day: 2.00 an hour, 1.00 an instance-hour.
    covered = {
        H0: {"b1": [("gpu", Decimal("10.08")), ("cpu", Decimal("1.32"))]},
        H1: {"b2": [("gpu", Decimal(1))], "b3": [("gpu", Decimal(1))], "b4": [("gpu", Decimal(1))]},
    }
    shares, unused = allocate(
        cost=Decimal(48), begin=BEGIN, end=END, charge_category="purchase", units=2,
        covered=covered, hours=DAY_HOURS,
    )  # fmt: skip
    assert shares[("b1", "gpu")] + shares[("b1", "cpu")] == 1
    assert shares[("b1", "gpu")] == Decimal("0.88421053")  # 10.08 / 11.40 of it
    assert unused[H0] == 1
    # More covered than units: two take a unit each, the third nothing more.
    assert sorted(shares.get((b, "gpu"), Decimal(0)) for b in ("b2", "b3", "b4")) == [0, 1, 1]
    assert unused[H1] == 0
    assert unused[BEGIN + dt.timedelta(hours=5)] == 2
    assert sum(shares.values()) + sum(unused.values()) == 48


def test_the_pieces_sum_exactly_to_an_awkward_cost() -> None:
    cost = Decimal("70079.99999999")
    covered = {H0: {"b1": [("gpu", Decimal("0")), ("cpu", Decimal("0"))]}}
    shares, unused = allocate(
        cost=cost, begin=BEGIN, end=END, charge_category="purchase", units=3,
        covered=covered, hours=DAY_HOURS,
    )  # fmt: skip
    assert sum(shares.values()) + sum(unused.values()) == cost
    # Without weights the components share evenly.
    assert abs(shares[("b1", "gpu")] - shares[("b1", "cpu")]) <= Decimal("0.00000001")


def test_an_ri_purchase_is_told_from_a_subscription_by_its_names() -> None:
    def purchase(product: str, region: str = "华南地区（广州）", **fields: object) -> dict:
        return {
            "charge_category": "purchase", "product_name": product, "component_name": "",
            "item_name": "", "commitment": "", "account_id": 1, "fee_begin_at": BEGIN,
            "fee_end_at": END, "region_name": region, "zone_name": "", "resource_id": "ri-1",
            "resource_name": "RI", "bill_id": "b", **fields,
        }  # fmt: skip

    assert commitment_kind(purchase("预留实例")) == "RI"
    assert commitment_kind(purchase("云服务器CVM-GPU计算型GN7")) == ""
    usage = {**purchase(""), "charge_category": "usage", "commitment": "RI", "fee_begin_at": H1}
    assert match_commitment(usage, [purchase("预留实例")]) == ("ri-1", "RI")
    # Another region's RI does not pay for it.
    assert match_commitment(usage, [purchase("预留实例", region="华东地区（上海）")]) is None
