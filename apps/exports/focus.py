"""The FOCUS 1.2 columns this export writes, their types, and a bill line as one FOCUS row.

FOCUS (the FinOps Open Cost and Usage Specification) is what finance tools read. Every column
the 1.2 specification makes *Mandatory* is here, with the conditional ones Tencent's bills can
fill (resource, region, zone, pricing category, tags, consumed quantity) and the product's own
``x_`` columns (GPU-hours, GPU utilization, idle cost, project and team). Types follow the
specification's data types: Decimal (a decimal string), DateTime (ISO 8601 in UTC with ``Z``),
String, and JSON (Tags: a JSON object of string keys and values).

How Tencent's bills map (the choices a reader of the export needs to know):

- BilledCost, EffectiveCost and ContractedCost are the line's ``RealCost`` (after discounts);
  ListCost its ``Cost``. Subscriptions are not amortized: their month is one Usage line.
- ChargeCategory is Usage, except the bills' adjustments (Adjustment). ChargeFrequency is
  Usage-Based for hourly settlement, Recurring for subscriptions, One-Time for adjustments.
- PricingCategory: pay-as-you-go is Standard, spot Dynamic, monthly subscriptions Committed.
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

from apps.billing.classify import PRICED_AS_RUNTIME
from apps.billing.instances import region_and_zone
from apps.billing.models import ChargeCategory
from apps.billing.sync import BEIJING
from apps.cloud.models import ChargeType

DECIMAL = "Decimal"
STRING = "String"
DATETIME = "DateTime"
JSON = "JSON"

MANDATORY = "Mandatory"
CONDITIONAL = "Conditional"
RECOMMENDED = "Recommended"
CUSTOM = "Custom"

PROVIDER = "Tencent Cloud"
CHARGE_CATEGORIES = ("Usage", "Purchase", "Tax", "Credit", "Adjustment")
CHARGE_FREQUENCIES = ("One-Time", "Recurring", "Usage-Based")
PRICING_CATEGORIES = ("Standard", "Dynamic", "Committed", "Other")
SERVICE_CATEGORY = "Compute"
SERVICE_NAME = "Cloud Virtual Machine"
RESOURCE_TYPE = "Virtual Machine"


@dataclasses.dataclass(frozen=True)
class FocusColumn:
    name: str
    data_type: str
    feature_level: str
    nullable: bool
    allowed_values: tuple[str, ...] = ()
    description: str = ""


def _column(
    name: str, data_type: str, level: str, *, nullable: bool = False, allowed: tuple = (), doc=""
) -> FocusColumn:
    return FocusColumn(name, data_type, level, nullable, allowed, doc)


#: Every column of the export, in output order. The mandatory ones are FOCUS 1.2's.
FOCUS_COLUMNS: tuple[FocusColumn, ...] = (
    _column("BilledCost", DECIMAL, MANDATORY, doc="RealCost of the line."),
    _column("BillingAccountId", STRING, MANDATORY, doc="The cloud account's id in GPU Ledger."),
    _column("BillingAccountName", STRING, MANDATORY, nullable=True),
    _column("BillingCurrency", STRING, MANDATORY, doc="ISO 4217."),
    _column("BillingPeriodStart", DATETIME, MANDATORY, doc="The Beijing bill month's start."),
    _column("BillingPeriodEnd", DATETIME, MANDATORY, doc="Exclusive."),
    _column("ChargeCategory", STRING, MANDATORY, allowed=CHARGE_CATEGORIES),
    _column("ChargeClass", STRING, MANDATORY, nullable=True, allowed=("Correction",)),
    _column("ChargeDescription", STRING, MANDATORY, nullable=True),
    _column("ChargeFrequency", STRING, RECOMMENDED, allowed=CHARGE_FREQUENCIES),
    _column("ChargePeriodStart", DATETIME, MANDATORY),
    _column("ChargePeriodEnd", DATETIME, MANDATORY, doc="Exclusive."),
    _column("ContractedCost", DECIMAL, MANDATORY),
    _column("EffectiveCost", DECIMAL, MANDATORY),
    _column("InvoiceIssuerName", STRING, MANDATORY),
    _column("ListCost", DECIMAL, MANDATORY),
    _column("PricingCategory", STRING, CONDITIONAL, nullable=True, allowed=PRICING_CATEGORIES),
    _column("PricingQuantity", DECIMAL, MANDATORY, nullable=True),
    _column("PricingUnit", STRING, MANDATORY, nullable=True),
    _column("ProviderName", STRING, MANDATORY),
    _column("PublisherName", STRING, MANDATORY),
    _column("ServiceCategory", STRING, MANDATORY, allowed=(SERVICE_CATEGORY,)),
    _column("ServiceName", STRING, MANDATORY),
    _column("ResourceId", STRING, CONDITIONAL, nullable=True),
    _column("ResourceName", STRING, CONDITIONAL, nullable=True),
    _column("ResourceType", STRING, CONDITIONAL, nullable=True),
    _column("RegionId", STRING, CONDITIONAL, nullable=True),
    _column("RegionName", STRING, CONDITIONAL, nullable=True),
    _column("AvailabilityZone", STRING, RECOMMENDED, nullable=True),
    _column("ConsumedQuantity", DECIMAL, CONDITIONAL, nullable=True),
    _column("ConsumedUnit", STRING, CONDITIONAL, nullable=True),
    _column("Tags", JSON, CONDITIONAL, nullable=True, doc="Line tags over instance tags."),
    _column("x_Project", STRING, CUSTOM, doc="GPU Ledger's allocation, or Unallocated."),
    _column("x_Team", STRING, CUSTOM, nullable=True, doc="The `team` tag."),
    _column("x_GpuHours", DECIMAL, CUSTOM, nullable=True, doc="Cards x charged hours."),
    _column("x_GpuUtilAvgPct", DECIMAL, CUSTOM, nullable=True, doc="Over the charge period."),
    _column("x_IdleCost", DECIMAL, CUSTOM, nullable=True, doc="Cost x idle minutes / minutes."),
)
FOCUS_COLUMN_NAMES: tuple[str, ...] = tuple(column.name for column in FOCUS_COLUMNS)
MANDATORY_COLUMNS: tuple[str, ...] = tuple(
    column.name for column in FOCUS_COLUMNS if column.feature_level == MANDATORY
)

_HOUR = dt.timedelta(hours=1)
_Q8 = Decimal("0.00000001")
_GPU_HOURS = Decimal("0.0001")
_PCT = Decimal("0.01")
# Time units of the bills' TimeSpan (Chinese names as the bill APIs write them).
_SECONDS_PER_UNIT = {"秒": 1, "分钟": 60, "小时": 3600, "天": 86400}
_MONTH_UNITS = {"月"}
_AMOUNT_UNITS = {"个": "", "台": "", "GB": "GB-", "G": "GB-"}


@dataclasses.dataclass(frozen=True)
class GpuFigures:
    """What the metrics and the analysis say about a line's charge period (None: no data)."""

    gpu_util_avg_pct: float | None = None
    idle_minutes: int | None = None


