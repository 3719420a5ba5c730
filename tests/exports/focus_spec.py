"""What the FOCUS specification says, written down from its column pages (not read from the code),
for the export tests to hold the export against."""

from __future__ import annotations

import re
from typing import Any

# Cost and Usage columns FOCUS 1.2 makes mandatory.
MANDATORY_1_2 = {
    "BilledCost", "BillingAccountId", "BillingAccountName", "BillingCurrency",
    "BillingPeriodEnd", "BillingPeriodStart", "ChargeCategory", "ChargeClass",
    "ChargeDescription", "ChargePeriodEnd", "ChargePeriodStart", "ContractedCost",
    "EffectiveCost", "InvoiceIssuerName", "ListCost", "PricingQuantity", "PricingUnit",
    "ProviderName", "PublisherName", "ServiceCategory", "ServiceName",
}  # fmt: skip
# 1.3 adds ServiceProviderName and HostProviderName, and deprecates ProviderName and
# PublisherName while keeping them mandatory.
ONLY_1_3 = {"ServiceProviderName", "HostProviderName"}
MANDATORY_1_3 = MANDATORY_1_2 | ONLY_1_3
ISO_Z = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
NUMERIC = re.compile(r"^-?\d+(\.\d+)?$")  # no exponent, no thousands separator


def is_amortized(row: dict[str, Any]) -> bool:
    """An export row of a purchase's cost spread over a day it covers (no bill line of its own)."""
    return row["ChargeCategory"] == "Usage" and row["ChargeFrequency"] == "Recurring"
