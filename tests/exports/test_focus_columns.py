"""The FOCUS export against the specification's column rules, version by version.

The FinOps Foundation's ``focus-validator`` on PyPI checks FOCUS 1.0 and 0.5 only, so this test
states the 1.2 and 1.3 rules the export must keep (from the specification's column pages, not
read from the code): the mandatory columns of each version, the allowed values, the nullability
rules, the cost identities and the numeric formats. The bills are shaped as Tencent documents
them (``tests/exports/tencent_bills.py``).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from rest_framework.test import APIClient

from apps.accounts.models import Organization
from tests.exports.conftest import streamed_text
from tests.exports.focus_spec import (
    ISO_Z,
    MANDATORY_1_2,
    MANDATORY_1_3,
    NUMERIC,
    ONLY_1_3,
    is_amortized,
)
from tests.exports.tencent_bills import OWNER, PAYER, store_documented_bills

pytestmark = pytest.mark.django_db

ALLOWED = {
    "ChargeCategory": {"Usage", "Purchase", "Tax", "Credit", "Adjustment"},
    "ChargeClass": {"", "Correction"},
    "ChargeFrequency": {"One-Time", "Recurring", "Usage-Based"},
    "PricingCategory": {"", "Standard", "Dynamic", "Committed", "Other"},
    "CommitmentDiscountCategory": {"", "Spend", "Usage"},
    "CommitmentDiscountStatus": {"", "Used", "Unused"},
}
DECIMALS = {
    "BilledCost", "EffectiveCost", "ListCost", "ContractedCost", "ListUnitPrice",
    "ContractedUnitPrice", "PricingQuantity", "ConsumedQuantity",
}  # fmt: skip
CUSTOM = re.compile(r"^x_[A-Z][A-Za-z0-9]*$")
# Beijing months October and November 2026, in UTC.
WINDOW = {"start": "2026-09-30T16:00:00Z", "end": "2026-11-30T16:00:00Z"}
CENT = Decimal("0.01")
# Unit prices and quantities have 8 decimals: their product is the cost to far under a fen.
PRODUCT_TOLERANCE = Decimal("0.0001")
Export = Callable[..., list[dict[str, str]]]


@pytest.fixture
def documented(acme: Organization) -> list[Any]:
    _account, lines = store_documented_bills(acme)
    return lines


@pytest.fixture
def export(alice_client: APIClient, documented: list[Any]) -> Export:
    def run(**query: str) -> list[dict[str, str]]:
        response = alice_client.get("/api/v1/exports/focus.csv", {**WINDOW, **query})
        assert response.status_code == 200, response.content
        return list(csv.DictReader(io.StringIO(streamed_text(response))))

    return run


def dec(value: str) -> Decimal:
    return Decimal(value)


def own_rows(rows: list[dict[str, str]], bill_id: str) -> list[dict[str, str]]:
    """A bill line's own rows (BilledCost as invoiced), not its amortized ones."""
    return [r for r in rows if r["x_BillLineId"] == bill_id and not is_amortized(r)]


@pytest.mark.parametrize("version", ["1.2", "1.3"])
def test_it_writes_each_versions_mandatory_columns_and_custom_ones_named_x(
    export: Export, version: str
) -> None:
    rows = export(version=version)
    header = set(rows[0])
    mandatory = MANDATORY_1_3 if version == "1.3" else MANDATORY_1_2
    assert header >= mandatory
    assert not (header & ONLY_1_3) if version == "1.2" else header >= ONLY_1_3
    assert header >= {"CommitmentDiscountId", "CommitmentDiscountCategory",
                      "CommitmentDiscountType", "CommitmentDiscountStatus",
                      "CommitmentDiscountName", "ListUnitPrice", "ContractedUnitPrice",
                      "SubAccountId", "SkuPriceId"}  # fmt: skip
    custom = {name for name in header if name.startswith("x_")}
    assert custom >= {"x_Project", "x_Team", "x_GpuHours", "x_GpuUtilAvgPct", "x_IdleCost"}
    assert all(CUSTOM.match(name) for name in custom)


