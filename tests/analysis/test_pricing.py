"""Waste priced from the bills: phases sum exactly to what was billed, with honest fallbacks."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from decimal import Decimal

import pytest

from apps.analysis import services
from apps.analysis.engine import Phase
from apps.analysis.pricing import instances_waste
from apps.billing.models import BillLine
from apps.cloud.models import Instance, InstancePrice
from tests.analysis.conftest import AS_OF, START

pytestmark = pytest.mark.django_db

# 8-decimal amounts like Tencent's RealCost strings; 24 of them do not sum to whole cents.
COMPUTE_COST = Decimal("8.68333337")
DISK_COST = Decimal("0.05000000")


def bill_hours(
    instance: Instance, first: dt.datetime, hours: int, *, compute: Decimal = COMPUTE_COST
) -> None:
    lines = []
    for h in range(hours):
        begin = first + dt.timedelta(hours=h)
        for code, cls, cost in (
            ("v_cvm_compute", "runtime", compute),
            ("v_cvm_disk_system", "storage", DISK_COST),
        ):
            lines.append(
                BillLine(
                    organization=instance.organization,
                    account=instance.account,
                    bill_id=f"{instance.provider_id}-{begin:%Y%m%d%H}",
                    component_code=code,
                    item_code=f"sv_{code}",
                    month=begin.strftime("%Y-%m"),
                    resource_id=instance.provider_id,
                    instance=instance,
                    fee_begin_at=begin,
                    fee_end_at=begin + dt.timedelta(minutes=59, seconds=59),
                    list_cost=cost,
                    cost=cost,
                    component_class=cls,
                )
            )
    BillLine.objects.bulk_create(lines)


@pytest.fixture
def analysed(fleet: list[Instance]) -> list[Instance]:
    services.analysis_run(instance_ids=[i.pk for i in fleet], start=START, end=AS_OF, as_of=AS_OF)
    return fleet


def test_it_sums_the_phases_exactly_to_the_instances_billed_compute_cost(
    analysed: list[Instance],
) -> None:
    train = analysed[0]
    bill_hours(train, START, 48)
    (figures,) = instances_waste(
        instances=[train], start=START, end=START + dt.timedelta(days=2), currency="CNY"
    )
    billed = (COMPUTE_COST * 48).quantize(Decimal("0.01"))  # disk is not GPU money
    assert figures.cost_source == "bills"
    assert figures.billed_cost == COMPUTE_COST * 48
    assert figures.total_cost == billed
    assert sum(f.cost for f in figures.by_phase.values()) == billed
    assert sum(f.minutes for f in figures.by_phase.values()) == 48 * 60
    assert figures.by_phase[Phase.TRAINING].cost > 0


def test_it_puts_no_money_on_hours_without_a_compute_charge(analysed: list[Instance]) -> None:
    idle = analysed[1]
    # Billed for the first 10 hours only (stopped with STOP_CHARGING afterwards).
    bill_hours(idle, START, 10)
    (figures,) = instances_waste(
        instances=[idle], start=START, end=START + dt.timedelta(days=1), currency="CNY"
    )
    assert sum(f.minutes for f in figures.by_phase.values()) == 10 * 60
    assert figures.idle_cost == (COMPUTE_COST * 10).quantize(Decimal("0.01"))


def test_it_prorates_a_line_cut_by_the_period(analysed: list[Instance]) -> None:
    train = analysed[0]
    bill_hours(train, START, 2, compute=Decimal("6.00000000"))
    (figures,) = instances_waste(
        instances=[train],
        start=START + dt.timedelta(minutes=30),
        end=START + dt.timedelta(hours=2),
        currency="CNY",
    )
    assert figures.total_cost == Decimal("9.00")
    assert sum(f.minutes for f in figures.by_phase.values()) == 90


def test_it_falls_back_to_the_list_price_without_bills_and_says_so(
    make_instance: Callable[..., Instance], analysed: list[Instance]
) -> None:
    serve = analysed[2]
    serve.charge_type = "PREPAID"
    serve.save()
    assert serve.account is not None
    InstancePrice.objects.create(
        account=serve.account,
        region="ap-shanghai",
        zone=serve.zone,
        instance_type=serve.instance_type,
        charge_type="PREPAID",
        monthly=Decimal("3600.00"),
    )
    unpriced = analysed[3]
    figures = instances_waste(
        instances=[serve, unpriced], start=START, end=START + dt.timedelta(days=1), currency="CNY"
    )
    assert figures[0].cost_source == "list_price"
    assert figures[0].total_cost == Decimal("120.00")  # 3600 / 720 h x 24 h
    assert sum(f.cost for f in figures[0].by_phase.values()) == Decimal("120.00")
    # Two cards: GPU-hours are per card, money per instance.
    assert sum(f.gpu_hours for f in figures[0].by_phase.values()) == Decimal("48.0000")
    assert figures[1].cost_source == "unpriced"