def charge_period(begin: dt.datetime, end: dt.datetime) -> tuple[dt.datetime, dt.datetime]:
    """[start, exclusive end) of a bill line (bills end an hour at hh:59:59, inclusively)."""
    stop = end + dt.timedelta(seconds=1) if end.second == 59 else end
    return begin, max(stop, begin)


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


def is_adjustment(row: Mapping[str, Any]) -> bool:
    return row["charge_category"] in (ChargeCategory.ADJUSTMENT, ChargeCategory.CREDIT)


def _quantity(row: Mapping[str, Any], start: dt.datetime, end: dt.datetime) -> tuple[Decimal, str]:
    """(quantity, unit) charged: amount x time, e.g. 1 instance x 1 h = 1 Hours, 50 GB = GB-Hours."""
    amount = row["used_amount"] if row["used_amount"] is not None else Decimal(1)
    prefix = _AMOUNT_UNITS.get(row["used_unit"] or "", f"{row['used_unit']}-")
    span, unit = row["time_span"], row["time_unit"] or ""
    if unit in _MONTH_UNITS and span is not None:
        return (amount * span).quantize(_Q8, ROUND_HALF_UP), f"{prefix}Months"
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


def focus_row(row: Mapping[str, Any], gpu: GpuFigures) -> dict[str, Any]:
    """One bill line (``export_lines`` values) as FOCUS values: Decimal, datetime, str, dict."""
    start, end = charge_period(row["fee_begin_at"], row["fee_end_at"])
    period_start, period_end = billing_period(row["month"])
    adjustment = is_adjustment(row)
    charge_type = line_charge_type(row)
    prepaid = charge_type == ChargeType.PREPAID
    region_id, zone_id = _region_and_zone(row["region_name"] or "", row["zone_name"] or "")
    quantity, unit = (None, None) if adjustment else _quantity(row, start, end)
    tags = merged_tags(row)
    compute = row["component_class"] in PRICED_AS_RUNTIME and row["instance_id"] is not None
    gpu_hours = None
    idle_cost = None
    if compute and not adjustment:
        cards = Decimal(str(row["instance__gpu_count"] or 0))
        gpu_hours = (cards * charged_hours(row, start, end)).quantize(_GPU_HOURS, ROUND_HALF_UP)
        minutes = (end - start) // dt.timedelta(minutes=1)
        if gpu.idle_minutes is not None and minutes > 0:
            idle = min(gpu.idle_minutes, minutes)
            idle_cost = (row["cost"] * idle / minutes).quantize(_Q8, ROUND_HALF_UP)
    util = gpu.gpu_util_avg_pct
    resource_id = row["resource_id"] or row["instance__provider_id"] or None
    description = " ".join(p for p in (row["component_name"], row["item_name"]) if p)
    return {
        "BilledCost": row["cost"],
        "BillingAccountId": str(row["account_id"]),
        "BillingAccountName": row["account__name"] or None,
        "BillingCurrency": row["currency"],
        "BillingPeriodStart": period_start,
        "BillingPeriodEnd": period_end,
        "ChargeCategory": "Adjustment" if adjustment else "Usage",
        "ChargeClass": None,
        "ChargeDescription": description or row["product_name"] or None,
        "ChargeFrequency": "One-Time" if adjustment else "Recurring" if prepaid else "Usage-Based",
        "ChargePeriodStart": start,
        "ChargePeriodEnd": end,
        "ContractedCost": row["cost"],
        "EffectiveCost": row["cost"],
        "InvoiceIssuerName": PROVIDER,
        "ListCost": row["list_cost"],
        "PricingCategory": None if adjustment else _pricing_category(charge_type),
        "PricingQuantity": quantity,
        "PricingUnit": unit,
        "ProviderName": PROVIDER,
        "PublisherName": PROVIDER,
        "ServiceCategory": SERVICE_CATEGORY,
        "ServiceName": SERVICE_NAME,
        "ResourceId": resource_id,
        "ResourceName": row["resource_name"] or row["instance__name"] or None,
        "ResourceType": RESOURCE_TYPE if resource_id else None,
        "RegionId": row["instance__region"] or region_id or None,
        "RegionName": row["region_name"] or None,
        "AvailabilityZone": row["instance__zone"] or zone_id or None,
        "ConsumedQuantity": quantity,
        "ConsumedUnit": unit,
        "Tags": tags,
        "x_Project": row["project__name"] or "Unallocated",
        "x_Team": tags.get("team") or None,
        "x_GpuHours": gpu_hours,
        "x_GpuUtilAvgPct": None
        if util is None
        else Decimal(repr(util)).quantize(_PCT, ROUND_HALF_UP),
        "x_IdleCost": idle_cost,
    }


def _pricing_category(charge_type: str) -> str:
    if charge_type == ChargeType.SPOTPAID:
        return "Dynamic"
    if charge_type == ChargeType.PREPAID:
        return "Committed"
    return "Standard"


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