def test_it_defaults_to_1_3_and_refuses_another_version(
    export: Export, alice_client: APIClient
) -> None:
    assert set(export()[0]) >= ONLY_1_3
    for path in ("/api/v1/exports/focus.csv", "/api/v1/exports/focus"):
        response = alice_client.get(path, {**WINDOW, "version": "1.4"})
        assert response.status_code == 400
        assert set(response.json()["error"]["fields"]) == {"version"}
    # costs.csv has no FOCUS version.
    costs = alice_client.get("/api/v1/exports/costs.csv", {**WINDOW, "version": "1.3"})
    assert costs.status_code == 400


@pytest.mark.parametrize("version", ["1.2", "1.3"])
def test_every_row_keeps_the_allowed_values_nullability_and_formats(
    export: Export, version: str
) -> None:
    rows = export(version=version)
    assert len(rows) > 40
    for row in rows:
        for column, allowed in ALLOWED.items():
            assert row[column] in allowed, (column, row)
        for column in DECIMALS:
            assert row[column] == "" or NUMERIC.match(row[column]), (column, row[column])
        for column in ("ChargePeriodStart", "ChargePeriodEnd", "BillingPeriodStart"):
            assert ISO_Z.match(row[column])
        for column in MANDATORY_1_2 - {"BillingAccountName", "ChargeClass", "ChargeDescription",
                                       "PricingQuantity", "PricingUnit"}:  # fmt: skip
            assert row[column] != "", (column, row)
        if version == "1.3":
            assert row["ServiceProviderName"] == "Tencent Cloud"
        assert row["ChargePeriodStart"] < row["ChargePeriodEnd"]
        assert row["BillingAccountId"] == PAYER  # the Tencent account, not GPU Ledger's id
        assert row["SubAccountId"] == OWNER
        category = row["ChargeCategory"]
        correction = row["ChargeClass"] == "Correction"
        priced = category in {"Usage", "Purchase"} and not correction
        # Pricing columns: present for usage and purchases, null for credits and adjustments.
        for column in ("PricingCategory", "PricingQuantity", "PricingUnit", "ListUnitPrice",
                       "ContractedUnitPrice", "SkuId", "SkuPriceId"):  # fmt: skip
            if priced:
                assert row[column] != "", (column, row)
            elif category in {"Credit", "Adjustment"}:
                assert row[column] == "", (column, row)
        assert (row["PricingUnit"] == "") == (row["PricingQuantity"] == "")
        if category != "Usage" or row["CommitmentDiscountStatus"] == "Unused":
            assert row["ConsumedQuantity"] == row["ConsumedUnit"] == ""
        if category == "Purchase":
            assert row["ChargeFrequency"] != "Usage-Based"
            # Paying for a period ahead: 0, amortized on its days; booked at an instant (the
            # refund): where billed.
            instant = row["x_BillLineId"] == "b-pre-refund"
            assert dec(row["EffectiveCost"]) == (dec(row["BilledCost"]) if instant else 0)
        if category in {"Credit", "Adjustment"}:
            assert dec(row["ListCost"]) == dec(row["ContractedCost"]) == dec(row["BilledCost"])
            assert dec(row["EffectiveCost"]) == dec(row["BilledCost"])
        for price, cost in (
            ("ListUnitPrice", "ListCost"),
            ("ContractedUnitPrice", "ContractedCost"),
        ):
            if row[price] and row["PricingQuantity"]:
                assert dec(row[price]) >= 0
                product = dec(row[price]) * dec(row["PricingQuantity"])
                assert abs(product - dec(row[cost])) <= PRODUCT_TOLERANCE, (price, row)
        # A commitment discount's columns are all null or all set (Name may repeat the id).
        commitment = [row[c] for c in ("CommitmentDiscountId", "CommitmentDiscountCategory",
                                       "CommitmentDiscountType", "CommitmentDiscountName")]  # fmt: skip
        assert all(commitment) or not any(commitment)
        if row["CommitmentDiscountId"] and category == "Usage":
            assert row["CommitmentDiscountStatus"]
        if not row["CommitmentDiscountId"]:
            assert row["CommitmentDiscountStatus"] == ""
            assert row["PricingCategory"] != "Committed"


