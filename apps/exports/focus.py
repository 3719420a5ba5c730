"""A bill line as FOCUS rows (1.2 or 1.3), and FOCUS values as CSV or JSON text.

FOCUS (the FinOps Open Cost and Usage Specification) is what finance tools read; the columns of
each version are in ``apps.exports.focus_columns``. How Tencent's bills map (the choices a
reader of the export needs to know):

- ChargeCategory from what the bill says the line is (``apps.billing.classify``): Purchase for
  subscription purchases, renewals and reserved-instance purchases (and their refunds, negative),
  Credit for credits (an SLA compensation), Adjustment for other adjustments (调账), Usage
  otherwise. ChargeClass is Correction for a refund, credit or adjustment of an earlier bill
  month (the month of the period it names, or of the purchase it refunds), null otherwise.
- BilledCost is the line's RealCost, as invoiced. EffectiveCost is amortized: a purchase or its
  refund paying for a period is 0 on its own row and its cost is on amortized rows
  (``apps.exports.focus_amortized``); a component a commitment paid for carries its share of
  the commitment (``apps.exports.focus_commitments``). Otherwise (usage, credits, adjustments,
  a refund booked at an instant) EffectiveCost is BilledCost.
- PricingCategory: pay-as-you-go Standard, spot Dynamic, usage a reserved instance or savings
  plan paid for Committed, purchases Standard; null for credits, adjustments and corrections.
- Commitment discounts: an RI / SP purchase and its unused-capacity rows carry its id (the
  purchase's ResourceId); usage the bill marks as paid by an RI / SP (status Used) carries the
  id of the account's commitment purchase of the same region covering its hour, when known.
- ListCost is the line's Cost (list price) and ListUnitPrice its SinglePrice; ContractedCost the
  RealCost (before commitment: OriginalCostWithRI/SP) and ContractedUnitPrice its ContractPrice.
  Credits and adjustments have no prices: ListCost and ContractedCost are their BilledCost.
- BillingAccountId is the payer's UIN, SubAccountId the owner's UIN.
- Times: bills name an hour as 10:00:00-10:59:59 in Beijing time; ChargePeriodEnd is the
  exclusive end (11:00:00), in UTC. BillingPeriod* is the Beijing bill month, in UTC.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import json
from collections.abc import Mapping
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from apps.billing import amortization, classify
from apps.billing.instances import region_and_zone
from apps.billing.sync import BEIJING
from apps.cloud.models import ChargeType
from apps.exports.focus_columns import (
    SERVICE_CATEGORY,
    SERVICE_SUBCATEGORY,
)
from apps.exports.focus_commitments import (
    COMMITMENT_RESOURCE_TYPES,
    commitment_columns,
    commitment_kind,
)

PROVIDER = "Tencent Cloud"
SERVICE_NAME = "Cloud Virtual Machine"
RESOURCE_TYPE = "Virtual Machine"
_PREPAID_CATEGORIES = (classify.PURCHASE, classify.REFUND)
_CORRECTABLE = (classify.REFUND, classify.CREDIT, classify.ADJUSTMENT)
_FOCUS_CATEGORY = {
    classify.USAGE: "Usage",
    classify.PURCHASE: "Purchase",
    classify.REFUND: "Purchase",
    classify.CREDIT: "Credit",
    classify.ADJUSTMENT: "Adjustment",
}
_RENEWAL_WORDS = ("续费", "renew")
_GPU_WORDS = ("gpu", "显卡")

_HOUR = dt.timedelta(hours=1)
_Q8 = Decimal("0.00000001")
_GPU_HOURS = Decimal("0.0001")
_PCT = Decimal("0.01")
# Time units of the bills' TimeSpan (Chinese names as the bill APIs write them).
_SECONDS_PER_UNIT = {"秒": 1, "分钟": 60, "小时": 3600, "天": 86400}
_MONTH_UNITS = {"月"}
_YEAR_UNITS = {"年"}
_AMOUNT_UNITS = {"个": "", "台": "", "GB": "GB-", "G": "GB-"}


@dataclasses.dataclass(frozen=True)
class GpuFigures:
    """What the metrics and the analysis say about a line's charge period (None: no data)."""

    gpu_util_avg_pct: float | None = None
    idle_minutes: int | None = None


