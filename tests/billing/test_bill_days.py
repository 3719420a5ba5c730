"""The instance-day rollups of runtime lines and of components always equal their bill lines.

The lines come through the real bills sync from the simulator's bill book (two instances, as in
``test_month_boundary``): first reads, re-reads of a month whose lines change or disappear, late
adjustments, a project re-allocation, and lines attached to an instance after they were stored.
After each, the rollup is compared with sums computed here from the lines, line by line.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterator
from decimal import Decimal
from typing import Any, cast

import pytest

from apps.accounts.models import Organization
from apps.billing.instances import bill_lines_learn_instances
from apps.billing.models import BillLine, InstanceBillDay, InstanceComponentDay
from apps.billing.rollups import _refresh_python, bill_days_refresh
from apps.billing.selectors import billed_runtime
from apps.cloud.models import CloudAccount, Instance, ProjectTagKey, SyncKind
from apps.cloud.projects import projects_reassign
from apps.cloud.providers.tencent.client import TencentClient
from apps.cloud.providers.tencent.simulator import SimulatedCloud
from apps.cloud.providers.tencent.simulator.components import COMPUTE
from apps.cloud.providers.tencent.simulator.fleet import LATE_ADJUSTMENTS, SPOT
from apps.cloud.services import cloud_account_create
from apps.cloud.sync import runner
from tests.billing.test_month_boundary import Clock, InstanceBills

pytestmark = pytest.mark.django_db

UTC = dt.UTC


class EditedBills(InstanceBills):
    """The simulator's lines, with some changed (a re-rated cost) or gone (a withdrawn line)."""

    def __init__(self, cloud: SimulatedCloud, instance_ids: set[str]) -> None:
        super().__init__(cloud, instance_ids)
        self.costs: dict[str, str] = {}
        self.withdrawn: set[str] = set()

    def describe_bill_detail(self, month: str) -> Iterator[dict[str, Any]]:
        for detail in super().describe_bill_detail(month):
            if detail["BillId"] in self.withdrawn:
                continue
            if detail["BillId"] in self.costs:
                detail = {
                    **detail,
                    "ComponentSet": [
                        {**c, "RealCost": self.costs[detail["BillId"]]}
                        if c["ComponentCode"] == COMPUTE.code
                        else c
                        for c in detail["ComponentSet"]
                    ],
                }
            yield detail


@pytest.fixture
def clock() -> Clock:
    return Clock(dt.datetime(2026, 11, 28, 4, 30, tzinfo=UTC))


@pytest.fixture
def bills(clock: Clock) -> EditedBills:
    cloud = SimulatedCloud(
        seed=1,
        now=clock,
        anchor=dt.datetime(2026, 11, 20, tzinfo=UTC),
        scenarios={LATE_ADJUSTMENTS},
    )
    adjusted = cloud.fleet.all_instances[0]  # the late adjustments are against it
    spot = cloud.fleet.find(charge_type=SPOT)[0]
    return EditedBills(cloud, {adjusted.instance_id, spot.instance_id})


@pytest.fixture
def account(acme: Organization) -> CloudAccount:
    return cloud_account_create(
        organization=acme, name="t", secret_id="AKID", secret_key="k", regions=["ap-guangzhou"]
    )


def add_instance(account: CloudAccount, provider_id: str) -> Instance:
    """The instance as the inventory would have stored it."""
    return Instance.objects.create(
        organization=account.organization,
        account=account,
        provider_id=provider_id,
        region="ap-guangzhou",
        instance_type="GN7.2XLARGE32",
        gpu_count=1,
        tags={"team": "vision"},
    )


def sync(account: CloudAccount, bills: EditedBills, clock: Clock, at: dt.datetime) -> None:
    clock.moment = at
    runner.run_kind(
        account, SyncKind.BILLS, now=at, client=cast(TencentClient, bills), backfill_days=3
    )
    runner.sync_release(account.pk, SyncKind.BILLS, next_run_at=at, success_at=at)


def _hourly_usage(line: BillLine) -> bool:
    return line.charge_category == "usage" and line.fee_end_at - line.fee_begin_at <= dt.timedelta(
        hours=1, seconds=1
    )


