"""Stop-idle, night-schedule and switch-to-monthly savings, recomputed from the raw bill lines.

Three pay-as-you-go GN7 instances billed the way Tencent documents it (compute, GPU, disks and
bandwidth per hourly line, ``tests.billing.tencent_bills``), synced by the product: one idle
around the clock, one idle every night and weekend, one busy all the time with a monthly
subscription on offer. The runtime price is recomputed here from the raw lines alone (the
runtime components' RealCost over the hours they bill), and every saving from it with the rules'
documented formulas; the recommendations the run stores must say the same, to the cent, and
show the components the price is made of.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import pytest

from apps.cloud.models import ChargeType, CloudAccount, Instance, InstancePrice, InstanceType
from apps.recommendations import services
from apps.recommendations.models import Recommendation
from tests.billing.tencent_bills import (
    Part,
    gn7_monthly_parts,
    gn7_parts,
    hour_lines,
    store,
    subscription_line,
)
from tests.recommendations.builders import working_hours_matrix
from tests.recommendations.factories import AS_OF, END, make_instance, set_profile, set_usage

pytestmark = pytest.mark.django_db

START = END - dt.timedelta(days=14)
HOURS = 14 * 24
MONTHLY_SUBSCRIPTION = Decimal("6500.00")
PARTS = gn7_parts()
CENT = Decimal("0.01")


def runtime_hourly(lines: Sequence[dict[str, Any]], parts: Sequence[Part]) -> Decimal:
    """The runtime components' RealCost over the hours they bill, from the raw lines."""
    runtime = {p.code for p in parts if p.runtime}
    cost, hours = Decimal(0), 0
    for line in lines:
        billed = [c for c in line["ComponentSet"] if c["ComponentCode"] in runtime]
        cost += sum((Decimal(c["RealCost"]) for c in billed), Decimal(0))
        hours += 1 if billed else 0
    return (cost / hours).quantize(Decimal("0.0001"), rounding=ROUND_HALF_UP)


def persistent_hourly(lines: Sequence[dict[str, Any]], parts: Sequence[Part]) -> dict[str, str]:
    kept = {p.code for p in parts if not p.runtime}
    cost: dict[str, Decimal] = dict.fromkeys(kept, Decimal(0))
    hours: dict[str, int] = dict.fromkeys(kept, 0)
    for line in lines:
        for c in line["ComponentSet"]:
            if c["ComponentCode"] in kept:
                cost[c["ComponentCode"]] += Decimal(c["RealCost"])
                hours[c["ComponentCode"]] += 1
    return {code: str((cost[code] / hours[code]).quantize(Decimal("0.0001"))) for code in kept}


def cents(amount: Decimal) -> Decimal:
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


@pytest.fixture
def fleet(acme) -> dict[str, tuple[Instance, list[dict]]]:
    idle = make_instance(acme, "idle")
    account = idle.account
    assert isinstance(account, CloudAccount)
    nightly = make_instance(acme, "nightly", account=account)
    steady = make_instance(acme, "steady", account=account)
    set_usage(idle, gpu_util_p95=1.0)
    for busy in (nightly, steady):
        set_usage(busy, gpu_util_p95=80.0)
    p95 = working_hours_matrix(busy=80.0, off=5.0)
    set_profile(nightly, p95, start=START)
    InstanceType.objects.get_or_create(
        instance_type="GN7.2XLARGE32",
        defaults={"family": "GN7", "gpu_count": 1, "gpu_model": "NVIDIA T4", "gpu_memory_gb": 16},
    )
    for charge_type, prices in (
        (ChargeType.POSTPAID_BY_HOUR, {"hourly": Decimal("15.12")}),
        (ChargeType.PREPAID, {"monthly": MONTHLY_SUBSCRIPTION}),
    ):
        InstancePrice.objects.create(
            account=account,
            region="ap-shanghai",
            zone="ap-shanghai-2",
            instance_type="GN7.2XLARGE32",
            charge_type=charge_type,
            **prices,
        )
    out = {
        name: (instance, hour_lines(instance, start=START, hours=HOURS, parts=PARTS))
        for name, instance in (("idle", idle), ("nightly", nightly), ("steady", steady))
    }
    store(account, [line for _i, lines in out.values() for line in lines])
    return out