def charge_period(begin: dt.datetime, end: dt.datetime) -> tuple[dt.datetime, dt.datetime]:
    """[start, exclusive end) of a bill line (bills end an hour at hh:59:59, inclusively; a line
    booked at one instant, like a refund, covers that second)."""
    stop = end + dt.timedelta(seconds=1) if end.second == 59 or end <= begin else end
    return begin, stop


@functools.lru_cache(maxsize=256)
def billing_period(month: str) -> tuple[dt.datetime, dt.datetime]:
    """The Beijing bill month ``yyyy-mm`` as [start, end) in UTC."""
    first = dt.datetime.strptime(month, "%Y-%m").replace(tzinfo=BEIJING)
    following = (first + dt.timedelta(days=32)).replace(day=1)
    return first.astimezone(dt.UTC), following.astimezone(dt.UTC)


@functools.lru_cache(maxsize=16384)
def iso_z(moment: dt.datetime) -> str:
    """ISO 8601 in UTC with ``Z`` (FOCUS DateTime). Cached: a fleet's lines share their hours."""
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# Bills name a handful of places, millions of times.
_region_and_zone = functools.lru_cache(maxsize=1024)(region_and_zone)


def line_charge_type(row: Mapping[str, Any]) -> str:
    """The charge type the line was billed under (the bill decides; the instance fills gaps)."""
    return row["charge_type"] or row["instance__charge_type"] or ChargeType.POSTPAID_BY_HOUR