def test_it_categorizes_each_documented_line(export: Export) -> None:
    rows = export()

    def categories(bill_id: str) -> set[tuple[str, str, str]]:
        return {
            (r["ChargeCategory"], r["ChargeClass"], r["PricingCategory"])
            for r in own_rows(rows, bill_id)
        }

    assert categories("b-payg-10") == {("Usage", "", "Standard")}
    assert len(own_rows(rows, "b-payg-10")) == 5  # compute, GPU, two disks, bandwidth
    assert categories("b-spot-10") == {("Usage", "", "Dynamic")}
    assert categories("b-pre-renew") == {("Purchase", "", "Standard")}
    assert {r["ChargeFrequency"] for r in own_rows(rows, "b-pre-renew")} == {"Recurring"}
    assert categories("b-ri") == {("Purchase", "", "Standard")}
    assert categories("b-credit") == {("Credit", "", "")}
    # Refunded in November, bought in September: a correction of an earlier bill month.
    assert categories("b-pre-refund") == {("Purchase", "Correction", "")}
    (refund,) = own_rows(rows, "b-pre-refund")
    assert dec(refund["BilledCost"]) == Decimal("-950.40") == dec(refund["ListCost"])
    assert (dec(refund["ListUnitPrice"]), dec(refund["PricingQuantity"])) == (Decimal("950.4"), -1)
    # The RI-paid hour: runtime components Committed to the RI, the disks and network not.
    covered = own_rows(rows, "b-ri-10")
    committed = [r for r in covered if r["PricingCategory"] == "Committed"]
    assert {r["SkuMeter"] for r in committed} == {"运算组件", "GPU组件"}
    for row in committed:
        assert (row["CommitmentDiscountId"], row["CommitmentDiscountStatus"]) == ("ri-001", "Used")
        assert row["CommitmentDiscountCategory"] == "Usage"
        assert row["CommitmentDiscountType"] == "Reserved Instance"
        assert dec(row["BilledCost"]) == 0 < dec(row["ContractedCost"]) < dec(row["ListCost"])
    # The hour carries the RI's amortized hour: 70,080 over the 8,760 hours of its year, split
    # between the components by what they would have cost without it (1.32 and 10.08).
    shares = {r["SkuMeter"]: dec(r["EffectiveCost"]) for r in committed}
    assert sum(shares.values()) == Decimal(8)
    assert shares["GPU组件"] == (Decimal(8) * Decimal("10.08") / Decimal("11.40")).quantize(
        Decimal("1e-8")
    )
    assert all(
        dec(r["EffectiveCost"]) == dec(r["BilledCost"]) for r in covered if r not in committed
    )
    (ri,) = own_rows(rows, "b-ri")
    assert (ri["CommitmentDiscountId"], ri["CommitmentDiscountStatus"]) == ("ri-001", "")
    assert ri["ResourceType"] == "Reserved Instance"
    assert all(r["CommitmentDiscountId"] == "" for r in own_rows(rows, "b-payg-10"))


def test_billed_cost_sums_to_the_bill_to_the_cent(export: Export, documented: list[Any]) -> None:
    rows = export()
    start = dt.datetime(2026, 9, 30, 16, tzinfo=dt.UTC)
    end = dt.datetime(2026, 11, 30, 16, tzinfo=dt.UTC)
    billed = sum((dec(r["BilledCost"]) for r in rows), Decimal(0))
    expected = sum(
        (line.cost for line in documented if start <= line.fee_begin_at < end), Decimal(0)
    )
    assert billed.quantize(CENT) == expected.quantize(CENT)
    assert billed == expected  # and to the last decimal
    assert all(dec(r["BilledCost"]) == 0 for r in rows if is_amortized(r))


