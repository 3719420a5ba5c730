"""The FOCUS export (1.3, 1.2 on request): reconciliation to the bills, every column typed as
the spec says, purchases amortized, the JSON pages the same rows as the CSV."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import numpy as np
import pytest
from rest_framework.test import APIClient

from apps.accounts.models import ApiKey, Organization
from apps.analysis.engine import Phase
from apps.analysis.models import PHASE_DAY_SHAPE, PhaseDay, phase_day_encode
from apps.billing.models import BillLine
from apps.billing.selectors import cost_total
from apps.cloud.models import ChargeType, Instance
from apps.cloud.providers.tencent.simulator import SimulatedCloud
from apps.cloud.providers.tencent.simulator.constants import ACCOUNT_UIN
from apps.exports.focus_columns import (
    CONDITIONAL,
    DATETIME,
    DECIMAL,
    JSON,
    MANDATORY,
    columns_of,
    mandatory_columns,
)
from apps.metrics.models import InstanceHourRollup
from tests.exports.conftest import streamed_text, sync_fleet_bills
from tests.exports.focus_spec import ISO_Z, MANDATORY_1_2, MANDATORY_1_3, is_amortized
from tests.exports.focus_spec import NUMERIC as DECIMAL_TEXT

pytestmark = pytest.mark.django_db

# Tencent bill months are Beijing months: October is [Sep 30 16:00Z, Oct 31 16:00Z).
OCTOBER = {"start": "2026-10-01", "end": "2026-11-01"}


def focus_csv(client: APIClient, **query: str) -> list[dict[str, str]]:
    response = client.get("/api/v1/exports/focus.csv", query)
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/csv")
    text = streamed_text(response)
    return list(csv.DictReader(io.StringIO(text)))


@pytest.fixture
def synced(acme: Organization, cloud: SimulatedCloud):
    return sync_fleet_bills(acme, cloud)


def test_it_streams_the_csv_in_pieces(synced, alice_client: APIClient) -> None:
    response: Any = alice_client.get("/api/v1/exports/focus.csv", OCTOBER)
    assert response.streaming
    pieces = list(response.streaming_content)
    assert len(pieces) > 10
    assert max(len(piece) for piece in pieces) < 2 * 65536
    assert response["Content-Disposition"] == (
        'attachment; filename="acme-focus-20261001-20261101.csv"'
    )


def test_it_totals_billed_cost_of_a_month_to_the_bills_real_cost_exactly(
    synced, alice_client: APIClient, acme: Organization
) -> None:
    _account, bills = synced
    rows = focus_csv(alice_client, **OCTOBER)
    # Acme's timezone is Asia/Shanghai: its October is the bills' Beijing October.
    start = dt.datetime(2026, 9, 30, 16, tzinfo=dt.UTC)
    end = dt.datetime(2026, 10, 31, 16, tzinfo=dt.UTC)
    in_db = cost_total(BillLine.objects.filter(fee_begin_at__gte=start, fee_begin_at__lt=end))
    billed = sum((Decimal(row["BilledCost"]) for row in rows), Decimal(0))
    assert billed == in_db == bills.expected_total(start, end)
    assert billed == cost_total(BillLine.objects.filter(month="2026-10"))
    own = [row for row in rows if not is_amortized(row)]
    # Each line once, and the subscriptions bought in September again for their October days.
    assert len(own) == BillLine.objects.filter(month="2026-10").count() > 1000
    assert all(Decimal(row["BilledCost"]) == 0 for row in rows if is_amortized(row))
    # Every kind of line is in: hourly, spot, subscriptions and the month's adjustments.
    assert {row["ChargeCategory"] for row in rows} == {"Usage", "Purchase", "Adjustment"}
    assert {row["PricingCategory"] for row in rows} == {"Standard", "Dynamic", ""}


@pytest.mark.parametrize(("version", "mandatory"), [("1.2", MANDATORY_1_2), ("1.3", MANDATORY_1_3)])
def test_it_writes_every_mandatory_column_typed_as_the_version_says(
    synced, alice_client: APIClient, version: str, mandatory: set[str]
) -> None:
    rows = focus_csv(alice_client, **OCTOBER, version=version)
    columns = columns_of(version)
    assert set(mandatory_columns(version)) == mandatory
    assert list(rows[0]) == [column.name for column in columns]
    assert set(rows[0]) >= mandatory | {
        "ResourceId", "ResourceName", "ResourceType", "RegionId", "RegionName",
        "PricingCategory", "Tags", "ConsumedQuantity", "ConsumedUnit", "SubAccountId",
        "x_GpuHours", "x_GpuUtilAvgPct", "x_IdleCost",
    }  # fmt: skip
    for row in rows:
        for column in columns:
            value = row[column.name]
            if value == "":
                assert column.nullable, f"{column.name} is empty in {row}"
                continue
            if column.data_type == DECIMAL:
                assert DECIMAL_TEXT.match(value), (column.name, value)
            elif column.data_type == DATETIME:
                assert ISO_Z.match(value), (column.name, value)
            elif column.data_type == JSON:
                tags = json.loads(value)
                assert isinstance(tags, dict)
                assert all(isinstance(k, str) and isinstance(v, str) for k, v in tags.items())
            if column.allowed_values:
                assert value in column.allowed_values, (column.name, value)
        assert row["BillingCurrency"] == "CNY"
        assert row["ProviderName"] == row["PublisherName"] == row["InvoiceIssuerName"]
        assert row["BillingAccountId"] == row["SubAccountId"] == ACCOUNT_UIN
        assert row["ChargePeriodStart"] < row["ChargePeriodEnd"]
        assert row["BillingPeriodStart"] <= row["ChargePeriodStart"] < row["BillingPeriodEnd"]
        if row["ChargeCategory"] == "Usage":
            assert row["PricingCategory"]
            assert row["ConsumedQuantity"]
            assert row["PricingQuantity"]
    assert {c.feature_level for c in columns if c.name in mandatory} == {MANDATORY}
    assert {c.feature_level for c in columns if c.name == "ResourceId"} == {CONDITIONAL}


def test_it_prices_spot_as_dynamic_and_buys_subscriptions_as_amortized_purchases(
    synced, alice_client: APIClient
) -> None:
    rows = focus_csv(alice_client, **OCTOBER)
    kinds = dict(Instance.objects.values_list("provider_id", "charge_type"))
    regions = dict(Instance.objects.values_list("provider_id", "region"))
    expected: dict[str, str] = {
        ChargeType.POSTPAID_BY_HOUR: "Standard",
        ChargeType.SPOTPAID: "Dynamic",
        # A subscription is no commitment discount (FOCUS's Committed names one): its days
        # are Standard usage of what was bought.
        ChargeType.PREPAID: "Standard",
    }
    usage = [row for row in rows if row["ChargeCategory"] == "Usage"]
    assert {kinds[row["ResourceId"]] for row in usage} == set(expected)
    for row in usage:
        assert row["PricingCategory"] == expected[kinds[row["ResourceId"]]]
        assert row["RegionId"] == regions[row["ResourceId"]]
        assert row["ResourceType"] == "Virtual Machine"
    hourly = next(
        r for r in usage if r["PricingCategory"] == "Standard" and "运算" in r["ChargeDescription"]
    )
    assert (hourly["PricingUnit"], Decimal(hourly["PricingQuantity"])) == ("Hours", 1)
    assert hourly["ChargeFrequency"] == "Usage-Based"
    assert Decimal(hourly["EffectiveCost"]) == Decimal(hourly["BilledCost"]) > 0
    start = dt.datetime.fromisoformat(hourly["ChargePeriodStart"])
    assert dt.datetime.fromisoformat(hourly["ChargePeriodEnd"]) - start == dt.timedelta(hours=1)
    purchases = [r for r in rows if r["ChargeCategory"] == "Purchase"]
    assert purchases
    assert {kinds[r["ResourceId"]] for r in purchases} == {ChargeType.PREPAID}
    for purchase in purchases:
        assert purchase["PricingCategory"] == "Standard"
        assert purchase["ChargeFrequency"] in {"One-Time", "Recurring"}
        assert purchase["PricingUnit"].endswith("Months")
        assert Decimal(purchase["EffectiveCost"]) == 0 < Decimal(purchase["BilledCost"])
        days = [
            r
            for r in rows
            if is_amortized(r)
            and r["x_BillLineId"] == purchase["x_BillLineId"]
            and r["SkuId"] == purchase["SkuId"]
        ]
        assert days
        assert all(r["PricingUnit"] == purchase["PricingUnit"] for r in days)
        assert all(
            purchase["ChargePeriodStart"]
            <= r["ChargePeriodStart"]
            < r["ChargePeriodEnd"]
            <= purchase["ChargePeriodEnd"]
            for r in days
        )


def test_it_gives_gpu_hours_utilization_and_idle_cost_recomputable_by_hand(
    synced, alice_client: APIClient, acme: Organization
) -> None:
    instance = Instance.objects.filter(charge_type=ChargeType.POSTPAID_BY_HOUR).first()
    assert instance is not None
    line = (
        BillLine.objects.filter(instance=instance, component_name="运算组件", month="2026-10")
        .order_by("fee_begin_at")
        .last()
    )
    assert line is not None
    hour = line.fee_begin_at
    # The evidence: the hour's rollup (util 37.5 % over 48 minutes) and its phases (15 idle).
    InstanceHourRollup.objects.create(
        organization=acme, instance=instance, hour_start=hour, gpu_count=instance.gpu_count,
        gpu_util_pct_avg=37.5, gpu_util_pct_minutes=48,
    )  # fmt: skip
    minutes = np.zeros(PHASE_DAY_SHAPE, dtype=np.int64)
    minutes[hour.hour, Phase.IDLE] = 15
    minutes[hour.hour, Phase.TRAINING] = 45
    PhaseDay.objects.create(
        organization=acme, instance=instance, day=hour.date(), minutes=phase_day_encode(minutes)
    )
    rows = focus_csv(
        alice_client, start=hour.isoformat(), end=(hour + dt.timedelta(hours=1)).isoformat()
    )
    (compute,) = [
        r
        for r in rows
        if r["ResourceId"] == instance.provider_id and "运算" in r["ChargeDescription"]
    ]
    assert Decimal(compute["BilledCost"]) == line.cost
    # The hour's GPU-hours once, on its GPU component if it has one, else on its compute.
    mine = [r for r in rows if r["ResourceId"] == instance.provider_id and r["x_GpuHours"]]
    assert sum(Decimal(r["x_GpuHours"]) for r in mine) == Decimal(instance.gpu_count) * 1
    assert len(mine) == 1
    assert Decimal(compute["x_GpuUtilAvgPct"]) == Decimal("37.50")
    assert Decimal(compute["x_IdleCost"]) == (line.cost * 15 / 60).quantize(Decimal("1e-8"))
    # Another instance's line of the same hour has no evidence: no figures, not zeros.
    others = [
        r
        for r in rows
        if r["ResourceId"] != instance.provider_id and "运算" in r["ChargeDescription"]
    ]
    assert others
    assert all(r["x_GpuUtilAvgPct"] == "" and r["x_IdleCost"] == "" for r in others)


def test_it_pages_the_same_rows_as_json_with_a_cursor(synced, alice_client: APIClient) -> None:
    rows = focus_csv(alice_client, **OCTOBER)
    seen: list[dict[str, Any]] = []
    url: str | None = "/api/v1/exports/focus"
    query: dict[str, Any] = {**OCTOBER, "page_size": 400}
    pages = 0
    while url:
        response = alice_client.get(url, query)
        assert response.status_code == 200, response.content
        body = response.json()
        seen += body["results"]
        url, query = body["next"], {}
        pages += 1
    assert pages == -(-len(rows) // 400)
    assert len(seen) == len(rows)
    assert [r["BilledCost"] for r in seen] == [r["BilledCost"] for r in rows]
    assert seen[0]["Tags"] == json.loads(rows[0]["Tags"])
    assert seen[0]["ChargePeriodStart"] == rows[0]["ChargePeriodStart"]


def test_it_exports_only_the_own_organizations_lines(
    synced, cloud: SimulatedCloud, globex: Organization, bob_client: APIClient,
    key_client: Callable[..., tuple[APIClient, ApiKey]], acme: Organization,
) -> None:  # fmt: skip
    globex_account, _ = sync_fleet_bills(
        globex,
        SimulatedCloud(seed=2, now=cloud.now, anchor=dt.datetime(2026, 11, 5, tzinfo=dt.UTC)),
    )
    globex_ids = set(
        Instance.objects.filter(organization=globex).values_list("provider_id", flat=True)
    )
    acme_ids = set(Instance.objects.filter(organization=acme).values_list("provider_id", flat=True))
    assert globex_ids
    assert acme_ids
    assert not globex_ids & acme_ids
    client, _ = key_client(acme)
    for rows in (focus_csv(client, **OCTOBER), focus_csv(bob_client, **OCTOBER)):
        assert rows
    assert {r["ResourceId"] for r in focus_csv(client, **OCTOBER)} <= acme_ids
    bob_rows = focus_csv(bob_client, **OCTOBER)
    assert {r["ResourceId"] for r in bob_rows} <= globex_ids
    # The Tencent account (the payer's UIN), not GPU Ledger's id of it.
    assert {r["BillingAccountId"] for r in bob_rows} == {ACCOUNT_UIN} != {str(globex_account.pk)}
    costs = client.get("/api/v1/exports/costs.csv", OCTOBER)
    ids = {r["instance_id"] for r in csv.DictReader(io.StringIO(streamed_text(costs)))}
    assert ids
    assert ids <= acme_ids


@pytest.mark.parametrize(
    ("query", "parameter"),
    [
        ({"start": "2026-13-01"}, "start"),
        ({"start": "yesterday"}, "start"),
        ({"start": "2026-10-01", "end": "2026-09-01"}, "end"),
        ({"start": "2025-01-01", "end": "2026-11-01"}, "start"),
        ({"strat": "2026-10-01"}, "strat"),
        ({"start": "0001-01-01"}, "start"),
    ],
)
@pytest.mark.parametrize(
    "path", ["/api/v1/exports/focus.csv", "/api/v1/exports/costs.csv", "/api/v1/exports/focus"]
)
def test_it_answers_bad_input_with_400_naming_the_parameter(
    alice_client: APIClient, path: str, query: dict[str, str], parameter: str
) -> None:
    response = alice_client.get(path, query)
    assert response.status_code == 400
    assert parameter in response.json()["error"]["fields"]


@pytest.mark.parametrize(
    ("query", "parameter"), [({"cursor": "nope"}, "cursor"), ({"page_size": "0"}, "page_size")]
)
def test_it_refuses_a_bad_cursor_or_page_size(
    alice_client: APIClient, query: dict[str, str], parameter: str
) -> None:
    response = alice_client.get("/api/v1/exports/focus", query)
    assert response.status_code == 400
    assert parameter in response.json()["error"]["fields"]


@pytest.mark.parametrize("path", ["/api/v1/exports/focus.csv", "/api/v1/exports/costs.csv"])
def test_it_takes_drfs_format_parameter_but_not_an_empty_one(
    alice_client: APIClient, path: str
) -> None:
    # The schema documents ``?format=csv|json`` (DRF's renderer choice): it is no unknown field.
    chosen = alice_client.get(path, {"start": "2026-10-01", "end": "2026-10-02", "format": "csv"})
    assert chosen.status_code == 200
    assert chosen["Content-Type"].startswith("text/csv")
    empty = alice_client.get(path, {"format": ""})
    assert empty.status_code == 400
    assert set(empty.json()["error"]["fields"]) == {"format"}


def test_it_needs_a_signed_in_member_or_an_api_key(client: Any) -> None:
    assert APIClient().get("/api/v1/exports/focus.csv").status_code == 401


@pytest.mark.parametrize("page_size", [20, 2000])
def test_it_reads_a_page_in_a_pinned_number_of_queries(
    synced, alice_client: APIClient, page_size: int
) -> None:
    """Session, user and membership (3), the download's audit entry (1), the lines' cursor in a
    savepoint (3), hour rollups and phase days of the hourly lines (2) and of the subscriptions
    (2): 20 rows or 2,000 alike."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    alice_client.get("/api/v1/me")  # warm the session
    query = {**OCTOBER, "page_size": str(page_size)}
    with CaptureQueriesContext(connection) as captured:
        response = alice_client.get("/api/v1/exports/focus", query)
    assert response.status_code == 200
    results = response.json()["results"]
    hourly = any(r["ChargeFrequency"] == "Usage-Based" for r in results)
    monthly = any(r["ChargeCategory"] == "Purchase" or is_amortized(r) for r in results)
    # ... and which bills have a GPU component of their own (1).
    assert len(captured) == 8 + (2 if hourly else 0) + (2 if monthly else 0), [
        q["sql"][:80] for q in captured.captured_queries
    ]