def _seconds(begin: dt.datetime, end: dt.datetime) -> int:
    # 10:00:00-10:59:59 bills 3,600 seconds: the last second is included.
    return int((end - begin).total_seconds()) + (1 if end.second == 59 else 0)


def from_lines(account: CloudAccount) -> dict[tuple, tuple[Decimal, int, int]]:
    """(month, instance, UTC day, currency) -> (cost, billed seconds, lines) of the runtime
    components (runtime or unknown class) of usage lines, each billed span's seconds once."""
    sums: dict[tuple, list] = defaultdict(lambda: [Decimal(0), set(), 0])
    lines = BillLine.objects.filter(
        account=account, instance__isnull=False, component_class__in=["runtime", "unknown"]
    )
    for line in lines:
        if not _hourly_usage(line):
            continue
        key = (
            line.month,
            line.instance_id,
            line.fee_begin_at.astimezone(UTC).date(),
            line.currency,
        )
        sums[key][0] += line.cost
        sums[key][1].add((line.fee_begin_at, line.fee_end_at))
        sums[key][2] += 1
    return {
        key: (cost, sum(_seconds(b, e) for b, e in spans), n)
        for key, (cost, spans, n) in sums.items()
    }


def components_from_lines(account: CloudAccount) -> dict[tuple, tuple[Decimal, int, int]]:
    """(month, instance, UTC day, currency, class, code) -> (cost, seconds, lines), line by line."""
    sums: dict[tuple, list] = defaultdict(lambda: [Decimal(0), 0, 0])
    for line in BillLine.objects.filter(account=account, instance__isnull=False):
        if not _hourly_usage(line):
            continue
        key = (
            line.month,
            line.instance_id,
            line.fee_begin_at.astimezone(UTC).date(),
            line.currency,
            line.component_class,
            line.component_code,
        )
        sums[key][0] += line.cost
        sums[key][1] += _seconds(line.fee_begin_at, line.fee_end_at)
        sums[key][2] += 1
    return {key: tuple(v) for key, v in sums.items()}


def rollup(account: CloudAccount) -> dict[tuple, tuple[Decimal, int, int]]:
    return {
        (row.month, row.instance_id, row.day, row.currency): (
            row.cost,
            row.billed_seconds,
            row.lines,
        )
        for row in InstanceBillDay.objects.filter(account=account)
    }


def component_rollup(account: CloudAccount) -> dict[tuple, tuple[Decimal, int, int]]:
    return {
        (
            row.month,
            row.instance_id,
            row.day,
            row.currency,
            row.component_class,
            row.component_code,
        ): (row.cost, row.billed_seconds, row.lines)
        for row in InstanceComponentDay.objects.filter(account=account)
    }


def assert_rollup_is_the_lines(account: CloudAccount) -> None:
    expected = from_lines(account)
    assert expected, "no lines to compare"
    assert rollup(account) == expected
    assert component_rollup(account) == components_from_lines(account)


def test_it_follows_inserts_rereads_changed_and_withdrawn_lines_and_adjustments(
    account: CloudAccount, bills: EditedBills, clock: Clock
) -> None:
    for provider_id in bills.instance_ids:
        add_instance(account, provider_id)
    sync(account, bills, clock, clock.moment)
    assert_rollup_is_the_lines(account)
    # A re-read of the month in which one line's cost changed and another line is gone.
    changed, withdrawn = (
        BillLine.objects.filter(account=account, component_code=COMPUTE.code, cost__gt=0)
        .order_by("fee_begin_at")
        .values_list("bill_id", flat=True)[:2]
    )
    bills.costs[changed] = "123.45000000"
    bills.withdrawn.add(withdrawn)
    sync(account, bills, clock, clock.moment + dt.timedelta(hours=1))
    assert BillLine.objects.get(bill_id=changed, component_code=COMPUTE.code).cost == Decimal(
        "123.45"
    )
    assert not BillLine.objects.filter(bill_id=withdrawn).exists()
    assert_rollup_is_the_lines(account)
    # Across the month's end (a UTC day holding lines of two bill months) and its late
    # adjustments, re-read daily until November is final.
    sync(account, bills, clock, dt.datetime(2026, 11, 30, 16, 30, tzinfo=UTC))
    for day in range(2, 7):
        sync(account, bills, clock, dt.datetime(2026, 12, day, 4, 30, tzinfo=UTC))
    assert BillLine.objects.filter(month="2026-11", action_type="adjustment").count() == 2
    assert len({(month, day) for month, _i, day, _c in rollup(account)}) > len(
        {day for _m, _i, day, _c in rollup(account)}
    ), "no UTC day with lines of two bill months"
    assert_rollup_is_the_lines(account)


