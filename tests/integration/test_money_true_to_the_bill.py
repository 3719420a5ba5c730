"""Issue 18's acceptance, end to end: money true to the bill.

The built-in Tencent Cloud simulator (which bills like Tencent: a component per part, spot as
竞价实例小时结, prepaid purchases and renewals, a refunded duplicate renewal, a voucher, an SLA
credit, a reserved instance) is synced once for the module through the real sync code (SDK ->
simulator) into the test database. Every figure below is recomputed from the *raw* bill lines
(BillLine rows as synced, or the simulator's own DescribeBillDetail figures), never from the
product's rollups, and compared with what the product shows.

The clock stands late in November so that every one of the scenario's bill events (the RI bought
20 days before the anchor, the SLA outage and its credit, the duplicate renewal and its refund)
falls in the one bill month synced.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import pytest
from django.db.models import Sum
from rest_framework.test import APIClient

from apps.accounts.models import Organization, User
from apps.analysis import services as analysis_services
from apps.billing.models import BillLine
from apps.cloud.models import CloudAccount, Instance, SyncKind
from apps.cloud.providers.tencent.simulator import SimulatorServer
from apps.cloud.sync import runner
from apps.core.timegrid import floor_hour
from apps.costs.params import DIMENSIONS
from apps.metrics.constants import Metric
from apps.metrics.ingest import DATA_LAG, floor_minute
from apps.metrics.services import MetricSeries, metrics_write_bulk
from apps.recommendations.evidence import organization_evidence, organization_rule_settings
from apps.recommendations.rules.common import paid_price
from apps.recommendations.rules.thresholds import DEFAULT_RULE_THRESHOLDS
from apps.recommendations.services import recommendations_run
from tests.cloud.conftest import committed_simulated_organization, connect

pytestmark = [pytest.mark.integration, pytest.mark.stack]

NOW = dt.datetime(2026, 11, 24, 4, 30, 17, tzinfo=dt.UTC)
# From Nov 3: every scenario event of the fleet anchored on Nov 24 is in bill month 2026-11.
BACKFILL_DAYS = 21
MONTH = "2026-11"
CENT = Decimal("0.01")
# Tencent's documented runtime components of a CVM (those that stop with STOP_CHARGING).
RUNTIME_CODES = ("virtual_v_cvm_compute", "v_cvm_gpu")
SPOT_ACTION = "竞价实例小时结"
HOUR_SECONDS = 3600
SAVING_KINDS = ("stop_idle", "schedule", "subscription")


@dataclass
class Synced:
    organization: Organization
    user: User
    account: CloudAccount
    simulator: SimulatorServer


@pytest.fixture(scope="module")
def synced(django_db_setup: None, django_db_blocker: Any) -> Iterator[Synced]:
    """One organization synced from the simulator, committed, shared by the module's tests."""
    with (
        django_db_blocker.unblock(),
        committed_simulated_organization(email="ledger@acme.test", name="Acme", now=NOW) as (
            user,
            organization,
            simulator,
        ),
    ):
        account = connect(organization, simulator)
        runner.run_kind(account, SyncKind.INVENTORY, now=NOW)
        runner.run_kind(account, SyncKind.PRICES, now=NOW)
        runner.run_kind(account, SyncKind.BILLS, now=NOW, backfill_days=BACKFILL_DAYS)
        yield Synced(organization, user, account, simulator)


@pytest.fixture
def client(synced: Synced, db: None) -> APIClient:
    api = APIClient()
    api.force_login(synced.user)
    return api


def _lines(synced: Synced) -> Any:
    return BillLine.objects.filter(account=synced.account)


def _money(value: Any) -> Decimal:
    return Decimal(str(value)).quantize(CENT)


def _raw_total(lines: Any) -> Decimal:
    return lines.aggregate(total=Sum("cost"))["total"] or Decimal(0)


def _full_hour(line: BillLine) -> bool:
    return (line.fee_end_at - line.fee_begin_at).total_seconds() + 1 == HOUR_SECONDS


# --- 1. the runtime price ---------------------------------------------------------------------