def _row(instance: Instance, kind: str) -> Recommendation:
    return Recommendation.objects.get(instance=instance, kind=kind)


def test_the_savings_are_the_bills_runtime_price_times_the_hours(acme, fleet) -> None:
    services.recommendations_run(organization=acme, as_of=AS_OF)
    idle, idle_lines = fleet["idle"]
    nightly, nightly_lines = fleet["nightly"]
    steady, steady_lines = fleet["steady"]
    # Stop idle: 336 h billed in 14 days -> 720 h a month at the runtime price.
    hourly = runtime_hourly(idle_lines, PARTS)
    assert hourly == Decimal("15.12")
    assert _row(idle, "stop_idle").monthly_saving == cents(hourly * 720)
    # Night schedule: 118 h a week outside Monday-Friday 09-19, running, x 30/7 weeks.
    hourly = runtime_hourly(nightly_lines, PARTS)
    window_hours = (Decimal(118) * 30 / 7).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)
    assert _row(nightly, "schedule").monthly_saving == cents(hourly * window_hours)
    # Switch to monthly: 720 h a month at the runtime price, less the subscription.
    hourly = runtime_hourly(steady_lines, PARTS)
    row = _row(steady, "subscription")
    assert row.monthly_saving == cents(hourly * 720) - MONTHLY_SUBSCRIPTION
    assert row.evidence["break_even_uptime_pct"] == str(
        (100 * MONTHLY_SUBSCRIPTION / (hourly * 720)).quantize(Decimal("0.1"), ROUND_HALF_UP)
    )


def test_the_evidence_lists_each_component_with_its_hourly_price(acme, fleet, alice_client) -> None:
    services.recommendations_run(organization=acme, as_of=AS_OF)
    idle, lines = fleet["idle"]
    row = _row(idle, "stop_idle")
    price = row.evidence["price"]
    assert price["runtime_hourly"] == str(runtime_hourly(lines, PARTS))
    assert {code: c["hourly"] for code, c in price["runtime_components"].items()} == {
        p.code: str(p.contract_price.quantize(Decimal("0.0001"))) for p in PARTS if p.runtime
    }
    assert {
        code: c["hourly"] for code, c in price["persistent_components"].items()
    } == persistent_hourly(lines, PARTS)
    assert price["unknown_components"] == 0
    detail = alice_client.get(f"/api/v1/recommendations/{row.pk}").json()
    figures = {f["name"]: f["value"] for f in detail["evidence"]["figures"]}
    assert figures["price.runtime_components.v_cvm_gpu.hourly"] == "13.8000"
    assert figures["price.runtime_components.v_cvm_gpu.name"] == "GPU组件"
    assert figures["price.persistent_components.v_cvm_datadisk.hourly"] == "0.3200"


def test_an_idle_subscription_saves_its_amortized_runtime_a_month(acme) -> None:
    """Prepaid: the price is the month bought spread over its hours (5,990.40 of runtime over
    720 h = 8.32 CNY/h), so not renewing it saves 8.32 x 720 h, from the raw lines."""
    instance = make_instance(acme, "sub")
    instance.charge_type = ChargeType.PREPAID
    instance.save(update_fields=["charge_type"])
    set_usage(instance, gpu_util_p95=1.0)
    parts = gn7_monthly_parts()
    beijing = dt.timezone(dt.timedelta(hours=8))
    line = subscription_line(
        instance,
        dt.datetime(2026, 11, 1, tzinfo=beijing),
        dt.datetime(2026, 12, 1, tzinfo=beijing),
        parts,
    )
    assert isinstance(instance.account, CloudAccount)
    store(instance.account, [line])
    runtime = sum(
        (
            Decimal(c["RealCost"])
            for c in line["ComponentSet"]
            if c["ComponentCode"] in {p.code for p in parts if p.runtime}
        ),
        Decimal(0),
    )
    hourly = (runtime / 720).quantize(Decimal("0.0001"), rounding=ROUND_HALF_UP)
    services.recommendations_run(organization=acme, as_of=AS_OF)
    row = _row(instance, "stop_idle")
    assert row.monthly_saving == cents(hourly * 720) == Decimal("5990.40")
    assert row.evidence["price"]["runtime_hourly"] == "8.3200"
