"""The billed-hours rollup answers what the bill lines answer, line by line.

On the simulator's fleet (bills synced, three days analysed) with awkward lines added by hand
and announced by billing's signal: a refund of a billed hour, an hour billed in two lines, a
line cut mid-hour, a line ending on the next hour's 00:00 and a half-hour line in the middle of
a whole day. The summary's reader (``fleet_pricing``, the rollup for the whole UTC days) must
give every instance's figures exactly as ``pricing`` does from the lines and the minutes, for
periods on the local days of two timezones (one of them half an hour off UTC's hours).
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from decimal import Decimal

import pytest

from apps.analysis import fleet_pricing, pricing
from apps.analysis.engine import Phase
from apps.analysis.models import BilledHoursDay
from apps.billing.models import BillLine
from apps.billing.signals import bill_lines_changed
from apps.cloud.models import Instance
from tests.costs.conftest import billed  # noqa: F401  (fixture)

pytestmark = [pytest.mark.django_db, pytest.mark.integration]

DAY = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)


def _line(instance: Instance, begin: dt.datetime, end: dt.datetime, cost: str, n: int) -> BillLine:
    return BillLine(
        organization=instance.organization,
        account=instance.account,
        bill_id=f"hand-{instance.pk}-{n}",
        component_code="v_cvm_compute",
        item_code="sv_hand",
        month=begin.astimezone(zoneinfo.ZoneInfo("Asia/Shanghai")).strftime("%Y-%m"),
        resource_id=instance.provider_id,
        instance=instance,
        fee_begin_at=begin,
        fee_end_at=end,
        list_cost=Decimal(cost),
        cost=Decimal(cost),
        currency="CNY",
    )


def _periods(tz_name: str) -> list[tuple[dt.datetime, dt.datetime]]:
    tz = zoneinfo.ZoneInfo(tz_name)
    local = [dt.datetime(2026, 11, d, tzinfo=tz) for d in (1, 2, 3, 4)]
    # Two local days, one local day, and a period cut mid-hour inside a whole UTC day.
    return [
        (local[0], local[2]),
        (local[1], local[2]),
        (local[0], local[3]),
        (DAY + dt.timedelta(hours=26, minutes=10), DAY + dt.timedelta(hours=47, minutes=35)),
    ]


def test_the_rollup_answers_what_the_lines_answer(billed) -> None:  # noqa: F811
    account, _simulator = billed
    instances = list(Instance.objects.filter(account=account).order_by("pk"))
    hourly = [
        i
        for i in instances
        if BillLine.objects.filter(
            instance=i, component_class="runtime", fee_begin_at__gte=DAY
        ).exists()
    ]
    assert len(hourly) >= 3
    # Instances without hourly lines (prepaid: priced from their purchases) take the other
    # path, PhaseDay's whole-day sums and the partial days' bytes: the periods below cut days.
    assert len(hourly) < len(instances)
    a, b, c = hourly[:3]
    hour = DAY + dt.timedelta(hours=30)  # 2026-11-02 06:00 UTC, a whole UTC day
    second = dt.timedelta(seconds=1)
    lines = [
        # A refund of a billed hour (negative money, the same hour).
        _line(a, hour, hour + dt.timedelta(minutes=59, seconds=59), "-3.21000000", 1),
        # The same hour billed in two lines: one hour of use, both amounts.
        _line(a, hour + dt.timedelta(hours=2), hour + dt.timedelta(hours=3), "1.00000001", 2),
        # Cut mid-hour (a launch at 07:20), in a whole UTC day: read line by line.
        _line(
            b,
            hour + dt.timedelta(hours=1, minutes=20),
            hour + dt.timedelta(hours=2) - second,
            "2.50000000",
            3,
        ),
        # Half an hour in the middle of a day, and a line ending on the next hour's 00:00.
        _line(
            c,
            hour + dt.timedelta(hours=5),
            hour + dt.timedelta(hours=5, minutes=30),
            "0.75000000",
            4,
        ),
        _line(c, DAY + dt.timedelta(hours=20), DAY + dt.timedelta(hours=21), "4.00000000", 5),
        # At the edge of the local days (16:00 UTC is Shanghai's midnight), cut by it.
        _line(
            c,
            DAY + dt.timedelta(hours=15, minutes=40),
            DAY + dt.timedelta(hours=16, minutes=40),
            "1.20000000",
            6,
        ),
    ]
    # The odd lines of b and c replace the hourly lines of the hours they cover (a launch at
    # 07:20 is billed from 07:20): the instance's bill for those minutes is the odd line.
    for line in lines[2:]:
        assert line.instance is not None
        BillLine.objects.filter(
            instance=line.instance,
            component_class="runtime",
            fee_begin_at__gt=line.fee_begin_at - dt.timedelta(hours=1),
            fee_begin_at__lt=line.fee_end_at,
        ).delete()
    BillLine.objects.bulk_create(lines)
    bill_lines_changed.send(
        sender=BillLine, organization=a.organization, months=sorted({x.month for x in lines})
    )
    rollup = BilledHoursDay.objects.filter(instance__in=hourly, day=hour.date())
    assert rollup.filter(other_lines__gt=0).exists(), "irregular lines are flagged"
    assert rollup.get(instance=a).hours & (1 << 8), "two lines of one hour: a billed hour"
    checked = 0
    for tz_name in ("Asia/Shanghai", "Asia/Kolkata"):
        for start, end in _periods(tz_name):
            expected = pricing.instances_waste(
                instances=instances, start=start, end=end, currency="CNY"
            )
            served = fleet_pricing.instances_waste(
                instances=instances, start=start, end=end, currency="CNY"
            )
            assert served == expected, (tz_name, start, end)
            assert sum(i.by_phase[Phase.TRAINING].minutes for i in served) > 0
            checked += 1
    assert checked == 8