def _raw_runtime_prices(lines: Any, start: dt.datetime, end: dt.datetime) -> dict[int, Decimal]:
    """Instance pk -> the sum of its runtime components' ContractPrice x UsedAmount in a full
    running hour, the same in every such hour of the window (else the test says so)."""
    per_hour: dict[tuple[int, dt.datetime], Decimal] = defaultdict(Decimal)
    for line in lines.filter(
        component_code__in=RUNTIME_CODES,
        fee_begin_at__gte=start,
        fee_begin_at__lt=end,
        instance__isnull=False,
        cost__gt=0,
    ):
        if not _full_hour(line) or line.contract_price is None:
            continue
        amount = line.used_amount if line.used_amount is not None else Decimal(1)
        per_hour[(line.instance_id, line.fee_begin_at)] += line.contract_price * amount
    prices: dict[int, set[Decimal]] = defaultdict(set)
    for (instance_id, _), price in per_hour.items():
        prices[instance_id].add(price.quantize(Decimal("0.0001")))
    for instance_id, found in prices.items():
        assert len(found) == 1, f"instance {instance_id} billed at several runtime prices {found}"
    return {instance_id: found.pop() for instance_id, found in prices.items()}


@pytest.mark.django_db
def test_the_runtime_price_of_every_hourly_instance_is_its_runtime_components(
    synced: Synced,
) -> None:
    thresholds, reserved = organization_rule_settings(synced.organization)
    evidence = organization_evidence(
        organization=synced.organization, as_of=NOW, thresholds=thresholds, reserved=reserved
    )
    hourly = [ev for ev in evidence if ev.charge_type != "PREPAID" and ev.billed_hours > 0]
    assert len(hourly) >= 10
    start, end = evidence[0].start, evidence[0].end
    raw = _raw_runtime_prices(_lines(synced), start, end)
    mismatches = []
    for ev in hourly:
        price = paid_price(ev, thresholds)
        assert price is not None, ev.name
        runtime, keeps = synced.simulator.cloud.expected_hourly_price(
            ev.provider_id, end - dt.timedelta(hours=1)
        )
        assert ev.instance_id in raw, ev.name
        # The bill's own figures agree with the simulator's (the recomputation is right) ...
        assert raw[ev.instance_id] == runtime.quantize(Decimal("0.0001")), ev.name
        # ... and the product's price must be them.
        figures = (price.hourly.quantize(Decimal("0.0001")), price.persistent_hourly.quantize(CENT))
        if figures != (raw[ev.instance_id], keeps.quantize(CENT)):
            mismatches.append((ev.name, figures, raw[ev.instance_id], keeps, price.text))
    assert not mismatches, "\n".join(map(str, mismatches))


# --- 2. spot under SPOTPAID -------------------------------------------------------------------


def _month_days() -> dict[str, str]:
    return {"start": "2026-11-01", "end": "2026-11-24"}


@pytest.mark.django_db
def test_spot_hours_are_under_spotpaid_for_the_raw_spot_lines_sum(
    synced: Synced, client: APIClient
) -> None:
    response = client.get(
        "/api/v1/costs", {**_month_days(), "group_by": "charge_type", "basis": "billed"}
    )
    assert response.status_code == 200, response.content
    body = response.json()
    by_type = {g["keys"][0]["value"]: _money(g["cost"]) for g in body["groups"]}
    spot = _lines(synced).filter(action_type_name=SPOT_ACTION)
    assert spot.exists()
    assert "spot" not in " ".join(set(spot.values_list("action_type", flat=True))).lower()
    assert by_type.get("SPOTPAID") == _money(_raw_total(spot)), by_type


# --- 3. FOCUS ---------------------------------------------------------------------------------


def _focus_rows(client: APIClient) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    url: str | None = "/api/v1/exports/focus"
    params: dict[str, Any] | None = {
        "start": "2026-11-01",
        "end": "2026-11-25",
        "page_size": 1000,
        "version": "1.3",
    }
    while url:
        response = client.get(url, params)
        assert response.status_code == 200, response.content
        body = response.json()
        rows += body["results"]
        url, params = body["next"], None
    return rows


