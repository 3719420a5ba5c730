"""Cost per 1M samples of an instance, recomputed by hand from its bill lines and counters."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from apps.accounts.models import Organization
from apps.billing.models import BillLine
from apps.cloud.models import CloudAccount, Instance
from apps.costs.work import NO_COUNTER, NO_WORK, cost_per_million_work
from apps.metrics.models import WorkCounterPoint

pytestmark = pytest.mark.django_db
START = dt.datetime(2026, 11, 30, 8, tzinfo=dt.UTC)
END = START + dt.timedelta(hours=3)


@pytest.fixture
def fleet(acme: Organization) -> dict[str, Instance]:
    account = CloudAccount.objects.create(
        organization=acme, name="Tencent", secret_id="AKID", secret_key_encrypted="x",
        regions=["ap-shanghai"],
    )  # fmt: skip
    fleet = {}
    for name in ("train", "idle", "unreported"):
        fleet[name] = instance = Instance.objects.create(
            organization=acme, account=account, provider_id=f"ins-{name}", name=name,
            region="ap-shanghai", instance_type="GN10Xp.20XLARGE320", gpu_count=8,
        )  # fmt: skip
        # Hours 07:00 (before), 08:00-10:00 (the period) and 11:00 (after); a GPU hour and a
        # disk line each hour, and a refund inside the period.
        hours = [(-1, "99", "1"), (0, "28.5", "0.125"), (1, "28.5", "0.125"), (2, "28.5", "0.125")]
        for hour, compute, disk in [*hours, (3, "99", "1")]:
            refund = [("v_cvm_refund", "-0.875")] if hour == 1 else []
            for code, cost in [("v_cvm_compute", compute), ("v_cvm_disk", disk), *refund]:
                begin = START + dt.timedelta(hours=hour)
                BillLine.objects.create(
                    organization=acme, account=account, bill_id=f"{name}-{hour}-{code}",
                    component_code=code, item_code="cvm", month="2026-11", instance=instance,
                    resource_id=instance.provider_id, fee_begin_at=begin,
                    fee_end_at=begin + dt.timedelta(minutes=59, seconds=59),
                    list_cost=Decimal(cost), cost=Decimal(cost),
                )  # fmt: skip
    return fleet


def points(instance: Instance, *values: tuple[dt.timedelta, float]) -> None:
    for offset, value in values:
        WorkCounterPoint.objects.create(
            instance=instance, source="report", name="samples", sampled_at=START + offset,
            value=value, received_at=END,
        )  # fmt: skip


def test_it_divides_the_periods_bill_by_the_counters_progress(
    acme: Organization, fleet: dict[str, Instance]
) -> None:
    minute = dt.timedelta(minutes=1)
    points(
        fleet["train"],
        (-30 * minute, 400_000),  # before the period
        (-10 * minute, 1_000_000),  # the last point at or before its start: the baseline
        (90 * minute, 1_250_000),
        (179 * minute, 1_600_000),  # the last point before its end
        (181 * minute, 9_999_999),  # after it
    )
    points(fleet["idle"], (10 * minute, 52_000), (170 * minute, 52_000))
    figures = cost_per_million_work(
        organization=acme, instances=list(fleet.values()), source="report", name="samples",
        start=START, end=END,
    )  # fmt: skip
    train, idle, unreported = figures
    # By hand: 3 hours x (28.5 + 0.125) - 0.875 = 85 yuan; 1,600,000 - 1,000,000 = 600,000
    # samples; 85 / 0.6 = 141.6666... yuan per million.
    assert (train.spend, train.work, train.cost_per_million) == (
        Decimal("85"),
        600_000,
        Decimal("141.666667"),
    )
    assert (train.currency, train.reason) == ("CNY", None)
    assert (idle.spend, idle.work, idle.cost_per_million, idle.reason) == (
        Decimal("85"),
        0,
        None,
        NO_WORK,
    )
    assert (unreported.work, unreported.cost_per_million, unreported.reason) == (
        None,
        None,
        NO_COUNTER,
    )


def test_it_counts_a_counter_first_seen_in_the_period_from_its_first_point(
    acme: Organization, fleet: dict[str, Instance]
) -> None:
    points(fleet["train"], (dt.timedelta(minutes=5), 2_000), (dt.timedelta(minutes=125), 302_000))
    (train,) = cost_per_million_work(
        organization=acme, instances=[fleet["train"]], source="report", name="samples",
        start=START, end=END,
    )  # fmt: skip
    assert train.work == 300_000
    assert train.cost_per_million == Decimal("283.333333")  # 85 / 0.3
