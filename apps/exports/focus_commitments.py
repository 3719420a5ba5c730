"""A commitment's amortized cost on the instance-hours it paid for (pure: no Django, no database).

FOCUS wants the usage a reserved instance covered to carry the RI's amortized cost
(EffectiveCost), and the rest of the RI's cost on rows of its unused capacity, so that for one
CommitmentDiscountId the EffectiveCost of its usage sums to what the purchase billed. Here:

- the purchase is spread over its UTC hours (``apps.billing.amortization.spread_hours``);
- an hour's piece is split among the RI's ``units`` (an RI for N instances covers N
  instance-hours an hour): one unit for each instance-hour the bills say it paid for (a bill
  line, in BillId order; more covered than units get nothing more), the units left unused;
- a covered instance-hour's unit is split among its covered components by what each would have
  cost without the commitment (OriginalCostWithRI).

Every split is a largest-remainder allotment in 1e-8 (``amortization.allot``), so the used
shares and the unused remainder sum exactly to the purchase.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any

from apps.billing import amortization, classify

#: (BillId, ComponentCode) of a covered component.
ComponentKey = tuple[str, str]
_WEIGHT_UNIT = Decimal("1e8")

COMMITMENT_RESOURCE_TYPES = {
    classify.RESERVED_INSTANCE: "Reserved Instance",
    classify.SAVINGS_PLAN: "Savings Plan",
}
# FOCUS's CommitmentDiscountCategory: an RI commits to usage (instance-hours), an SP to spend.
_COMMITMENT_CATEGORIES = {classify.RESERVED_INSTANCE: "Usage", classify.SAVINGS_PLAN: "Spend"}
# What names a purchase as one of a commitment (预留实例: reserved instance; 节省计划: savings plan).
_COMMITMENT_WORDS = (
    (classify.RESERVED_INSTANCE, ("预留", "reserved")),
    (classify.SAVINGS_PLAN, ("节省计划", "savings plan")),
)


def commitment_kind(row: Mapping[str, Any]) -> str:
    """RI or SP when the line is the purchase of a commitment or usage one paid for, else ""."""
    if row["charge_category"] in (classify.PURCHASE, classify.REFUND):
        names = " ".join(
            (row[field] or "").lower() for field in ("product_name", "component_name", "item_name")
        )
        for kind, words in _COMMITMENT_WORDS:
            if any(word in names for word in words):
                return kind
        return ""
    return row["commitment"] if row["charge_category"] == classify.USAGE else ""


def match_commitment(
    row: Mapping[str, Any], purchases: list[Mapping[str, Any]], *, key: str = ""
) -> Any:
    """(id, name) of the commitment purchase that paid for a usage line (its ``key`` value
    instead when given), or None when unknown.

    Bills mark the component (InstanceType RI / SP) but do not name the commitment. An RI
    matches running instances of its region (or zone) automatically, so the candidate is the
    account's purchase of the same kind whose period covers the line's hour and whose region is
    the line's; one of the line's zone first, then the latest bought.
    """
    kind = commitment_kind(row)
    candidates = [
        p
        for p in purchases
        if p["account_id"] == row["account_id"]
        and commitment_kind(p) == kind
        and p["fee_begin_at"] <= row["fee_begin_at"] <= p["fee_end_at"]
        and (not p["region_name"] or p["region_name"] == row["region_name"])
    ]
    if not candidates:
        return None
    best = max(
        candidates,
        key=lambda p: (
            bool(p["zone_name"]) and p["zone_name"] == row["zone_name"],
            p["fee_begin_at"],
        ),
    )
    if key:
        return best[key]
    return best["resource_id"] or best["bill_id"], best["resource_name"]


def commitment_columns(row: Mapping[str, Any], kind: str, status: str | None) -> dict[str, Any]:
    discount = row.get("commitment_discount")
    if not kind or discount is None:
        return dict.fromkeys(_COMMITMENT_COLUMNS)
    discount_id, name = discount
    return {
        "CommitmentDiscountCategory": _COMMITMENT_CATEGORIES[kind],
        "CommitmentDiscountId": discount_id,
        "CommitmentDiscountName": name or discount_id,
        "CommitmentDiscountStatus": status,
        "CommitmentDiscountType": COMMITMENT_RESOURCE_TYPES[kind],
    }


_COMMITMENT_COLUMNS = (
    "CommitmentDiscountCategory",
    "CommitmentDiscountId",
    "CommitmentDiscountName",
    "CommitmentDiscountStatus",
    "CommitmentDiscountType",
)


def allocate(
    *,
    cost: Decimal,
    begin: dt.datetime,
    end: dt.datetime,
    charge_category: str,
    units: int,
    covered: Mapping[dt.datetime, Mapping[str, list[tuple[str, Decimal]]]],
    hours: Iterable[dt.datetime],
) -> tuple[dict[ComponentKey, Decimal], dict[dt.datetime, Decimal]]:
    """(share of each covered component, unused money of each of ``hours``).

    ``covered``: UTC hour -> BillId -> [(ComponentCode, cost without the commitment)] of the
    components the commitment paid for in that hour. ``hours``: the UTC hours whose unused part
    is wanted (an hour the commitment does not cover has none).
    """
    pieces = dict(amortization.spread_hours(cost, begin, end, charge_category))
    units = max(units, 1)
    shares: dict[ComponentKey, Decimal] = {}
    unused: dict[dt.datetime, Decimal] = {}
    for hour in sorted(set(hours) | set(covered)):
        piece = pieces.get(hour)
        if piece is None:
            continue
        bills = sorted(covered.get(hour, {}))
        used = min(len(bills), units)
        weights = [1] * used + ([units - used] if units > used else [])
        parts = amortization.allot(piece, weights)
        unused[hour] = parts[used] if units > used else Decimal(0)
        for bill_id, part in zip(bills[:used], parts, strict=False):
            components = sorted(covered[hour][bill_id])
            component_weights = [max(int(w * _WEIGHT_UNIT), 0) for _, w in components]
            if not any(component_weights):
                component_weights = [1] * len(components)
            for (code, _w), share in zip(
                components, amortization.allot(part, component_weights), strict=True
            ):
                shares[(bill_id, code)] = share
    return shares, unused


def hour_of(moment: dt.datetime) -> dt.datetime:
    """The UTC hour a moment falls in (Beijing hours are UTC hours)."""
    return moment.astimezone(dt.UTC).replace(minute=0, second=0, microsecond=0)