@pytest.mark.django_db
def test_focus_categories_of_refunds_credits_and_purchases(
    synced: Synced, client: APIClient
) -> None:
    rows = [r for r in _focus_rows(client) if Decimal(str(r["BilledCost"])) != 0]
    payer = set(_lines(synced).values_list("payer_uin", flat=True))
    assert len(payer) == 1
    assert "" not in payer
    assert "1" not in payer
    assert {r["BillingAccountId"] for r in rows} == payer
    raw = _lines(synced)
    refunds = raw.filter(action_type_name__contains="退款")
    credits_ = raw.filter(action_type_name="调账")
    purchases = raw.filter(action_type_name__in=["包年包月新购", "包年包月续费"])
    assert refunds.exists()
    assert credits_.exists()
    assert purchases.exists()

    def rows_of(lines: Any) -> list[dict[str, Any]]:
        ids = {line.resource_id for line in lines}
        begins = {line.fee_begin_at for line in lines}
        return [
            r
            for r in rows
            if r["ResourceId"] in ids
            and dt.datetime.fromisoformat(r["ChargePeriodStart"].replace("Z", "+00:00")) in begins
        ]

    refund_rows = [r for r in rows_of(refunds) if Decimal(str(r["BilledCost"])) < 0]
    assert refund_rows
    # The refund is of a renewal of the same month: no correction of an earlier month here.
    assert {(r["ChargeCategory"], r["ChargeClass"]) for r in refund_rows} == {("Purchase", None)}
    assert sum(Decimal(str(r["BilledCost"])) for r in refund_rows) == _raw_total(refunds)
    credit_rows = [r for r in rows_of(credits_) if Decimal(str(r["BilledCost"])) < 0]
    assert credit_rows
    assert {r["ChargeCategory"] for r in credit_rows} == {"Credit"}
    assert sum(Decimal(str(r["BilledCost"])) for r in credit_rows) == _raw_total(credits_)
    purchase_rows = [r for r in rows_of(purchases) if Decimal(str(r["BilledCost"])) > 0]
    assert {r["ChargeCategory"] for r in purchase_rows} == {"Purchase"}
    assert sum(Decimal(str(r["BilledCost"])) for r in purchase_rows) == _raw_total(purchases)


# --- 4. billed and amortized totals -----------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("group_by", DIMENSIONS)
def test_billed_totals_equal_the_raw_bill_for_every_group_by(
    synced: Synced, client: APIClient, group_by: str
) -> None:
    # The whole synced month in Beijing days (the organization's timezone).
    response = client.get(
        "/api/v1/costs",
        {"start": "2026-11-01", "end": "2026-11-30", "group_by": group_by, "basis": "billed"},
    )
    assert response.status_code == 200, response.content
    body = response.json()
    raw = _raw_total(_lines(synced).filter(month=MONTH))
    assert _money(body["total"]) == _money(raw)
    # Each group to the unit the API states (8 places), so the groups add up to the bill.
    assert sum(Decimal(g["cost"]) for g in body["groups"]) == raw


@pytest.mark.django_db
def test_amortized_totals_over_the_period_a_purchase_covers_equal_the_purchase(
    synced: Synced, client: APIClient
) -> None:
    purchases = _lines(synced).filter(charge_category__in=["purchase", "refund"])
    covered = {(p.resource_id, p.fee_begin_at, p.fee_end_at) for p in purchases}
    assert len(covered) >= 5
    tz = dt.timezone(dt.timedelta(hours=8))  # Beijing, the organization's timezone
    for resource_id, begin, end in sorted(covered, key=lambda c: (c[1], c[0])):
        these = purchases.filter(resource_id=resource_id, fee_begin_at=begin, fee_end_at=end)
        instance = these.first().instance
        if instance is None:
            continue  # a reserved instance's purchase: checked by the total below
        others = BillLine.objects.filter(instance=instance).exclude(
            pk__in=these.values_list("pk", flat=True)
        )
        response = client.get(
            "/api/v1/costs",
            {
                "start": begin.astimezone(tz).date().isoformat(),
                "end": end.astimezone(tz).date().isoformat(),
                "granularity": "month",
                "instance": instance.provider_id,
                "basis": "amortized",
            },
        )
        assert response.status_code == 200, response.content
        # Over the days the purchase covers: the purchase plus the instance's other lines there.
        other = others.filter(fee_begin_at__gte=begin, fee_begin_at__lte=end)
        expected = _money(_raw_total(these) + _raw_total(other))
        assert _money(response.json()["total"]) == expected, (resource_id, begin)
    # Every purchase in the year after the month: the amortized total is the whole bill.
    response = client.get(
        "/api/v1/costs",
        {"start": "2026-11-01", "end": "2027-12-31", "granularity": "month", "basis": "amortized"},
    )
    assert response.status_code == 200, response.content
    assert _money(response.json()["total"]) == _money(_raw_total(_lines(synced)))


# --- 5. savings recomputed from the bill lines ------------------------------------------------