def test_effective_cost_spreads_each_purchase_over_the_days_it_covers(export: Export) -> None:
    rows = export()
    renewal = [r for r in rows if r["x_BillLineId"] == "b-pre-renew"]
    for meter in ("运算组件", "系统盘"):
        (bought,) = [r for r in renewal if not is_amortized(r) and r["SkuMeter"] == meter]
        days = [r for r in renewal if is_amortized(r) and r["SkuMeter"] == meter]
        # 5 Oct to 4 Nov inclusive, Beijing days: 31 rows, inside the purchase's period.
        assert len(days) == 31
        assert sum((dec(r["EffectiveCost"]) for r in days), Decimal(0)) == dec(bought["BilledCost"])
        assert sum((dec(r["ListCost"]) for r in days), Decimal(0)) == dec(bought["ListCost"])
        assert all(r["ChargePeriodStart"] >= bought["ChargePeriodStart"] for r in days)
        assert all(r["ChargePeriodEnd"] <= bought["ChargePeriodEnd"] for r in days)
        starts = [dt.datetime.fromisoformat(r["ChargePeriodStart"]) for r in days]
        assert all(s.astimezone(dt.timezone(dt.timedelta(hours=8))).hour == 0 for s in starts)
        # Evenly: every full day the same, to a unit of the 8th decimal.
        amounts = {dec(r["EffectiveCost"]) for r in days}
        assert max(amounts) - min(amounts) <= Decimal("0.00000001")
        # A day's row belongs to the bill month of its day.
        november = [r for r in days if r["ChargePeriodStart"] >= "2026-10-31T16:00:00Z"]
        assert len(november) == 4
        assert {r["BillingPeriodStart"] for r in november} == {"2026-10-31T16:00:00Z"}


def test_effective_cost_of_a_year_long_ri_sums_to_its_purchase_however_exported(
    alice_client: APIClient, documented: list[Any]
) -> None:
    def ri_days(start: str, end: str) -> list[dict[str, str]]:
        response = alice_client.get("/api/v1/exports/focus.csv", {"start": start, "end": end})
        assert response.status_code == 200
        rows = csv.DictReader(io.StringIO(streamed_text(response)))
        return [r for r in rows if r["x_BillLineId"] == "b-ri" and is_amortized(r)]

    def ri_usage(start: str, end: str) -> list[dict[str, str]]:
        response = alice_client.get("/api/v1/exports/focus.csv", {"start": start, "end": end})
        rows = csv.DictReader(io.StringIO(streamed_text(response)))
        return [r for r in rows if r["CommitmentDiscountStatus"] == "Used"]

    purchase = next(line for line in documented if line.bill_id == "b-ri")
    year = ri_days("2026-09-30T16:00:00Z", "2027-09-30T16:00:00Z")
    # Every day has unused capacity (one hour of the year is used).
    assert len(year) == 365
    assert all(r["PricingCategory"] == "Committed" for r in year)
    assert {(r["CommitmentDiscountId"], r["CommitmentDiscountStatus"]) for r in year} == {
        ("ri-001", "Unused")
    }
    (tenth,) = [r for r in year if r["ChargePeriodStart"] == "2026-10-09T16:00:00Z"]
    assert dec(tenth["EffectiveCost"]) == 24 * 8 - 8
    # FOCUS: for one commitment, the EffectiveCost of its usage (the hours it paid for and its
    # unused capacity) is what its purchase billed.
    used = sum(
        (dec(r["EffectiveCost"]) for r in ri_usage("2026-09-30T16:00:00Z", "2027-09-30T16:00:00Z")),
        Decimal(0),
    )
    assert used == 8
    assert sum((dec(r["EffectiveCost"]) for r in year), Decimal(0)) + used == purchase.cost
    # Exported in two parts cut inside a day: the same rows (a day is in the part holding its
    # start, as a bill line is), the same money to the last decimal.
    first = ri_days("2026-09-30T16:00:00Z", "2027-03-15T05:30:00Z")
    second = ri_days("2027-03-15T05:30:00Z", "2027-09-30T16:00:00Z")
    assert [r["ChargePeriodStart"] for r in first + second] == [
        r["ChargePeriodStart"] for r in year
    ]
    total = sum((dec(r["EffectiveCost"]) for r in first + second), Decimal(0))
    assert total + used == purchase.cost


def test_the_json_pages_hold_the_same_rows_across_a_purchases_days(
    export: Export, alice_client: APIClient
) -> None:
    rows = export()
    seen: list[dict[str, Any]] = []
    url: str | None = "/api/v1/exports/focus"
    query: dict[str, Any] = {**WINDOW, "page_size": 7}
    while url:
        response = alice_client.get(url, query)
        assert response.status_code == 200, response.content
        body = response.json()
        seen += body["results"]
        url, query = body["next"], {}
    assert len(seen) == len(rows)
    key = ("x_BillLineId", "SkuId", "ChargePeriodStart", "EffectiveCost")
    assert [tuple(r[k] or "" for k in key) for r in seen] == [
        tuple(r[k] for k in key) for r in rows
    ]