def _quantity(row: Mapping[str, Any], start: dt.datetime, end: dt.datetime) -> tuple[Decimal, str]:
    """(quantity, unit) charged: amount x time, e.g. 1 instance x 1 h = 1 Hours, 50 GB = GB-Hours."""
    amount = row["used_amount"] if row["used_amount"] is not None else Decimal(1)
    prefix = _AMOUNT_UNITS.get(row["used_unit"] or "", f"{row['used_unit']}-")
    span, unit = row["time_span"], row["time_unit"] or ""
    if unit in _MONTH_UNITS and span is not None:
        return (amount * span).quantize(_Q8, ROUND_HALF_UP), f"{prefix}Months"
    if unit in _YEAR_UNITS and span is not None:
        return (amount * span).quantize(_Q8, ROUND_HALF_UP), f"{prefix}Years"
    if unit in _SECONDS_PER_UNIT and span is not None:
        hours = span * _SECONDS_PER_UNIT[unit] / 3600
    else:
        hours = Decimal((end - start) // dt.timedelta(seconds=1)) / 3600
    return (amount * hours).quantize(_Q8, ROUND_HALF_UP), f"{prefix}Hours"


def charged_hours(row: Mapping[str, Any], start: dt.datetime, end: dt.datetime) -> Decimal:
    """Hours the line pays an instance for: its TimeSpan, or its charge period (a month)."""
    unit, span = row["time_unit"] or "", row["time_span"]
    if unit in _SECONDS_PER_UNIT and span is not None:
        return span * _SECONDS_PER_UNIT[unit] / 3600
    return Decimal((end - start) // dt.timedelta(seconds=1)) / 3600


def merged_tags(row: Mapping[str, Any]) -> dict[str, str]:
    """The instance's tags completed by the line's own (bills carry cost-allocation tags)."""
    return {**(row["instance__tags"] or {}), **(row["tags"] or {})}


def focus_category(row: Mapping[str, Any]) -> str:
    """FOCUS's ChargeCategory of a bill line (a refund of a purchase is a negative Purchase)."""
    return _FOCUS_CATEGORY.get(row["charge_category"], "Usage")


def is_prepaid(row: Mapping[str, Any]) -> bool:
    """A purchase (or its refund) paying for a period longer than an hour: amortized over it
    in EffectiveCost (one booked at an instant stays where billed)."""
    return amortization.is_spread(row["charge_category"], row["fee_begin_at"], row["fee_end_at"])


def is_gpu_component(row: Mapping[str, Any]) -> bool:
    """A component billing the GPU itself (named GPU / 显卡), not the instance's compute."""
    name = f"{row['component_name'] or ''} {row['component_code'] or ''}".lower()
    return any(word in name for word in _GPU_WORDS)


def corrected_month(row: Mapping[str, Any]) -> str:
    """The bill month a line corrects: its charge period's, or the refunded purchase's."""
    own = row["fee_begin_at"].astimezone(BEIJING).strftime("%Y-%m")
    refunded = row.get("refunded_month")
    return min(own, refunded) if refunded else own


def charge_class(row: Mapping[str, Any]) -> str | None:
    """Correction for a refund, credit or adjustment of an earlier bill month; else null."""
    if row["charge_category"] in _CORRECTABLE and corrected_month(row) < row["month"]:
        return "Correction"
    return None


def _frequency(row: Mapping[str, Any], category: str) -> str:
    if category == "Usage":
        return "Usage-Based"
    if category == "Purchase" and any(w in (row["action_type_name"] or "") for w in _RENEWAL_WORDS):
        return "Recurring"
    return "One-Time"


def _pricing_category(row: Mapping[str, Any], category: str, correction: bool) -> str | None:
    if category not in ("Usage", "Purchase") or correction:
        return None
    if category == "Purchase":
        return "Standard"
    if commitment_kind(row):
        return "Committed"
    if line_charge_type(row) == ChargeType.SPOTPAID:
        return "Dynamic"
    return "Standard"


def _unit_price(price: Decimal | None, cost: Decimal, quantity: Decimal | None) -> Decimal | None:
    """A non-negative unit price: the bill's, or the cost over the quantity where it has none."""
    if price is not None:
        return abs(price)
    if quantity:
        return abs(cost / quantity).quantize(_Q8, ROUND_HALF_UP)
    return None


def billing_account(row: Mapping[str, Any]) -> tuple[str, str | None, str | None, str | None]:
    """(BillingAccountId, its name, SubAccountId, its name): the payer and the owner UINs.

    Lines stored before the UINs were kept fall back to the cloud account's id in GPU Ledger.
    """
    payer = row["payer_uin"] or row["owner_uin"] or str(row["account_id"])
    name = row["account__name"] or None
    owner = row["owner_uin"] or None
    owner_name = (name if owner == payer else owner) if owner else None
    return payer, name, owner, owner_name


def focus_row(row: Mapping[str, Any], gpu: GpuFigures) -> dict[str, Any]:
    """One bill line (``export_lines`` values) as FOCUS values: Decimal, datetime, str, dict.

    Every column of every version is filled; the writers pick a version's columns.
    """
    start, end = charge_period(row["fee_begin_at"], row["fee_end_at"])
    period_start, period_end = billing_period(row["month"])
    category = focus_category(row)
    correction = charge_class(row) is not None
    priced = category in ("Usage", "Purchase")
    kind = commitment_kind(row)
    region_id, zone_id = _region_and_zone(row["region_name"] or "", row["zone_name"] or "")
    quantity, unit = _quantity(row, start, end) if priced else (None, None)
    if quantity is not None and row["single_price"] is not None and row["single_price"] < 0:
        quantity = -quantity  # a refund: a positive price times a negative quantity
    cost = row["cost"]
    if not priced:
        list_cost = contracted = cost  # FOCUS: a credit's or an adjustment's ListCost is billed
    else:
        list_cost = row["list_cost"]
        contracted = row["cost_without_commitment"] if kind and category == "Usage" else None
        contracted = cost if contracted is None else contracted
    list_price = _unit_price(row["single_price"], list_cost, quantity) if priced else None
    contract_price = None
    if priced:
        paid = None if kind and category == "Usage" else row["contract_price"]
        contract_price = _unit_price(paid, contracted, quantity)
    tags = merged_tags(row)
    compute = (
        row["component_class"] in classify.PRICED_AS_RUNTIME and row["instance_id"] is not None
    )
    gpu_hours = None
    idle_cost = None
    if compute and priced:
        # An instance-hour's GPU-hours once: on its GPU component when the bill has one, else
        # on its compute component (``selectors`` names the bills with one).
        if is_gpu_component(row) or not row.get("bill_has_gpu_component"):
            cards = Decimal(str(row["instance__gpu_count"] or 0))
            hours = charged_hours(row, start, end)
            gpu_hours = (cards * hours).quantize(_GPU_HOURS, ROUND_HALF_UP)
        minutes = (end - start) // dt.timedelta(minutes=1)
        if gpu.idle_minutes is not None and minutes > 0:
            idle = min(gpu.idle_minutes, minutes)
            idle_cost = (cost * idle / minutes).quantize(_Q8, ROUND_HALF_UP)
    util = gpu.gpu_util_avg_pct
    resource_id = row["resource_id"] or row["instance__provider_id"] or None
    description = " ".join(p for p in (row["component_name"], row["item_name"]) if p)
    account_id, account_name, sub_id, sub_name = billing_account(row)
    sku = (row["item_code"] or row["component_code"] or None) if priced else None
    purchase_of_commitment = bool(kind) and category == "Purchase"
    return {
        "BilledCost": cost,
        "BillingAccountId": account_id,
        "BillingAccountName": account_name,
        "BillingCurrency": row["currency"],
        "BillingPeriodStart": period_start,
        "BillingPeriodEnd": period_end,
        "ChargeCategory": category,
        "ChargeClass": "Correction" if correction else None,
        "ChargeDescription": description or row["product_name"] or None,
        "ChargeFrequency": _frequency(row, category),
        "ChargePeriodStart": start,
        "ChargePeriodEnd": end,
        **commitment_columns(row, kind, None if purchase_of_commitment else "Used"),
        "ContractedCost": contracted,
        "ContractedUnitPrice": contract_price,
        # A covered component carries its share of the commitment's amortized purchase.
        "EffectiveCost": Decimal(0)
        if is_prepaid(row)
        else cost + (row.get("commitment_share") or 0),
        "HostProviderName": PROVIDER,
        "InvoiceIssuerName": PROVIDER,
        "ListCost": list_cost,
        "ListUnitPrice": list_price,
        "PricingCategory": _pricing_category(row, category, correction),
        "PricingQuantity": quantity,
        "PricingUnit": unit,
        "ProviderName": PROVIDER,
        "PublisherName": PROVIDER,
        "ServiceCategory": SERVICE_CATEGORY,
        "ServiceName": SERVICE_NAME,
        "ServiceProviderName": PROVIDER,
        "ServiceSubcategory": SERVICE_SUBCATEGORY,
        "SkuId": sku,
        "SkuMeter": (row["component_name"] or row["component_code"] or None) if sku else None,
        "SkuPriceId": f"{sku}/{line_charge_type(row)}" if sku else None,
        "SubAccountId": sub_id,
        "SubAccountName": sub_name,
        "ResourceId": resource_id,
        "ResourceName": row["resource_name"] or row["instance__name"] or None,
        "ResourceType": (COMMITMENT_RESOURCE_TYPES.get(kind) if purchase_of_commitment else None)
        or (RESOURCE_TYPE if resource_id else None),
        "RegionId": row["instance__region"] or region_id or None,
        "RegionName": row["region_name"] or None,
        "AvailabilityZone": row["instance__zone"] or zone_id or None,
        "ConsumedQuantity": quantity if category == "Usage" else None,
        "ConsumedUnit": unit if category == "Usage" else None,
        "Tags": tags,
        "x_Project": row["project__name"] or "Unallocated",
        "x_Team": tags.get("team") or None,
        "x_GpuHours": gpu_hours,
        "x_GpuUtilAvgPct": None
        if util is None
        else Decimal(repr(util)).quantize(_PCT, ROUND_HALF_UP),
        "x_IdleCost": idle_cost,
        "x_BillLineId": row["bill_id"],
    }


def _tags_text(value: dict[str, str]) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


# By exact type: millions of rows x 37 columns make an isinstance chain show in a profile.
_TEXT: dict[type, Any] = {
    str: lambda value: value,
    type(None): lambda value: "",
    Decimal: lambda value: f"{value:f}",
    dt.datetime: iso_z,
    dict: _tags_text,
}


def text_value(value: Any) -> str:
    """A FOCUS value as CSV text: ISO Z times, plain decimals, JSON tags, empty for null."""
    convert = _TEXT.get(type(value))
    return convert(value) if convert is not None else str(value)


def json_value(value: Any) -> Any:
    """A FOCUS value for a JSON page: decimals as strings, times as ISO Z, tags as an object."""
    if isinstance(value, dt.datetime):
        return iso_z(value)
    if isinstance(value, Decimal):
        return f"{value:f}"
    return value