METRIC_DAYS = 15
# The hours a month the price is multiplied by, as the formula states them.
_HOURS_A_MONTH = re.compile(r"CNY/h x (\d+(?:\.\d+)?) h/month|= (\d+(?:\.\d+)?) h/month x")
_SUBSCRIPTION = re.compile(r"- (\d+(?:\.\d+)?) CNY/month monthly subscription")


def _store_metrics(synced: Synced) -> None:
    """The simulator's own series (the points GetMonitorData serves) straight into the store:
    15 days over the SDK take minutes (see tests/analysis/test_simulated_fleet.py)."""
    start = floor_minute(NOW - dt.timedelta(days=METRIC_DAYS))
    end = floor_minute(NOW - DATA_LAG) - dt.timedelta(minutes=1)
    series = []
    for instance in Instance.objects.filter(account=synced.account, gpu_count__gt=0):
        for name, metric in (
            ("GpuUtil", Metric.GPU_UTIL_PCT),
            ("GpuMemUsage", Metric.GPU_MEM_USED_PCT),
            ("CPUUsage", Metric.CPU_UTIL_PCT),
        ):
            points = synced.simulator.cloud.metric_series(instance.provider_id, name, start, end)
            series.append(MetricSeries(instance.pk, metric, points.timestamps, points.values))
    metrics_write_bulk(series=series)


def _rounding(formula: str) -> Decimal | None:
    """How far a saving may be from the raw price's: the formula states its hourly price to 4
    decimals and multiplies that (so a reader recomputes the saving from what is shown), so
    at most half a unit of the 4th decimal times the hours, plus the cent's rounding."""
    stated = _HOURS_A_MONTH.search(formula)
    if stated is None:
        return None
    return Decimal(stated.group(1) or stated.group(2)) * Decimal("0.00005") + Decimal("0.005")


@pytest.mark.django_db
def test_stop_idle_schedule_and_subscription_savings_are_the_bill_price_times_the_hours(
    synced: Synced, client: APIClient
) -> None:
    _store_metrics(synced)
    analysis_services.analysis_full_run(as_of=NOW)
    recommendations_run(organization=synced.organization, as_of=NOW)
    end = floor_hour(NOW)
    start = end - dt.timedelta(days=DEFAULT_RULE_THRESHOLDS.lookback_days)
    raw = _raw_runtime_prices(_lines(synced), start, end)
    response = client.get("/api/v1/recommendations", {"page_size": 100})
    assert response.status_code == 200, response.content
    body = response.json()
    found = [r for r in body.get("results", body) if r["kind"] in SAVING_KINDS]
    kinds = {r["kind"] for r in found}
    # The scenario produces all three on the simulated fleet.
    assert kinds == set(SAVING_KINDS), kinds
    mismatches: list[tuple[Any, ...]] = []
    for rec in found:
        instance = Instance.objects.get(pk=rec["instance"])
        formula = rec["saving"]["formula"]
        if instance.charge_type == "PREPAID":
            # A stopped subscription keeps billing: the saving is the renewal not bought, the
            # runtime components of the last month's purchase on the bill.
            purchases = _lines(synced).filter(instance=instance, charge_category="purchase")
            last = purchases.latest("fee_begin_at").fee_begin_at
            renewal = _raw_total(
                purchases.filter(fee_begin_at=last, component_code__in=RUNTIME_CODES)
            )
            # Stated as its hourly price (4 decimals) times the month's hours, like the rest.
            rounding = _rounding(formula)
            if (
                rounding is None
                or abs(_money(rec["saving"]["monthly_amount"]) - _money(renewal)) > rounding
            ):
                mismatches.append((rec["kind"], instance.name, rec["saving"], renewal))
            continue
        stated = _HOURS_A_MONTH.search(formula)
        if stated is None:
            mismatches.append((rec["kind"], instance.name, "no hours stated", formula))
            continue
        hours = Decimal(stated.group(1) or stated.group(2))
        price = raw[instance.pk]
        expected = price * hours
        if rec["kind"] == "subscription":
            expected -= Decimal(_SUBSCRIPTION.findall(formula)[0])
        rounding = _rounding(formula)
        assert rounding is not None
        if abs(_money(rec["saving"]["monthly_amount"]) - _money(expected)) > rounding:
            mismatches.append(
                (
                    rec["kind"],
                    instance.name,
                    rec["saving"]["monthly_amount"],
                    _money(expected),
                    formula,
                )
            )
    assert not mismatches, "\n".join(map(str, mismatches))
