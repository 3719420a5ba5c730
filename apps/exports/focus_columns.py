"""The columns of the FOCUS export per specification version (1.2 and 1.3), with their types.

Every column a version makes *Mandatory* is here, with the conditional ones Tencent's bills can
fill and the product's own ``x_`` columns. FOCUS 1.3 adds ServiceProviderName and
HostProviderName and deprecates ProviderName and PublisherName, which it still lists as
mandatory: a 1.3 export writes all four. Types follow the specification's data types: Decimal
(a decimal string), DateTime (ISO 8601 in UTC with ``Z``), String, and JSON (Tags: an object of
string keys and values).
"""

from __future__ import annotations

import dataclasses

DECIMAL = "Decimal"
STRING = "String"
DATETIME = "DateTime"
JSON = "JSON"

MANDATORY = "Mandatory"
CONDITIONAL = "Conditional"
RECOMMENDED = "Recommended"
CUSTOM = "Custom"

VERSION_1_2 = "1.2"
VERSION_1_3 = "1.3"
VERSIONS = (VERSION_1_2, VERSION_1_3)
DEFAULT_VERSION = VERSION_1_3
_BOTH = frozenset(VERSIONS)
_SINCE_1_3 = frozenset({VERSION_1_3})

CHARGE_CATEGORIES = ("Usage", "Purchase", "Tax", "Credit", "Adjustment")
CHARGE_CLASSES = ("Correction",)
CHARGE_FREQUENCIES = ("One-Time", "Recurring", "Usage-Based")
PRICING_CATEGORIES = ("Standard", "Dynamic", "Committed", "Other")
COMMITMENT_DISCOUNT_CATEGORIES = ("Spend", "Usage")
COMMITMENT_DISCOUNT_STATUSES = ("Used", "Unused")
SERVICE_CATEGORY = "Compute"
SERVICE_SUBCATEGORY = "Virtual Machines"


@dataclasses.dataclass(frozen=True)
class FocusColumn:
    name: str
    data_type: str
    feature_level: str
    nullable: bool
    allowed_values: tuple[str, ...] = ()
    description: str = ""
    versions: frozenset[str] = _BOTH


def _column(
    name: str,
    data_type: str,
    level: str,
    *,
    nullable: bool = False,
    allowed: tuple[str, ...] = (),
    doc: str = "",
    versions: frozenset[str] = _BOTH,
) -> FocusColumn:
    return FocusColumn(name, data_type, level, nullable, allowed, doc, versions)


_COMMITMENT = "Null unless a reserved instance or savings plan is involved."

#: Every column of any version, in output order.
ALL_COLUMNS: tuple[FocusColumn, ...] = (
    _column("BilledCost", DECIMAL, MANDATORY, doc="RealCost of the line, as invoiced."),
    _column("BillingAccountId", STRING, MANDATORY, doc="The payer's Tencent account (UIN)."),
    _column("BillingAccountName", STRING, MANDATORY, nullable=True),
    _column("BillingCurrency", STRING, MANDATORY, doc="ISO 4217."),
    _column("BillingPeriodStart", DATETIME, MANDATORY, doc="The Beijing bill month's start."),
    _column("BillingPeriodEnd", DATETIME, MANDATORY, doc="Exclusive."),
    _column("ChargeCategory", STRING, MANDATORY, allowed=CHARGE_CATEGORIES),
    _column(
        "ChargeClass",
        STRING,
        MANDATORY,
        nullable=True,
        allowed=CHARGE_CLASSES,
        doc="Correction for a refund or adjustment of an earlier bill month, else null.",
    ),
    _column("ChargeDescription", STRING, MANDATORY, nullable=True),
    _column("ChargeFrequency", STRING, RECOMMENDED, allowed=CHARGE_FREQUENCIES),
    _column("ChargePeriodStart", DATETIME, MANDATORY),
    _column("ChargePeriodEnd", DATETIME, MANDATORY, doc="Exclusive."),
    _column(
        "CommitmentDiscountCategory",
        STRING,
        CONDITIONAL,
        nullable=True,
        allowed=COMMITMENT_DISCOUNT_CATEGORIES,
        doc=_COMMITMENT,
    ),
    _column("CommitmentDiscountId", STRING, CONDITIONAL, nullable=True, doc=_COMMITMENT),
    _column("CommitmentDiscountName", STRING, CONDITIONAL, nullable=True, doc=_COMMITMENT),
    _column(
        "CommitmentDiscountStatus",
        STRING,
        CONDITIONAL,
        nullable=True,
        allowed=COMMITMENT_DISCOUNT_STATUSES,
        doc=_COMMITMENT,
    ),
    _column("CommitmentDiscountType", STRING, CONDITIONAL, nullable=True, doc=_COMMITMENT),
    _column("ContractedCost", DECIMAL, MANDATORY),
    _column("ContractedUnitPrice", DECIMAL, CONDITIONAL, nullable=True, doc="ContractPrice."),
    _column(
        "EffectiveCost",
        DECIMAL,
        MANDATORY,
        doc="Amortized: 0 on a prepaid purchase, its cost spread over the days it covers.",
    ),
    _column("HostProviderName", STRING, MANDATORY, nullable=True, versions=_SINCE_1_3),
    _column("InvoiceIssuerName", STRING, MANDATORY),
    _column("ListCost", DECIMAL, MANDATORY, doc="Cost of the line at list price."),
    _column("ListUnitPrice", DECIMAL, CONDITIONAL, nullable=True, doc="SinglePrice."),
    _column("PricingCategory", STRING, CONDITIONAL, nullable=True, allowed=PRICING_CATEGORIES),
    _column("PricingQuantity", DECIMAL, MANDATORY, nullable=True),
    _column("PricingUnit", STRING, MANDATORY, nullable=True),
    _column("ProviderName", STRING, MANDATORY, doc="Deprecated in 1.3, still mandatory."),
    _column("PublisherName", STRING, MANDATORY, doc="Deprecated in 1.3, still mandatory."),
    _column("ServiceCategory", STRING, MANDATORY, allowed=(SERVICE_CATEGORY,)),
    _column("ServiceName", STRING, MANDATORY),
    _column("ServiceProviderName", STRING, MANDATORY, versions=_SINCE_1_3),
    _column("ServiceSubcategory", STRING, RECOMMENDED, allowed=(SERVICE_SUBCATEGORY,)),
    _column("SkuId", STRING, CONDITIONAL, nullable=True, doc="The component's ItemCode."),
    _column("SkuMeter", STRING, CONDITIONAL, nullable=True, doc="The component's name."),
    _column("SkuPriceId", STRING, CONDITIONAL, nullable=True, doc="ItemCode / charge type."),
    _column("SubAccountId", STRING, CONDITIONAL, nullable=True, doc="The owner's UIN."),
    _column("SubAccountName", STRING, CONDITIONAL, nullable=True),
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
    _column(
        "x_BillLineId",
        STRING,
        CUSTOM,
        doc="The Tencent BillId the row comes from (an amortized row: its purchase's).",
    ),
)


def columns_of(version: str) -> tuple[FocusColumn, ...]:
    """The columns a FOCUS ``version`` export writes, in output order."""
    if version not in VERSIONS:
        raise ValueError(f"unsupported FOCUS version {version!r}")
    return tuple(column for column in ALL_COLUMNS if version in column.versions)


def column_names(version: str) -> tuple[str, ...]:
    return tuple(column.name for column in columns_of(version))


def mandatory_columns(version: str) -> tuple[str, ...]:
    return tuple(c.name for c in columns_of(version) if c.feature_level == MANDATORY)