def test_it_is_unchanged_by_a_project_reallocation(
    acme: Organization, account: CloudAccount, bills: EditedBills, clock: Clock
) -> None:
    for provider_id in bills.instance_ids:
        add_instance(account, provider_id)
    sync(account, bills, clock, clock.moment)
    before = rollup(account)
    projects = dict(BillLine.objects.filter(account=account).values_list("pk", "project_id"))
    ProjectTagKey.objects.create(organization=acme, key="team")
    projects_reassign(acme)
    moved = dict(BillLine.objects.filter(account=account).values_list("pk", "project_id"))
    assert moved != projects, "no bill line changed project"
    assert rollup(account) == before
    assert_rollup_is_the_lines(account)


def test_it_takes_in_lines_attached_to_an_instance_after_they_were_stored(
    account: CloudAccount, bills: EditedBills, clock: Clock
) -> None:
    sync(account, bills, clock, clock.moment)  # the inventory knows neither instance yet
    assert not InstanceBillDay.objects.filter(account=account).exists()
    add_instance(account, sorted(bills.instance_ids)[0])
    assert bill_lines_learn_instances(account=account, now=clock.moment) > 0
    assert_rollup_is_the_lines(account)


def test_it_sums_the_same_in_python_and_in_postgresql(
    account: CloudAccount, bills: EditedBills, clock: Clock
) -> None:
    for provider_id in bills.instance_ids:
        add_instance(account, provider_id)
    sync(account, bills, clock, dt.datetime(2026, 11, 30, 16, 30, tzinfo=UTC))
    in_sql = rollup(account), component_rollup(account)
    InstanceBillDay.objects.all().delete()
    InstanceComponentDay.objects.all().delete()
    _refresh_python(account, None)
    assert (rollup(account), component_rollup(account)) == in_sql


def test_it_gives_the_rules_the_sums_of_every_line_of_a_window_not_on_midnights(
    account: CloudAccount, bills: EditedBills, clock: Clock
) -> None:
    instances = [add_instance(account, provider_id) for provider_id in bills.instance_ids]
    sync(account, bills, clock, dt.datetime(2026, 11, 30, 16, 30, tzinfo=UTC))
    bill_days_refresh(account=account)  # idempotent: every month again
    assert_rollup_is_the_lines(account)
    for start, end in [
        (dt.datetime(2026, 11, 25, 7, tzinfo=UTC), dt.datetime(2026, 11, 30, 7, tzinfo=UTC)),
        (dt.datetime(2026, 11, 26, tzinfo=UTC), dt.datetime(2026, 11, 29, tzinfo=UTC)),
        (dt.datetime(2026, 11, 27, 3, tzinfo=UTC), dt.datetime(2026, 11, 27, 9, tzinfo=UTC)),
    ]:
        got = billed_runtime([i.pk for i in instances], start, end)
        for instance in instances:
            lines = [
                line
                for line in BillLine.objects.filter(
                    instance=instance, fee_begin_at__gte=start, fee_begin_at__lt=end
                )
                if _hourly_usage(line)
            ]
            runtime = [line for line in lines if line.component_class in ("runtime", "unknown")]
            cost = sum((line.cost for line in runtime), Decimal(0))
            seconds = sum(
                _seconds(b, e) for b, e in {(x.fee_begin_at, x.fee_end_at) for x in runtime}
            )
            assert seconds > 0
            assert (got[instance.pk].cost, got[instance.pk].seconds) == (cost, seconds)
            parts: dict[tuple[str, str], Decimal] = defaultdict(Decimal)
            for line in lines:
                parts[(line.component_class, line.component_code)] += line.cost
            assert {
                (c.component_class, c.code): c.cost for c in got[instance.pk].components
            } == dict(parts)
