"""Bills syncs across a month's end, in Beijing time (bill months) and in the organization's.

The bill lines come from the simulator's bill book with its ``late_adjustments`` scenario (a
month gets adjustment lines on the 2nd and 5th day after it ends), for two instances only, as a
``ResourceId`` filter of DescribeBillDetail would return them: a whole month of the whole fleet
over HTTP for two dozen syncs would take minutes. Everything after the client is the real sync.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any, cast
from zoneinfo import ZoneInfo

import pytest

from apps.accounts.models import Organization
from apps.billing.models import BillLine
from apps.billing.selectors import cost_total
from apps.billing.sync import BillsResult
from apps.cloud.models import CloudAccount, SyncKind
from apps.cloud.providers.tencent.client import TencentClient
from apps.cloud.providers.tencent.simulator import SimulatedCloud
from apps.cloud.providers.tencent.simulator.constants import to_epoch
from apps.cloud.providers.tencent.simulator.fleet import LATE_ADJUSTMENTS, SPOT
from apps.cloud.sync import runner

pytestmark = pytest.mark.django_db

NEW_YORK = ZoneInfo("America/New_York")


class Clock:
    def __init__(self, moment: datetime) -> None:
        self.moment = moment

    def __call__(self) -> datetime:
        return self.moment


class InstanceBills:
    """DescribeBillDetail for a few instances, exactly the lines the simulator publishes."""

    def __init__(self, cloud: SimulatedCloud, instance_ids: set[str]) -> None:
        self.cloud, self.instance_ids = cloud, instance_ids

    def describe_bill_detail(self, month: str) -> Iterator[dict[str, Any]]:
        for line in self.cloud.bills.lines(month, self.cloud.now()):
            if line.instance_id in self.instance_ids:
                yield line.detail

    def expected_total(self, start: datetime, end: datetime, months: list[str]) -> Decimal:
        """Sum of the published lines whose fee hour starts in [start, end)."""
        return sum(
            (
                line.total_cny
                for month in months
                for line in self.cloud.bills.lines(month, self.cloud.now())
                if line.instance_id in self.instance_ids
                and to_epoch(start) <= line.fee_begin < to_epoch(end)
            ),
            Decimal(0),
        )


@pytest.fixture
def clock() -> Clock:
    return Clock(datetime(2026, 11, 28, 4, 30, tzinfo=UTC))


@pytest.fixture
def bills(clock: Clock) -> InstanceBills:
    cloud = SimulatedCloud(
        seed=1, now=clock, anchor=datetime(2026, 11, 20, tzinfo=UTC), scenarios={LATE_ADJUSTMENTS}
    )
    adjusted = cloud.fleet.all_instances[0]  # the late adjustments are against it
    spot = cloud.fleet.find(charge_type=SPOT)[0]
    return InstanceBills(cloud, {adjusted.instance_id, spot.instance_id})


@pytest.fixture
def account(acme: Organization) -> CloudAccount:
    from apps.cloud.services import cloud_account_create

    acme.timezone = "America/New_York"
    acme.save(update_fields=["timezone"])
    return cloud_account_create(
        organization=acme, name="t", secret_id="AKID", secret_key="k", regions=["ap-guangzhou"]
    )


def sync(account: CloudAccount, bills: InstanceBills, clock: Clock, at: datetime) -> list[str]:
    clock.moment = at
    results: list[BillsResult] = runner.run_kind(
        account,
        SyncKind.BILLS,
        now=at,
        client=cast(TencentClient, bills),
        backfill_days=3,
    )
    runner.sync_release(account.pk, SyncKind.BILLS, next_run_at=at, success_at=at)
    return [result.month for result in results]


def test_it_reads_the_last_beijing_hour_of_a_month_once_the_month_has_changed(
    account: CloudAccount, bills: InstanceBills, clock: Clock
) -> None:
    assert sync(account, bills, clock, clock.moment) == ["2026-11"]
    # 15:30 UTC is 23:30 in Beijing: the 23:00 hour is not published yet.
    assert sync(account, bills, clock, datetime(2026, 11, 30, 15, 30, tzinfo=UTC)) == ["2026-11"]
    last_hour = datetime(2026, 11, 30, 15, tzinfo=UTC)  # 23:00 in Beijing
    assert not BillLine.objects.filter(fee_begin_at=last_hour, cost__gt=0).exists()
    # 16:30 UTC is December 1st in Beijing: November is read once more, with its last hour.
    months = sync(account, bills, clock, datetime(2026, 11, 30, 16, 30, tzinfo=UTC))
    assert months == ["2026-11", "2026-12"]
    assert BillLine.objects.filter(fee_begin_at=last_hour, month="2026-11", cost__gt=0).exists()
    assert sync(account, bills, clock, datetime(2026, 11, 30, 17, 30, tzinfo=UTC)) == ["2026-12"]
    november = BillLine.objects.filter(month="2026-11")
    assert cost_total(november) == bills.expected_total(
        datetime(2026, 11, 1, tzinfo=UTC) - timedelta(hours=8),
        datetime(2026, 12, 1, tzinfo=UTC) - timedelta(hours=8),
        ["2026-11"],
    )


def test_it_rereads_the_previous_month_until_its_adjustments_are_final(
    account: CloudAccount, bills: InstanceBills, clock: Clock
) -> None:
    sync(account, bills, clock, clock.moment)
    sync(account, bills, clock, datetime(2026, 11, 30, 16, 30, tzinfo=UTC))
    read_november_on = []
    for day in range(2, 11):
        at = datetime(2026, 12, day, 4, 30, tzinfo=UTC)  # 12:30 in Beijing
        if "2026-11" in sync(account, bills, clock, at):
            read_november_on.append(day)
    # Adjustments arrive on the 2nd and the 5th; the 6th finds nothing new: final.
    assert read_november_on == [2, 3, 4, 5, 6]
    adjustments = BillLine.objects.filter(month="2026-11", action_type="adjustment")
    assert sorted(adjustments.values_list("cost", flat=True)) == [Decimal("-8.8"), Decimal("-1.25")]
    assert cost_total(BillLine.objects.filter(month="2026-11")) == bills.expected_total(
        datetime(2026, 10, 31, 16, tzinfo=UTC), datetime(2026, 11, 30, 16, tzinfo=UTC), ["2026-11"]
    )


def test_it_completes_the_organizations_own_month_across_two_bill_months(
    account: CloudAccount, bills: InstanceBills, clock: Clock
) -> None:
    # November in New York ends at 05:00 UTC on December 1st, 13:00 in Beijing: its last 13
    # hours are in the December bill month.
    local_start = datetime(2026, 11, 1, tzinfo=NEW_YORK)
    local_end = datetime(2026, 12, 1, tzinfo=NEW_YORK)
    sync(account, bills, clock, clock.moment)
    at = datetime(2026, 11, 30, 14, 30, tzinfo=UTC)
    while at <= datetime(2026, 12, 1, 6, 30, tzinfo=UTC):
        sync(account, bills, clock, at)
        at += timedelta(hours=1)
    local_november = BillLine.objects.filter(
        fee_begin_at__gte=local_start, fee_begin_at__lt=local_end
    )
    assert set(local_november.values_list("month", flat=True)) == {"2026-11", "2026-12"}
    expected = bills.expected_total(local_start, local_end, ["2026-11", "2026-12"])
    assert expected > 0
    assert cost_total(local_november) == expected
    last_local_hour = datetime(2026, 11, 30, 23, tzinfo=NEW_YORK)
    assert BillLine.objects.filter(fee_begin_at=last_local_hour, month="2026-12").exists()