def _json_schema(node: Any) -> Any:
    """An OpenAPI 3.0 schema as JSON Schema: ``nullable`` becomes a null type, refs resolved
    by the caller's registry."""
    if isinstance(node, dict):
        out = {key: _json_schema(value) for key, value in node.items() if key != "nullable"}
        if node.get("nullable"):
            if "type" in out:
                out["type"] = [out["type"], "null"]
            if "enum" in out and None not in out["enum"]:
                out["enum"] = [*out["enum"], None]
            if "allOf" in out or "oneOf" in out:
                out = {"anyOf": [out, {"type": "null"}]}
        return out
    if isinstance(node, list):
        return [_json_schema(item) for item in node]
    return node


def test_its_json_pages_conform_to_the_openapi_schema(synced, alice_client: APIClient) -> None:
    import jsonschema
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    operation = schema["paths"]["/api/v1/exports/focus"]["get"]
    page = operation["responses"]["200"]["content"]["application/json"]["schema"]
    document = _json_schema({**page, "components": schema["components"]})
    body = alice_client.get("/api/v1/exports/focus", {**OCTOBER, "page_size": "3000"}).json()
    assert len(body["results"]) == 3000
    jsonschema.validate(body, document)
    row_schema = schema["components"]["schemas"]["FocusRow"]
    # The columns of 1.3 only are absent from a 1.2 row: every other one is required.
    assert set(row_schema["properties"]) - set(row_schema["required"]) == {
        "ServiceProviderName", "HostProviderName"
    }  # fmt: skip
    assert set(row_schema["properties"]) >= MANDATORY_1_3
    enums = {name: item.get("enum") for name, item in schema["components"]["schemas"].items()}
    assert enums["PricingCategoryEnum"] == ["Standard", "Dynamic", "Committed", "Other"]
